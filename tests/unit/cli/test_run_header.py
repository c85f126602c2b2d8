"""``evaluate --out`` writes a run header beside the predictions (``STEM.run.json``), and ``report A B``
reads both headers and says in one line, before B − A, when the runs were judged differently."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.evals.io.predictions import load_predictions

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "data"
runner = CliRunner()


def _evaluate(config: str, out: Path) -> Path:
    preds = out / f"{config}.jsonl"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                                 str(EXAMPLES / f"{config}.jsonl"), "--out", str(preds), "--no-progress"])
    assert result.exit_code == 0, result.output
    return preds


def test_the_header_says_how_the_run_was_made_and_travels_with_the_file(tmp_path: Path) -> None:
    preds = _evaluate("config_a", tmp_path)
    header = json.loads((tmp_path / "config_a.run.json").read_text(encoding="utf-8"))
    assert header["judge"] == "contains" and header["identity"]["prompt_version"] == "contains@1.0"
    assert header["data"]["sha256"] and header["rows"] == 100 and header["stats"]["n"] == 100
    assert load_predictions(preds).header == header


def test_report_says_when_two_runs_were_judged_differently(tmp_path: Path) -> None:
    a, b = _evaluate("config_a", tmp_path), _evaluate("config_b", tmp_path)
    alike = runner.invoke(app, ["report", str(a), str(b), "--json"])
    assert alike.exit_code == 0 and json.loads(alike.stdout)["comparison"]["judged_differently"] == []
    header_b = tmp_path / "config_b.run.json"
    changed = json.loads(header_b.read_text(encoding="utf-8"))
    changed["identity"]["prompt_version"] = "contains@0.9"
    changed["identity"]["params"] = "threshold=0.7"
    header_b.write_text(json.dumps(changed), encoding="utf-8")
    text = runner.invoke(app, ["report", str(a), str(b)], env={"COLUMNS": "200"})
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    said = next(i for i, line in enumerate(lines) if "judged DIFFERENTLY" in line)
    assert "prompt versions contains@1.0 vs contains@0.9" in lines[said] and "options - vs threshold=0.7" in lines[said]
    assert said < next(i for i, line in enumerate(lines) if line.startswith("B - A"))
    data = json.loads(runner.invoke(app, ["report", str(a), str(b), "--json"]).stdout)
    assert data["comparison"]["judged_differently"] == ["prompt versions contains@1.0 vs contains@0.9",
                                                        "options - vs threshold=0.7"]


def test_a_file_of_that_name_that_is_not_a_header_is_left_alone(tmp_path: Path) -> None:
    a = _evaluate("config_a", tmp_path)
    (tmp_path / "config_a.run.json").write_text("my own notes", encoding="utf-8")
    assert load_predictions(a).header is None


def test_the_header_never_overwrites_an_input(tmp_path: Path) -> None:
    """The header's path is derived from --out (preds.jsonl -> preds.run.json): it is checked against
    every input before judging, as --out itself is."""
    data = tmp_path / "preds.run.json"
    data.write_text((EXAMPLES / "config_a.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    before = data.read_bytes()
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data),
                                 "--out", str(tmp_path / "preds.jsonl"), "--no-progress"])
    assert result.exit_code == 2 and "run header" in result.output and "never overwrites" in result.output
    assert data.read_bytes() == before and not (tmp_path / "preds.jsonl").exists()
    per_criterion = tmp_path / "preds.contains.run.json"  # several criteria: one header per criterion's file
    per_criterion.write_bytes(before)
    several = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--judge",
                                  "token-overlap", "--data", str(per_criterion),
                                  "--out", str(tmp_path / "preds.jsonl"), "--no-progress"])
    assert several.exit_code == 2 and "run header" in several.output, several.output
    assert per_criterion.read_bytes() == before
