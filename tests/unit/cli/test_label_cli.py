"""``ragjury label``: the loop evaluate -> label-plan -> label -> estimate closes on the labels file,
two annotators at once give people-vs-people agreement, and bad input is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.evals.io.label_acts import read_acts
from ragjury.evals.labelling.items import load_items
from ragjury.evals.labelling.session import LabelSession

SYSTEMS = Path(__file__).resolve().parents[3] / "examples" / "data" / "systems.jsonl"
runner = CliRunner()


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("label")
    predictions, plan = folder / "preds.jsonl", folder / "plan.jsonl"
    done = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS),
                               "--out", str(predictions), "--no-progress"])
    assert done.exit_code == 0, done.output
    done = runner.invoke(app, ["label-plan", str(predictions), "--budget", "60", "--out", str(plan)])
    assert done.exit_code == 0, done.output
    return predictions, plan


def people_truth() -> dict[str, bool]:
    return {row["id"]: bool(row["label"]) for row in map(json.loads, SYSTEMS.read_text().splitlines())
            if row.get("label") is not None}


def label_as(plan: Path, out: Path, who: str, *, overlap: float = 1.0, flip: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    """A scripted person who labels with the example's people labels (flipping ``flip``)."""
    truth = people_truth()
    _, items = load_items(plan)
    session = LabelSession(items, out, who, overlap=overlap, seed=5)
    screen = session.screen()
    while not screen.finished and not (screen.state is not None and screen.state.skipped):  # skipped ones come back
        ident = screen.item.id  # type: ignore[union-attr]
        if ident in truth:
            screen = session.act(screen.position, "label", label=truth[ident] != (ident in flip), seconds=2.0)
        else:
            screen = session.act(screen.position, "skip")


def test_estimate_on_the_labels_file_equals_estimate_on_the_hand_written_file(plan: tuple[Path, Path],
                                                                              tmp_path: Path) -> None:
    predictions, plan_file = plan
    labels = tmp_path / "labels.jsonl"
    label_as(plan_file, labels, "ana")
    truth = people_truth()
    hand = tmp_path / "hand.jsonl"
    rows = [json.loads(line) for line in plan_file.read_text().splitlines()]
    hand.write_text("".join(json.dumps({"id": r["id"], "label": truth[r["id"]],
                                        "inclusion_probability": r["inclusion_probability"]}) + "\n"
                            for r in rows if r["id"] in truth))
    a = runner.invoke(app, ["estimate", str(predictions), "--labels", str(labels), "--json"])
    b = runner.invoke(app, ["estimate", str(predictions), "--labels", str(hand), "--json"])
    assert a.exit_code == 0 and b.exit_code == 0, a.output + b.output
    pa, pb = json.loads(a.stdout), json.loads(b.stdout)
    assert pa["systems"] == pb["systems"] and pa["n_labels"] == pb["n_labels"] > 0


