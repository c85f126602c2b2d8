"""A finished run's records are made from its predictions directly, with no row written and parsed
in memory: each record equals what its predictions row reads back as (``record_of``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragjury import RagjurySettings, build_judge
from ragjury.evals.io.predictions import Prediction, record_of, record_of_prediction, run_of_predictions, run_of_rows
from ragjury.evals.pipelines.dataset_evaluation import evaluate_dataset_sync
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.core.results import Judgment, Usage

ROOT = Path(__file__).resolve().parents[4]
CASES = [
    ("correctness", "contains", ROOT / "examples" / "data" / "correctness.jsonl"),
    ("faithfulness", "support", ROOT / "examples" / "data" / "faithfulness.jsonl"),
    ("correctness", "token-overlap", ROOT / "tests" / "fixtures" / "pipeline_correctness.jsonl"),
]


def made_and_read_back(predictions: list[Prediction], key: str) -> tuple[list, list]:
    made = [record_of_prediction(p, line, key) for line, p in enumerate(predictions, start=1)]
    read = [record_of("<run>", line, p.as_dict(key), key) for line, p in enumerate(predictions, start=1)]
    return made, read


@pytest.mark.parametrize(("task", "judge", "data"), CASES, ids=[f"{t}-{j}" for t, j, _ in CASES])
def test_records_of_a_run_equal_its_rows_read_back(task: str, judge: str, data: Path) -> None:
    result = evaluate_dataset_sync(task, data, build_judge(task, judge, RagjurySettings()), progress=False,
                                   judge_name=judge)
    made, read = made_and_read_back(result.predictions, result.output_key)
    assert made == read
    assert run_of_predictions(result.predictions, output_key=result.output_key, path="<run>", name=task) == run_of_rows(
        enumerate(result.prediction_rows(), start=1), path="<run>", name=task)


def test_unscored_fallback_usage_scores_and_repeated_ids_read_back_alike() -> None:
    item = CorrectnessItem(question="q?", answer="a", references=["a"])
    unscored = Judgment[bool](judge="answer_correctness", model="m", unscored=True, unscored_reason="HTTP 500",
                              usage=Usage(input_tokens=10, requests=1), latency_s=0.25)
    fallback = Judgment[bool](value=True, judge="contains", fallback_used=True, fallback_reason="timeout",
                              method="logprobs")
    predictions = [
        Prediction("x", "s1", True, unscored, None, task="correctness", item=item, judge_name="auto"),
        Prediction("y", None, None, fallback, True, task="correctness", item=item, judge_name="auto"),
        Prediction("x", "s1", False, fallback, True, task="correctness", item=item, judge_name="auto"),
        Prediction("x", "s2", False, fallback, True, task="correctness", item=item, judge_name="auto"),
    ]
    made, read = made_and_read_back(predictions, "label")
    assert made == read
    direct = run_of_predictions(predictions, output_key="label", path="<run>", name="r")
    assert direct == run_of_rows(enumerate((p.as_dict() for p in predictions), start=1), path="<run>", name="r")
    assert direct.duplicates == 1 and direct.conflicting == ("x", 3)  # (system, id) repeated: a duplicate
    assert [(r.system, r.id) for r in direct.records] == [(None, "y"), ("s1", "x"), ("s2", "x")]  # x under s2: its own
    scores = [Prediction("z", None, 1, Judgment[float](value=0.5, judge="heuristic"), 1, task="score")]
    made, read = made_and_read_back(scores, "score")
    assert made == read and isinstance(made[0].label, float) and isinstance(made[0].gold, float)
