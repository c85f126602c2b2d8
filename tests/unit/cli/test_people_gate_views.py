"""#53 item 6: with people's labels, ``report A B --labels --fail-if-worse`` leads the GitHub step
summary with people's B − A (the judges' own table after it), and JUnit's gate case states people's
figure as its properties where the labels decided the gate."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import json

from test_people_labels_once import _filled_plan, predictions, runner, two_configs, weighted  # noqa: F401

from ragjury.cli import app


def test_step_summary_and_junit_lead_with_peoples_difference(two_configs: tuple[Path, Path],  # noqa: F811
                                                              tmp_path: Path) -> None:
    a, b = two_configs
    plan = _filled_plan(a, b, tmp_path / "plan.jsonl")
    summary, junit = tmp_path / "summary.md", tmp_path / "junit.xml"
    result = runner.invoke(app, ["report", str(a), str(b), "--labels", str(plan), "--fail-if-worse", "0.5",
                                 "--junit", str(junit)], env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code in (0, 1), result.output
    lines = [line for line in summary.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines[0].startswith("### ragjury regression gate")
    assert "as people would judge it" in lines[1] and "v2 − v1" in lines[1], lines[:4]
    assert lines.index("the judges' own rates:") < next(i for i, line in enumerate(lines) if line.startswith("| run"))
    case = next(case for case in ET.parse(junit).getroot().iter("testcase") if case.get("classname") == "ragjury.gate")
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties["people_difference"].startswith("v2 − v1:"), properties
    assert "people's labels" in properties["decided_by"] and "people_rate v1" in properties
    said = case.find("failure")
    text = said.get("message") if said is not None else case.findtext("system-out")
    assert "as people would judge it" in (text or "")


def test_report_json_carries_people_vs_people_with_interval_and_items(predictions: Path,  # noqa: F811
                                                                      weighted: Path) -> None:  # noqa: F811
    """#53 item 3: two annotators (ana on every item, bob on two, one split): kappa, its interval
    where 5 items allow one (none here: 2 shared), the item they split on."""
    result = runner.invoke(app, ["report", str(predictions), "--labels", str(weighted), "--allow-shown-judge", "--json"])
    assert result.exit_code == 0, result.output
    (pair,) = json.loads(result.stdout)["people_labels"]["people_vs_people"]
    assert pair["annotators"] == ["ana", "bob"] and pair["n"] == 2
    assert "kappa_interval" in pair and "cohen_kappa" in pair and len(pair["disagreements"]) == 1


def test_evaluate_step_summary_leads_with_peoples_rate(weighted: Path, tmp_path: Path) -> None:  # noqa: F811
    """evaluate --labels with a gate: the step summary's first line under its title is people's rate."""
    from test_people_labels_once import SYSTEMS

    summary = tmp_path / "summary.md"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS),
                                 "--no-progress", "--labels", str(weighted), "--allow-shown-judge",
                                 "--fail-under", "accuracy=0.1"], env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in summary.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines[0].startswith("### ragjury evaluate gate") and lines[1].startswith("correct as people would judge it")
    assert any(line.startswith("the judge's own rate") for line in lines[2:])
