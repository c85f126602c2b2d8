"""The newcomer's A/B, end to end on the example data: two configs' runs (the same question ids in
both), line 1 of each, a paired plan over both, labels from the data's people, then each config's
rate and B − A as people would judge it, from ``estimate`` and from ``report --fail-if-worse``."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

SYSTEMS = Path(__file__).resolve().parents[3] / "examples" / "data" / "systems.jsonl"
runner = CliRunner()


def ok(*args: object) -> str:
    result = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture()
def configs(tmp_path: Path) -> tuple[Path, Path, dict[str, bool]]:
    """A (chatgpt) and B (fid) on the questions people labelled for both, ids bare (``nq-1006`` in
    both files), judged by ``contains``; the people's labels keyed ``A/ID`` and ``B/ID``."""
    rows = [json.loads(line) for line in SYSTEMS.open()]
    labelled = {r["id"].rsplit("-", 1)[0] for r in rows if r.get("label") is not None}
    people: dict[str, bool] = {}
    for system, name in (("chatgpt", "A"), ("fid", "B")):
        data = tmp_path / f"{name}-data.jsonl"
        with data.open("w") as handle:
            for row in rows:
                ident = row["id"].rsplit("-", 1)[0]
                if row["system"] == system and ident in labelled:
                    people[f"{name}/{ident}"] = bool(row["label"])
                    clean = {k: v for k, v in row.items() if k not in ("label", "system")}
                    handle.write(json.dumps({**clean, "id": ident}) + "\n")
        ok("evaluate", "--task", "correctness", "--judge", "contains", "--data", data, "--out",
           tmp_path / f"{name}.jsonl", "--no-progress", "--no-cache")
    return tmp_path / "A.jsonl", tmp_path / "B.jsonl", people


def people_difference(people: dict[str, bool]) -> float:
    a = [v for k, v in people.items() if k.startswith("A/")]
    b = [v for k, v in people.items() if k.startswith("B/")]
    return sum(b) / len(b) - sum(a) / len(a)


def filled(plan: Path, people: dict[str, bool], out: Path, *, leave: int = 0) -> Path:
    """The plan as a person fills it in, ``leave`` rows still blank."""
    rows = [json.loads(line) for line in plan.open()]
    for number, row in enumerate(rows):
        row["label"] = None if number < leave else int(people[row["id"]])
    out.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return out


