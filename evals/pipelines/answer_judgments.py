"""The judgments of one agent answer: its multi-dimension score and its faithfulness to exactly the
passages the agent retrieved, as ``ragjury ask --judge`` shows them.

Why in the library: which judges look at an answer, on which items and concurrently, is the same
whether a person asks on the command line or a script checks its own agent; the command only
prints what ``judge_answer`` hands back.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragjury.rag_agent.core.items import FaithfulnessItem, ScoreItem
from ragjury.rag_agent.core.judge_spec import JudgeSpec, parse
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.schemas import JudgeScore

if TYPE_CHECKING:  # annotations only: the agent module loads pydantic-ai
    from ragjury.config.settings import RagjurySettings
    from ragjury.rag_agent.agent.reference_agent import AgentResponse

NO_MODEL = "heuristic"
"""The score mode without a model (``deterministic`` before issue #30, still accepted):
faithfulness, which needs one, is then skipped, not guessed."""


@dataclass
class AnswerJudgments:
    """One answer's score judgment, and its faithfulness judgment or why that was skipped."""

    score: Judgment[JudgeScore]
    faithfulness: Judgment[Any] | None = None
    skipped: str | None = None
    """Why faithfulness was not judged (None when it was)."""

    @property
    def scored(self) -> bool:
        """Whether the score could be given (an unscored score makes ``ask`` exit 3)."""
        return self.score.scored


async def judge_answer(
    response: AgentResponse, settings: RagjurySettings, mode: str | JudgeSpec = "auto"
) -> AnswerJudgments:
    """Score ``response``'s answer (the ``score`` judge named ``mode``: auto, llm, heuristic)
    against the sources it retrieved and, unless ``mode`` uses no model, check its faithfulness
    to those passages; both concurrently. ``ValueError`` when the agent gave no answer. ``mode``: the command's
    ``--judge-mode`` parsed once there (a ``JudgeSpec``), or its words (parsed here, once)."""
    if response.answer is None:
        raise ValueError(f"nothing to judge: the agent gave no answer ({response.error})")
    item = ScoreItem(
        question=response.question,
        answer=response.answer.answer,
        sources=response.sources,
        sources_used=response.answer.sources_used,
    )
    from ragjury.rag_agent.judges import catalogue  # judges (and pydantic-ai) load only when built

    spec = mode if isinstance(mode, JudgeSpec) else parse(mode)
    scorer = catalogue.build_judge("score", spec, settings)
    if catalogue.current_name("score", spec.value) == NO_MODEL:
        return AnswerJudgments(await scorer.ajudge(item), None, f"--judge-mode {NO_MODEL} uses no model")
    from ragjury.rag_agent.judges.llm.faithfulness import FaithfulnessJudge

    faithfulness = FaithfulnessJudge(settings=settings)
    faithful_item = FaithfulnessItem(
        answer=response.answer.answer, contexts=response.contexts, question=response.question
    )
    from ragjury.rag_agent.model.preflight import check_servers

    for judge in (scorer, faithfulness):  # the judge model may differ from the agent's: exit 2 first
        await check_servers(judge)
    score, faithful = await asyncio.gather(scorer.ajudge(item), faithfulness.ajudge(faithful_item))
    return AnswerJudgments(score, faithful)


__all__ = ["NO_MODEL", "AnswerJudgments", "judge_answer"]
