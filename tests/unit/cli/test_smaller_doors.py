"""The smaller contradictions of issue 26, 3.8, each as a user meets it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury import build_judge, evaluate_dataset_sync
from ragjury.cli import app
from ragjury.commands.evaluate_output import one_value_line
from ragjury.evals.pipelines.label_plan_run import plan_labels
from ragjury.evals.results.formatting import agreement_band
from ragjury.evals.report.terminal import correlation_text
from ragjury.evals.stats.agreement import ranking_correlation

ROOT = Path(__file__).resolve().parents[3]
runner = CliRunner()


def test_no_kendall_tau_for_two_systems() -> None:
    two = ranking_correlation({"a": 0.2, "b": 0.8}, {"a": 0.1, "b": 0.9})
    assert two.kendall_tau is None and two.spearman is None
    assert "not compared (2 systems" in correlation_text(two)
    three = ranking_correlation({"a": 0.2, "b": 0.8, "c": 0.5}, {"a": 0.1, "b": 0.9, "c": 0.4})
    assert three.kendall_tau == pytest.approx(1.0)


def test_a_kappa_on_a_handful_of_items_gets_no_landis_koch_name() -> None:
    assert agreement_band(0.0, n=4) == "n too small"
    assert agreement_band(0.0, n=200) == "slight"


def test_a_judge_that_says_one_thing_only_is_flagged() -> None:
    assert "all 6 scored verdicts are True" in (one_value_line([True] * 6 + [None]) or "")
    assert one_value_line([True, False] * 3) is None


def test_the_evaluate_summary_shows_unscored_reasons_and_the_one_value_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "flaky_check.py").write_text(
        "from ragjury import check\n\n@check\ndef flaky(row):\n"
        "    if len(row.output) < 20:\n        raise ValueError('too short to check')\n    return True\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    data = ROOT / "examples" / "data" / "correctness.jsonl"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "python:flaky_check:flaky",
                                 "--data", str(data), "--no-cache", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "unscored: 6 of 40 judgments unscored (15 %): ValueError" in result.stdout  # the share, with its reasons
    assert "scored verdicts are True" in result.stderr


def test_a_model_free_answer_makes_no_requests() -> None:
    result = runner.invoke(app, ["verdict", "correctness", "-q", "q", "-a", "Paris", "-r", "Paris", "--judge", "contains"])
    assert result.exit_code == 0, result.output
    assert "no model call" in result.stdout and "requests" not in result.stdout


def test_help_and_readme_name_one_base_url_variable() -> None:
    shown = " ".join(runner.invoke(app, ["evaluate", "--help"], env={"COLUMNS": "200"}).stdout.split())
    assert "$RAGJURY_BASE_URL," in shown and "RAGJURY_BASE_URLS" not in shown
    assert "RAGJURY_BASE_URL=" in (ROOT / "README.md").read_text()


def test_cli_md_says_what_help_shows_of_flag_types() -> None:
    shown = runner.invoke(app, ["verdict", "correctness", "--help"], env={"COLUMNS": "120"}).stdout
    cli_md = " ".join((ROOT / "docs" / "cli.md").read_text().split())
    assert "N [1..15]" in shown and "flags show no type" not in cli_md and "`N [1..15]`" in cli_md


def test_calibrate_accepts_support(tmp_path: Path) -> None:
    out = tmp_path / "support.calibration.json"
    result = runner.invoke(app, ["calibrate", "--task", "faithfulness", "--judge", "support", "--data",
                                 str(ROOT / "examples" / "data" / "faithfulness.jsonl"), "--out", str(out),
                                 "--no-cache", "--no-progress", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["judge"] == "support" and payload["model"] is None and 0 < payload["threshold"] <= 1
    assert json.loads(out.read_text())["judge"] == "support"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_label_plan_splits_labels_evenly_between_equal_systems(tmp_path: Path, seed: int) -> None:
    rows = [{"id": f"{system}-{i}", "system": system, "question": f"q{i}", "answer": f"answer {i} {system}",
             "references": [f"answer {i}"] if i % 3 else ["elsewhere"]} for system in ("a", "b") for i in range(60)]
    result = evaluate_dataset_sync("correctness", rows, build_judge("correctness", "contains"), progress=False)
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in result.prediction_rows()))
    plan = plan_labels(path, 40, seed=seed)
    assert plan.systems == {"a": (60, 20), "b": (60, 20)}
