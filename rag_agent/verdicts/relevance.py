"""Passage relevance, the Evret/UMBRELA task, binary and graded.

``RelevanceVerdictJudge`` answers Evret's question, ``judge(context) -> bool``, so it drops
into Evret-style retrieval evaluation. ``GradedRelevanceJudge`` grades on the TREC scale used
by NIST assessors and UMBRELA (0 irrelevant, 1 related, 2 highly relevant, 3 perfectly
relevant); its ``judge()`` is ``grade >= threshold`` (default 2, TREC's binary cut-off).

Both take ``JudgmentContext(query, retrieved_text, expected_text=None)``: with an expected text,
the question becomes whether the passage covers the same information. Neither asks for a
reason: relevance is judged passage by passage over whole runs, and the reason tokens would
double the cost of each judgment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field
from pydantic_ai.models import Model

from config.instructions import RELEVANCE_GRADE, RELEVANCE_VERDICT
from config.settings import OutputMode, RagjurySettings
from rag_agent.items import JudgmentContext
from rag_agent.prompting import PASSAGE, QUESTION, REFERENCE, tagged
from rag_agent.results import Judgment
from rag_agent.verdicts.base import BinaryVerdict, LLMVerdictJudge, budgeted, lower_median, require_value

Grade = Literal[0, 1, 2, 3]
GRADE_NAMES: dict[int, str] = {0: "irrelevant", 1: "related", 2: "highly relevant", 3: "perfectly relevant"}


class RelevanceOutput(BaseModel):
    """The binary relevance call's output."""

    verdict: BinaryVerdict = Field(description='"1" relevant to the query, "0" not relevant')


class GradeOutput(BaseModel):
    """The graded relevance call's output."""

    grade: Grade = Field(description="0 irrelevant, 1 related, 2 highly relevant, 3 perfectly relevant")


def relevance_prompt(context: JudgmentContext, token_budget: int) -> str:
    """Query, expected text (when given) and the passage, each in its data tag."""
    parts = [tagged(QUESTION, context.query)]
    texts = (
        [context.retrieved_text]
        if context.expected_text is None
        else [context.expected_text, context.retrieved_text]
    )
    shown, omitted = budgeted(texts, token_budget)
    if context.expected_text is not None:
        parts.append("Expected content:\n" + tagged(REFERENCE, shown[0], kind="expected"))
    parts.append("Retrieved passage:\n" + tagged(PASSAGE, shown[-1]))
    if omitted:
        parts.append(f"({omitted} characters were not shown: token budget.)")
    return "\n\n".join(parts)


def _check_context(context: JudgmentContext) -> str | None:
    if not context.retrieved_text.strip():
        return "empty passage: nothing to judge"
    if not context.query.strip():
        return "empty query: nothing to judge against"
    return None


class RelevanceVerdictJudge(LLMVerdictJudge[JudgmentContext, bool]):
    """Is the passage relevant to the query? ``judge(ctx) -> bool``, ``batch_judge(ctxs) -> list[bool]``."""

    name = "relevance_verdict"
    instructions = (RELEVANCE_VERDICT,)

    async def _judge(self, item: JudgmentContext) -> Judgment[bool]:
        problem = _check_context(item)
        if problem:
            return self.failed(problem)
        prompt = relevance_prompt(item, self.settings.source_token_budget)
        ballot = await self.ballot(RELEVANCE_VERDICT, RelevanceOutput, prompt, key=lambda out: out.verdict)
        if ballot.winner is None:
            return self.failed(ballot.failure_reason(), usage=ballot.usage, votes=ballot.votes)
        return self.sampled(
            ballot.winner == "1", usage=ballot.usage, agreement=ballot.agreement, votes=ballot.votes
        )


class GradedRelevanceJudge(LLMVerdictJudge[JudgmentContext, int]):
    """UMBRELA grade 0-3 of a passage for a query; ``judge()`` is ``grade >= threshold``.

    With ``samples=n`` the reported grade is the (lower) median of the samples, the ordinal
    analogue of a majority vote; agreement is the share of samples that gave exactly that grade.
    """

    name = "relevance_grade"
    instructions = (RELEVANCE_GRADE,)

    def __init__(
        self,
        model: str | Model | None = None,
        *,
        base_url: str | None = None,
        settings: RagjurySettings | None = None,
        output_mode: OutputMode | None = None,
        samples: int = 1,
        threshold: int = 2,
    ) -> None:
        super().__init__(
            model, base_url=base_url, settings=settings, output_mode=output_mode, samples=samples
        )
        if threshold not in (1, 2, 3):
            raise ValueError(f"threshold must be 1, 2 or 3, got {threshold}")
        self.threshold = threshold

    async def _judge(self, item: JudgmentContext) -> Judgment[int]:
        problem = _check_context(item)
        if problem:
            return self.failed(problem)
        prompt = relevance_prompt(item, self.settings.source_token_budget)
        ballot = await self.ballot(
            RELEVANCE_GRADE, GradeOutput, prompt, key=lambda out: int(out.grade), combine=lower_median
        )
        if ballot.winner is None:
            return self.failed(ballot.failure_reason(), usage=ballot.usage, votes=ballot.votes)
        return self.sampled(ballot.winner, usage=ballot.usage, agreement=ballot.agreement, votes=ballot.votes)

    def label_of(self, value: int) -> bool:
        """Relevant when the grade reaches the threshold (the threshold is not part of the grade)."""
        return value >= self.threshold

    def grade(self, context: JudgmentContext) -> int:
        """The 0-3 grade; raises ``JudgmentUnscored`` when there is none."""
        return require_value(self.judge_sync(context))

    def batch_grade(self, contexts: Sequence[JudgmentContext]) -> list[int]:
        """Grades of many contexts; raises ``JudgmentUnscored`` naming the first unscored one."""
        judgments = self.judge_batch_sync(list(contexts))
        return [require_value(j, index=i) for i, j in enumerate(judgments)]


__all__ = [
    "GRADE_NAMES",
    "Grade",
    "GradeOutput",
    "GradedRelevanceJudge",
    "RelevanceOutput",
    "RelevanceVerdictJudge",
    "relevance_prompt",
]
