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


# -- issue #54 item 36: options that would do nothing, a broken pipe ------------------------------------


def test_gate_modifiers_without_a_gate_are_one_line_errors(tmp_path: Path) -> None:
    """``--require-measured``, ``--allow-missing`` (and ``--allow-same``) were accepted without a gate
    and did nothing; now exit 2 saying they need one."""
    a = write(tmp_path / "a.jsonl", [row(i, True) for i in range(12)])
    b = write(tmp_path / "b.jsonl", [row(i, True) for i in range(12)])
    for flag in ("--require-measured", "--allow-missing", "--allow-same"):
        result = runner.invoke(app, ["report", str(a), str(b), flag])
        assert result.exit_code == 2, result.output
        assert f"{flag} changes the regression gate: add --fail-if-worse MARGIN" in " ".join(result.output.split())
        assert "Traceback" not in result.output


def test_junit_items_with_one_run_or_without_junit_is_refused(tmp_path: Path) -> None:
    a = write(tmp_path / "a.jsonl", [row(i, True) for i in range(12)])
    b = write(tmp_path / "b.jsonl", [row(i, True) for i in range(12)])
    one = runner.invoke(app, ["report", str(a), "--junit", str(tmp_path / "j.xml"), "--junit-items", "all"])
    assert one.exit_code == 2 and "with one run the JUnit file always has a case per item" in " ".join(
        one.output.split())
    bare = runner.invoke(app, ["report", str(a), str(b), "--junit-items", "all"])
    assert bare.exit_code == 2 and "add --junit FILE" in bare.output
    fine = runner.invoke(app, ["report", str(a), str(b), "--junit", str(tmp_path / "k.xml"), "--junit-items", "all"])
    assert fine.exit_code == 0, fine.output


def test_a_closed_pipe_is_not_the_gate_failed_exit(tmp_path: Path) -> None:
    """``ragjury report A B | head -1`` exited 1 (the gate-failed code) when the reader closed the pipe;
    now the rest of the output is dropped quietly and the exit code is the command's own: 0 here, and
    still 1 where the gate fails."""
    import subprocess
    import sys

    ragjury = Path(sys.executable).with_name("ragjury")
    a = write(tmp_path / "a.jsonl", [row(i, True, answer=f"a{i}") for i in range(30)])
    b = write(tmp_path / "b.jsonl", [row(i, i < 5, answer=f"b{i}") for i in range(30)])
    for args, code in (([str(a), str(b)], 0), ([str(a), str(b), "--json"], 0),
                       ([str(a), str(b), "--fail-if-worse", "0.02"], 1)):
        process = subprocess.Popen([str(ragjury), "report", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None
        process.stdout.close()  # the reader is gone before the first line is written
        _, err = process.communicate(timeout=120)
        assert process.returncode == code, (args, err)
        assert b"BrokenPipeError" not in err and b"Traceback" not in err
