"""SupportJudge: how much of the answer does the context support? A model-free faithfulness judge.

Faithfulness asks the reverse of a retrieval match, so this judge measures *support precision*:
the share of what the answer says that the context contains, so chit-chat, opinions and invented
facts all count against it. Answers or contexts with nothing to check are unscored, as with the
LLM judge. Defaults were fitted on BEGIN dev (``bench/bench_support_faithfulness.py``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from pydantic import BaseModel, ConfigDict, Field

from ragjury.rag_agent.core.items import FaithfulnessItem
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity, JudgmentUnscored, ResultCallback
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.text import STOPWORDS, normalise, split_sentences
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.judges.model_free.batch_envelopes import batch_envelopes
from ragjury.rag_agent.core.value_tags import value_tag

__all__ = [
    "DEFAULT_BIGRAM_WEIGHT",
    "DEFAULT_NEGATION_WEIGHT",
    "DEFAULT_NUMBER_WEIGHT",
    "DEFAULT_THRESHOLD",
    "NEGATION_CUES",
    "NEGATION_TOKEN",
    "SupportJudge",
    "SupportScore",
    "clear_caches",
    "support_tokens",
]

DEFAULT_THRESHOLD = 0.795
"""Fitted on BEGIN dev by 5-fold cross-validation (``bench/bench_support_faithfulness.py``)."""
DEFAULT_BIGRAM_WEIGHT = 0.0
DEFAULT_NUMBER_WEIGHT = 2.0
DEFAULT_NEGATION_WEIGHT = 0.0
"""Off by default: on BEGIN dev the rule did not raise cross-validated kappa (see above)."""

NEGATION_CUES: frozenset[str] = frozenset(
    {"no", "not", "never", "none", "nothing", "nobody", "nowhere", "neither", "nor", "without", "cannot"}
)
"""Words that flip a sentence's polarity (``n't`` is expanded to ``not`` before matching)."""

NEGATION_TOKEN = "<negation>"
"""The pseudo-token listed among the unsupported ones for a negation mismatch."""

_NON_CONTENT = STOPWORDS | NEGATION_CUES
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*\w*|\w+")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?:\D|$))")
_IRREGULAR = re.compile(r"\b(won|can|shan)'t\b")
_NT = re.compile(r"n't\b")
_IRREGULAR_FULL = {"won": "will", "can": "can", "shan": "shall"}


def support_tokens(text: str) -> list[str]:
    """The judge's tokens of ``text``, in order: normalised, contractions expanded, numbers whole.

    >>> support_tokens("It didn't cost 1,000.50 dollars in the 1990s")
    ['it', 'did', 'not', 'cost', '1000.50', 'dollars', 'in', 'the', '1990s']
    """
    text = normalise(text).replace("\u2019", "'")
    text = _IRREGULAR.sub(lambda m: f"{_IRREGULAR_FULL[m.group(1)]} not", text)
    text = _NT.sub(" not", text)
    return _TOKEN.findall(_THOUSANDS.sub("", text))


def _negated(tokens: Sequence[str]) -> bool:
    """A negation cue among ``tokens``; "not only" (an intensifier) is not one."""
    return any(
        t in NEGATION_CUES and not (t == "not" and i + 1 < len(tokens) and tokens[i + 1] == "only")
        for i, t in enumerate(tokens)
    )


def _is_number(token: str) -> bool:
    return any(ch.isdigit() for ch in token)


@value_tag("support_score")
class SupportScore(BaseModel):
    """How much of the answer the context supports, and what it does not.

    Frozen (hashable) so a batch validates each distinct value once.
    """

    model_config = ConfigDict(frozen=True)

    score: float = Field(ge=0.0, le=1.0, description="blend of unigram and bigram support precision")
    label: bool = Field(description="faithful: score >= threshold")
    threshold: float = Field(ge=0.0, le=1.0)
    unigram_precision: float = Field(ge=0.0, le=1.0, description="weighted share of supported content tokens")
    bigram_precision: float | None = Field(
        default=None, ge=0.0, le=1.0, description="share of supported bigrams (None when not used)"
    )
    unsupported: tuple[str, ...] = Field(
        default=(),
        description="distinct answer tokens the context lacks, in answer order (<negation> included)",
    )
    unsupported_numbers: tuple[str, ...] = Field(
        default=(), description="numbers of the answer the context lacks"
    )
    negation_mismatches: int = Field(default=0, ge=0, description="answer sentences whose polarity differs")


@dataclass(frozen=True)
class _Text:
    """One distinct text, analysed once."""

    tokens: tuple[str, ...]
    token_set: frozenset[str]
    bigrams: frozenset[tuple[str, str]]


@lru_cache(maxsize=4096)
def _analyse(text: str) -> _Text:
    tokens = support_tokens(text)
    return _Text(tokens=tuple(tokens), token_set=frozenset(tokens), bigrams=frozenset(pairwise(tokens)))


@lru_cache(maxsize=4096)
def _sentences(text: str) -> tuple[tuple[frozenset[str], bool], ...]:
    """Per sentence: its content tokens and whether it carries a negation cue (the negation
    rule only; kept apart so the default variant never pays for sentence splitting)."""
    out = []
    for sentence in split_sentences(text) or [text]:
        found = support_tokens(sentence)
        out.append((frozenset(t for t in found if t not in _NON_CONTENT), _negated(found)))
    return tuple(out)


def clear_caches() -> None:
    """Forget analysed texts (benchmarks timing a cold start; memory after a huge batch)."""
    _analyse.cache_clear()
    _sentences.cache_clear()


@judge_entry("faithfulness", "support", "model-free: share of the answer's content words the context supports")
class SupportJudge(BaseJudge[FaithfulnessItem, SupportScore]):
    """Faithful when enough of the answer's content tokens occur in the context. Example::

        SupportJudge().judge(FaithfulnessItem(answer="Paris has 2 million people.",
                                              contexts=["Paris has 2.1 million inhabitants."]))
        # SupportScore(score=0.4, label=False, unsupported=('2', 'people'), unsupported_numbers=('2',), ...)

    Parameters: ``threshold`` (label = score >= threshold), ``bigram_weight`` (0 = unigram
    precision only), ``number_weight`` (weight of a token with a digit), ``negation_weight``
    (weight of one polarity mismatch; 0 turns the negation rule off).

    The score: every occurrence of an answer content token (``support_tokens``: contractions
    expanded, numbers whole) counts, supported when the context has the same token. With the
    negation rule, an answer sentence whose best-aligned context sentence differs in carrying a
    negation cue adds one unsupported ``<negation>`` token (no scope, no double negation). Bigram
    precision, if weighted, is blended in: ``(1 - bigram_weight) * unigram + bigram_weight * bigram``.
    """

    name = "support"

    def __init__(
        self,
        threshold: float = DEFAULT_THRESHOLD,
        *,
        bigram_weight: float = DEFAULT_BIGRAM_WEIGHT,
        number_weight: float = DEFAULT_NUMBER_WEIGHT,
        negation_weight: float = DEFAULT_NEGATION_WEIGHT,
    ) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be within [0, 1], got {threshold}")
        if not 0.0 <= bigram_weight <= 1.0:
            raise ValueError(f"bigram_weight must be within [0, 1], got {bigram_weight}")
        if number_weight <= 0 or negation_weight < 0:
            raise ValueError("number_weight must be > 0 and negation_weight >= 0")
        self.threshold = float(threshold)
        self.bigram_weight = float(bigram_weight)
        self.number_weight = float(number_weight)
        self.negation_weight = float(negation_weight)

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(
            name=self.name,
            prompt_version="support@1.0",
            params=(
                f"threshold={self.threshold:g},bigram={self.bigram_weight:g},"
                f"numbers={self.number_weight:g},negation={self.negation_weight:g}"
            ),
        )

    # -- the rule ------------------------------------------------------------------------------

    @staticmethod
    def _negation_mismatches(answer: str, context: str) -> int:
        """Answer sentences whose negation differs from their best-aligned context sentence."""
        count = 0
        context_sentences = _sentences(context)
        for content, negated in _sentences(answer):
            best, best_shared = None, 0
            for sentence in context_sentences:
                shared = len(content & sentence[0])
                if shared > best_shared:
                    best, best_shared = sentence, shared
            # No shared content token: no aligned region (and its words are unsupported anyway).
            if best is not None:
                count += negated != best[1]
        return count

    def score_texts(self, answer: str, context: str) -> tuple[SupportScore | None, str | None]:
        """The value for one answer against its (joined) context, or ``None`` and the reason."""
        if not answer.strip():
            return None, "empty answer: nothing to judge"
        if not context.strip():
            return None, "no context: there is nothing to check the answer against"
        a, c = _analyse(answer), _analyse(context)
        content = [t for t in a.tokens if t not in _NON_CONTENT]
        if not content:
            return None, "no content word in the answer: it makes no claim to check"
        supported = total = 0.0
        missing: dict[str, None] = {}
        for token in content:
            weight = self.number_weight if _is_number(token) else 1.0
            total += weight
            if token in c.token_set:
                supported += weight
            else:
                missing[token] = None
        mismatches = self._negation_mismatches(answer, context) if self.negation_weight > 0 else 0
        if mismatches:
            total += self.negation_weight * mismatches
            missing[NEGATION_TOKEN] = None
        unigram = supported / total
        bigram: float | None = None
        score = unigram
        if self.bigram_weight > 0:
            pairs = [p for p in pairwise(a.tokens) if not (p[0] in STOPWORDS and p[1] in STOPWORDS)]
            bigram = sum(p in c.bigrams for p in pairs) / len(pairs) if pairs else unigram
            score = (1.0 - self.bigram_weight) * unigram + self.bigram_weight * bigram
        score = min(1.0, max(0.0, score))
        return (
            SupportScore(
                score=score,
                label=score >= self.threshold,
                threshold=self.threshold,
                unigram_precision=unigram,
                bigram_precision=bigram,
                unsupported=tuple(missing),
                unsupported_numbers=tuple(t for t in missing if _is_number(t)),
                negation_mismatches=mismatches,
            ),
            None,
        )

    def decide(self, items: Sequence[FaithfulnessItem]) -> tuple[list[SupportScore | None], list[str | None]]:
        """Values and, per item, the reason it is unscored (or ``None``), in one pass."""
        values: list[SupportScore | None] = []
        reasons: list[str | None] = []
        for item in items:
            value, reason = self.score_texts(item.answer, "\n\n".join(c for c in item.contexts if c.strip()))
            values.append(value)
            reasons.append(reason)
        return values, reasons

    # -- the judge protocol ----------------------------------------------------------------

    def judge(self, item: FaithfulnessItem) -> SupportScore:
        """The value for one item; raises ``JudgmentUnscored`` when it cannot be scored."""
        value, reason = self.score_texts(item.answer, "\n\n".join(c for c in item.contexts if c.strip()))
        if value is None:
            raise JudgmentUnscored(reason or "unscored")
        return value

    async def _judge(self, item: FaithfulnessItem) -> Judgment[SupportScore]:
        started = time.perf_counter()
        values, reasons = self.decide([item])
        if values[0] is None:
            return self.unscored(reasons[0] or "unscored", started=started)
        return self.scored(values[0], started=started)

    async def ajudge_batch(
        self, items: Sequence[FaithfulnessItem], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[SupportScore]]:
        """All envelopes from one pass (no task per item); latency is the batch's share."""
        started = time.perf_counter()
        values, reasons = self.decide(items)
        return batch_envelopes(
            self, values, reasons, elapsed_s=time.perf_counter() - started, on_result=on_result
        )