def test_two_annotators_with_overlap_give_people_vs_people_agreement(plan: tuple[Path, Path], tmp_path: Path) -> None:
    _, plan_file = plan
    labels = tmp_path / "labels.jsonl"
    ids = [json.loads(line)["id"] for line in plan_file.read_text().splitlines()]
    label_as(plan_file, labels, "ana", overlap=0.5)
    label_as(plan_file, labels, "bob", overlap=0.5, flip=set(ids[::4]))
    result = runner.invoke(app, ["label", str(plan_file), "--out", str(labels), "--summary"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[1] == "labels" and "saved to" in lines[0]
    assert any(line.startswith("people vs people (ana · bob,") and "kappa" in line for line in lines)
    assert any("people disagree on" in line for line in lines)
    assert any(line.startswith("judge vs people") for line in lines)
    payload = json.loads(runner.invoke(app, ["label", str(plan_file), "--out", str(labels), "--summary", "--json"]).stdout)
    (pair,) = payload["people_vs_people"]
    assert pair["annotators"] == ["ana", "bob"] and pair["n"] > 5 and pair["kappa_interval"] is not None
    assert payload["per_annotator"]["ana"] > 0 and payload["per_annotator"]["bob"] > 0


def test_labels_given_with_the_judge_shown_are_refused_then_allowed(plan: tuple[Path, Path], tmp_path: Path) -> None:
    predictions, plan_file = plan
    labels = tmp_path / "labels.jsonl"
    label_as(plan_file, labels, "ana")
    first = read_acts(labels)[0]
    with labels.open("a") as handle:
        handle.write(json.dumps({"id": first.id, "system": first.system, "act": "label", "annotator": "ana",
                                 "label": not first.label, "shown_judge": True}) + "\n")
    refused = runner.invoke(app, ["estimate", str(predictions), "--labels", str(labels)])
    assert refused.exit_code == 2 and "--allow-shown-judge" in refused.output
    allowed = runner.invoke(app, ["estimate", str(predictions), "--labels", str(labels), "--allow-shown-judge"])
    assert allowed.exit_code == 0 and "judge's verdict shown are counted" in allowed.output


@pytest.mark.parametrize("content, message", [
    ('{"id": "1", "answer": "a"}\n', "cannot tell the task"),
    ('{"question": "q", "answer": "a", "references": ["r"]}\n', "field 'id': missing"),
    ("not json\n", "malformed JSON"),
])
def test_bad_items_are_one_line_naming_file_and_line(tmp_path: Path, content: str, message: str) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text(content)
    result = runner.invoke(app, ["label", str(items), "--out", str(tmp_path / "l.jsonl"), "--no-browser"])
    assert result.exit_code == 2 and message in result.output and f"{items}:1" in result.output
    assert "Traceback" not in result.output


def test_out_may_not_be_the_items_file(plan: tuple[Path, Path]) -> None:
    _, plan_file = plan
    result = runner.invoke(app, ["label", str(plan_file), "--out", str(plan_file), "--no-browser"])
    assert result.exit_code == 2 and "--out" in result.output


def test_agreement_calibrate_and_fit_read_the_labels_file(plan: tuple[Path, Path], tmp_path: Path) -> None:
    predictions, plan_file = plan
    labels = tmp_path / "labels.jsonl"
    label_as(plan_file, labels, "ana")
    labelled = {a.id for a in read_acts(labels) if a.act == "label"}
    agreement = runner.invoke(app, ["agreement", "--gold", str(labels), "--judged", str(predictions), "--json"])
    assert agreement.exit_code == 0, agreement.output
    assert json.loads(agreement.stdout)["agreement"]["n_total"] == len(labelled)
    # a dataset is an items file too: label all of it (the example's people labels), then fit on the labels file
    everything = tmp_path / "all.jsonl"
    label_as(SYSTEMS, everything, "ana")
    head = tmp_path / "head.json"
    fitted = runner.invoke(app, ["fit", "--task", "correctness", "--data", str(SYSTEMS), "--labels", str(everything),
                                 "--out", str(head), "--json"])
    assert fitted.exit_code == 0, fitted.output
    assert json.loads(fitted.stdout)["n"] == len(people_truth()) == 120
    calibration = tmp_path / "cal.json"
    calibrated = runner.invoke(app, ["calibrate", "--task", "faithfulness", "--judge", "support", "--data",
                                     str(SYSTEMS), "--labels", str(labels), "--out", str(calibration)])
    assert calibrated.exit_code == 2 and "field 'contexts': missing" in calibrated.output  # not a faithfulness set


def test_evaluate_and_report_read_the_labels_file_and_report_shows_people_against_people(
        plan: tuple[Path, Path], tmp_path: Path) -> None:
    predictions, plan_file = plan
    labels = tmp_path / "labels.jsonl"
    ids = [json.loads(line)["id"] for line in plan_file.read_text().splitlines()]
    label_as(plan_file, labels, "ana", overlap=0.5)
    label_as(plan_file, labels, "bob", overlap=0.5, flip=set(ids[::4]))
    people = {k[1] for k in __import__("ragjury.evals.io.label_acts", fromlist=["x"]).people_labels(
        read_acts(labels)).labels}
    evaluated = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS),
                                    "--labels", str(labels), "--no-progress", "--json"])
    assert evaluated.exit_code == 0, evaluated.output
    assert json.loads(evaluated.stdout)["labelled"] == len(people)
    reported = runner.invoke(app, ["report", str(predictions), "--labels", str(labels)], env={"COLUMNS": "200"})
    assert reported.exit_code == 0, reported.output
    assert "people vs people (ana · bob," in reported.output
    payload = json.loads(runner.invoke(app, ["report", str(predictions), "--labels", str(labels), "--json"]).stdout)
    run = payload["runs"][0] if "runs" in payload else payload
    assert run["labelled"] == len(people)
