"""``ragjury relevance``: pooling, TREC qrels output, unscored pairs kept apart, cache, errors."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.config.settings import get_settings
from ragjury.evals.io.loaders import load_qrels
from ragjury.rag_agent.judges.catalogue import judge_names

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TOPICS = str(FIXTURES / "pipeline_topics.jsonl")
PASSAGES = str(FIXTURES / "pipeline_passages.jsonl")
RUNS_GLOB = str(FIXTURES / "pipeline_run_*.trec")
PAIRS = str(FIXTURES / "pipeline_pairs.qrels")
FAKE = "python:pipeline_fake_judge:KeywordRelevanceJudge"

runner = CliRunner()


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("RAGJURY_CACHE_PATH", str(tmp_path / "cache.sqlite"))
    monkeypatch.setenv("RAGJURY_FAKE_JUDGE_LOG", str(tmp_path / "calls.log"))
    monkeypatch.delenv("RAGJURY_BASE_URL", raising=False)
    monkeypatch.syspath_prepend(str(FIXTURES))
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()
    sys.modules.pop("pipeline_fake_judge", None)


def relevance(*args: str):
    return runner.invoke(
        app, ["relevance", "--topics", TOPICS, "--passages", PASSAGES, "--no-progress", *args]
    )


def summary_of(result) -> dict:  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def calls(tmp_path: Path) -> int:
    log = tmp_path / "calls.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_non_llm_pools_runs_and_writes_graded_qrels(tmp_path: Path) -> None:
    out = tmp_path / "judged.qrels"
    summary = summary_of(
        relevance("--runs", RUNS_GLOB, "--depth", "3", "--judge", "non-llm", "--out", str(out), "--json")
    )
    # run_a and run_b top 3: 8 distinct pairs; d9 has no passage text.
    assert (summary["pooled"], summary["skipped_missing_passage"], summary["n"]) == (8, 1, 7)
    assert summary["pooled_runs"] == ["run_a", "run_b"] and summary["scale"] == "graded"
    lines = out.read_text().splitlines()
    assert len(lines) == summary["written"] == 7
    for line in lines:
        qid, zero, docid, grade = line.split()
        assert qid in {"q1", "q2"} and zero == "0" and docid != "d9" and grade in {"0", "1", "2", "3"}
    qrels = load_qrels(out)  # part A's loader reads what we write
    assert set(qrels) == {"q1", "q2"} and set(qrels["q1"]) == {"d1", "d2", "d3"}
    assert qrels["q1"]["d1"] > qrels["q1"]["d2"]  # the tides passage beats the stock market
    assert sum(summary["grades"].values()) == 7


def test_depth_limits_the_pool_and_folders_work(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("pipeline_run_a.trec", "pipeline_run_b.trec"):
        shutil.copy(FIXTURES / name, runs / name)
    summary = summary_of(
        relevance(
            "--runs",
            str(runs),
            "--depth",
            "2",
            "--judge",
            "non-llm",
            "--out",
            str(tmp_path / "x.qrels"),
            "--json",
        )
    )
    assert (summary["pooled"], summary["n"]) == (6, 6)


def test_binary_judge_unscored_pairs_go_to_a_side_file_and_resume_from_cache(tmp_path: Path) -> None:
    out = tmp_path / "judged.qrels"
    args = (
        "--runs",
        RUNS_GLOB,
        "--pairs",
        PAIRS,
        "--depth",
        "3",
        "--judge",
        FAKE,
        "--out",
        str(out),
        "--json",
    )
    first = summary_of(relevance(*args))
    # 8 pooled from the runs + (q1, d6) and (q2, d8) from the pairs; d8 and d9 have no text.
    assert (first["pooled"], first["skipped_missing_passage"], first["n"]) == (10, 2, 8)
    assert (first["unscored"], first["written"]) == (1, 7)
    assert calls(tmp_path) == 8
    qrels = load_qrels(out)
    assert qrels["q1"] == {"d1": 1, "d2": 0, "d3": 0, "d6": 0}
    assert qrels["q2"] == {"d4": 1, "d6": 0, "d2": 0}  # d5 is unscored: not written as a 0
    unscored = (tmp_path / "judged.qrels.unscored.tsv").read_text().splitlines()
    assert unscored == ["qid\tdocid\treason", "q2\td5\tmodel output invalid (test)"]

    second = summary_of(relevance(*args))
    assert (second["cached"], second["judged"]) == (7, 1)  # only the unscored pair is retried
    kept = summary_of(relevance(*args, "--no-retry-unscored"))
    assert (kept["cached"], kept["judged"]) == (8, 0)
    assert calls(tmp_path) == 9
    assert load_qrels(out) == qrels


def test_pairs_alone_judge_exactly_those_pairs(tmp_path: Path) -> None:
    out = tmp_path / "p.qrels"
    summary = summary_of(relevance("--pairs", PAIRS, "--judge", "non-llm", "--out", str(out), "--json"))
    assert (summary["pooled"], summary["n"], summary["depth"]) == (4, 3, None)
    assert sorted(line.split()[2] for line in out.read_text().splitlines()) == ["d1", "d4", "d6"]
    assert not (tmp_path / "p.qrels.unscored.tsv").exists()


def test_human_summary(tmp_path: Path) -> None:
    result = relevance("--runs", RUNS_GLOB, "--judge", "non-llm", "--out", str(tmp_path / "h.qrels"))
    assert result.exit_code == 0, result.output
    assert "pairs pooled" in result.stdout and "qrels written to" in result.stdout


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--judge", "non-llm"), "give --runs"),
        (
            ("--runs", RUNS_GLOB, "--judge", "gpt-judge"),
            "valid judges: " + ", ".join(judge_names("relevance")),
        ),
        (("--runs", str(FIXTURES / "nothing_*.trec")), "no run file matches"),
        (("--runs", str(FIXTURES / "missing.trec")), "missing.trec: file not found"),
        (("--runs", str(FIXTURES / "pipeline_pairs.qrels")), "pipeline_pairs.qrels:1: expected 6 columns"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path: Path, args: tuple[str, ...], expected: str) -> None:
    result = relevance("--out", str(tmp_path / "x.qrels"), *args)
    assert result.exit_code == 2, result.output
    assert expected in " ".join(result.output.split())
    assert "Traceback" not in result.output


@pytest.mark.parametrize("judge", ["non-llm", "token-overlap"])
def test_model_free_judges_say_they_are_unfit_to_rank_systems(tmp_path: Path, judge: str) -> None:
    result = relevance("--runs", RUNS_GLOB, "--judge", judge, "--out", str(tmp_path / "q.qrels"), "--json")
    assert result.exit_code == 0, result.output
    assert f"--judge {judge} is unfit to rank retrieval systems" in result.stderr
    assert "Kendall tau -0." in result.stderr and json.loads(result.stdout)["n"] > 0
    fake = relevance("--runs", RUNS_GLOB, "--judge", FAKE, "--out", str(tmp_path / "f.qrels"), "--json")
    assert "unfit" not in fake.stderr


def test_a_dead_server_is_the_cause_alone_with_the_fix(offline_cli, tmp_path) -> None:  # noqa: ANN001
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    result = CliRunner().invoke(app, [
        "relevance", "--judge", "llm", "--topics", str(fixtures / "pipeline_topics.jsonl"),
        "--passages", str(fixtures / "pipeline_passages.jsonl"), "--runs", str(fixtures / "pipeline_run_a.trec"),
        "--out", str(tmp_path / "judged.qrels"), "--no-progress", "--no-cache",
    ], env={"COLUMNS": "80"})
    assert result.exit_code == 3, result.output
    assert result.stdout == ""  # no table of zeros before the cause
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nothing was scored: model server unreachable at http://127.0.0.1:9")
    assert "start your server" in lines[0] and "not written" in lines[0]
