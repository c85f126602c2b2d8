"""HeuristicScoreJudge: the documented heuristic, dimension by dimension."""

from __future__ import annotations

import pytest

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.items import ScoreItem
from ragjury.rag_agent.core.schemas import SourceDocument
from ragjury.rag_agent.judges.model_free.score import (
    HeuristicScoreJudge,
    heuristic_ratings,
    weighted_support,
)

SOURCES = [
    SourceDocument(id="s1", content="Thomas Edison patented a practical incandescent light bulb in 1879."),
    SourceDocument(id="s2", content="Bananas are rich in potassium."),
]


def item(
    answer: str, *, used: list[str] | None = None, sources: list[SourceDocument] | None = None
) -> ScoreItem:
    return ScoreItem(
        question="Who invented the light bulb?",
        answer=answer,
        sources=SOURCES if sources is None else sources,
        sources_used=used or [],
    )


def test_supported_cited_answer_scores_high() -> None:
    ratings = heuristic_ratings(
        item("Thomas Edison patented the incandescent light bulb in 1879.", used=["s1"])
    )
    assert ratings.accuracy == 1.0
    assert ratings.source_attribution == 1.0
    assert ratings.relevance == pytest.approx(2 / 3)  # light, bulb of invented/light/bulb
    assert 0.2 <= ratings.confidence <= 0.4


def test_a_wrong_number_costs_more_than_a_wrong_word() -> None:
    source = {"born", "1879", "menlo"}
    assert weighted_support({"born", "1880", "menlo"}, source) < weighted_support(
        {"born", "1879", "park"}, source
    )


def test_unsupported_sentence_and_wrong_citation() -> None:
    ratings = heuristic_ratings(
        item(
            "Edison patented the light bulb in 1879. Nikola Tesla secretly designed it on Mars.",
            used=["s2", "s9"],
        )
    )
    assert ratings.accuracy == 0.5  # one of two sentences is supported
    assert ratings.source_attribution == 0.0  # s2 supports nothing, s9 does not exist


def test_no_sources_lowers_confidence_and_no_citation_gets_partial_credit() -> None:
    assert heuristic_ratings(item("Edison.", sources=[])).accuracy == 0.5
    assert heuristic_ratings(item("Edison.", sources=[])).confidence == 0.2
    uncited = heuristic_ratings(item("Thomas Edison patented a practical incandescent light bulb in 1879."))
    assert 0.0 < uncited.source_attribution <= 0.5


def test_judge_scores_and_refuses_empty_answers() -> None:
    judge = HeuristicScoreJudge(RagjurySettings())
    scored = judge.judge_sync(item("Thomas Edison patented the light bulb in 1879.", used=["s1"]))
    assert scored.value is not None and 0.0 < scored.value.overall_score <= 1.0
    assert scored.prompt_version == "deterministic_score@1.1"
    empty = judge.judge_sync(item("   "))
    assert empty.unscored and "empty answer" in (empty.unscored_reason or "")
