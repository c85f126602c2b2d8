"""CrossEncoderJudge: a local sequence-classification checkpoint as a judge that reports P(yes).

Any folder in the Hugging Face layout (``config.json``, weights, ``tokenizer.json``) -- the one
``ragjury train`` writes, or one the user brought (an HHEM- or MiniCheck-style NLI model, a
reranker) -- reads each item as a text pair and gives P(yes). A ``model.onnx`` in the folder runs
on onnxruntime + tokenizers alone (no torch); a folder with only ``model.safetensors`` (or
``pytorch_model.bin``) needs torch and transformers (extra ``ragjury[train]``). An optional
``ragjury.json`` sidecar names the task, the item fields read as the pair, the positive label and
the maximum length, and may choose the folder's int8 weights (``"weights": "int8"``; never read
unasked, ``cross_encoder_int8`` makes them). A folder whose files do not load is refused in one line
naming the file (``CrossEncoderError``); a non-finite logit leaves that item unscored, never 0.

Heavy imports (onnxruntime, tokenizers, torch, transformers) happen inside functions, on first use.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import math
import os
import stat
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity, ResultCallback
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.value_tags import value_tag
from ragjury.rag_agent.judges.model_free.batch_envelopes import batch_envelopes

CONFIG = "config.json"
SIDECAR = "ragjury.json"
TOKENIZER = "tokenizer.json"
TOKENIZER_CONFIG = "tokenizer_config.json"
SPECIAL_TOKENS = "special_tokens_map.json"
ONNX_FILE = "model.onnx"
INT8_FILES: tuple[str, ...] = ("model_int8.onnx", "model_quantized.onnx")
"""An int8 copy of the model, as ``cross_encoder_int8`` and optimum's quantizer name it: read only
where ``ragjury.json`` says ``"weights": "int8"`` (it changes the scores a little; docs/benchmarks.md)."""
WEIGHTS = ("float32", "int8")
WEIGHT_FILES: tuple[str, ...] = (
    "model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json",
)
"""The weights torch + transformers read, in the order they are looked for."""

INT8_COMMAND = "python -m ragjury.rag_agent.judges.model_free.cross_encoder_int8"
"""What makes an int8 copy of a folder (``cross_encoder_int8``), named in the error that misses one."""
MAX_LENGTH_CAP = 512
"""Tokens per pair when the sidecar names no ``max_length``: the tokenizer's own, at most this."""
MAX_JSON_BYTES = 8 * 1024 * 1024
"""``config.json``, ``ragjury.json`` and ``tokenizer_config.json`` are a few kB: past this, refused unread."""
MAX_TOKENIZER_BYTES = 256 * 1024 * 1024
DEFAULT_BATCH = 8
"""Pairs a forward pass, chosen by ``bench/bench_cross_encoder.py --torch`` (MiniLM-L6, 2 cores,
load 1.9-2.1, pairs/s at batch 1 / 4 / 8 / 16 / 32 / 64): onnx 56 / 79 / 106 / 108 / 85 / 58 on
correctness pairs (~53 tokens) and 48 / 49 / 47 / 36 / 28 / 17 on faithfulness pairs (~130 tokens);
torch 74 / 112 / 115 / 109 / 88 / 60 and 34 / 45 / 51 / 40 / 35 / 23. 8 is at or near the best of
each; past 16 the padding and the activations outgrowing the cache cost more than the pass saves.
Measured with one pass at a time on two threads; kept when the passes went one a core (``workers``)."""
PAIR_VERSION = "1"
"""How items become text pairs (``PAIR_FIELDS``, ``pair_texts``): in the judge's identity, so a
change to it never reuses cached verdicts read from other pairs."""

Backend = Literal["auto", "onnx", "torch"]

PAIR_FIELDS: dict[str, tuple[str, str]] = {
    "relevance": ("query", "passage"),
    "faithfulness": ("context", "answer"),
    "correctness": ("question+reference", "answer"),
}
"""Per task, the two item fields a cross-encoder reads as its text pair (first, second) when its
``ragjury.json`` names none: relevance is (query, passage) as rerankers read it; faithfulness
(context, answer) as premise and hypothesis, as HHEM and MiniCheck read them; correctness the
question and the references on separate lines, then the answer. ``ragjury train`` builds its
training pairs from the same table (``pair_texts``), so a model reads at judging time what it
learnt from."""


def _lines(*texts: str | None) -> str:
    return "\n".join(text.strip() for text in texts if text and text.strip())


