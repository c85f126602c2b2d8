"""#53: ``report A B --labels L`` of two runs whose headers differ says "judged DIFFERENTLY" once, on
its first line, before people's B − A; the judges' own comparison under it does not say it again
(it said it twice: once over people's figures, once over the judges')."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragjury.cli import app

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "data"
runner = CliRunner()


def _judged_differently(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two runs of the examples, B's header saying another model and prompt version, and a plan over
    both labelled from the judge's verdicts (every seventh turned)."""
    runs = []
    for config in ("config_a", "config_b"):
        preds = tmp_path / f"{config}.jsonl"
        result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                                     str(EXAMPLES / f"{config}.jsonl"), "--out", str(preds), "--no-progress"])
        assert result.exit_code == 0, result.output
        runs.append(preds)
    plan = tmp_path / "plan.jsonl"
    result = runner.invoke(app, ["label-plan", str(runs[0]), str(runs[1]), "--budget", "60", "--out", str(plan)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in plan.read_text(encoding="utf-8").splitlines()]
    for number, row in enumerate(rows):
        row["label"] = bool(row["judge_label"]) if number % 7 else not row["judge_label"]
    plan.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    header = tmp_path / "config_b.run.json"
    changed = json.loads(header.read_text(encoding="utf-8"))
    changed["identity"]["model"] = "qwen3:8b"
    changed["identity"]["prompt_version"] = "contains@0.9"
    header.write_text(json.dumps(changed), encoding="utf-8")
    return runs[0], runs[1], plan


def test_report_a_b_labels_says_judged_differently_once(tmp_path: Path) -> None:
    a, b, plan = _judged_differently(tmp_path)
    result = runner.invoke(app, ["report", str(a), str(b), "--labels", str(plan)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    said = [line for line in lines if "judged DIFFERENTLY" in line]
    assert len(said) == 1, said
    first = next(k for k, line in enumerate(lines) if "judged DIFFERENTLY" in line)
    assert "model - vs qwen3:8b" in lines[first] and "as people would judge it" in lines[first + 1], lines[first:first + 2]
    judges = lines.index("the judges' own rates:")
    assert lines[judges + 1].startswith("run comparison:") and "mixes the answers' difference" in lines[judges + 1]
    # without labels the judges' comparison is the first line and still says it, once
    plain = runner.invoke(app, ["report", str(a), str(b)], env={"COLUMNS": "250"})
    assert plain.exit_code == 0, plain.output
    assert sum("judged DIFFERENTLY" in line for line in plain.output.splitlines()) == 1
