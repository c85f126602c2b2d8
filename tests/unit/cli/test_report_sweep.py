"""``report RUN1 ... RUNn``: line 1 the answer, a line saying the intervals are simultaneous, a table
of 12 configs in 80 columns with no number cut, the gate's exit codes, one --json document, JUnit
with one case per config, and ``report A B`` left as it was."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
from typer.testing import CliRunner

from ragjury.cli import app

runner = CliRunner()
NAMES = ["baseline", "chunk256-top5-rerank-promptA", "chunk512-top10", "a-very-long-config-name-with-many-parts"] + [
    f"cfg{i:02d}-topk{i}" for i in range(8)]


def write_runs(folder: Path, rates: list[float], names: list[str] = NAMES, n: int = 300) -> list[Path]:
    rng = np.random.default_rng(5)
    hard = rng.random(n)
    paths = []
    for name, rate in zip(names, rates):
        verdicts = 0.7 * hard + 0.3 * rng.random(n) < rate
        path = folder / f"{name}.jsonl"
        path.write_text("".join(json.dumps({
            "id": f"q{i}", "task": "correctness", "judge": "contains", "label": bool(verdicts[i]), "unscored": False,
            "item": {"question": f"Question {i}?", "answer": f"{name} answer {i}", "references": ["x"]}}) + "\n"
            for i in range(n)), encoding="utf-8")
        paths.append(path)
    return paths


RATES_12 = [0.6, 0.66, 0.58, 0.3] + list(np.linspace(0.5, 0.7, 8))


def test_twelve_configs_fit_80_columns_with_the_answer_first(tmp_path: Path) -> None:
    paths = write_runs(tmp_path, RATES_12)
    result = runner.invoke(app, ["report", *map(str, paths)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(("no config is clearly best:", "cfg07-topk7 is best"))
    assert lines[1].startswith("intervals are simultaneous: 95 % for every rate and difference at once (max-t")
    table = lines[next(i for i, line in enumerate(lines) if line.startswith("config ")):]
    assert len(table) >= 2 * 12 and all(len(line) <= 80 for line in table), max(table, key=len)
    # every interval whole on one line: 12 rates, 11 differences to the baseline, 11 to the best
    assert sum(len(re.findall(r"\[\d+\.\d, \d+\.\d\]", line)) for line in table) == 12
    assert sum(len(re.findall(r"\[[+-]\d+\.\d, [+-]\d+\.\d\]", line)) for line in table) == 22
    assert "a-very-long-" in result.output  # the long name folded, not dropped


def test_the_gate_fails_only_when_a_config_is_shown_worse(tmp_path: Path) -> None:
    paths = write_runs(tmp_path, [0.6, 0.62, 0.6, 0.58], names=["base", "a", "b", "c"])
    passed = runner.invoke(app, ["report", *map(str, paths), "--fail-if-worse", "0.02"])
    assert passed.exit_code == 0, passed.output
    assert "regression gate (--fail-if-worse 0.02) passed" in passed.output
    broken = write_runs(tmp_path / "..", [0.2], names=["broken"])[0]
    failed = runner.invoke(app, ["report", *map(str, paths), str(broken), "--fail-if-worse", "0.02"])
    assert failed.exit_code == 1, failed.output
    assert "broken: worse than the baseline by more than 2 points" in failed.output


def test_json_is_one_document_with_the_ranking(tmp_path: Path) -> None:
    paths = write_runs(tmp_path, [0.6, 0.8, 0.4], names=["base", "good", "bad"])
    result = runner.invoke(app, ["report", *map(str, paths), "--json", "--fail-if-worse", "0.05"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["command"] == "report" and doc["sweep"]["best"] == "good"
    assert [r["name"] for r in doc["sweep"]["ranking"]] == ["good", "base", "bad"]
    assert doc["gate"]["failed"] and [c["name"] for c in doc["gate"]["configs"] if c["failed"]] == ["bad"]
    assert doc["sweep"]["intervals"]["method"] == "max-t simultaneous paired bootstrap over questions"


def test_junit_has_one_case_per_config_and_regressed_items_as_information(tmp_path: Path) -> None:
    paths = write_runs(tmp_path, [0.6, 0.8, 0.4], names=["base", "good", "bad"])
    junit = tmp_path / "sweep.xml"
    result = runner.invoke(app, ["report", *map(str, paths), "--junit", str(junit), "--fail-if-worse", "0.05"])
    assert result.exit_code == 1
    cases = ET.parse(junit).getroot().findall(".//testcase")
    assert sorted(c.get("name") for c in cases) == ["bad", "base", "good"]
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed == ["bad"]
    bad = next(c for c in cases if c.get("name") == "bad")
    assert "regressed items" in bad.find("system-out").text


def test_baseline_names_a_run_and_an_unknown_one_is_exit_2(tmp_path: Path) -> None:
    paths = write_runs(tmp_path, [0.6, 0.8, 0.4], names=["base", "good", "bad"])
    result = runner.invoke(app, ["report", *map(str, paths), "--baseline", str(paths[1]), "--json"])
    assert json.loads(result.stdout)["sweep"]["baseline"] == "good"
    result = runner.invoke(app, ["report", *map(str, paths), "--baseline", "nothere.jsonl"])
    assert result.exit_code == 2 and "--baseline nothere.jsonl: not one of the runs given" in result.output


def test_options_of_two_runs_are_refused_with_many(tmp_path: Path) -> None:
    paths = write_runs(tmp_path, [0.6, 0.8, 0.4], names=["base", "good", "bad"])
    result = runner.invoke(app, ["report", *map(str, paths), "--fail-unless-within", "0.02"])
    assert result.exit_code == 2 and "--fail-unless-within compares two runs (report A B)" in result.output


def test_two_runs_stay_report_a_b(tmp_path: Path) -> None:
    paths = write_runs(tmp_path, [0.6, 0.8], names=["base", "good"])
    result = runner.invoke(app, ["report", *map(str, paths)])
    assert result.exit_code == 0 and "simultaneous" not in result.output and "B - A" in result.output
    ranked = runner.invoke(app, ["report", *map(str, paths), "--baseline", str(paths[0])])
    assert ranked.exit_code == 0 and "intervals are simultaneous" in ranked.output


def test_the_step_summary_leads_with_the_verdict_table(tmp_path: Path) -> None:
    paths = write_runs(tmp_path, [0.6, 0.8, 0.4], names=["base", "good", "bad"])
    summary = tmp_path / "summary.md"
    result = runner.invoke(app, ["report", *map(str, paths), "--fail-if-worse", "0.05"],
                           env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code == 1
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("### ragjury sweep gate: ❌ regression")
    table = [line for line in text.splitlines() if line.startswith("| ")]
    assert table[0].startswith("| config | rate |") and table[1].startswith("| good |")
    assert table[-1].startswith("| bad ❌ |") and "worse than the baseline by more than 5 points" in table[-1]


def test_a_config_name_is_text_not_markup(tmp_path: Path) -> None:
    paths = write_runs(tmp_path, [0.6, 0.8, 0.4], names=["base", "[red]hot", "bad"])
    result = runner.invoke(app, ["report", *map(str, paths)], env={"COLUMNS": "80"})
    lines = result.output.splitlines()
    table = lines[next(i for i, line in enumerate(lines) if line.startswith("config ")):]
    assert result.exit_code == 0 and any(line.startswith("[red]hot ") for line in table)


def test_too_few_shared_questions_say_so_and_the_gate_is_undecided(tmp_path: Path) -> None:
    paths = write_runs(tmp_path, [0.6, 0.8, 0.4], names=["base", "good", "bad"], n=6)
    result = runner.invoke(app, ["report", *map(str, paths), "--fail-if-worse", "0.02"])
    assert result.exit_code == 0, result.output
    assert "too few for intervals" in result.output.splitlines()[0]
    assert "regression gate (--fail-if-worse 0.02) undecided" in result.output


def test_labels_lead_with_the_ranking_as_people_would_judge_it(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "evals" / "results"))
    from test_sweep import people_world

    paths, labels, _ = people_world(tmp_path)
    result = runner.invoke(app, ["report", *map(str, paths), "--labels", str(labels)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("as people would judge it: careful is best") or lines[0].startswith(
        "as people would judge it: no config is clearly best: careful")
    assert "labelled answers: base 90, careful 90, lenient 90" in result.output
    assert "the judge's own ranking:" in result.output and "the judge's verdicts" in result.output
    doc = json.loads(runner.invoke(app, ["report", *map(str, paths), "--labels", str(labels), "--json"]).stdout)
    assert doc["sweep"]["people"]["best"] == "careful" and doc["sweep"]["best"] == "lenient"


def test_label_plan_for_many_configs_then_report_with_the_labels(tmp_path: Path) -> None:
    """label-plan RUN1 RUN2 RUN3: the same questions for every config, each row CONFIG/ID with its
    inclusion probability; the plan filled in is --labels for report RUN1 RUN2 RUN3."""
    rng = np.random.default_rng(9)
    n = 300
    hard = rng.random(n)
    truth: dict[str, np.ndarray] = {}
    paths = []
    for name, rate, lenient in (("base", 0.55, 0.05), ("careful", 0.75, 0.05), ("lenient", 0.5, 0.8)):
        truth[name] = 0.7 * hard + 0.3 * rng.random(n) < rate
        judged = truth[name] | (rng.random(n) < lenient)
        paths.append(write_runs_from(tmp_path / f"{name}.jsonl", judged))
    plan = tmp_path / "plan.jsonl"
    made = runner.invoke(app, ["label-plan", *map(str, paths), "--budget", "240", "--out", str(plan)])
    assert made.exit_code == 0, made.output
    assert "the same" in made.output and "for all 3 configs" in made.output
    rows = [json.loads(line) for line in plan.read_text(encoding="utf-8").splitlines()]
    questions = {r["id"].split("/", 1)[1] for r in rows}
    assert {r["system"] for r in rows} == {"base", "careful", "lenient"} and len(rows) == 3 * len(questions)
    assert all(0 < r["inclusion_probability"] <= 1 for r in rows)
    for r in rows:  # a person labels them
        r["label"] = bool(truth[r["system"]][int(r["id"].rsplit("/q", 1)[1])])
    plan.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = runner.invoke(app, ["report", *map(str, paths), "--labels", str(plan), "--json"])
    assert result.exit_code == 0, result.output
    people = json.loads(result.stdout)["sweep"]["people"]
    assert people["best"] == "careful" and set(people["labelled"].values()) == {len(questions)}
    # estimate RUN1 RUN2 RUN3 --labels gives the very same figures (one Sweep), and says what it needs
    estimated = runner.invoke(app, ["estimate", *map(str, paths), "--labels", str(plan), "--json"])
    assert estimated.exit_code == 0, estimated.output
    assert json.loads(estimated.stdout)["sweep"] == json.loads(result.stdout)["sweep"]
    text = runner.invoke(app, ["estimate", *map(str, paths), "--labels", str(plan)], env={"COLUMNS": "80"})
    assert text.exit_code == 0 and "as people would judge it" in text.output, text.output
    unlabelled = runner.invoke(app, ["estimate", *map(str, paths)])
    assert unlabelled.exit_code == 2 and "needs people's labels" in unlabelled.output
    compared = runner.invoke(app, ["estimate", *map(str, paths), "--labels", str(plan), "--compare", "a", "b"])
    assert compared.exit_code == 2 and "--compare" in compared.output


def write_runs_from(path: Path, verdicts: Any) -> Path:
    path.write_text("".join(json.dumps({
        "id": f"q{i}", "task": "correctness", "judge": "contains", "label": bool(v), "unscored": False,
        "item": {"question": f"Question {i}?", "answer": f"{path.stem} answer {i}", "references": ["x"]}}) + "\n"
        for i, v in enumerate(verdicts)), encoding="utf-8")
    return path


def test_one_file_twice_is_refused(tmp_path: Path) -> None:
    paths = write_runs(tmp_path, [0.6, 0.8], names=["base", "good"])
    for command in (["report", *map(str, paths), str(paths[0])],
                    ["label-plan", *map(str, paths), str(paths[1]), "--budget", "30", "--out", str(tmp_path / "p.jsonl")]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2 and "again: give each config's run once" in result.output, result.output