FIELDS: dict[str, dict[str, Callable[[Any], str]]] = {
    "relevance": {
        "query": lambda item: item.query,
        "passage": lambda item: item.retrieved_text,
        "expected": lambda item: item.expected_text or "",
    },
    "correctness": {
        "question": lambda item: item.question,
        "answer": lambda item: item.answer,
        "reference": lambda item: _lines(*item.references),
    },
    "faithfulness": {
        "question": lambda item: item.question or "",
        "answer": lambda item: item.answer,
        "context": lambda item: "\n\n".join(c.strip() for c in item.contexts if c.strip()),
    },
}
"""Per task, each field name a pair may read and how it reads an item: ``reference`` is every
reference answer, one a line; ``context`` every context passage, a blank line between them."""

POSITIVE_NAMES: tuple[str, ...] = (
    "yes", "relevant", "supported", "consistent", "entailment", "entailed", "true", "correct", "positive", "1",
)
"""Label names read as "yes" (case-insensitive) when ``ragjury.json`` declares no ``positive_label``."""


class CrossEncoderError(ValueError):
    """A cross-encoder folder that cannot be used: one line naming the file."""


def tasks() -> tuple[str, ...]:
    """The tasks a cross-encoder can judge (those with a text pair)."""
    return tuple(PAIR_FIELDS)


def field_problem(task: str, fields: Sequence[str]) -> str | None:
    """Why ``fields`` cannot be a text pair of ``task`` (None when they can): two field specs,
    each one field of the task or several joined by ``+``."""
    known = FIELDS.get(task)
    if known is None:
        return f"a cross-encoder judges {', '.join(PAIR_FIELDS)}, not {task}"
    if len(fields) != 2 or not all(isinstance(f, str) and f for f in fields):
        return "must name two item fields, the first and second text of the pair"
    for spec in fields:
        for name in spec.split("+"):
            if name.strip() not in known:
                return f"'{name.strip()}' is not a field of a {task} item (fields: {', '.join(known)}; join several with '+')"
    return None


def pair_texts(task: str, item: Any, fields: Sequence[str] | None = None) -> tuple[str, str]:
    """The text pair a cross-encoder reads for ``item`` of ``task``: ``fields`` (a sidecar's) or
    the task's ``PAIR_FIELDS``; a field spec ``a+b`` is both fields' texts on separate lines."""
    chosen = tuple(fields) if fields is not None else PAIR_FIELDS.get(task)
    if chosen is None:
        raise ValueError(f"a cross-encoder judges {', '.join(PAIR_FIELDS)}, not {task}")
    problem = field_problem(task, chosen)
    if problem is not None:
        raise ValueError(problem)
    readers = FIELDS[task]
    first, second = (_lines(*(readers[name.strip()](item) for name in spec.split("+"))) for spec in chosen)
    return first, second


# -- the folder ------------------------------------------------------------------------------------


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0].strip() if text else type(error).__name__


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _read_json(path: Path, what: str, *, required: bool = True) -> dict[str, Any] | None:
    """A small JSON object file of the folder; None when absent and not ``required``."""
    if not path.exists():
        if required:
            raise CrossEncoderError(f"{path}: missing ({what})")
        return None
    if not _regular(path):
        raise CrossEncoderError(f"{path}: not a regular file ({what})")
    if path.stat().st_size > MAX_JSON_BYTES:
        raise CrossEncoderError(f"{path}: {path.stat().st_size:,} bytes, past the {MAX_JSON_BYTES:,} {what} may have")
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except RecursionError:
        raise CrossEncoderError(f"{path}: not a valid {what} (JSON nested too deeply)") from None
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise CrossEncoderError(f"{path}: not a valid {what} ({_first_line(error)})") from None
    if not isinstance(data, dict):
        raise CrossEncoderError(f"{path}: not a valid {what} (a JSON {type(data).__name__}, not an object)")
    return data


@dataclass(frozen=True)
class Sidecar:
    """What ``ragjury.json`` declares (each key optional); ``card`` is free-form and not read."""

    task: str | None = None
    fields: tuple[str, str] | None = None
    positive_label: str | None = None
    max_length: int | None = None
    weights: str | None = None
    """``int8``: judge with the folder's int8 file (``INT8_FILES``), the user's explicit choice."""


