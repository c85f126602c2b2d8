"""``report A B`` checks what it compares: one task, an id in common, no id with two different rows,
and a headline that says when two different judges judged the runs; paired rates beside B - A."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragjury.cli import app

runner = CliRunner()


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def row(i: int, label: bool, answer: str = "x", judge: str = "contains", **extra: object) -> dict:
    return {"id": f"q{i}", "label": label, "judge": judge, "task": "correctness",
            "item": {"question": f"question {i}?", "answer": answer, "references": ["x"]}, **extra}


def test_runs_of_two_tasks_are_refused(tmp_path: Path) -> None:
    a = write(tmp_path / "a.jsonl", [row(i, True) for i in range(12)])
    b = write(tmp_path / "b.jsonl", [{**row(i, True), "task": "faithfulness"} for i in range(12)])
    result = runner.invoke(app, ["report", str(a), str(b)])
    assert result.exit_code == 2 and "one task" in result.output


def test_no_id_in_common_is_exit_2(tmp_path: Path) -> None:
    a = write(tmp_path / "a.jsonl", [row(i, True) for i in range(5)])
    b = write(tmp_path / "b.jsonl", [row(i + 100, True) for i in range(5)])
    result = runner.invoke(app, ["report", str(a), str(b)])
    assert result.exit_code == 2 and "no id in common" in result.output


def test_an_id_with_two_different_rows_is_refused(tmp_path: Path) -> None:
    a = write(tmp_path / "a.jsonl", [row(i, True) for i in range(5)] + [row(2, False)])
    b = write(tmp_path / "b.jsonl", [row(i, True) for i in range(5)])
    result = runner.invoke(app, ["report", str(a), str(b)])
    assert result.exit_code == 2 and "a.jsonl:6" in result.output and "'q2' appears twice" in result.output


def test_two_judges_are_not_headlined_as_the_same_judge(tmp_path: Path) -> None:
    a = write(tmp_path / "a.jsonl", [row(i, i % 2 == 0, answer=f"a{i}") for i in range(20)])
    b = write(tmp_path / "b.jsonl", [row(i, i % 3 == 0, answer=f"b{i}", judge="llm") for i in range(20)])
    result = runner.invoke(app, ["report", str(a), str(b)])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "judged by DIFFERENT judges (A: contains; B: llm)" in text and "judged by the same judge" not in text


def test_paired_rates_are_printed_when_the_items_differ(tmp_path: Path) -> None:
    a = write(tmp_path / "a.jsonl", [row(i, i < 12, answer=f"a{i}") for i in range(20)])
    b = write(tmp_path / "b.jsonl", [row(i, i < 15, answer=f"b{i}") for i in range(10, 30)])
    result = runner.invoke(app, ["report", str(a), str(b)])
    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if line.startswith("B - A"))
    assert "on those questions A 20.0 %, B 50.0 %" in " ".join(result.output.split())
    assert "10 paired" not in line


def test_the_json_caveat_is_the_sentence_not_a_label(tmp_path: Path) -> None:
    a = write(tmp_path / "a.jsonl", [row(i, i % 2 == 0, answer=f"a{i}") for i in range(20)])
    b = write(tmp_path / "b.jsonl", [row(i, i % 3 == 0, answer=f"b{i}") for i in range(20)])
    result = runner.invoke(app, ["report", str(a), str(b), "--json"])
    caveat = json.loads(result.stdout)["comparison"]["caveat"]
    assert caveat.startswith("a judge's bias") and not caveat.startswith("caveat")


def test_no_labels_give_null_paired_agreement_not_empty_values(tmp_path: Path) -> None:
    a = write(tmp_path / "a.jsonl", [row(i, i % 2 == 0, answer=f"a{i}") for i in range(20)])
    b = write(tmp_path / "b.jsonl", [row(i, i % 3 == 0, answer=f"b{i}") for i in range(20)])
    comparison = json.loads(runner.invoke(app, ["report", str(a), str(b), "--json"]).stdout)["comparison"]
    assert comparison["paired_items"] is None and comparison["paired_difference"] is None
    assert comparison["paired"]["n_pairs"] == 20


def test_a_figures_table_without_intervals_does_not_promise_them(tmp_path: Path) -> None:
    a = write(tmp_path / "a.jsonl", [row(i, i % 2 == 0, answer=f"a{i}") for i in range(20)])
    output = runner.invoke(app, ["report", str(a)]).output
    assert "Figures" in output and "bootstrap 95 % intervals" not in output  # no gold: no agreement figures


def test_one_file_of_two_systems_is_compared_with_compare(tmp_path: Path) -> None:
    rows = [dict(row(i, i % 2 == 0, answer=f"a{i}"), id=f"q{i}-a", system="A") for i in range(20)]
    rows += [dict(row(i, i % 4 != 3, answer=f"b{i}"), id=f"q{i}-b", system="B") for i in range(20)]
    both = write(tmp_path / "both.jsonl", rows)
    result = runner.invoke(app, ["report", str(both), "--compare", "A", "B", "--json"])
    assert result.exit_code == 0, result.output
    paired = json.loads(result.stdout)["comparison"]["paired"]
    assert paired["n_pairs"] == 20 and paired["difference"] == 0.25  # 75 % - 50 %
    missing = runner.invoke(app, ["report", str(both), "--compare", "A", "C"])
    assert missing.exit_code == 2 and "no system 'C'" in missing.output
    gate = runner.invoke(app, ["report", str(both), "--compare", "B", "A", "--fail-if-worse", "0"])
    assert gate.exit_code in (0, 1) and "regression gate" in gate.output


def test_a_score_a_b_shows_which_run_scored_higher_not_a_one_cell_verdict_table(tmp_path: Path) -> None:
    def score_rows(bump: float, suffix: str) -> list[dict]:
        return [{"id": f"q{i}", "score": min(1.0, 0.3 + 0.05 * i + bump * (i % 2)), "judge": "heuristic", "task": "score",
                 "item": {"question": f"q{i}?", "answer": f"a{i}{suffix}"}} for i in range(12)]

    a = write(tmp_path / "a.jsonl", score_rows(0.0, ""))
    b = write(tmp_path / "b.jsonl", score_rows(0.1, "b"))
    output = " ".join(runner.invoke(app, ["report", str(a), str(b)]).output.split())
    assert "Scores on the questions both runs scored" in output and "Verdicts, A (rows)" not in output
