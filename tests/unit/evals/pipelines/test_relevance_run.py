"""``evals.relevance_run`` called directly: pooling, qrels files, planning and a whole run, no CLI."""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path

import pytest
from rich.console import Console

from ragjury.evals.io.loaders import load_qrels
from ragjury.evals.pipelines.relevance_run import (
    NothingToJudge,
    PairJudgments,
    RelevanceRunResult,
    plan_relevance,
    pool_pairs,
    run_relevance,
    unscored_path_of,
    write_qrels,
    write_unscored,
)
from ragjury.evals.runs.runner import RunStats
from ragjury.rag_agent.core.input_files import InputError

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
TOPICS = FIXTURES / "pipeline_topics.jsonl"
PASSAGES = FIXTURES / "pipeline_passages.jsonl"
RUNS_GLOB = str(FIXTURES / "pipeline_run_*.trec")
PAIRS = FIXTURES / "pipeline_pairs.qrels"


def test_pool_pairs_takes_each_runs_top_depth_then_the_pairs_once_each() -> None:
    runs = [
        {"q1": [("a", 3.0), ("b", 2.0), ("z", 1.0)]},
        {"q1": [("b", 1.0), ("c", 0.5)], "q2": [("x", 1.0)]},
    ]
    assert pool_pairs(runs, 1) == [("q1", "a"), ("q1", "b"), ("q2", "x")]
    assert pool_pairs(runs, 2, {"q3": {"y": 0}, "q1": {"a": 2}}) == [
        ("q1", "a"),
        ("q1", "b"),
        ("q1", "c"),
        ("q2", "x"),
        ("q3", "y"),
    ]


def test_write_qrels_groups_by_query_in_pooling_order_and_leaves_out_unjudged(tmp_path: Path) -> None:
    out = tmp_path / "j.qrels"
    order = [("q1", "a"), ("q2", "x"), ("q1", "b"), ("q1", "c")]
    write_qrels(out, {("q2", "x"): 1, ("q1", "a"): 2, ("q1", "c"): 0}, order)
    assert out.read_text() == "q1 0 a 2\nq1 0 c 0\nq2 0 x 1\n"


def test_write_unscored_keeps_each_reason_on_one_line(tmp_path: Path) -> None:
    out = tmp_path / "u.tsv"
    write_unscored(out, {("q1", "a"): "bad\n  output\tthere", ("q2", "b"): "timeout"})
    assert out.read_text() == "qid\tdocid\treason\nq1\ta\tbad output there\nq2\tb\ttimeout\n"
    assert unscored_path_of(tmp_path / "j.qrels") == tmp_path / "j.qrels.unscored.tsv"


def test_plan_pools_runs_and_pairs_and_sets_aside_pairs_without_text(tmp_path: Path) -> None:
    plan = plan_relevance(TOPICS, PASSAGES, runs=[RUNS_GLOB], pairs=PAIRS, depth=3, out=tmp_path / "j.qrels")
    assert [run.name for run in plan.runs] == ["run_a", "run_b"]
    assert len(plan.pooled) == 10 and plan.missing_query == []
    assert plan.missing_passage == [("q1", "d9"), ("q2", "d8")]
    assert plan.todo[:3] == [("q1", "d1"), ("q1", "d2"), ("q1", "d3")] and len(plan.todo) == 8
    items = plan.items()
    assert items[0].query == "what causes ocean tides" and items[0].retrieved_text.startswith("Ocean tides")
    assert plan.inputs()["pairs"] == str(PAIRS) and len(plan.inputs()["runs"]) == 2
    assert plan_relevance(TOPICS, PASSAGES, runs=[RUNS_GLOB], depth=1, limit=2).todo == [
        ("q1", "d1"),
        ("q2", "d4"),
    ]


def test_plan_refuses_nothing_to_judge_and_an_output_over_an_input(tmp_path: Path) -> None:
    pairs = tmp_path / "p.qrels"
    pairs.write_text("q7 0 d1 1\nq1 0 d8 0\n")
    with pytest.raises(NothingToJudge, match="no pair to judge: 1 lack a query, 1 lack passage text"):
        plan_relevance(TOPICS, PASSAGES, pairs=pairs)
    with pytest.raises(InputError, match="is the input --pairs"):
        plan_relevance(TOPICS, PASSAGES, pairs=PAIRS, out=PAIRS)


@pytest.fixture
def keyword_judge(monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.delenv("RAGJURY_FAKE_JUDGE_LOG", raising=False)
    monkeypatch.syspath_prepend(str(FIXTURES))
    from pipeline_fake_judge import KeywordRelevanceJudge

    yield KeywordRelevanceJudge()
    sys.modules.pop("pipeline_fake_judge", None)


def test_run_relevance_writes_grades_and_keeps_unscored_pairs_apart(
    tmp_path: Path, keyword_judge: object
) -> None:
    out = tmp_path / "j.qrels"
    plan = plan_relevance(TOPICS, PASSAGES, runs=[RUNS_GLOB], pairs=PAIRS, depth=3, out=out)
    result = asyncio.run(
        run_relevance(plan, keyword_judge, judge_name="keyword", scale="binary", out=out, progress=False)  # type: ignore[arg-type]
    )
    assert out.read_text() == (
        "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 0\nq1 0 d6 0\nq2 0 d4 1\nq2 0 d6 0\nq2 0 d2 0\n"
    )  # d5 is unscored: not written as a 0
    assert result.unscored == {("q2", "d5"): "model output invalid (test)"}
    assert (tmp_path / "j.qrels.unscored.tsv").read_text().splitlines()[
        1
    ] == "q2\td5\tmodel output invalid (test)"
    payload = result.payload()
    assert payload["pooled_runs"] == ["run_a", "run_b"] and payload["depth"] == 3
    assert (payload["pooled"], payload["skipped_missing_passage"], payload["n"]) == (10, 2, 8)
    assert (payload["written"], payload["unscored"], payload["grades"]) == (7, 1, {"0": 5, "1": 2})
    assert payload["outputs"] == {"qrels": str(out), "unscored": str(out) + ".unscored.tsv"}
    rows = dict(result.rows())
    assert rows["pairs pooled"] == "10" and rows["grades"] == "0: 5, 1: 2"
    console = Console(file=io.StringIO(), width=120)
    result.render(console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "relevance judged by keyword (binary)" in text and f"qrels written to {out}" in text


def test_write_keeps_an_earlier_qrels_when_nothing_is_scored_and_drops_a_stale_list(tmp_path: Path) -> None:
    out = tmp_path / "j.qrels"
    out.write_text("q1 0 old 3\n")
    plan = plan_relevance(TOPICS, PASSAGES, pairs=PAIRS)
    failed = RelevanceRunResult(plan, "x", "binary", PairJudgments({}, {("q1", "d1"): "down"}, RunStats()))
    failed.write(out)
    assert out.read_text() == "q1 0 old 3\n" and failed.qrels_path is None
    assert failed.payload()["outputs"] == {"qrels": None, "unscored": str(unscored_path_of(out))}
    scored = RelevanceRunResult(plan, "x", "binary", PairJudgments({("q1", "d1"): 1}, {}, RunStats()))
    scored.write(out)
    assert load_qrels(out) == {"q1": {"d1": 1}} and not unscored_path_of(out).exists()
    assert scored.payload()["depth"] is None  # no run pooled: depth does not apply
