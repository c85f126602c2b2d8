"""A predictions row whose P(yes) is NaN (or outside [0, 1]) is refused in one line naming the file,
the line and the field, by every command that reads predictions (label-plan used to print
"effective sample size nan of nan" and pick 10 of 250, exit 0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app


def predictions(tmp_path: Path, bad: object) -> Path:
    path = tmp_path / "preds.jsonl"
    rows = []
    for k in range(30):
        p = 0.1 + 0.02 * k
        rows.append({"id": f"q{k}", "system": "A", "task": "correctness", "label": p >= 0.5, "judge": "answer_correctness",
                     "value": {"verdict": p >= 0.5, "probability": bad if k == 7 else p}, "gold": k % 2 == 0})
    path.write_text("".join(json.dumps(row) + "\n" for row in rows).replace('"probability": "BAD"', '"probability": NaN'))
    return path


@pytest.mark.parametrize("bad", ["BAD", 1.5, -0.2])
@pytest.mark.parametrize("command", [["label-plan", "--budget", "10", "--out", "OUT"], ["estimate"], ["report"]])
def test_a_probability_that_is_not_one_is_refused_with_file_line_and_field(tmp_path: Path, bad: object,
                                                                              command: list[str]) -> None:
    path = predictions(tmp_path, bad)
    args = [part.replace("OUT", str(tmp_path / "plan.jsonl")) for part in command]
    result = CliRunner().invoke(app, [args[0], str(path), *args[1:]])
    assert result.exit_code == 2, result.output
    assert f"{path}:8: field 'value.probability'" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "plan.jsonl").exists()
