"""ragjury: LLM-as-judge for RAG systems, with deterministic fallbacks and agreement with people."""

from ragjury.rag_agent.fallback import FallbackJudge
from ragjury.rag_agent.judge import JudgeLLM
from ragjury.rag_agent.models import DimensionRatings, JudgeScore, RAGAnswer, SourceDocument
from ragjury.rag_agent.protocol import BaseJudge, Judge, JudgeIdentity, JudgmentUnscored
from ragjury.rag_agent.results import Judgment, Usage

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
