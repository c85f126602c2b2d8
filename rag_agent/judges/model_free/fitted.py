"""A judge fitted on the user's own labels: a logistic head over model-free signals.

A small judge agrees with people only fairly, and the user already labels a share of their items
(``estimate`` asks for 50-100 per system). ``ragjury fit`` turns those labels into a head: one
logistic model over signals every item already has (containment, reference recall and precision,
lengths; support's signals for faithfulness), stored with what it was fitted on. ``--judge
fitted:HEAD.json`` applies it. A head file names its feature spec; a file fitted on another spec
is refused, since it would read the numbers in the wrong places.

A head may also read a local cross-encoder's logit P(yes) (``fit --cross-encoder DIR``): the file
then names that folder and the digest of its weights, and a folder holding other weights is refused.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os
import stat
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity, ResultCallback
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.value_tags import value_tag
from ragjury.rag_agent.judges.model_free.batch_envelopes import batch_envelopes
from ragjury.rag_agent.judges.model_free.contains import normalise_answer
from ragjury.rag_agent.judges.model_free.stacked import FEATURES as SUPPORT_SIGNALS
from ragjury.rag_agent.judges.model_free.stacked import signals, standardised_logistic

FEATURE_KIND = "model-free"
FEATURE_VERSION = "1"

FEATURES: dict[str, tuple[str, ...]] = {
    "correctness": ("contains", "reference_recall", "answer_precision", "full_recall", "log_answer_tokens"),
    "faithfulness": SUPPORT_SIGNALS,
}
"""The signals a head reads per task, in the stored weights' order."""

BASE_JUDGES: dict[str, str] = {"correctness": "contains", "faithfulness": "support", "relevance": "llm"}
"""The judge a head is measured against (the one its first signal comes from)."""

CROSS_ENCODER_FEATURE = "cross_encoder_logit"
"""The last feature of a model-free head fitted with ``--cross-encoder DIR``: logit P(yes) of that
folder's model on the task's text pair (``judges.model_free.cross_encoder``)."""

RELEVANCE_KIND = "relevance"
RELEVANCE_VERSION = "1"
RELEVANCE_FEATURES: tuple[str, ...] = ("llm_logit", "cosine")
"""What a relevance head may read, in this order: the ``llm`` judge's logit P("1") (the output a
run already pays for) and the query-passage cosine of the packaged MiniLM (independent of the
prompt). A head reads a prefix-free subset, named in its file (``judges.combined.fitted_relevance``)."""


def correctness_signals(item: CorrectnessItem) -> tuple[list[float], str | None]:
    """Containment, the best reference's token recall and the answer's precision, and length."""
    answer = normalise_answer(item.answer).split()
    if not answer:
        return [], "empty answer"
    answer_set = set(answer)
    joined = " ".join(answer)
    recall = precision = 0.0
    contained: bool | None = None
    for reference in item.references:
        tokens = normalise_answer(reference).split()
        if not tokens:
            continue
        contained = bool(contained) or " ".join(tokens) in joined
        recall = max(recall, sum(t in answer_set for t in tokens) / len(tokens))
        wanted = set(tokens)
        precision = max(precision, sum(t in wanted for t in answer) / len(answer))
    if contained is None:
        return [], "no usable reference"
    return [float(contained), recall, precision, float(recall == 1.0), math.log(len(answer))], None


def feature_values(task: str, item: Any) -> tuple[list[float], str | None]:
    """The head's inputs for one item of ``task``, or the reason there are none."""
    if task == "correctness":
        return correctness_signals(item)
    if task == "faithfulness":
        context = "\n\n".join(c for c in item.contexts if c.strip())
        values, _, reason = signals(item.answer, context)
        return values, reason
    raise ValueError(f"no model-free features for task '{task}' (fit supports {', '.join(FEATURES)})")


class HeadError(ValueError):
    """A head file that cannot be used here (unreadable, or fitted on another feature spec)."""


HEAD_FORMAT = "ragjury-head"
HEAD_VERSION = 1
MAX_HEAD_BYTES = 16 * 1024 * 1024
"""A head of a few signals is ~1 kB and one over a hidden state's components ~1 MB: past this the
file is refused before it is read (a 200 MB file is not a head)."""


class CrossEncoderRef(BaseModel):
    """The cross-encoder a head reads: its folder as ``fit`` was given it (absolute) and the SHA-256
    of the files that decide its output, so other weights put in that folder are refused."""

    model_config = ConfigDict(frozen=True, strict=True)

    folder: str = Field(min_length=1)
    digest: str = Field(pattern=r"^[0-9a-f]{64}$")


