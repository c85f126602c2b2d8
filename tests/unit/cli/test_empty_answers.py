"""An empty answer is a wrong answer (issue 35 item 6): a config that answers "" on 6 of 50
questions is not flattered by leaving them out; they count as "empty answers", not unscored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "config_a.jsonl"
runner = CliRunner()


def with_empty(tmp_path: Path, blanks: int) -> Path:
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()][:50]
    for row in rows[:blanks]:
        row["answer"] = " " if blanks % 2 else ""
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


@pytest.mark.parametrize("judge", ["contains", "token-overlap", "fitted"])
def test_empty_answers_are_wrong_for_every_judge(tmp_path: Path, judge: str) -> None:
    data = with_empty(tmp_path, 6)
    if judge == "fitted":
        head = tmp_path / "head.json"
        examples = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
        assert runner.invoke(app, ["fit", "--task", "correctness", "--data", str(examples), "--out", str(head)]).exit_code == 0
        judge = f"fitted:{head}"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", judge, "--data", str(data),
                                 "--no-progress", "--no-cache", "--json", "--out", str(tmp_path / "p.jsonl")])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["empty_answers"] == 6 and payload["result"]["n_scored"] == 50 and payload["unscored"] == 0
    rows = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert sum(r["label"] is False and not (r["item"]["answer"] or "").strip() for r in rows) == 6
    again = runner.invoke(app, ["report", str(tmp_path / "p.jsonl"), "--json"])
    assert again.exit_code == 0, again.output  # the file reads back


def test_the_terminal_says_how_many_answers_were_empty(tmp_path: Path) -> None:
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                                 str(with_empty(tmp_path, 6)), "--no-progress", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "empty answers 6: judged wrong" in result.output


def test_the_one_item_door_says_no_to_an_empty_answer_without_a_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGJURY_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens: no call is made
    result = runner.invoke(app, ["verdict", "correctness", "Who wrote Hamlet?", "--answer", "  ", "--reference",
                                 "Shakespeare", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["label"] is False and payload["unscored"] is False and payload["usage"]["requests"] == 0
