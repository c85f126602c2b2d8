"""ragjury: LLM-as-judge for RAG systems, with deterministic fallbacks and agreement with people."""

from rag_agent.fallback import FallbackJudge
from rag_agent.judge import JudgeLLM
from rag_agent.models import DimensionRatings, JudgeScore, RAGAnswer, SourceDocument
from rag_agent.protocol import BaseJudge, Judge, JudgeIdentity, JudgmentUnscored
from rag_agent.results import Judgment, Usage

__all__ = [
    "BaseJudge",
    "DimensionRatings",
    "FallbackJudge",
    "Judge",
    "JudgeIdentity",
    "JudgeLLM",
    "JudgeScore",
    "Judgment",
    "JudgmentUnscored",
    "RAGAnswer",
    "SourceDocument",
    "Usage",
]