class Head(BaseModel):
    """A fitted head: standardisation, weights and cut-off, and what it was fitted and measured on.

    Strict: a number written as a string, a NaN or infinite weight (which would say "yes" to every
    item), another format or version are refused with the field named."""

    model_config = ConfigDict(frozen=True, strict=True, allow_inf_nan=False)

    format: Literal["ragjury-head"] = HEAD_FORMAT
    version: Literal[1] = HEAD_VERSION
    task: str
    feature_kind: str
    feature_version: str
    features: tuple[str, ...]
    model: str | None = None
    """The model whose outputs are features (None: model-free signals only)."""
    prompt_version: str | None = None
    cross_encoder: CrossEncoderRef | None = None
    """The cross-encoder whose logit P(yes) is the last feature (None: none read)."""
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float = Field(ge=0.0, le=1.0)
    l2: float = Field(ge=0.0)
    n: int = Field(ge=1)
    positives: int = Field(ge=0)
    fitted_on: str
    figures: dict[str, Any] = Field(default_factory=dict)
    """Cross-validated figures of the head and of the base judge on the same items (``ragjury fit``)."""

    @field_validator("mean", "scale", "weights", mode="before")
    @classmethod
    def _numbers(cls, value: Any) -> Any:
        """Lists in JSON (strict mode wants tuples), each entry a finite number, not a string."""
        if not isinstance(value, list | tuple):
            raise ValueError("must be a list of numbers")
        for entry in value:
            if isinstance(entry, bool) or not isinstance(entry, int | float) or not math.isfinite(entry):
                raise ValueError(f"must hold finite numbers, found {entry!r}")
        return tuple(float(v) for v in value)

    @field_validator("features", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise ValueError("must be a list of feature names")
        return tuple(value)

    @model_validator(mode="after")
    def _counts(self) -> Head:
        if self.positives > self.n:
            raise ValueError(f"positives {self.positives} exceeds n {self.n}")
        return self

    def probability(self, values: Sequence[float]) -> float:
        return standardised_logistic(values, self.mean, self.scale, self.weights, self.bias)

    def check_spec(self, where: str) -> None:
        if self.task == "relevance":
            self._check_relevance(where)
            return
        wanted = FEATURES.get(self.task)
        if wanted is None:
            raise HeadError(f"{where}: a head for task '{self.task}'; heads exist for "
                            f"{', '.join((*FEATURES, 'relevance'))}")
        if self.cross_encoder is not None:
            wanted = (*wanted, CROSS_ENCODER_FEATURE)
        if (self.feature_kind, self.feature_version, self.features) != (FEATURE_KIND, FEATURE_VERSION, wanted):
            raise HeadError(
                f"{where}: fitted on {self.feature_kind} features v{self.feature_version} {list(self.features)}; "
                f"this ragjury reads {FEATURE_KIND} v{FEATURE_VERSION} {list(wanted)}: refit it with `ragjury fit`"
            )
        if not len(self.mean) == len(self.scale) == len(self.weights) == len(wanted):
            raise HeadError(f"{where}: {len(self.weights)} weights for {len(wanted)} features")
        if any(s <= 0 or not math.isfinite(s) for s in self.scale):
            raise HeadError(f"{where}: a feature scale is not a positive number")

    def _check_relevance(self, where: str) -> None:
        if self.cross_encoder is not None:
            raise HeadError(f"{where}: a relevance head reads no cross-encoder (it reads {list(RELEVANCE_FEATURES)})")
        if (self.feature_kind, self.feature_version) != (RELEVANCE_KIND, RELEVANCE_VERSION):
            raise HeadError(f"{where}: fitted on {self.feature_kind} features v{self.feature_version}; this "
                            f"ragjury reads {RELEVANCE_KIND} v{RELEVANCE_VERSION}: refit it with `ragjury fit`")
        order = [RELEVANCE_FEATURES.index(f) for f in self.features if f in RELEVANCE_FEATURES]
        if not self.features or len(order) != len(self.features) or order != sorted(set(order)):
            raise HeadError(f"{where}: features {list(self.features)}; a relevance head reads some of "
                            f"{list(RELEVANCE_FEATURES)}, in that order")
        if "llm_logit" in self.features and not (self.model and self.prompt_version):
            raise HeadError(f"{where}: reads llm_logit but names no model or prompt_version it was fitted with")
        if not len(self.mean) == len(self.scale) == len(self.weights) == len(self.features):
            raise HeadError(f"{where}: {len(self.weights)} weights for {len(self.features)} features")
        if any(s <= 0 for s in self.scale):
            raise HeadError(f"{where}: a feature scale is not a positive number")


@cache
def _load(path: str, digest: str) -> Head:
    del digest  # part of the cache key: an edited file is read again
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except RecursionError:
        raise HeadError(f"{path}: not a ragjury head file (JSON nested too deeply)") from None
    except (OSError, ValueError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise HeadError(f"{path}: not a ragjury head file ({first})") from None
    if not isinstance(data, dict) or data.get("format") != HEAD_FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise HeadError(f"{path}: not a ragjury head file (format {found!r}, expected {HEAD_FORMAT!r})")
    try:
        head = Head.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        raise HeadError(f"{path}: field '{where}': {message}" if where else f"{path}: {message}") from None
    head.check_spec(path)
    return head


def file_digest(path: str | Path) -> str:
    """The head file's digest; special files (a FIFO, /dev/zero) and files past ``MAX_HEAD_BYTES``
    are refused before a byte is read, so neither hangs nor takes minutes."""
    try:
        info = os.stat(path)
    except OSError as error:
        raise HeadError(f"{path}: cannot read the head file ({error.strerror or error})") from None
    if not stat.S_ISREG(info.st_mode):
        raise HeadError(f"{path}: not a regular file (a head is a JSON file written by `ragjury fit`)")
    if info.st_size > MAX_HEAD_BYTES:
        raise HeadError(f"{path}: {info.st_size:,} bytes, past the {MAX_HEAD_BYTES:,} a head file may have")
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as error:
        raise HeadError(f"{path}: cannot read the head file ({error.strerror or error})") from None


def load_head(path: str | Path, task: str | None = None) -> Head:
    """Read and check a head file; ``task`` refuses a head fitted for another task."""
    head = _load(str(path), file_digest(path))
    if task is not None and head.task != task:
        raise HeadError(f"{path}: a head fitted for {head.task}, used for {task}")
    return head


@value_tag("fitted_score")
class FittedScore(BaseModel):
    """The head's P(yes) and its verdict at the fitted cut-off."""

    model_config = ConfigDict(frozen=True)

    probability: float = Field(ge=0.0, le=1.0)
    label: bool
    threshold: float


class FittedJudge(BaseJudge[CorrectnessItem | FaithfulnessItem, FittedScore]):
    """Yes when the head's P(yes) >= its cut-off; the head file's digest is in the identity, so a
    refitted head never reuses another head's cached verdicts."""

    name = "fitted"

    def __init__(self, head: str | Path, task: str | None = None, threshold: float | None = None) -> None:
        self.head_path = Path(head)
        self.head = load_head(self.head_path, task)
        self.digest = file_digest(self.head_path)[:12]
        self.threshold = self.head.threshold if threshold is None else float(threshold)
        self.cross_encoder = head_cross_encoder(self.head, self.head_path)

    @property
    def identity(self) -> JudgeIdentity:
        # a head reading an int8 cross-encoder says so (run header, page); others as before
        int8 = self.cross_encoder is not None and self.cross_encoder.model.spec.int8
        return JudgeIdentity(
            name=self.name, prompt_version=f"head@{self.digest}",
            params=f"threshold={self.threshold:g}{',cross_encoder=int8' if int8 else ''}",
        )

    def __repr__(self) -> str:
        return f"FittedJudge(head={str(self.head_path)!r}, task={self.head.task!r}, threshold={self.threshold:g})"

    def score(self, item: Any) -> tuple[FittedScore | None, str | None]:
        values, reasons = self.scores([item])
        return values[0], reasons[0]

    def scores(self, items: Sequence[Any]) -> tuple[list[FittedScore | None], list[str | None]]:
        """Each item's score, or the reason it has none; the cross-encoder signal of every item
        that has features is read in one batched pass (``CrossEncoder.probabilities``), not one
        forward pass an item."""
        features = [feature_values(self.head.task, item) for item in items]
        logits: list[float | None] = [None] * len(items)
        logit_reasons: list[str | None] = [None] * len(items)
        if self.cross_encoder is not None:
            live = [index for index, (_, reason) in enumerate(features) if reason is None]
            found, why = cross_encoder_logits(self.cross_encoder, [items[index] for index in live])
            for index, logit, reason in zip(live, found, why, strict=True):
                logits[index], logit_reasons[index] = logit, reason
        out: list[FittedScore | None] = [None] * len(items)
        reasons: list[str | None] = [None] * len(items)
        for index, (values, reason) in enumerate(features):
            if reason is None and self.cross_encoder is not None:
                logit = logits[index]
                if logit is None:
                    reason = f"cross-encoder: {logit_reasons[index]}"
                else:
                    values = [*values, logit]
            if reason is None:
                out[index], reason = self._scored(values)
            reasons[index] = reason
        return out, reasons

    def _scored(self, values: Sequence[float]) -> tuple[FittedScore | None, str | None]:
        p = self.head.probability(values)
        if not math.isfinite(p):
            return None, "the head's score is not a finite number (its weights overflow on these features): refit it with `ragjury fit`"
        return FittedScore(probability=p, label=p >= self.threshold, threshold=self.threshold), None

    async def _judge(self, item: Any) -> Judgment[FittedScore]:
        started = time.perf_counter()
        if self.cross_encoder is not None:  # a forward pass: off the event loop
            value, reason = await asyncio.to_thread(self.score, item)
        else:
            value, reason = self.score(item)
        return self.scored_or_unscored(value, reason, started=started)

    async def ajudge_batch(
        self, items: Sequence[Any], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[FittedScore]]:
        """The whole batch in one pass (its cross-encoder signal in batches, off the event loop);
        a batch that fails other than by its cross-encoder is judged item by item, each failure
        contained in its own judgment."""
        from ragjury.rag_agent.judges.model_free.cross_encoder import CrossEncoderError

        started = time.perf_counter()
        try:
            if self.cross_encoder is not None:
                values, reasons = await asyncio.to_thread(self.scores, items)
            else:
                values, reasons = self.scores(items)
        except CrossEncoderError as error:
            values, reasons = [None] * len(items), [f"cross-encoder: {error}"] * len(items)
        except Exception:  # noqa: BLE001 - per item, each failure becomes that item's unscored judgment
            return await super().ajudge_batch(items, on_result=on_result)
        return batch_envelopes(self, values, reasons, elapsed_s=time.perf_counter() - started, on_result=on_result)


def head_cross_encoder(head: Head, where: str | Path) -> Any:
    """The cross-encoder judge a head reads (None when it reads none), checked against the digest
    the head was fitted with; ``HeadError`` names the folder and both digests otherwise."""
    if head.cross_encoder is None:
        return None
    from ragjury.rag_agent.judges.model_free.cross_encoder import CrossEncoderError, CrossEncoderJudge

    folder = head.cross_encoder.folder
    try:
        judge = CrossEncoderJudge(folder, task=head.task)
    except CrossEncoderError as error:
        raise HeadError(f"{where}: reads the cross-encoder at {folder}, which does not load ({error})") from None
    if judge.model.digest != head.cross_encoder.digest:
        raise HeadError(f"{where}: fitted with the cross-encoder at {folder} (digest {head.cross_encoder.digest[:12]}); "
                        f"that folder now holds other weights (digest {judge.model.digest[:12]}): refit the head")
    return judge


def clipped_logit(probability: float) -> float:
    """logit P, P clipped to [1e-4, 1 - 1e-4] so that a certain answer stays a finite number: how a
    head reads a model's probability (the ``llm`` judge's P("1"), a cross-encoder's P(yes))."""
    p = min(max(probability, 1e-4), 1.0 - 1e-4)
    return math.log(p / (1.0 - p))


def cross_encoder_logits(judge: Any, items: Sequence[Any]) -> tuple[list[float | None], list[str | None]]:
    """Each item's clipped logit P(yes) from the cross-encoder, or the reason it has none (an empty
    text, a non-finite logit): such an item is unscored, never given a P."""
    scores, reasons = judge.scores(items)
    return [None if score is None else clipped_logit(score.probability) for score in scores], reasons


__all__ = [
    "BASE_JUDGES",
    "CROSS_ENCODER_FEATURE",
    "CrossEncoderRef",
    "FEATURES",
    "FEATURE_KIND",
    "FEATURE_VERSION",
    "FittedJudge",
    "FittedScore",
    "Head",
    "HeadError",
    "RELEVANCE_FEATURES",
    "RELEVANCE_KIND",
    "RELEVANCE_VERSION",
    "clipped_logit",
    "cross_encoder_logits",
    "feature_values",
    "head_cross_encoder",
    "load_head",
]
