"""#53 item 7's readers: ``estimate A B`` and ``compare_predictions(a, b)`` read both run headers and
say in one line, before the difference, when the two runs were judged differently; ``--json``
carries ``comparison.judged_differently`` ([] where alike)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from labelled_configs import judge_b_differently, labelled_configs

from ragjury.cli import app

runner = CliRunner()


def test_estimate_a_b_says_the_runs_were_judged_differently_before_the_difference(tmp_path: Path) -> None:
    a, b, plan = labelled_configs(tmp_path)
    alike = runner.invoke(app, ["estimate", str(a), str(b), "--labels", str(plan), "--json"])
    assert alike.exit_code == 0, alike.output
    assert json.loads(alike.stdout)["comparison"]["judged_differently"] == []
    judge_b_differently(tmp_path)
    text = runner.invoke(app, ["estimate", str(a), str(b), "--labels", str(plan)], env={"COLUMNS": "250"})
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    assert "judged DIFFERENTLY" in lines[0] and "model - vs qwen3:8b" in lines[0], lines[:3]
    assert "prompt versions contains@1.0 vs contains@0.9" in lines[0]
    assert "as people would judge it" in lines[1], lines[:3]
    data = json.loads(runner.invoke(app, ["estimate", str(a), str(b), "--labels", str(plan), "--json"]).stdout)
    assert data["comparison"]["judged_differently"] == ["model - vs qwen3:8b",
                                                        "prompt versions contains@1.0 vs contains@0.9"]


def test_compare_predictions_says_it_first(tmp_path: Path) -> None:
    from ragjury.evals.pipelines.compare_predictions import compare_predictions

    a, b, plan = labelled_configs(tmp_path)
    assert compare_predictions(a, b).judged_differently == []
    judge_b_differently(tmp_path)
    plain = compare_predictions(a, b)
    assert plain.as_dict()["judged_differently"] == ["model - vs qwen3:8b", "prompt versions contains@1.0 vs contains@0.9"]
    assert "judged DIFFERENTLY" in str(plain).splitlines()[0]
    labelled = compare_predictions(a, b, labels=plan)
    first = str(labelled).splitlines()
    assert "judged DIFFERENTLY" in first[0] and "as people would judge it" in first[1], first[:3]
    assert labelled.people.as_dict()["comparison"]["judged_differently"] == plain.judged_differently