def test_the_newcomer_path_gives_b_minus_a_as_people_would(configs, tmp_path: Path) -> None:
    a, b, people = configs
    text = ok("evaluate", "--task", "correctness", "--judge", "contains", "--data", tmp_path / "A-data.jsonl",
              "--no-progress", "--no-cache")
    first, second = text.splitlines()[:2]
    assert first.startswith("judged correct: ") and second.startswith("this is the judge's rate, not yet measured")

    plan = tmp_path / "plan.jsonl"
    ok("label-plan", a, b, "--budget", 100, "--out", plan)
    rows = [json.loads(line) for line in plan.open()]
    assert 40 <= len(rows) // 2 <= 60  # 40-60 labels per config, the same questions for both
    by_config = {name: {row["id"].split("/", 1)[1] for row in rows if row["system"] == name} for name in "AB"}
    assert by_config["A"] == by_config["B"]
    assert all(row["id"].startswith(f"{row['system']}/") for row in rows)

    labels = filled(plan, people, tmp_path / "labels.jsonl")
    payload = json.loads(ok("estimate", a, b, "--labels", labels, "--json"))
    diff = payload["comparison"]
    assert (diff["a"], diff["b"]) == ("B", "A") and diff["paired"]  # B − A
    low, high = diff["difference"]["interval"]
    assert low <= people_difference(people) <= high
    assert {row["system"]: row["n_labels"] for row in payload["systems"]} == {"A": len(rows) // 2, "B": len(rows) // 2}

    report = runner.invoke(app, ["report", str(a), str(b), "--labels", str(labels), "--fail-if-worse", "0.02"],
                           env={"COLUMNS": "200"})
    assert report.exit_code == 0, report.output
    lines = report.stdout.splitlines()
    assert lines[2].startswith("B − A: ") and "as people would judge it" in lines[2]
    assert "regression gate (--fail-if-worse 0.02) passed: not shown worse than -2.0 points: as people would" \
        in report.stdout
    gated = json.loads(ok("report", a, b, "--labels", labels, "--fail-if-worse", "0.02", "--json"))
    assert gated["people_estimate"]["comparison"]["difference"] == diff["difference"]


def test_people_decide_the_gate_where_the_judge_sees_no_difference(configs, tmp_path: Path) -> None:
    a, b, people = configs
    # the same answers judged alike: the judge's B − A is 0; people say B is much worse
    worse = {k: (v if k.startswith("A/") else False) for k, v in people.items()}
    worse.update({k: True for k in worse if k.startswith("A/")})
    labels = tmp_path / "worse.jsonl"
    labels.write_text("".join(json.dumps({"id": k, "label": v}) + "\n" for k, v in worse.items()))
    summary = tmp_path / "summary.md"
    result = runner.invoke(app, ["report", str(a), str(b), "--labels", str(labels), "--fail-if-worse", "0.02"],
                           env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code == 1 and "worse: as people would judge it" in result.stdout
    text = summary.read_text(encoding="utf-8")  # the summary states the verdict the exit code gives
    assert "❌ regression" in text and "worse: as people would judge it" in text


def test_labels_as_csv_with_a_system_column_and_a_half_filled_plan(configs, tmp_path: Path) -> None:
    a, b, people = configs
    table = tmp_path / "labels.csv"
    with table.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["system", "id", "label"])
        for key, value in people.items():
            system, ident = key.split("/", 1)
            writer.writerow([system, ident, int(value)])
    from_csv = json.loads(ok("estimate", a, b, "--labels", table, "--json"))
    assert from_csv["n_labels"] == len(people)

    plan = tmp_path / "plan.jsonl"
    ok("label-plan", a, b, "--budget", 100, "--out", plan)
    half = filled(plan, people, tmp_path / "half.jsonl", leave=20)
    text = ok("estimate", a, b, "--labels", half)
    total = sum(1 for _ in plan.open())
    assert f"20 of {total} rows of {half} still unlabelled" in " ".join(text.split())


def test_bare_ids_in_both_runs_are_refused_not_given_to_both(configs, tmp_path: Path) -> None:
    a, b, people = configs
    labels = tmp_path / "bare.jsonl"
    labels.write_text("".join(json.dumps({"id": k.split("/", 1)[1], "label": v}) + "\n"
                              for k, v in people.items() if k.startswith("A/")))
    result = runner.invoke(app, ["report", str(a), str(b), "--labels", str(labels)])
    assert result.exit_code == 2 and "is in both runs and its label names no config" in result.output


def test_python_takes_what_evaluate_returns_and_labels_as_a_dict(configs, tmp_path: Path) -> None:
    from ragjury import build_judge, compare_predictions, estimate_predictions, evaluate_dataset_sync, plan_labels

    judge = build_judge("correctness", "contains")
    runs = [evaluate_dataset_sync("correctness", tmp_path / f"{n}-data.jsonl", judge, progress=False) for n in "AB"]
    a, b, people = configs
    plan = plan_labels([a, b], 100, seed=3)
    labels = {row["id"]: people[row["id"]] for row in plan.rows}
    comparison = compare_predictions(a, b, labels=labels)
    assert comparison.people is not None and comparison.people.comparison.a == "B"
    assert comparison.gate(0.02).reason.startswith("not shown worse")
    from_memory = estimate_predictions(runs, labels={f"{k}": v for k, v in people.items()})
    assert from_memory.comparison is not None
    with pytest.raises(TypeError, match="^new: expected"):
        compare_predictions(a, 42)
    with pytest.raises(ValueError, match=r"labels\[0\]"):
        estimate_predictions([a, b], labels=[{"id": "A/x"}])