def read_sidecar(folder: Path) -> Sidecar:
    """``ragjury.json`` of ``folder``, checked field by field (an empty ``Sidecar`` when absent)."""
    path = folder / SIDECAR
    data = _read_json(path, "ragjury.json sidecar", required=False)
    if data is None:
        return Sidecar()
    task = data.get("task")
    if task is not None and (not isinstance(task, str) or task not in PAIR_FIELDS):
        raise CrossEncoderError(f"{path}: field 'task': {task!r} is not one of {', '.join(PAIR_FIELDS)}")
    fields = data.get("fields")
    if fields is not None:
        if not isinstance(fields, list) or len(fields) != 2 or not all(isinstance(f, str) and f.strip() for f in fields):
            raise CrossEncoderError(f"{path}: field 'fields': must be a list of two item field names, "
                                    'e.g. ["query", "passage"]')
        fields = (fields[0].strip(), fields[1].strip())
    positive = data.get("positive_label")
    if positive is not None and (isinstance(positive, bool) or not isinstance(positive, str | int)):
        raise CrossEncoderError(f"{path}: field 'positive_label': must be a label name of config.json's id2label")
    max_length = data.get("max_length")
    if max_length is not None and (isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 8):
        raise CrossEncoderError(f"{path}: field 'max_length': must be a whole number of tokens, at least 8")
    weights = data.get("weights")
    if weights is not None and weights not in WEIGHTS:
        raise CrossEncoderError(f"{path}: field 'weights': {weights!r} is not one of {', '.join(WEIGHTS)}")
    return Sidecar(task, fields, None if positive is None else str(positive), max_length, weights)


def positive_index(id2label: dict[int, str], declared: str | None, config: Path, sidecar: Path) -> int | None:
    """Which logit is "yes": None for a single logit (read through a sigmoid); else the declared
    ``positive_label``, or the one label named like yes, or ``LABEL_1`` of ``LABEL_0``/``LABEL_1``."""
    if len(id2label) == 1:
        return None
    if declared is not None:
        found = [i for i, name in id2label.items() if name == declared]
        found = found or [i for i, name in id2label.items() if name.lower() == declared.lower()]
        if len(found) != 1:
            raise CrossEncoderError(f"{sidecar}: field 'positive_label': {declared!r} is not one of config.json's "
                                    f"labels ({', '.join(repr(n) for n in id2label.values())})")
        return found[0]
    matching = [i for i, name in id2label.items() if name.strip().lower() in POSITIVE_NAMES]
    if len(matching) == 1:
        return matching[0]
    if len(id2label) == 2 and sorted(id2label.values()) == ["LABEL_0", "LABEL_1"]:
        return next(i for i, name in id2label.items() if name == "LABEL_1")
    which = "more than one label" if matching else "no label"
    raise CrossEncoderError(
        f"{config}: {which} of {', '.join(repr(n) for n in id2label.values())} reads as yes: declare "
        f'"positive_label" in {sidecar.name} beside it (e.g. {{"positive_label": "{id2label[max(id2label)]}"}})'
    )


def _labels(config: dict[str, Any], path: Path) -> dict[int, str]:
    raw = config.get("id2label")
    if raw is None:
        count = config.get("num_labels", 2)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise CrossEncoderError(f"{path}: field 'num_labels': must be a positive whole number")
        return {i: f"LABEL_{i}" for i in range(count)}
    if not isinstance(raw, dict) or not raw:
        raise CrossEncoderError(f"{path}: field 'id2label': must map label ids to names")
    try:
        labels = {int(key): str(name) for key, name in raw.items()}
    except (TypeError, ValueError):
        raise CrossEncoderError(f"{path}: field 'id2label': its keys must be label ids 0, 1, ...") from None
    if sorted(labels) != list(range(len(labels))):
        raise CrossEncoderError(f"{path}: field 'id2label': ids must be 0 to {len(labels) - 1}")
    count = config.get("num_labels")
    if isinstance(count, int) and not isinstance(count, bool) and count != len(labels):
        raise CrossEncoderError(f"{path}: num_labels {count} but id2label names {len(labels)} labels")
    return labels


ROBERTA_LIKE = frozenset({"roberta", "xlm-roberta", "xlm-roberta-xl", "camembert", "data2vec-text", "longformer", "mpnet"})
"""Models whose position ids start past the padding index: two fewer positions for tokens."""


