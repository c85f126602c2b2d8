"""``Judgment.label`` and ``Judgment.reason``: the Python object reads as the JSON does."""

from __future__ import annotations

import pytest

from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.schemas import JudgeScore
from ragjury.rag_agent.judges.llm.correctness import Verdict


def test_a_verdict_has_the_json_label_and_its_reason() -> None:
    judgment = Judgment(value=Verdict(verdict=True, reason="names the same person"), judge="answer_correctness")
    assert judgment.label is True and judgment.reason == "names the same person"


def test_plain_values_are_their_own_label_and_have_no_reason() -> None:
    assert Judgment(value=2, judge="grade").label == 2
    judgment = Judgment(value=False, judge="contains")
    assert judgment.label is False and judgment.reason is None


def test_an_unscored_judgment_has_no_label_and_its_reason_is_why() -> None:
    judgment = Judgment(judge="answer_correctness", unscored=True, unscored_reason="server down")
    assert judgment.label is None and judgment.reason == "server down"


def test_label_and_reason_are_read_only_and_not_serialised() -> None:
    judgment = Judgment(value=True, judge="contains")
    with pytest.raises(AttributeError):
        judgment.label = False  # type: ignore[misc]
    assert "label" not in judgment.model_dump() and "reason" not in judgment.model_dump()


def test_a_score_reads_its_overall_score_and_reasoning() -> None:
    score = JudgeScore(relevance=1, completeness=1, accuracy=0.5, source_attribution=1, coherence=1,
                       confidence=1, reasoning="complete and sourced", overall_score=0.85)
    judgment = Judgment(value=score, judge="judge_llm")
    assert judgment.label == score.overall_score and judgment.reason == "complete and sourced"
