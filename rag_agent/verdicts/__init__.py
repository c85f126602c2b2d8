"""Binary verdict judges: faithfulness, answer correctness, passage relevance (binary and 0-3), goal accuracy.

Every verdict is a typed field (``"0"``/``"1"`` or a 0-3 grade) so that anything else is
rejected at parse time and retried; every judge can draw ``samples`` (odd) verdicts and report
the majority and the agreement rate. All of them implement the one judge protocol
(``rag_agent.protocol``), so the batch pipeline, the cache and the fallback wrapper treat them
like any other judge.
"""

from ragjury.rag_agent.verdicts.base import LLMVerdictJudge, SampledJudgment, VerdictOutput
from ragjury.rag_agent.verdicts.correctness import CorrectnessJudge, Verdict
from ragjury.rag_agent.verdicts.faithfulness import FaithfulnessJudge, FaithfulnessResult, StatementVerdict
from ragjury.rag_agent.verdicts.goal import GoalAccuracyJudge, GoalResult
from ragjury.rag_agent.verdicts.relevance import GRADE_NAMES, GradedRelevanceJudge, RelevanceVerdictJudge
from ragjury.rag_agent.verdicts.trace_format import TRACE_FORMAT_VERSION, TraceText, format_trace

__all__ = [
    "GRADE_NAMES",
    "TRACE_FORMAT_VERSION",
    "CorrectnessJudge",
    "FaithfulnessJudge",
    "FaithfulnessResult",
    "GoalAccuracyJudge",
    "GoalResult",
    "GradedRelevanceJudge",
    "LLMVerdictJudge",
    "RelevanceVerdictJudge",
    "SampledJudgment",
    "StatementVerdict",
    "TraceText",
    "Verdict",
    "VerdictOutput",
    "format_trace",
]
