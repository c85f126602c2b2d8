"""Judges that need no model: usable alone, as baselines, and as the fallback.

Cheap and repeatable, they are the baseline every LLM judge must beat and what answers when
the model cannot. Names are imported on first use, so one judge does not load another's libraries.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "TokenOverlapJudge": "token_overlap",
    "SemanticJudge": "semantic",
    "NonLLMJudge": "non_llm",
    "NonLLMSettings": "non_llm",
    "NonLLMScores": "non_llm",
    "ContainsJudge": "contains",
    "SupportJudge": "support",
    "SupportScore": "support",
    "HeuristicScoreJudge": "score",
    "heuristic_ratings": "score",
    "Embedder": "embedders",
    "EmbedderUnavailable": "embedders",
    "CachingEmbedder": "embedders",
    "OllamaEmbedder": "embedders",
    "OpenAICompatibleEmbedder": "embedders",
    "SentenceTransformerEmbedder": "embedders",
}

__all__ = [
    "CachingEmbedder",
    "ContainsJudge",
    "HeuristicScoreJudge",
    "Embedder",
    "EmbedderUnavailable",
    "NonLLMJudge",
    "NonLLMScores",
    "NonLLMSettings",
    "OllamaEmbedder",
    "OpenAICompatibleEmbedder",
    "SemanticJudge",
    "SentenceTransformerEmbedder",
    "SupportJudge",
    "SupportScore",
    "TokenOverlapJudge",
    "heuristic_ratings",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
