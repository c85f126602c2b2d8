"""ragjury: LLM-as-judge for RAG systems, and a measured answer to "how far can I trust the judge?".

Judges score RAG answers and retrieved passages; every judgment records what produced it, and one
that could not be made is unscored, never a silent 0. The names below load on first use. Example::

    from ragjury import ContainsJudge, CorrectnessItem
    item = CorrectnessItem(question="Who?", answer="Ada Lovelace.", references=["Lovelace"])
    print(ContainsJudge().judge_sync(item))  # value=True judge='contains' ... unscored=False
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    # judges with a model
    "JudgeLLM": "ragjury.rag_agent.judges.llm.multi_dimension",
    "FaithfulnessJudge": "ragjury.rag_agent.judges.llm.faithfulness",
    "AttributionJudge": "ragjury.rag_agent.judges.llm.attribution",
    "CorrectnessJudge": "ragjury.rag_agent.judges.llm.correctness",
    "RelevanceVerdictJudge": "ragjury.rag_agent.judges.llm.relevance",
    "GradedRelevanceJudge": "ragjury.rag_agent.judges.llm.relevance",
    "GoalAccuracyJudge": "ragjury.rag_agent.judges.llm.goal",
    "Rubric": "ragjury.rag_agent.judges.llm.rubric",
    "RubricJudge": "ragjury.rag_agent.judges.llm.rubric",
    # judges without a model
    "ContainsJudge": "ragjury.rag_agent.judges.model_free.contains",
    "SupportJudge": "ragjury.rag_agent.judges.model_free.support",
    "TokenOverlapJudge": "ragjury.rag_agent.judges.model_free.token_overlap",
    "NonLLMJudge": "ragjury.rag_agent.judges.model_free.non_llm",
    "SemanticJudge": "ragjury.rag_agent.judges.model_free.semantic",
    "HeuristicScoreJudge": "ragjury.rag_agent.judges.model_free.score",
    # declaring a judge, and reading its labels
    "judge_entry": "ragjury.rag_agent.core.judge_entry",
    "value_tag": "ragjury.rag_agent.core.value_tags",
    # your own checks, run like judges (same envelope, cache and runner)
    "Check": "ragjury.rag_agent.judges.user_defined",
    "CheckRow": "ragjury.rag_agent.judges.user_defined",
    "CheckOutcome": "ragjury.rag_agent.judges.user_defined",
    "CheckJudge": "ragjury.rag_agent.judges.user_defined",
    "check": "ragjury.rag_agent.judges.user_defined",
    "label_of": "ragjury.rag_agent.core.labels",
    # combining judges
    "FallbackJudge": "ragjury.rag_agent.judges.combined.fallback",
    "Panel": "ragjury.rag_agent.judges.combined.panel",
    # the protocol and the envelope
    "Judge": "ragjury.rag_agent.core.protocol",
    "BaseJudge": "ragjury.rag_agent.core.protocol",
    "JudgeIdentity": "ragjury.rag_agent.core.protocol",
    "JudgmentUnscored": "ragjury.rag_agent.core.protocol",
    "Judgment": "ragjury.rag_agent.core.results",
    "Usage": "ragjury.rag_agent.core.results",
    # what is judged, and what a multi-dimension judge returns
    "CorrectnessItem": "ragjury.rag_agent.core.items",
    "FaithfulnessItem": "ragjury.rag_agent.core.items",
    "ScoreItem": "ragjury.rag_agent.core.items",
    "GoalItem": "ragjury.rag_agent.core.items",
    "RelevanceItem": "ragjury.rag_agent.core.items",
    "SourceDocument": "ragjury.rag_agent.core.schemas",
    "RAGAnswer": "ragjury.rag_agent.core.schemas",
    "JudgeScore": "ragjury.rag_agent.core.schemas",
    "DimensionRatings": "ragjury.rag_agent.core.schemas",
    # batch runs
    "RagjurySettings": "ragjury.config.settings",
    "build_judge": "ragjury.rag_agent.judges.catalogue",
    "run_judgments": "ragjury.evals.runs.runner",
    "open_cache": "ragjury.evals.runs.cache",
    "evaluate_dataset": "ragjury.evals.pipelines.dataset_evaluation",
    "evaluate_dataset_sync": "ragjury.evals.pipelines.dataset_evaluation",
    "DatasetFiles": "ragjury.evals.pipelines.dataset_evaluation",
    "DatasetEvaluation": "ragjury.evals.pipelines.dataset_evaluation",
    "evaluate_agent": "ragjury.evals.pipelines.agent_evaluation",
    "AgentEvaluation": "ragjury.evals.pipelines.agent_evaluation",
    "Gates": "ragjury.evals.results.gates",
    # system rates from the judge on every item and people on a few
    "estimate_predictions": "ragjury.evals.pipelines.system_estimates_run",
    "plan_labels": "ragjury.evals.pipelines.label_plan_run",
    "EstimatesResult": "ragjury.evals.stats.run_estimates",
    # two finished runs compared (report A B in Python), and the regression gate
    "compare_predictions": "ragjury.evals.pipelines.compare_predictions",
    "Comparison": "ragjury.evals.results.comparison",
    # many finished runs compared (report RUN1 ... RUNn in Python): ranking, simultaneous intervals, gate
    "compare_runs": "ragjury.evals.pipelines.compare_runs",
    "Sweep": "ragjury.evals.results.sweep",
}

__all__ = sorted(_EXPORTS)

# retired names: begin (issue #30: one word per idea; docs/glossary.md; removed after one release)
_RETIRED: dict[str, str] = {
    "JudgmentContext": "RelevanceItem",
    "Evaluator": "Check",
    "evaluator": "check",
    "EvaluatorJudge": "CheckJudge",
    "EvaluatorOutcome": "CheckOutcome",
    "EvalRow": "CheckRow",
    "EvaluationResult": "DatasetEvaluation",
    "DeterministicScoreJudge": "HeuristicScoreJudge",
    "PredictionsComparison": "Comparison",
}
"""Old public name -> its new name: still importable, with a ``DeprecationWarning``."""
# retired names: end


def _installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragjury")
    except PackageNotFoundError:  # a checkout on sys.path, not installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":  # read on first use: the package metadata lookup is not on every command's start
        globals()["__version__"] = _installed_version()
        return globals()["__version__"]
    if name in _RETIRED:
        import warnings

        warnings.warn(f"ragjury.{name} is now ragjury.{_RETIRED[name]} (docs/glossary.md)", DeprecationWarning,
                      stacklevel=2)
        return __getattr__(_RETIRED[name])
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
    from ragjury.evals.pipelines.agent_evaluation import AgentEvaluation, evaluate_agent
    from ragjury.evals.pipelines.dataset_evaluation import (
        DatasetFiles,
        DatasetEvaluation,
        evaluate_dataset,
        evaluate_dataset_sync,
    )
    from ragjury.evals.pipelines.compare_predictions import compare_predictions
    from ragjury.evals.results.comparison import Comparison
    from ragjury.evals.pipelines.compare_runs import compare_runs
    from ragjury.evals.results.sweep import Sweep
    from ragjury.evals.pipelines.label_plan_run import plan_labels
    from ragjury.evals.pipelines.system_estimates_run import estimate_predictions
    from ragjury.evals.stats.run_estimates import EstimatesResult
    from ragjury.rag_agent.core.judge_entry import judge_entry
    from ragjury.rag_agent.core.value_tags import value_tag
    from ragjury.rag_agent.judges.catalogue import build_judge
    from ragjury.rag_agent.judges.user_defined import CheckRow, Check, CheckJudge, CheckOutcome, check
    from ragjury.evals.results.gates import Gates
    from ragjury.evals.runs.cache import open_cache
    from ragjury.evals.runs.runner import run_judgments
    from ragjury.rag_agent.core.items import (
        CorrectnessItem,
        FaithfulnessItem,
        GoalItem,
        RelevanceItem,
        ScoreItem,
    )
    from ragjury.rag_agent.core.labels import label_of
    from ragjury.rag_agent.core.protocol import BaseJudge, Judge, JudgeIdentity, JudgmentUnscored
    from ragjury.rag_agent.core.results import Judgment, Usage
    from ragjury.rag_agent.core.schemas import DimensionRatings, JudgeScore, RAGAnswer, SourceDocument
    from ragjury.rag_agent.judges.catalogue import resolve
    from ragjury.rag_agent.judges.combined.fallback import FallbackJudge
    from ragjury.rag_agent.judges.combined.panel import Panel
    from ragjury.rag_agent.judges.llm.attribution import AttributionJudge
    from ragjury.rag_agent.judges.llm.correctness import CorrectnessJudge
    from ragjury.rag_agent.judges.llm.rubric import Rubric, RubricJudge
    from ragjury.rag_agent.judges.llm.faithfulness import FaithfulnessJudge
    from ragjury.rag_agent.judges.llm.goal import GoalAccuracyJudge
    from ragjury.rag_agent.judges.llm.multi_dimension import JudgeLLM
    from ragjury.rag_agent.judges.llm.relevance import GradedRelevanceJudge, RelevanceVerdictJudge
    from ragjury.rag_agent.judges.model_free.contains import ContainsJudge
    from ragjury.rag_agent.judges.model_free.non_llm import NonLLMJudge
    from ragjury.rag_agent.judges.model_free.score import HeuristicScoreJudge
    from ragjury.rag_agent.judges.model_free.semantic import SemanticJudge
    from ragjury.rag_agent.judges.model_free.support import SupportJudge
    from ragjury.rag_agent.judges.model_free.token_overlap import TokenOverlapJudge
