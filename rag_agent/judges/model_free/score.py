"""A model-free ``JudgeScore``: the fallback of the multi-dimension judge.

A documented heuristic, not a model's opinion: every dimension comes from a measurable text
signal of the model-free judges (``token_overlap``, ``non_llm``), so the same input always
gets the same score, and its low confidence says it is a heuristic.
"""

from __future__ import annotations

from ragjury.config.settings import RagjurySettings, get_settings
from ragjury.rag_agent.core.items import ScoreItem
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.schemas import DimensionRatings, JudgeScore
from ragjury.rag_agent.core.text import content_tokens, normalise, split_sentences
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.judges.model_free.non_llm import query_coverage
from ragjury.rag_agent.judges.model_free.token_overlap import token_weight

HEURISTIC_VERSION = "deterministic_score@1.1"


def _coverage(needles: set[str], haystack: set[str]) -> float:
    return len(needles & haystack) / len(needles) if needles else 0.0


def weighted_support(tokens: set[str], source: set[str]) -> float:
    """Share of the token weight of ``tokens`` found in ``source`` (Evret's token weights)."""
    total = sum(token_weight(token) for token in tokens)
    return sum(token_weight(token) for token in tokens & source) / total if total else 0.0


def _length_score(words: int) -> float:
    if words == 0:
        return 0.0
    if words < 20:
        return words / 20
    if words <= 250:
        return 1.0
    return max(0.3, 250 / words)


def heuristic_ratings(item: ScoreItem) -> DimensionRatings:
    """Rate ``item`` from text signals only.

    relevance: share of the question's content tokens the answer contains. accuracy: share of
    answer sentences a source supports (text contained, or half its Evret-weighted content
    tokens in one source); 0.5 without sources. source_attribution: share of cited IDs that
    exist and support a sentence (weighted overlap >= 0.3); without citations, half the best
    source's weighted coverage. completeness: a length curve (full marks from 20 to 250 words).
    coherence: penalises repeated and very long sentences. confidence stays low.
    """
    question_tokens = content_tokens(item.question)
    answer_tokens = set(content_tokens(item.answer))
    sentences = split_sentences(item.answer)
    sentence_tokens = [set(content_tokens(sentence)) for sentence in sentences]
    source_tokens = {source.id: set(content_tokens(source.content)) for source in item.sources}
    source_texts = {source.id: normalise(source.content) for source in item.sources}

    relevance = query_coverage(question_tokens, content_tokens(item.answer)) if question_tokens else 0.5
    if item.sources:

        def supports(sid: str, index: int, level: float) -> bool:
            tokens = sentence_tokens[index]
            if normalise(sentences[index]) in source_texts[sid]:
                return True
            return bool(tokens) and weighted_support(tokens, source_tokens[sid]) >= level

        supported = sum(any(supports(sid, i, 0.5) for sid in source_tokens) for i in range(len(sentences)))
        accuracy = supported / len(sentences) if sentences else 0.0
        cited = [sid for sid in item.sources_used if sid in source_tokens]
        if item.sources_used:
            used = sum(any(supports(sid, i, 0.3) for i in range(len(sentences))) for sid in cited)
            attribution = used / len(item.sources_used)
        else:
            # No explicit citations: credit the answer when its content visibly comes from a source.
            best = max((weighted_support(answer_tokens, src) for src in source_tokens.values()), default=0.0)
            attribution = min(1.0, best) * 0.5
    else:
        accuracy, attribution = 0.5, 0.0
    words = len(item.answer.split())
    unique = len({s.lower() for s in sentences})
    repetition = unique / len(sentences) if sentences else 0.0
    long_penalty = sum(len(s.split()) > 60 for s in sentences) / len(sentences) if sentences else 0.0
    coherence = max(0.0, repetition - 0.5 * long_penalty) if sentences else 0.0
    confidence = 0.4 if item.sources else 0.2
    return DimensionRatings(
        relevance=round(relevance, 6),
        completeness=round(_length_score(words), 6),
        accuracy=round(accuracy, 6),
        source_attribution=round(attribution, 6),
        coherence=round(coherence, 6),
        confidence=confidence,
        reasoning=(
            "Heuristic (no model): "
            f"question coverage {relevance:.2f}, supported sentences {accuracy:.2f}, "
            f"attribution {attribution:.2f}, {words} words."
        ),
    )


@judge_entry("score", "heuristic", "heuristic JudgeScore", scale="score", takes_settings=True,
             aliases=("deterministic",))
class HeuristicScoreJudge(BaseJudge[ScoreItem, JudgeScore]):
    """The model-free ``JudgeScore``: same weights as JudgeLLM, ratings from text signals.

    ``--judge heuristic`` (``deterministic`` before issue #30, still accepted); its identity
    ``name`` and version keep the old spelling: they key the cache and stored predictions."""

    name = "deterministic_score"

    def __init__(self, settings: RagjurySettings | None = None) -> None:
        self.settings = settings or get_settings()

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(name=self.name, prompt_version=HEURISTIC_VERSION)

    async def _judge(self, item: ScoreItem) -> Judgment[JudgeScore]:
        if not item.answer.strip():
            return self.unscored("empty answer: nothing to score")
        score = JudgeScore.from_ratings(heuristic_ratings(item), self.settings.weights.normalised())
        return self.scored(score)


__all__ = ["HEURISTIC_VERSION", "HeuristicScoreJudge", "heuristic_ratings", "weighted_support"]
