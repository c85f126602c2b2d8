"""``evals.non_llm_leaderboard`` called directly: grading, ranking and the kit's files, no CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragjury.evals.pipelines.non_llm_leaderboard import (
    MEASURE,
    competition_ranks,
    doc_id_md5,
    run_files,
    run_non_llm_judge,
)
from ragjury.rag_agent.core.input_files import InputError

GOOD = "Thomas Edison invented the light bulb in 1879."


def write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def report(run_id: str, topic: str, text: str) -> dict[str, object]:
    return {"metadata": {"run_id": run_id, "topic_id": topic}, "responses": [{"text": text}]}


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    topics = write(tmp_path / "topics.jsonl", [{"request_id": "t1", "title": "who invented the light bulb"}])
    runs = tmp_path / "runs"
    runs.mkdir()
    write(
        runs / "good.jsonl",
        [report("good", "t1", "bananas"), report("good", "t1", GOOD), report("good", "t9", GOOD)],
    )
    write(runs / "bad.jsonl", [report("bad", "t1", "bananas")])
    (runs / ".hidden").write_text("not a run")
    return topics, runs


def test_competition_ranks_share_ties() -> None:
    assert competition_ranks({"a": 1.0, "b": 1.0, "c": 0.5}) == {"a": 1, "b": 1, "c": 3}


def test_run_files_reads_every_visible_file(inputs: tuple[Path, Path], tmp_path: Path) -> None:
    _, runs = inputs
    assert [p.name for p in run_files(runs)] == ["bad.jsonl", "good.jsonl"]
    with pytest.raises(InputError, match="not found"):
        run_files(tmp_path / "none")


def test_grades_rank_and_count_without_writing(inputs: tuple[Path, Path]) -> None:
    topics, runs = inputs
    board = run_non_llm_judge(topics, runs, None, progress=False)
    assert board.grades == {("bad", "t1"): 0, ("good", "t1"): 2}  # the last "good" report counts
    assert (board.skipped, board.duplicated, board.n_topics) == (1, 1, 1)
    assert board.ordered == ["good", "bad"] and board.ranks == {"good": 1, "bad": 2}
    assert board.written is None and board.payload()["outputs"] == {
        "eval": None,
        "qrels": None,
        "config": None,
    }
    assert board.eval_text() == (
        f"bad\t{MEASURE}\tt1\t0.0\ngood\t{MEASURE}\tt1\t2.0\nbad\t{MEASURE}\tall\t0.0\ngood\t{MEASURE}\tall\t2.0\n"
    )
    assert board.qrels_text() == "".join(
        sorted([f"t1 0 {doc_id_md5('bananas')} 0\n", f"t1 0 {doc_id_md5(GOOD)} 2\n"])
    )
    assert board.payload()["leaderboard"] == [
        {"rank": 1, "run_id": "good", MEASURE: 2.0},
        {"rank": 2, "run_id": "bad", MEASURE: 0.0},
    ]


def test_writes_the_kits_three_files(inputs: tuple[Path, Path], tmp_path: Path) -> None:
    topics, runs = inputs
    out = tmp_path / "out"
    board = run_non_llm_judge(topics, runs, out, name="toy", progress=False)
    assert board.written == (out / "toy.eval.txt", out / "toy.qrels.txt", out / "toy.config.yml")
    assert (out / "toy.eval.txt").read_text() == board.eval_text()
    assert "judge_settings:" in (out / "toy.config.yml").read_text()
    assert board.payload()["outputs"]["qrels"] == str(out / "toy.qrels.txt")  # type: ignore[index]


def test_no_report_on_a_known_topic_is_an_input_error(tmp_path: Path) -> None:
    topics = write(tmp_path / "topics.jsonl", [{"request_id": "t1", "title": "lamps"}])
    run = write(tmp_path / "run.jsonl", [report("r", "t7", GOOD)])
    with pytest.raises(InputError, match="no report names a topic of"):
        run_non_llm_judge(topics, run, None, progress=False)
