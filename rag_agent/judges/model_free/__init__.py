"""Judges that need no model: usable alone, as baselines, and as the fallback.

- ``TokenOverlapJudge`` (Evret's token rule), ``SemanticJudge`` (embedding cosine),
  ``NonLLMJudge`` (TREC AutoJudge's non-LLM 0-3 grader) judge ``JudgmentContext`` items;
- ``ContainsJudge`` judges ``CorrectnessItem`` (a reference occurs in the answer);
- ``SupportJudge`` judges ``FaithfulnessItem`` (share of the answer the context supports: the
  model-free faithfulness judge);
- ``DeterministicScoreJudge`` gives a heuristic ``JudgeScore`` (the multi-dimension fallback).

Names are imported on first use, so importing one judge does not load the others' libraries.
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
    "DeterministicScoreJudge": "score",
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
    "DeterministicScoreJudge",
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
