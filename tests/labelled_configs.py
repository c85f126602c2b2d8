"""Two configs of the examples judged by ``contains`` and a plan over both labelled from the judge's
verdicts (every seventh turned): what the run-header tests of #53 compare; ``judge_b_differently``
then rewrites B's run header to say another model and prompt version."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragjury.cli import app

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "data"
runner = CliRunner()


def labelled_configs(tmp_path: Path) -> tuple[Path, Path, Path]:
    """config_a's and config_b's predictions in ``tmp_path``, and the labelled plan over both."""
    out = []
    for config in ("config_a", "config_b"):
        preds = tmp_path / f"{config}.jsonl"
        result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                                     str(EXAMPLES / f"{config}.jsonl"), "--out", str(preds), "--no-progress"])
        assert result.exit_code == 0, result.output
        out.append(preds)
    plan = tmp_path / "plan.jsonl"
    result = runner.invoke(app, ["label-plan", str(out[0]), str(out[1]), "--budget", "60", "--out", str(plan)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in plan.read_text(encoding="utf-8").splitlines()]
    for number, row in enumerate(rows):  # people mostly agree with the judge, not always
        row["label"] = bool(row["judge_label"]) if number % 7 else not row["judge_label"]
    plan.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return out[0], out[1], plan


def judge_b_differently(tmp_path: Path) -> None:
    """config_b's run header says another model and prompt version."""
    header_b = tmp_path / "config_b.run.json"
    changed = json.loads(header_b.read_text(encoding="utf-8"))
    changed["identity"]["prompt_version"] = "contains@0.9"
    changed["identity"]["model"] = "qwen3:8b"
    header_b.write_text(json.dumps(changed), encoding="utf-8")
