"""``label-plan`` on a run without systems counts its items plainly: "40 of 250", never the
fallback group's name ("all 40 of 250" read as if every item were picked)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragjury.cli import app

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "data"
runner = CliRunner()


def test_a_run_without_systems_is_counted_plainly(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in (EXAMPLES / "correctness.jsonl").read_text(encoding="utf-8").splitlines()]
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({k: v for k, v in row.items() if k != "system"}) + "\n" for row in rows),
                    encoding="utf-8")
    predictions = tmp_path / "preds.jsonl"
    judged = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                                 str(data), "--out", str(predictions), "--no-progress"])
    assert judged.exit_code == 0, judged.output
    plan = runner.invoke(app, ["label-plan", str(predictions), "--budget", "10", "--out", str(tmp_path / "plan.jsonl")],
                         env={"COLUMNS": "200"})
    assert plan.exit_code == 0, plan.output
    first = plan.output.splitlines()[0]
    assert " of 40)" in first and "all " not in first, first
