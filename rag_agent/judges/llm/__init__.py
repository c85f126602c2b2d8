"""Judges that ask a model: one-token verdicts (faithfulness, correctness, relevance, goal) and
the multi-dimension ``JudgeLLM``.

Names load on first use, so building one judge imports only its own module.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ModelVerdictJudge": "verdict_base",
    "SampledJudgment": "verdict_base",
    "VerdictOutput": "verdict_base",
    "CorrectnessJudge": "correctness",
    "Verdict": "correctness",
    "FaithfulnessJudge": "faithfulness",
    "FaithfulnessResult": "faithfulness",
    "StatementVerdict": "faithfulness",
    "AttributionJudge": "attribution",
    "GoalAccuracyJudge": "goal",
    "GoalResult": "goal",
    "GRADE_NAMES": "relevance",
    "GradedRelevanceJudge": "relevance",
    "RelevanceVerdictJudge": "relevance",
    "TRACE_FORMAT_VERSION": "trace_format",
    "TraceText": "trace_format",
    "format_trace": "trace_format",
    "JudgeLLM": "multi_dimension",
    "ModelJudge": "model_judge",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
