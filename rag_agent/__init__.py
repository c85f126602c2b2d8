"""ragjury.rag_agent: the judging library an agent imports (the judgment envelope, the model client,
the judges and the reference RAG agent); nothing here imports ``evals``, ``commands`` or the CLI.

Names load on first use (PEP 562): importing one submodule (a command, the inputs reader) must not
pull in pydantic-ai and the model clients, or every ``ragjury --help`` would pay for them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "FallbackJudge": "judges.combined.fallback",
    "JudgeLLM": "judges.llm.multi_dimension",
    "DimensionRatings": "core.schemas",
    "JudgeScore": "core.schemas",
    "RAGAnswer": "core.schemas",
    "SourceDocument": "core.schemas",
    "BaseJudge": "core.protocol",
    "Judge": "core.protocol",
    "JudgeIdentity": "core.protocol",
    "JudgmentUnscored": "core.protocol",
    "Judgment": "core.results",
    "Usage": "core.results",
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
    from ragjury.rag_agent.core.protocol import BaseJudge, Judge, JudgeIdentity, JudgmentUnscored
    from ragjury.rag_agent.core.results import Judgment, Usage
    from ragjury.rag_agent.core.schemas import DimensionRatings, JudgeScore, RAGAnswer, SourceDocument
    from ragjury.rag_agent.judges.combined.fallback import FallbackJudge
    from ragjury.rag_agent.judges.llm.multi_dimension import JudgeLLM
