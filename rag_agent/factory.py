"""Build the judge a ``--judge`` choice names, the same way in every door (CLI, evals, API)."""

from __future__ import annotations

from typing import Literal

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.deterministic.score import DeterministicScoreJudge
from ragjury.rag_agent.fallback import FallbackJudge
from ragjury.rag_agent.items import ScoreItem
from ragjury.rag_agent.judge import JudgeLLM
from ragjury.rag_agent.models import JudgeScore
from ragjury.rag_agent.protocol import BaseJudge

JudgeChoice = Literal["auto", "llm", "deterministic"]


def score_judge(choice: JudgeChoice, settings: RagjurySettings) -> BaseJudge[ScoreItem, JudgeScore]:
    """``llm``: JudgeLLM alone (failures are unscored); ``deterministic``: no model;
    ``auto``: JudgeLLM with the deterministic judge as fallback."""
    if choice == "deterministic":
        return DeterministicScoreJudge(settings)
    llm = JudgeLLM(settings=settings)
    if choice == "llm":
        return llm
    return FallbackJudge(llm, DeterministicScoreJudge(settings))
