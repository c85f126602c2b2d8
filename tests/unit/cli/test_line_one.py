"""Line 1 states what the number is (issue 42 item 1): with people's labels on some items, the rate
as people would judge it (the judge's own beside it), the same in --json, on the page and in the
step summary of a gated ``evaluate``; without labels, the judge's rate said to be the judge's."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from ragjury.cli import app

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "data"
runner = CliRunner()
RUN = ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(EXAMPLES / "systems.jsonl"),
       "--no-progress", "--no-cache"]


def test_a_partly_labelled_run_leads_with_people_s_rate() -> None:
    result = runner.invoke(app, RUN, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == ("correct as people would judge it (the judge on 500 items corrected by 120 people's labels; "
                        "95 % interval):")
    assert re.fullmatch(r"  chatgpt: \d+\.\d % \[\d+\.\d, \d+\.\d\] \(60 labels; the judge said 56\.0 %\)", lines[1])
    assert lines[3].startswith("the judge's own rate, judged correct: 56.0 % [")
    payload = json.loads(runner.invoke(app, [*RUN, "--json"]).stdout)
    trust = payload["trust"]
    assert trust["line_1"] == "people-corrected estimate"
    people = {row["system"]: row for row in trust["people"]}
    assert people["chatgpt"]["n_labels"] == 60 and people["chatgpt"]["judge_rate"] == 0.56
    low, high = people["fid"]["interval"]
    assert low < people["fid"]["rate"] < high and people["fid"]["method"] == "prediction-powered"


def test_the_page_leads_with_people_s_rate(tmp_path: Path) -> None:
    page = tmp_path / "run.html"
    assert runner.invoke(app, [*RUN, "--html", str(page)]).exit_code == 0
    first = re.search(r"<div class='card'><span>(.*?)</span><b>(.*?)</b>", page.read_text(encoding="utf-8"))
    assert first is not None and first.group(1) == "correct as people would judge it (95 %)"
    assert first.group(2).startswith("chatgpt ") and "(60 labels)" in first.group(2)


def test_an_unlabelled_run_says_whose_rate_it_is(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in (EXAMPLES / "systems.jsonl").open()]
    data = tmp_path / "nolabels.jsonl"
    data.write_text("".join(json.dumps({k: v for k, v in row.items() if k != "label"}) + "\n" for row in rows))
    result = runner.invoke(app, [*RUN[:-4], "--data", str(data), "--no-progress", "--no-cache", "--json"])
    trust = json.loads(result.stdout)["trust"]
    assert trust["line_1"] == "the judge's rate" and trust["people"] is None
    assert trust["note"].startswith("this is the judge's rate, not yet measured against people")


def test_a_gated_evaluate_writes_its_verdict_and_line_one_to_the_step_summary(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    result = runner.invoke(app, [*RUN, "--fail-under", "kappa=0.9"], env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code == 1
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("### ragjury evaluate gate (correctness, systems.jsonl): ❌ failed")
    assert "correct as people would judge it" in text and "- gate failed: cohen_kappa: 0.6730 < 0.9" in text
    passed = runner.invoke(app, [*RUN, "--fail-under", "kappa=0.5"], env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert passed.exit_code == 0 and "✅ passed" in summary.read_text(encoding="utf-8")


def test_the_step_summary_never_lands_on_an_input_and_an_ungated_run_writes_none(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_bytes((EXAMPLES / "systems.jsonl").read_bytes())
    before = data.read_bytes()
    result = runner.invoke(app, [*RUN[:-4], "--data", str(data), "--no-progress", "--no-cache", "--fail-under",
                                 "kappa=0.5"], env={"GITHUB_STEP_SUMMARY": str(data)})
    assert result.exit_code == 0 and data.read_bytes() == before
    assert "is an input of this run" in result.output
    summary = tmp_path / "s.md"
    assert runner.invoke(app, RUN, env={"GITHUB_STEP_SUMMARY": str(summary)}).exit_code == 0
    assert not summary.exists()


def test_report_json_of_the_run_gives_the_same_trust_block(tmp_path: Path) -> None:
    out = tmp_path / "p.jsonl"
    live = json.loads(runner.invoke(app, [*RUN, "--out", str(out), "--json"]).stdout)["trust"]
    read_back = json.loads(runner.invoke(app, ["report", str(out), "--json"]).stdout)["runs"][0]["trust"]
    assert read_back["line_1"] == live["line_1"] == "people-corrected estimate"
    assert read_back["people"] == live["people"] and read_back["public_bias"] == live["public_bias"]
