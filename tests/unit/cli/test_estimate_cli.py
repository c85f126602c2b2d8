"""``ragjury estimate`` and ``ragjury label-plan`` on the example with labels on a few rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

SYSTEMS = Path(__file__).resolve().parents[3] / "examples" / "data" / "systems.jsonl"
runner = CliRunner()


@pytest.fixture(scope="module")
def predictions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("estimate") / "systems.jsonl"
    result = runner.invoke(
        app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS), "--out", str(out), "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    return out


def test_the_help_example_runs_and_gives_three_estimates_per_system(predictions: Path) -> None:
    result = runner.invoke(app, ["estimate", str(predictions), "--compare", "chatgpt", "fid", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["command"] == "estimate" and payload["n_labels"] == 120 and payload["n_items"] == 500
    systems = {row["system"]: row for row in payload["systems"]}
    assert set(systems) == {"chatgpt", "fid"}
    for row in systems.values():
        assert row["n_labels"] == 60 and row["n_items"] == 250
        low, high = row["prediction_powered"]["interval"]
        assert low < row["prediction_powered"]["estimate"] < high
        people = row["human_only"]["interval"]
        assert high - low < people[1] - people[0]  # the judge narrows the people's interval
        assert row["judge_bias"] < 0  # contains is strict: it under-states both systems
    comparison = payload["comparison"]
    assert comparison["paired"] and 0 <= comparison["p_value"] <= 1
    text = runner.invoke(app, ["estimate", str(predictions), "--compare", "chatgpt", "fid"], env={"COLUMNS": "80"})
    assert text.exit_code == 0 and "fid − chatgpt: +" in text.output and "…" not in text.output  # B − A, points


def test_label_plan_then_estimate_with_the_filled_in_plan(predictions: Path, tmp_path: Path) -> None:
    plan = tmp_path / "to-label.jsonl"
    result = runner.invoke(app, ["label-plan", str(predictions), "--budget", "40", "--out", str(plan), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    rows = [json.loads(line) for line in plan.read_text(encoding="utf-8").splitlines()]
    assert payload["picked"] == len(rows) and 25 <= len(rows) <= 55 and payload["uniform"] is True
    assert all(row["label"] is None and 0 < row["inclusion_probability"] <= 1 for row in rows)
    gold = {json.loads(line)["id"]: json.loads(line).get("label") for line in SYSTEMS.read_text(encoding="utf-8").splitlines()}
    truth = {json.loads(line)["id"]: json.loads(line).get("gold") for line in predictions.read_text(encoding="utf-8").splitlines()}
    for row in rows:  # people fill in the plan (here: the labels the example file has, else the judge's)
        row["label"] = gold.get(row["id"]) if gold.get(row["id"]) is not None else truth.get(row["id"]) or row["judge_label"]
    plan.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    estimate = runner.invoke(app, ["estimate", str(predictions), "--labels", str(plan), "--json"])
    assert estimate.exit_code == 0, estimate.output
    assert json.loads(estimate.stdout)["n_labels"] == len(rows)


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ('{"id": "nope", "label": true}\n', "no id in this file matches a prediction"),
        ('{"id": "x", "label": null}\n', "no labelled rows"),
        ('{"id": "x", "label": "maybe"}\n', "labels.jsonl:1: field 'label'"),
        ('{"id": "x", "label": NaN}\n', "labels.jsonl:1: field 'label'"),
    ],
)
def test_bad_labels_files_are_one_line(predictions: Path, tmp_path: Path, labels: str, message: str) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(labels, encoding="utf-8")
    result = runner.invoke(app, ["estimate", str(predictions), "--labels", str(path)])
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_no_labels_and_one_class_labels_are_refused(predictions: Path, tmp_path: Path) -> None:
    unlabelled = tmp_path / "nogold.jsonl"
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    unlabelled.write_text("".join(json.dumps({**row, "gold": None}) + "\n" for row in rows), encoding="utf-8")
    none = runner.invoke(app, ["estimate", str(unlabelled)])
    assert none.exit_code == 2 and "no human labels" in none.output
    one_class = tmp_path / "labels.jsonl"
    one_class.write_text("".join(json.dumps({"id": row["id"], "label": True}) + "\n" for row in rows[:30]), encoding="utf-8")
    same = runner.invoke(app, ["estimate", str(predictions), "--labels", str(one_class)])
    assert same.exit_code == 2 and "all 30 human labels are 1" in same.output
    missing = runner.invoke(app, ["estimate", str(predictions), "--compare", "chatgpt", "gpt9"])
    assert missing.exit_code == 2 and "no items of system 'gpt9'" in missing.output


def test_few_labels_for_a_system_warns_and_keeps_people_only(predictions: Path, tmp_path: Path) -> None:
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    labelled = [row for row in rows if row.get("gold") is not None]
    keep = [row for row in labelled if row["system"] == "chatgpt"] + [row for row in labelled if row["system"] == "fid"][:6]
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps({"id": row["id"], "label": row["gold"]}) + "\n" for row in keep), encoding="utf-8")
    result = runner.invoke(app, ["estimate", str(predictions), "--labels", str(path), "--json"])
    assert result.exit_code == 0, result.output
    fid = next(row for row in json.loads(result.stdout)["systems"] if row["system"] == "fid")
    assert fid["prediction_powered"] is None and fid["human_only"] is not None and any("fewer than 10" in note for note in fid["notes"])


def test_evaluate_and_report_show_the_estimates_when_some_rows_are_labelled(predictions: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS), "--no-progress", "--json"],
    )
    assert result.exit_code == 0, result.output
    estimates = json.loads(result.stdout)["system_estimates"]
    assert [row["system"] for row in estimates["systems"]] == ["chatgpt", "fid"] and estimates["n_labels"] == 120
    page = tmp_path / "report.html"
    assert runner.invoke(app, ["report", str(predictions), "--html", str(page)]).exit_code == 0
    text = page.read_text(encoding="utf-8")
    assert 'id="estimates"' in text and 'class="forest"' in text and text.count("prediction-powered") >= 3


def test_fully_labelled_runs_get_no_estimates_block() -> None:
    data = SYSTEMS.parent / "correctness.jsonl"
    result = runner.invoke(
        app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data), "--no-progress", "--json"]
    )
    assert result.exit_code == 0 and "system_estimates" not in json.loads(result.stdout)


def test_the_help_examples_run_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shlex

    from ragjury.commands.estimate import estimate
    from ragjury.commands.label_plan import label_plan

    (tmp_path / "examples").symlink_to(SYSTEMS.parents[1], target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    commands = [
        line.strip()
        for doc in (estimate.__doc__ or "", label_plan.__doc__ or "")
        for line in doc.splitlines()
        if line.strip().startswith("ragjury ")
    ]
    assert len(commands) == 7
    two = [command for command in commands if "A.jsonl" in command or "plan.jsonl" in command]
    assert len(two) == 4  # the two-config path is tested in test_two_configs.py
    commands = [command for command in commands if command not in two]
    for command in commands:
        result = runner.invoke(app, shlex.split(command)[1:])
        assert result.exit_code == 0, f"{command}: {result.output}"
    assert (tmp_path / "to-label.jsonl").exists()


def test_help_names_the_label_count_below_which_estimate_warns() -> None:
    from ragjury.evals.stats.system_estimates import WARN_BELOW

    result = runner.invoke(app, ["estimate", "--help"], env={"COLUMNS": "200"})
    text = " ".join(result.output.replace("│", " ").split())
    assert result.exit_code == 0 and f"Below {WARN_BELOW} labels a system gets a warning" in text


def test_label_plan_keeps_its_effective_sample_size_and_prints_it(predictions: Path, tmp_path: Path) -> None:
    """A judge with sharp probabilities: the plan raises its uniform share and says the ESS."""
    import numpy as np

    rng = np.random.default_rng(2)
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row["value"] = {**(row.get("value") or {}), "probability": float(np.clip(rng.beta(0.1, 0.1), 0, 1))}
    sharp = tmp_path / "sharp.jsonl"
    sharp.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    result = runner.invoke(app, ["label-plan", str(sharp), "--budget", "120", "--out", str(tmp_path / "p.jsonl"), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert not payload["uniform"] and payload["effective_labels"] >= 0.7 * payload["expected_labels"]
    assert all(share > 0.1 for share in payload["uniform_share"].values())
    text = runner.invoke(app, ["label-plan", str(sharp), "--budget", "120", "--out", str(tmp_path / "q.jsonl")])
    assert "effective sample size" in text.output


def test_a_clipped_interval_is_shown_as_it_is() -> None:
    from ragjury.commands.estimates_output import _cell
    from ragjury.evals.stats.prediction_powered import Estimate

    assert _cell(Estimate(0.97, 0.93, 1.0, 0.02, 30, 300)) == "0.970+.030/−.040"
    assert _cell(Estimate(0.68, 0.602, 0.758, 0.04, 60, 250)) == "0.680±.078"


@pytest.mark.parametrize("value", ["0.5", "5", "-1", '"5"'])
def test_a_label_outside_the_tasks_vocabulary_is_one_line(predictions: Path, tmp_path: Path, value: str) -> None:
    path = tmp_path / "labels.jsonl"
    ids = [json.loads(line)["id"] for line in predictions.read_text(encoding="utf-8").splitlines()[:3]]
    path.write_text(f'{{"id": "{ids[0]}", "label": 1}}\n{{"id": "{ids[1]}", "label": {value}}}\n', encoding="utf-8")
    result = runner.invoke(app, ["estimate", str(predictions), "--labels", str(path)])
    assert result.exit_code == 2, result.output
    assert "labels.jsonl:2: field 'label'" in result.output and "Traceback" not in result.output


def test_a_predictions_file_as_labels_gives_its_gold_not_the_judges_verdicts(predictions: Path) -> None:
    own = json.loads(runner.invoke(app, ["estimate", str(predictions), "--json"]).stdout)
    result = runner.invoke(app, ["estimate", str(predictions), "--labels", str(predictions), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["n_labels"] == own["n_labels"] == 120
    for mine, theirs in zip(payload["systems"], own["systems"], strict=True):
        assert mine["human_only"] == theirs["human_only"]
        assert mine["judge_bias"] < 0  # the strict judge is not certified by its own verdicts


def _plan(predictions: Path, tmp_path: Path, probability: str, extra: str = "") -> Path:
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    labelled = [row for row in rows if row.get("gold") is not None]
    path = tmp_path / "labels.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": row["id"], "label": row["gold"]})[:-1] + f', "inclusion_probability": {probability}}}\n'
            for row in labelled
        ) + extra,
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("probability", ['"yes"', "true", "0", "1.5"])
def test_an_inclusion_probability_that_is_not_one_is_one_line(predictions: Path, tmp_path: Path, probability: str) -> None:
    result = runner.invoke(app, ["estimate", str(predictions), "--labels", str(_plan(predictions, tmp_path, probability))])
    assert result.exit_code == 2, result.output
    assert "labels.jsonl:1: field 'inclusion_probability'" in result.output


def test_every_label_picked_for_certain_is_said(predictions: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["estimate", str(predictions), "--labels", str(_plan(predictions, tmp_path, "1")), "--json"])
    assert result.exit_code == 0, result.output
    assert any("inclusion_probability 1" in note for note in json.loads(result.stdout)["notes"])


def test_labels_of_ids_no_prediction_has_are_counted(predictions: Path, tmp_path: Path) -> None:
    extra = "".join(f'{{"id": "ghost-{i}", "label": 1}}\n' for i in range(7))
    result = runner.invoke(app, ["estimate", str(predictions), "--labels", str(_plan(predictions, tmp_path, "0.5", extra)), "--json"])
    assert result.exit_code == 0, result.output
    assert any(note.startswith("7 of 127 labels") for note in json.loads(result.stdout)["notes"])


def test_an_empty_id_in_a_labels_file_is_one_line(predictions: Path, tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text('{"id": "", "label": 1}\n', encoding="utf-8")
    result = runner.invoke(app, ["estimate", str(predictions), "--labels", str(path)])
    assert result.exit_code == 2 and "labels.jsonl:1: field 'id'" in result.output


def test_compare_a_system_with_itself_is_one_line(predictions: Path) -> None:
    result = runner.invoke(app, ["estimate", str(predictions), "--compare", "chatgpt", "chatgpt"])
    assert result.exit_code == 2 and "--compare" in result.output


def test_rows_without_a_system_are_estimated_apart_not_as_all(predictions: Path, tmp_path: Path) -> None:
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    for row in rows[:100]:
        del row["system"]
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    result = runner.invoke(app, ["estimate", str(path), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert "all" not in {row["system"] for row in payload["systems"]}
    assert any("100 rows have no 'system'" in note for note in payload["notes"])
