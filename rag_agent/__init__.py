"""ragjury.rag_agent: judges, the judgment envelope, the reference RAG agent and the CLI commands.

Names load on first use (PEP 562): importing one submodule (a command, the inputs reader) must not
pull in pydantic-ai and the model clients, or every ``ragjury --help`` would pay for them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "FallbackJudge": "fallback",
    "JudgeLLM": "judge",
    "DimensionRatings": "schemas",
    "JudgeScore": "schemas",
    "RAGAnswer": "schemas",
    "SourceDocument": "schemas",
    "BaseJudge": "protocol",
    "Judge": "protocol",
    "JudgeIdentity": "protocol",
    "JudgmentUnscored": "protocol",
    "Judgment": "results",
    "Usage": "results",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from ragjury.rag_agent.fallback import FallbackJudge
    from ragjury.rag_agent.judge import JudgeLLM
    from ragjury.rag_agent.protocol import BaseJudge, Judge, JudgeIdentity, JudgmentUnscored
    from ragjury.rag_agent.results import Judgment, Usage
    from ragjury.rag_agent.schemas import DimensionRatings, JudgeScore, RAGAnswer, SourceDocument
