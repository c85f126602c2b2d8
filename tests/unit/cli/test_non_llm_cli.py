"""``ragjury non-llm-judge``: the kit's toy leaderboard and qrels, and one-line input errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
runner = CliRunner()

# The kit's published toy qrels (trec26/judges/non_llm_judge/toy_output/default.qrels.txt).
KIT_TOY_QRELS = """\
q1 0 0707cd94d5e7573b0f961e9113ff4c03 2
q1 0 b95ab4bff31dc9161cdabc09f1f795e0 2
q1 0 dfb02762c936af8e60ef279fc6c2aee8 0
q2 0 ac212b7ab6f9979a73cdda522fbe3ebc 2
q2 0 bc6ba295c1cd0c4bb03840c5cd593c25 2
q2 0 cc222eb9571567c21397a0be2eb03c48 1
q3 0 20e7ee4d6b3fefbb3ce54341ed134d3d 1
q3 0 a004c219ee97401b8e5262debcdf7b77 1
q3 0 db821ec560fbb61ef58a534da5570fd1 1
"""


def invoke(*args: str) -> object:
    return runner.invoke(app, ["non-llm-judge", *args])


def test_toy_leaderboard_ranks_high_quality_first(benchmarks_dir: Path, tmp_path: Path) -> None:
    toy = benchmarks_dir / "trec-rag-toy"
    result = invoke(
        "--workflow",
        str(FIXTURES / "deterministic_kit_workflow.yml"),
        "--rag-topics",
        str(toy / "topics.jsonl"),
        "--rag-responses",
        str(toy / "runs"),
        "--out-dir",
        str(tmp_path),
        "--json",
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    board = {row["run_id"]: row for row in summary["leaderboard"]}
    assert board["run_high_quality"]["rank"] == 1
    assert board["run_low_quality"]["rank"] == 3
    # The kit's algorithm ties high and medium (its own toy output shows the same): a shared first place.
    assert board["run_high_quality"]["AVG_GRADE"] == pytest.approx(5 / 3)
    assert board["run_high_quality"]["AVG_GRADE"] > board["run_low_quality"]["AVG_GRADE"]

    lines = (tmp_path / "default.eval.txt").read_text().splitlines()
    rows = [line.split("\t") for line in lines]
    assert all(len(row) == 4 and row[1] == "AVG_GRADE" for row in rows)
    assert ["run_low_quality", "AVG_GRADE", "q1", "0.0"] in rows
    assert ["run_high_quality", "AVG_GRADE", "all", str(5 / 3)] in rows
    assert sum(row[2] == "all" for row in rows) == 3 and len(rows) == 12
    assert (tmp_path / "default.qrels.txt").read_text() == KIT_TOY_QRELS
    assert "length_weight: 0.2" in (tmp_path / "default.config.yml").read_text()


def test_human_output_and_name(benchmarks_dir: Path, tmp_path: Path) -> None:
    toy = benchmarks_dir / "trec-rag-toy"
    result = invoke(
        "--rag-topics",
        str(toy / "topics.jsonl"),
        "--rag-responses",
        str(toy / "runs" / "run_low_quality.jsonl"),
        "--out-dir",
        str(tmp_path),
        "--name",
        "low",
    )
    assert result.exit_code == 0, result.output
    assert "run_low_quality" in result.stdout and (tmp_path / "low.eval.txt").exists()


def write(path: Path, lines: list[object]) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


@pytest.fixture
def topics(tmp_path: Path) -> Path:
    return write(tmp_path / "topics.jsonl", [{"request_id": "t1", "title": "who invented the light bulb"}])


def run_line(
    run_id: str = "r1", topic: str = "t1", text: str = "Edison invented the light bulb."
) -> dict[str, object]:
    return {"metadata": {"run_id": run_id, "topic_id": topic}, "responses": [{"text": text, "citations": []}]}


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([run_line(), "{not json"], ":2: malformed JSON"),
        ([{"responses": []}], ":1: field 'metadata'"),
        ([{"metadata": {"topic_id": "t1"}, "responses": []}], ":1: field 'metadata.run_id'"),
        (
            [{"metadata": {"run_id": "r", "topic_id": "t1"}, "responses": [{"txt": "x"}]}],
            ":1: field 'responses.0'",
        ),
        ([run_line(topic="unknown")], "no report names a topic"),
    ],
)
def test_bad_runs_fail_in_one_line(tmp_path: Path, topics: Path, lines: list[object], message: str) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    write(runs / "run.jsonl", lines)
    result = invoke(
        "--rag-topics", str(topics), "--rag-responses", str(runs), "--out-dir", str(tmp_path / "out")
    )
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_bad_workflow_and_topics_name_the_place(tmp_path: Path, topics: Path) -> None:
    run = write(tmp_path / "run.jsonl", [run_line()])
    workflow = tmp_path / "workflow.yml"
    workflow.write_text("judge_settings:\n  keyword_weight: lots\n")
    result = invoke(
        "--workflow",
        str(workflow),
        "--rag-topics",
        str(topics),
        "--rag-responses",
        str(run),
        "--out-dir",
        str(tmp_path / "o"),
    )
    assert result.exit_code == 2 and "workflow.yml:2: field 'judge_settings.keyword_weight'" in result.output
    bad_topics = write(tmp_path / "bad_topics.jsonl", [{"title": "x"}])
    result = invoke(
        "--rag-topics", str(bad_topics), "--rag-responses", str(run), "--out-dir", str(tmp_path / "o")
    )
    assert result.exit_code == 2 and "bad_topics.jsonl:1: field 'request_id'" in result.output
    result = invoke(
        "--rag-topics",
        str(tmp_path / "missing.jsonl"),
        "--rag-responses",
        str(run),
        "--out-dir",
        str(tmp_path),
    )
    assert result.exit_code == 2 and "file not found" in result.output


def test_unknown_topics_are_skipped_with_a_warning_and_last_duplicate_wins(
    tmp_path: Path, topics: Path
) -> None:
    run = write(
        tmp_path / "run.jsonl",
        [
            run_line(text="bananas"),
            run_line(topic="t9"),
            run_line(text="Thomas Edison invented the light bulb in 1879."),
        ],
    )
    result = invoke(
        "--rag-topics", str(topics), "--rag-responses", str(run), "--out-dir", str(tmp_path / "o"), "--json"
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["skipped"] == 1
    assert "skipped 1 report" in result.stderr and "duplicate" in result.stderr
    assert "r1\tAVG_GRADE\tt1\t2.0" in (tmp_path / "o" / "default.eval.txt").read_text()


def test_ragtime_topics_use_problem_statement(tmp_path: Path) -> None:
    topics = write(
        tmp_path / "t.jsonl",
        [{"request_id": "t1", "title": "Lamps", "problem_statement": "who invented the light bulb"}],
    )
    run = write(tmp_path / "run.jsonl", [run_line(text="Thomas Edison invented the light bulb in 1879.")])
    title_only = tmp_path / "rag.yml"
    title_only.write_text("judge_settings:\n  topic_format: rag\n")
    grades = []
    for extra in ([], ["--workflow", str(title_only)]):
        result = invoke(
            "--rag-topics",
            str(topics),
            "--rag-responses",
            str(run),
            "--out-dir",
            str(tmp_path / "o"),
            "--json",
            *extra,
        )
        assert result.exit_code == 0, result.output
        grades.append(json.loads(result.stdout)["leaderboard"][0]["AVG_GRADE"])
    assert grades[0] > grades[1]  # auto reads title + problem_statement; rag reads "Lamps" alone