def _special(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    return None


@dataclass(frozen=True)
class FolderSpec:
    """What a cross-encoder folder's small files say: which files, labels, pair and length."""

    folder: Path
    backend: Literal["onnx", "torch"]
    weights: Path
    labels: dict[int, str]
    positive: int | None
    sidecar: Sidecar
    max_length: int
    pad_token: str | None
    pad_id: int | None
    token_types: bool
    """Whether the model reads token type ids (``type_vocab_size`` > 1); zeros are fed otherwise."""
    int8: bool = False
    """Judged with the int8 file (``weights`` names it): the sidecar asked for it."""

    @property
    def reading(self) -> str:
        """What P(yes) is, for a description: the label, or the sigmoid of a single logit."""
        if self.positive is None:
            return "P = sigmoid of its one logit"
        return f"P(label '{self.labels[self.positive]}')"


def _module_missing(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is None


def read_folder(folder: str | Path, *, backend: Backend = "auto") -> FolderSpec:
    """Check ``folder`` and read its small files (nothing heavy is imported); one line naming the
    file on any problem."""
    given = Path(folder).expanduser()
    try:
        root = given.resolve()
    except (OSError, RuntimeError) as error:
        raise CrossEncoderError(f"{given}: cannot resolve the folder ({_first_line(error)})") from None
    if not root.exists():
        raise CrossEncoderError(f"{given}: no such folder (a cross-encoder folder holds config.json, weights and tokenizer.json)")
    if not root.is_dir():
        raise CrossEncoderError(f"{given}: not a folder (a cross-encoder folder holds config.json, weights and tokenizer.json)")
    config_path = root / CONFIG
    if not config_path.exists():
        raise CrossEncoderError(f"{config_path}: missing: not a model folder (save_pretrained writes config.json)")
    config = _read_json(config_path, "model config")
    assert config is not None
    sidecar = read_sidecar(root)
    labels = _labels(config, config_path)
    positive = positive_index(labels, sidecar.positive_label, config_path, root / SIDECAR)
    tokenizer_path = root / TOKENIZER
    if not tokenizer_path.exists():
        raise CrossEncoderError(f"{tokenizer_path}: missing (a fast tokenizer's file, as save_pretrained writes it)")
    if not _regular(tokenizer_path):
        raise CrossEncoderError(f"{tokenizer_path}: not a regular file")
    tokenizer_config = _read_json(root / TOKENIZER_CONFIG, "tokenizer config", required=False) or {}
    special = _read_json(root / SPECIAL_TOKENS, "special tokens map", required=False) or {}

    onnx = root / ONNX_FILE
    weights = next((root / name for name in WEIGHT_FILES if (root / name).exists()), None)
    chosen: Literal["onnx", "torch"]
    int8 = sidecar.weights == "int8"
    if int8:
        if backend == "torch":
            raise CrossEncoderError(f"{root / SIDECAR}: field 'weights': int8 runs on onnxruntime, not torch")
        onnx = next((root / name for name in INT8_FILES if (root / name).exists()), root / INT8_FILES[0])
        if not onnx.exists():
            raise CrossEncoderError(f"{root / SIDECAR}: field 'weights': int8, but the folder holds no "
                                    f"{' or '.join(INT8_FILES)} (make one: {INT8_COMMAND} {root})")
        weights = None
    if backend == "onnx" or int8 or (backend == "auto" and onnx.exists() and (weights is None or not _module_missing("onnxruntime"))):
        if not onnx.exists():
            raise CrossEncoderError(f"{onnx}: missing (backend onnx runs model.onnx)")
        chosen, weight_file = "onnx", onnx
    elif weights is not None:
        chosen, weight_file = "torch", weights
    elif backend == "torch":
        raise CrossEncoderError(f"{root}: no {' or '.join(WEIGHT_FILES[::2])} (backend torch reads them)")
    else:
        found = next((name for name in INT8_FILES if (root / name).exists()), None)
        hint = (f"; it holds {found} (int8): to judge with it, add \"weights\": \"int8\" to {SIDECAR}"
                if found else "")
        raise CrossEncoderError(f"{root}: no weights ({ONNX_FILE}, or {' / '.join(WEIGHT_FILES[::2])} for torch){hint}")
    if not _regular(weight_file):
        raise CrossEncoderError(f"{weight_file}: not a regular file")

    positions = config.get("max_position_embeddings")
    limit = positions if isinstance(positions, int) and not isinstance(positions, bool) and positions > 0 else None
    if limit is not None and config.get("model_type") in ROBERTA_LIKE:
        limit -= 2
    if sidecar.max_length is not None:
        if limit is not None and sidecar.max_length > limit:
            raise CrossEncoderError(f"{root / SIDECAR}: field 'max_length': {sidecar.max_length} tokens, past the "
                                    f"{limit} positions config.json gives the model")
        max_length = sidecar.max_length
    else:
        own = tokenizer_config.get("model_max_length")
        max_length = MAX_LENGTH_CAP
        if isinstance(own, int | float) and not isinstance(own, bool) and 8 <= own < MAX_LENGTH_CAP:
            max_length = int(own)
        if limit is not None and 8 <= limit < max_length:
            max_length = limit
    pad_token = _special(tokenizer_config.get("pad_token")) or _special(special.get("pad_token"))
    pad_id = config.get("pad_token_id") if isinstance(config.get("pad_token_id"), int) else None
    types = config.get("type_vocab_size", 2)
    token_types = isinstance(types, int) and not isinstance(types, bool) and types > 1
    return FolderSpec(root, chosen, weight_file, labels, positive, sidecar, max_length, pad_token, pad_id, token_types,
                      int8)


def _digest(spec: FolderSpec) -> str:
    """SHA-256 over the files that decide the output: the small ones, the weights judged with
    (every shard of a sharded checkpoint), so a retrained folder never reuses cached verdicts."""
    digest = hashlib.sha256()
    names = [CONFIG, SIDECAR, TOKENIZER, TOKENIZER_CONFIG, SPECIAL_TOKENS, spec.weights.name]
    if spec.weights.name.endswith(".index.json"):
        stem = spec.weights.name.removesuffix(".index.json").rsplit(".", 1)[0]
        names += sorted(p.name for p in spec.folder.iterdir() if p.name.startswith(stem + "-") and _regular(p))
    for name in names:
        path = spec.folder / name
        if not _regular(path):
            continue
        digest.update(f"{name}\0".encode())
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    return digest.hexdigest()


# -- running it ------------------------------------------------------------------------------------


def _tokenizer(spec: FolderSpec) -> Any:
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise CrossEncoderError(f"{spec.folder / TOKENIZER}: reading it needs the tokenizers package: "
                                "pip install 'ragjury[embeddings-onnx]'") from None
    path = spec.folder / TOKENIZER
    if path.stat().st_size > MAX_TOKENIZER_BYTES:
        raise CrossEncoderError(f"{path}: {path.stat().st_size:,} bytes, past the {MAX_TOKENIZER_BYTES:,} a tokenizer may have")
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as error:  # noqa: BLE001 - any parse failure is "this file does not load"
        raise CrossEncoderError(f"{path}: not a tokenizer the tokenizers library can load ({_first_line(error)})") from None
    pad_id = tokenizer.token_to_id(spec.pad_token) if spec.pad_token else None
    if pad_id is None:
        pad_id = spec.pad_id if spec.pad_id is not None else 0
    tokenizer.no_padding()
    tokenizer.enable_truncation(spec.max_length, strategy="longest_first")
    tokenizer.enable_padding(pad_id=pad_id, pad_token=spec.pad_token or tokenizer.id_to_token(pad_id) or "[PAD]")
    return tokenizer


FEEDS = ("input_ids", "attention_mask", "token_type_ids")
ONNX_THREADS = 8
"""At most this many forward passes at once, one a core, each on one thread (``CrossEncoder.workers``)."""


def _cores() -> int:
    """The cores this process may run on (its affinity where the system says, else the machine's)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class _Onnx:
    """``model.onnx`` in an onnxruntime session: fed only the inputs its graph declares."""

    def __init__(self, path: Path) -> None:
        try:
            import onnxruntime
        except ImportError:
            raise CrossEncoderError(f"{path}: running it needs onnxruntime and tokenizers: "
                                    "pip install 'ragjury[embeddings-onnx]'") from None
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        # one thread a forward pass, the batches spread over the cores by the caller (``workers``):
        # on MiniLM-L6, 2 cores, 68-71 pairs per CPU-second against 55 for one pass on a pool of two
        # threads (a spinning pool, onnxruntime's default, 43); graph level ALL ran no slower than
        # EXTENDED or BASIC; the sequential execution mode (bench/bench_cross_encoder.py --variants)
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        try:
            self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # noqa: BLE001 - any load failure is "this file does not load"
            raise CrossEncoderError(f"{path}: not an ONNX model onnxruntime can load ({_first_line(error)})") from None
        self.inputs = [i.name for i in self.session.get_inputs()]
        foreign = [name for name in self.inputs if name not in FEEDS]
        if "input_ids" not in self.inputs or foreign:
            raise CrossEncoderError(f"{path}: its graph takes inputs {self.inputs}; a cross-encoder is fed "
                                    f"{', '.join(FEEDS)} (input_ids required)")
        outputs = [o.name for o in self.session.get_outputs()]
        self.output = "logits" if "logits" in outputs else outputs[0]

    def logits(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        return np.asarray(self.session.run([self.output], {k: v for k, v in feeds.items() if k in self.inputs})[0])


class _Torch:
    """The checkpoint through transformers' ``AutoModelForSequenceClassification``, local files only."""

    def __init__(self, spec: FolderSpec) -> None:
        try:
            import torch
            import transformers
        except ImportError:
            raise CrossEncoderError(
                f"{spec.weights}: running it needs torch and transformers: pip install 'ragjury[train]', "
                f"or export {ONNX_FILE} beside it (then onnxruntime alone runs it)"
            ) from None
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        self.torch = torch
        log = transformers.logging
        verbosity, bars = log.get_verbosity(), log.is_progress_bar_enabled()
        log.set_verbosity_error()
        log.disable_progress_bar()
        try:
            model, info = transformers.AutoModelForSequenceClassification.from_pretrained(
                str(spec.folder), local_files_only=True, trust_remote_code=False, output_loading_info=True
            )
        except Exception as error:  # noqa: BLE001 - any load failure is "this checkpoint does not load"
            raise CrossEncoderError(f"{spec.weights}: transformers cannot load this checkpoint "
                                    f"({_first_line(error)})") from None
        finally:
            log.set_verbosity(verbosity)
            if bars:
                log.enable_progress_bar()
        missing = sorted(info.get("missing_keys") or ()) + sorted(info.get("mismatched_keys") or (), key=str)
        if missing:
            raise CrossEncoderError(f"{spec.weights}: holds no trained weights for {missing[0]}"
                                    f"{f' and {len(missing) - 1} more' if len(missing) > 1 else ''}: "
                                    "not a sequence-classification checkpoint (its head would be random)")
        self.model = model.eval()
        self.types = "token_type_ids" in inspect.signature(model.forward).parameters

    def logits(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        torch = self.torch
        given = {k: torch.from_numpy(v) for k, v in feeds.items() if k != "token_type_ids" or self.types}
        with torch.inference_mode():
            return self.model(**given).logits.float().numpy()  # type: ignore[no-any-return]


def probabilities_of(logits: np.ndarray, positive: int | None) -> np.ndarray:
    """P(yes) per row: the sigmoid of a single logit, else the softmax's share of ``positive``
    (NaN for a row with a non-finite logit)."""
    values = np.asarray(logits, dtype=np.float64)
    finite = np.isfinite(values).all(axis=1)
    safe = np.where(finite[:, None], values, 0.0)
    if positive is None:
        x = safe[:, 0]
        p = np.where(x >= 0, 1.0 / (1.0 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1.0 + np.exp(-np.abs(x))))
    else:
        shifted = np.exp(safe - safe.max(axis=1, keepdims=True))
        p = shifted[:, positive] / shifted.sum(axis=1)
    return np.where(finite, np.clip(p, 0.0, 1.0), np.nan)


class CrossEncoder:
    """A loaded folder: tokenizer and session, made once; ``probabilities`` for text pairs."""

    def __init__(self, spec: FolderSpec) -> None:
        self.spec = spec
        self.digest = _digest(spec)
        self.tokenizer = _tokenizer(spec)
        self.runner: _Onnx | _Torch = _Onnx(spec.weights) if spec.backend == "onnx" else _Torch(spec)
        self._lock = threading.Lock()  # the tokenizer's state is shared: one batch encoded at a time
        self.workers = max(1, min(_cores(), ONNX_THREADS)) if spec.backend == "onnx" else 1
        """Batches run at once (onnx: one a core, each pass on one thread; torch threads its own pass)."""
        logits = self._logits([("ragjury", "check")])  # the output's shape is checked now, not per item
        if logits.ndim != 2 or logits.shape[1] != len(spec.labels):
            raise CrossEncoderError(f"{spec.weights}: gives logits of shape {list(logits.shape)} for one pair; "
                                    f"config.json names {len(spec.labels)} label(s)")

    @property
    def description(self) -> str:
        weights = f", int8 weights {self.spec.weights.name}" if self.spec.int8 else ""
        return f"a cross-encoder at {self.spec.folder} ({self.spec.backend}{weights}), {self.spec.reading}"

    def _logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        with self._lock:
            encoded = self.tokenizer.encode_batch(list(pairs))
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64)}
        types = np.array([e.type_ids for e in encoded], dtype=np.int64)
        feeds["token_type_ids"] = types if self.spec.token_types else np.zeros_like(ids)
        try:
            return np.asarray(self.runner.logits(feeds))
        except Exception as error:  # noqa: BLE001 - a model that fails to run says so, naming its file
            raise CrossEncoderError(f"{self.spec.weights}: running it failed ({_first_line(error)})") from None

    def probabilities(self, pairs: Sequence[tuple[str, str]], batch_size: int = DEFAULT_BATCH) -> np.ndarray:
        """P(yes) of each pair, in the order given (NaN where a logit is not finite): the pairs
        sorted by length so a batch pads little, the batches spread over ``workers`` (fewer pairs
        than ``workers`` full batches: smaller batches, so every core has one). A pair's P does not
        depend on its batch (padding is masked: test_cross_encoder_batches.py). int8 weights run each
        pair alone: their activations are quantized with one range per batch, so a pair's P would
        move with its neighbours (by up to 0.004 on MiniLM); alone, it costs ~5 % of pairs per CPU-second."""
        out = np.full(len(pairs), np.nan, dtype=np.float64)
        batch_size = 1 if self.spec.int8 else batch_size
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        size = max(1, min(batch_size, -(-len(order) // self.workers)))
        chunks = [order[start : start + size] for start in range(0, len(order), size)]

        def run(chunk: list[int]) -> None:
            logits = self._logits([pairs[i] for i in chunk])
            if logits.shape != (len(chunk), len(self.spec.labels)):
                raise CrossEncoderError(f"{self.spec.weights}: gave logits of shape {list(logits.shape)} for "
                                        f"{len(chunk)} pairs; expected {[len(chunk), len(self.spec.labels)]}")
            out[chunk] = probabilities_of(logits, self.spec.positive)

        if self.workers == 1 or len(chunks) <= 1:
            for chunk in chunks:
                run(chunk)
            return out
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(min(self.workers, len(chunks)), thread_name_prefix="cross-encoder") as pool:
            for _ in pool.map(run, chunks):  # re-raises a batch's error here
                pass
        return out


_LOADED: dict[tuple[Any, ...], CrossEncoder] = {}
_LOADING = threading.Lock()


def _signature(spec: FolderSpec) -> tuple[Any, ...]:
    """Each file's size and change time: a folder rewritten in place is loaded again."""
    found = []
    for path in sorted(spec.folder.iterdir()):
        try:
            info = path.stat()
        except OSError:
            continue
        found.append((path.name, info.st_size, info.st_mtime_ns))
    return tuple(found)


def load_cross_encoder(folder: str | Path, *, task: str | None = None, backend: Backend = "auto") -> CrossEncoder:
    """The folder loaded once per process (again if its files change), checked for ``task``."""
    spec = read_folder(folder, backend=backend)
    if task is not None:
        check_task(spec, task)
    key = (spec.folder, spec.backend, _signature(spec))
    with _LOADING:
        loaded = _LOADED.get(key)
        if loaded is None:
            loaded = _LOADED[key] = CrossEncoder(spec)
    return loaded


def check_task(spec: FolderSpec, task: str) -> None:
    """Refuse a task the folder's sidecar was not made for, or whose fields it cannot read."""
    sidecar = spec.folder / SIDECAR
    if task not in PAIR_FIELDS:
        raise CrossEncoderError(f"{spec.folder}: a cross-encoder judges {', '.join(PAIR_FIELDS)}, not {task}")
    if spec.sidecar.task is not None and spec.sidecar.task != task:
        raise CrossEncoderError(f"{sidecar}: a cross-encoder for {spec.sidecar.task}, used for {task}")
    if spec.sidecar.fields is not None and (problem := field_problem(task, spec.sidecar.fields)) is not None:
        raise CrossEncoderError(f"{sidecar}: field 'fields': {problem}")


# -- the judge -------------------------------------------------------------------------------------


@value_tag("cross_encoder_score")
class CrossEncoderScore(BaseModel):
    """The cross-encoder's P(yes) and its verdict at the cut-off."""

    model_config = ConfigDict(frozen=True)

    probability: float = Field(ge=0.0, le=1.0)
    label: bool
    threshold: float = Field(ge=0.0, le=1.0)

    @property
    def reason(self) -> str:
        """What a verdict prints beside the label (``evals.adapters.judging.reason_of``)."""
        return f"P(yes) {self.probability:.3f} against the cut-off {self.threshold:g}"


class CrossEncoderJudge(BaseJudge[Any, CrossEncoderScore]):
    """Yes when the folder's P(yes) >= ``threshold``. Example::

        judge = CrossEncoderJudge("out/relevance-model", task="relevance")
        judge.judge_sync(RelevanceItem(query="boiling point of water", retrieved_text="Water boils at 100 C."))

    ``task`` defaults to the one the folder's ``ragjury.json`` names; ``backend`` ``auto`` runs
    ``model.onnx`` where the folder has one, else the weights through torch. The folder's digest
    is in the identity, so a retrained model never reuses another's cached verdicts."""

    name = "cross-encoder"

    def __init__(
        self,
        folder: str | Path,
        task: str | None = None,
        *,
        threshold: float = 0.5,
        batch_size: int = DEFAULT_BATCH,
        backend: Backend = "auto",
    ) -> None:
        if not 0.0 <= float(threshold) <= 1.0:
            raise ValueError("threshold must be in [0, 1]")
        self.model = load_cross_encoder(folder, task=task, backend=backend)
        spec = self.model.spec
        chosen = task or spec.sidecar.task
        if chosen is None:
            raise CrossEncoderError(f"{spec.folder}: name the task (relevance, correctness or faithfulness): "
                                    f"its {SIDECAR} names none")
        self.task = chosen
        self.fields = spec.sidecar.fields or PAIR_FIELDS[chosen]
        self.threshold = float(threshold)
        self.batch_size = max(1, int(batch_size))

    @property
    def identity(self) -> JudgeIdentity:
        spec = self.model.spec
        # int8 weights are named in the version (page, verdict, run header) and the params; float32 as
        # before, so its cached verdicts are kept. No model: that names an LLM's (calibrate, panels)
        int8 = f",weights=int8:{spec.weights.name}" if spec.int8 else ""
        return JudgeIdentity(
            name=self.name,
            prompt_version=f"{spec.folder.name}@{self.model.digest[:12]}{':int8' if spec.int8 else ''}",
            params=f"backend={spec.backend},pairs={PAIR_VERSION},threshold={self.threshold:g}{int8}",
        )

    def __repr__(self) -> str:
        return (f"CrossEncoderJudge(folder={str(self.model.spec.folder)!r}, task={self.task!r}, "
                f"backend={self.model.spec.backend!r}, threshold={self.threshold:g})")

    def scores(self, items: Sequence[Any]) -> tuple[list[CrossEncoderScore | None], list[str | None]]:
        """Each item's score, or the reason it has none (an empty text, a non-finite logit)."""
        reasons: list[str | None] = [None] * len(items)
        pairs: list[tuple[str, str]] = []
        live: list[int] = []
        for index, item in enumerate(items):
            try:
                first, second = pair_texts(self.task, item, self.fields)
            except AttributeError:
                reasons[index] = f"a {type(item).__name__} is not a {self.task} item"
                continue
            empty = [spec for spec, text in zip(self.fields, (first, second)) if not text.strip()]
            if empty:
                reasons[index] = f"empty {empty[0]}: nothing to judge"
                continue
            pairs.append((first, second))
            live.append(index)
        values: list[CrossEncoderScore | None] = [None] * len(items)
        if pairs:
            found = self.model.probabilities(pairs, self.batch_size)
            for index, p in zip(live, found):
                if math.isnan(p):
                    reasons[index] = f"{self.model.spec.weights} gave a non-finite logit for this item"
                else:
                    values[index] = CrossEncoderScore(probability=float(p), label=bool(p >= self.threshold),
                                                      threshold=self.threshold)
        return values, reasons

    async def _judge(self, item: Any) -> Judgment[CrossEncoderScore]:
        started = time.perf_counter()
        values, reasons = await asyncio.to_thread(self.scores, [item])
        return self.scored_or_unscored(values[0], reasons[0], started=started)

    async def ajudge_batch(
        self, items: Sequence[Any], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[CrossEncoderScore]]:
        """The whole batch in one pass (``batch_size`` pairs a forward), off the event loop."""
        started = time.perf_counter()
        try:
            values, reasons = await asyncio.to_thread(self.scores, items)
        except CrossEncoderError as error:
            values, reasons = [None] * len(items), [str(error)] * len(items)
        return batch_envelopes(self, values, reasons, elapsed_s=time.perf_counter() - started, on_result=on_result)


__all__ = [
    "CONFIG",
    "CrossEncoder",
    "CrossEncoderError",
    "CrossEncoderJudge",
    "CrossEncoderScore",
    "FIELDS",
    "FolderSpec",
    "ONNX_FILE",
    "PAIR_FIELDS",
    "POSITIVE_NAMES",
    "SIDECAR",
    "Sidecar",
    "field_problem",
    "load_cross_encoder",
    "pair_texts",
    "positive_index",
    "probabilities_of",
    "read_folder",
    "read_sidecar",
    "tasks",
]
