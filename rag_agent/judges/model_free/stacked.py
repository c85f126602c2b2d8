"""A stacked faithfulness judge: support's signals through a small logistic model fitted on labels.

``support`` alone thresholds one number; it also knows how many answer tokens, numbers and
negations the context lacks, the bigram overlap, and how long the answer is against its context.
A logistic model over those signals, fitted on labelled dev data (the *tune* half of BEGIN, by
``bench/fit_stack.py``) and stored as a versioned file beside this module, turns them into a
probability; users refit it on their own labels. No model server: the cheap way to "fine-tune the
judge on labelled evaluation data".
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ragjury.rag_agent.core.items import FaithfulnessItem
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.text import normalise
from ragjury.rag_agent.judges.model_free.support import SupportJudge, SupportScore
from ragjury.rag_agent.core.value_tags import value_tag

STACKS = Path(__file__).resolve().parent / "stacks"
DEFAULT_STACK = STACKS / "faithfulness-support.json"

FEATURES: tuple[str, ...] = (
    "support_score",
    "unigram_precision",
    "bigram_precision",
    "unsupported_share",
    "unsupported_numbers",
    "negation_mismatches",
    "log_answer_tokens",
    "log_length_ratio",
)
"""What the stack reads, in the stored weights' order (a file naming others is refused)."""

_BASE = SupportJudge()
_WITH_BIGRAMS = SupportJudge(bigram_weight=0.5)


def signals(answer: str, context: str) -> tuple[list[float], SupportScore | None, str | None]:
    """The stack's inputs for one answer and its context with the support score they start from,
    or the reason there are none."""
    base, reason = _BASE.score_texts(answer, context)
    pair, _ = _WITH_BIGRAMS.score_texts(answer, context)
    if base is None or pair is None:
        return [], None, reason or "unscored"
    answer_tokens = max(1, len(normalise(answer).split()))
    context_tokens = max(1, len(normalise(context).split()))
    values = [
        base.score,
        base.unigram_precision,
        pair.bigram_precision if pair.bigram_precision is not None else base.unigram_precision,
        len(base.unsupported) / answer_tokens,
        float(len(base.unsupported_numbers)),
        float(base.negation_mismatches),
        math.log(answer_tokens),
        math.log(answer_tokens / context_tokens),
    ]
    return values, base, None


def features(answer: str, context: str) -> tuple[list[float], str | None]:
    """The stack's inputs for one answer and its context, or the reason there are none."""
    values, _, reason = signals(answer, context)
    return values, reason


def standardised_logistic(
    values: Sequence[float], mean: Sequence[float], scale: Sequence[float], weights: Sequence[float], bias: float
) -> float:
    """P(yes) of a logistic model over standardised signals (the link every fitted head reads); NaN
    where the head's score is not a finite number (the caller leaves the item unscored)."""
    z = bias + sum(w * (v - m) / s for w, v, m, s in zip(weights, values, mean, scale))
    if not math.isfinite(z):  # NaN (inf - inf) or an overflow: no probability, never a clipped 1.0
        return math.nan
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


class StackModel(BaseModel):
    """A fitted stack: standardisation, weights and cut-off, and what it was fitted on."""

    model_config = ConfigDict(frozen=True)

    version: str
    task: str = "faithfulness"
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float = Field(ge=0.0, le=1.0)
    fitted_on: str
    n: int

    def probability(self, values: Sequence[float]) -> float:
        return standardised_logistic(values, self.mean, self.scale, self.weights, self.bias)


@cache
def load_stack(path: str | Path = DEFAULT_STACK) -> StackModel:
    """Read a stack file; one whose features are not this module's is refused (it would misread them)."""
    model = StackModel.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
    if model.features != FEATURES or not (len(model.mean) == len(model.scale) == len(model.weights) == len(FEATURES)):
        raise ValueError(f"{path}: fitted on features {list(model.features)}, this judge reads {list(FEATURES)}")
    return model


@value_tag("stack_score")
class StackScore(BaseModel):
    """The stack's P(faithful), its verdict at the fitted cut-off, and the support score it started from."""

    model_config = ConfigDict(frozen=True)

    probability: float = Field(ge=0.0, le=1.0)
    label: bool
    threshold: float
    support: SupportScore


@judge_entry("faithfulness", "stack", "model-free: support's signals through a logistic model fitted on labels")
class StackedSupportJudge(BaseJudge[FaithfulnessItem, StackScore]):
    """Faithful when the fitted stack's P(faithful) >= its cut-off (``threshold`` overrides it)."""

    name = "stack"

    def __init__(self, stack: str | Path | None = None, threshold: float | None = None) -> None:
        self.stack_path = Path(stack) if stack is not None else DEFAULT_STACK
        self.model = load_stack(self.stack_path)
        self.threshold = self.model.threshold if threshold is None else float(threshold)

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(
            name=self.name, prompt_version=f"stack@{self.model.version}", params=f"threshold={self.threshold:g}"
        )

    def score(self, item: FaithfulnessItem) -> tuple[StackScore | None, str | None]:
        context = "\n\n".join(c for c in item.contexts if c.strip())
        values, support, reason = signals(item.answer, context)
        if support is None:
            return None, reason
        p = self.model.probability(values)
        if not math.isfinite(p):
            return None, "the stack's score is not a finite number (its weights overflow on these features)"
        return StackScore(probability=p, label=p >= self.threshold, threshold=self.threshold, support=support), None

    async def _judge(self, item: FaithfulnessItem) -> Judgment[StackScore]:
        started = time.perf_counter()
        value, reason = self.score(item)
        return self.scored_or_unscored(value, reason, started=started)


__all__ = [
    "DEFAULT_STACK",
    "FEATURES",
    "StackModel",
    "StackScore",
    "StackedSupportJudge",
    "features",
    "load_stack",
    "signals",
    "standardised_logistic",
]
