"""ragjury: LLM-as-judge for RAG systems, and a measured answer to "how far can I trust the judge?".

This file is the ``ragjury`` package: packaging maps the repository's folders into one namespace
(``rag_agent/`` → ``ragjury.rag_agent``, ``config/`` → ``ragjury.config``, ``evals/`` →
``ragjury.evals``, ``cli.py`` → ``ragjury.cli``), so an install puts nothing generic such as
``config`` or ``evals`` at the top of site-packages, where it would clash with a user's own.

The names below are the documented API. They load on first use (PEP 562), so ``import ragjury``
and the CLI's start do not pay for pydantic-ai and the model clients until a judge is needed::

    from ragjury import CorrectnessItem, ContainsJudge
    ContainsJudge().judge(CorrectnessItem(question="Who?", answer="Ada Lovelace.", references=["Lovelace"]))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    # judges with a model
    "JudgeLLM": "ragjury.rag_agent.judge",
    "FaithfulnessJudge": "ragjury.rag_agent.verdicts.faithfulness",
    "AttributionJudge": "ragjury.rag_agent.verdicts.attribution",
    "CorrectnessJudge": "ragjury.rag_agent.verdicts.correctness",
    "RelevanceVerdictJudge": "ragjury.rag_agent.verdicts.relevance",
    "GradedRelevanceJudge": "ragjury.rag_agent.verdicts.relevance",
    "GoalAccuracyJudge": "ragjury.rag_agent.verdicts.goal",
    # judges without a model
    "ContainsJudge": "ragjury.rag_agent.deterministic.contains",
    "SupportJudge": "ragjury.rag_agent.deterministic.support",
    "TokenOverlapJudge": "ragjury.rag_agent.deterministic.token_overlap",
    "NonLLMJudge": "ragjury.rag_agent.deterministic.non_llm",
    "SemanticJudge": "ragjury.rag_agent.deterministic.semantic",
    "DeterministicScoreJudge": "ragjury.rag_agent.deterministic.score",
    # declaring a judge, and reading its labels
    "judge_entry": "ragjury.rag_agent.catalogue",
    "label_of": "ragjury.rag_agent.labels",
    # combining judges
    "FallbackJudge": "ragjury.rag_agent.fallback",
    "Panel": "ragjury.rag_agent.panel",
    # the protocol and the envelope
    "Judge": "ragjury.rag_agent.protocol",
    "BaseJudge": "ragjury.rag_agent.protocol",
    "JudgeIdentity": "ragjury.rag_agent.protocol",
    "JudgmentUnscored": "ragjury.rag_agent.protocol",
    "Judgment": "ragjury.rag_agent.results",
    "Usage": "ragjury.rag_agent.results",
    # what is judged, and what a multi-dimension judge returns
    "CorrectnessItem": "ragjury.rag_agent.items",
    "FaithfulnessItem": "ragjury.rag_agent.items",
    "ScoreItem": "ragjury.rag_agent.items",
    "GoalItem": "ragjury.rag_agent.items",
    "JudgmentContext": "ragjury.rag_agent.items",
    "SourceDocument": "ragjury.rag_agent.schemas",
    "RAGAnswer": "ragjury.rag_agent.schemas",
    "JudgeScore": "ragjury.rag_agent.schemas",
    "DimensionRatings": "ragjury.rag_agent.schemas",
    # batch runs
    "RagjurySettings": "ragjury.config.settings",
    "build_judge": "ragjury.evals.registry",
    "run_judgments": "ragjury.evals.runner",
    "open_cache": "ragjury.evals.cache",
    "evaluate_dataset": "ragjury.evals.dataset_evaluation",
    "EvaluationResult": "ragjury.evals.dataset_evaluation",
    "evaluate_agent": "ragjury.evals.agent_evaluation",
    "AgentEvaluation": "ragjury.evals.agent_evaluation",
    "Gates": "ragjury.evals.gates",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ragjury' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:  # static type checkers and IDEs see the real names
    from ragjury.config.settings import RagjurySettings
    from ragjury.evals.agent_evaluation import AgentEvaluation, evaluate_agent
    from ragjury.evals.cache import open_cache
    from ragjury.evals.dataset_evaluation import EvaluationResult, evaluate_dataset
    from ragjury.evals.gates import Gates
    from ragjury.evals.registry import build_judge
    from ragjury.evals.runner import run_judgments
    from ragjury.rag_agent.catalogue import judge_entry
    from ragjury.rag_agent.deterministic.contains import ContainsJudge
    from ragjury.rag_agent.deterministic.non_llm import NonLLMJudge
    from ragjury.rag_agent.deterministic.score import DeterministicScoreJudge
    from ragjury.rag_agent.deterministic.semantic import SemanticJudge
    from ragjury.rag_agent.deterministic.support import SupportJudge
    from ragjury.rag_agent.deterministic.token_overlap import TokenOverlapJudge
    from ragjury.rag_agent.fallback import FallbackJudge
    from ragjury.rag_agent.items import (
        CorrectnessItem,
        FaithfulnessItem,
        GoalItem,
        JudgmentContext,
        ScoreItem,
    )
    from ragjury.rag_agent.judge import JudgeLLM
    from ragjury.rag_agent.labels import label_of
    from ragjury.rag_agent.panel import Panel
    from ragjury.rag_agent.protocol import BaseJudge, Judge, JudgeIdentity, JudgmentUnscored
    from ragjury.rag_agent.results import Judgment, Usage
    from ragjury.rag_agent.schemas import DimensionRatings, JudgeScore, RAGAnswer, SourceDocument
    from ragjury.rag_agent.verdicts.attribution import AttributionJudge
    from ragjury.rag_agent.verdicts.correctness import CorrectnessJudge
    from ragjury.rag_agent.verdicts.faithfulness import FaithfulnessJudge
    from ragjury.rag_agent.verdicts.goal import GoalAccuracyJudge
    from ragjury.rag_agent.verdicts.relevance import GradedRelevanceJudge, RelevanceVerdictJudge
