"""#53: one labels type, one reader, joined once: every trust command gives the same figures for
the same files (a weighted plan: non-uniform inclusion probabilities, two annotators with a tie and
an unsure, one label given with the judge shown), reads the file once, and refuses a label given to
another answer."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.evals.io.people import fingerprint, read_people

SYSTEMS = Path(__file__).resolve().parents[3] / "examples" / "data" / "systems.jsonl"
runner = CliRunner()


@pytest.fixture(scope="module")
def predictions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("people") / "preds.jsonl"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS),
                                 "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    return out


def _labelled() -> list[dict]:
    return [row for row in map(json.loads, SYSTEMS.read_text(encoding="utf-8").splitlines())
            if isinstance(row.get("label"), bool)]


def _act(row: dict, annotator: str, label: bool | None, probability: float, **extra: object) -> str:
    act = {"id": row["id"], "system": row["system"], "act": "label" if label is not None else "unsure",
           "annotator": annotator, "label": label, "inclusion_probability": probability, **extra}
    return json.dumps(act) + "\n"


@pytest.fixture(scope="module")
def weighted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """80 labels (40 per system) with chances 0.1-0.9, ana on every item, bob on three: one the
    same (kept), one the other way (a tie, left out); ana unsure on one more; one label shown-judge."""
    rows = _labelled()
    chatgpt = [row for row in rows if row["system"] == "chatgpt"][:41]
    fid = [row for row in rows if row["system"] == "fid"][:40]
    lines = []
    for number, row in enumerate(chatgpt[:40] + fid):
        probability = round(0.1 + 0.8 * ((number * 37) % 17) / 16, 6)
        lines.append(_act(row, "ana", row["label"], probability, shown_judge=number == 5))
        if number == 1:
            lines.append(_act(row, "bob", row["label"], probability))
        if number == 2:
            lines.append(_act(row, "bob", not row["label"], probability))
    lines.append(_act(chatgpt[40], "ana", None, 0.5))
    path = tmp_path_factory.mktemp("labels") / "labels.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _figures(systems: list[dict]) -> dict[str, tuple[float, float, float]]:
    out = {}
    for row in systems:
        best = row["prediction_powered"] or row["human_only"]
        out[row["system"]] = (best["estimate"], *best["interval"])
    return out


def test_estimate_report_evaluate_and_python_give_the_same_figures(predictions: Path, weighted: Path) -> None:
    from ragjury.evals.pipelines.system_estimates_run import estimate_predictions

    flags = ["--labels", str(weighted), "--allow-shown-judge", "--json"]
    estimate = runner.invoke(app, ["estimate", str(predictions), *flags])
    assert estimate.exit_code == 0, estimate.output
    estimated = json.loads(estimate.stdout)
    report = runner.invoke(app, ["report", str(predictions), *flags])
    assert report.exit_code == 0, report.output
    evaluate = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS),
                                   "--no-progress", *flags])
    assert evaluate.exit_code == 0, evaluate.output
    python = estimate_predictions(predictions, labels=weighted, allow_shown_judge=True).as_dict()
    reference = _figures(estimated["systems"])
    assert set(reference) == {"chatgpt", "fid"}
    reported = json.loads(report.stdout)["runs"][0]["system_estimates"]["systems"]
    evaluated = json.loads(evaluate.stdout)["system_estimates"]["systems"]
    for other in (_figures(reported), _figures(evaluated), _figures(python["systems"])):  # type: ignore[arg-type]
        assert set(other) == set(reference)
        for system, figures in reference.items():
            assert other[system] == pytest.approx(figures, abs=1e-9), system
    # the tie and the unsure are counted and said, in --json, by every reader
    assert estimated["people_labels"]["ties_left_out"] == 1 and estimated["people_labels"]["unsure_left_out"] == 1
    assert estimated["n_labels"] == 79  # 81 items: a tie and an unsure left out
    assert json.loads(report.stdout)["people_labels"]["ties_left_out"] == 1
    assert json.loads(evaluate.stdout)["people_labels"]["ties_left_out"] == 1
    pairs = estimated["people_labels"]["people_vs_people"]
    assert len(pairs) == 1 and pairs[0]["n"] == 2 and len(pairs[0]["disagreements"]) == 1


def test_the_weights_change_the_figure(predictions: Path, weighted: Path, tmp_path: Path) -> None:
    """Without the chances the estimate differs: so the test above would catch a reader dropping them."""
    flat = tmp_path / "flat.jsonl"
    flat.write_text("".join(json.dumps({**json.loads(line), "inclusion_probability": None}) + "\n"
                            for line in weighted.read_text(encoding="utf-8").splitlines()), encoding="utf-8")
    flags = ["--allow-shown-judge", "--json"]
    weighted_run = json.loads(runner.invoke(app, ["estimate", str(predictions), "--labels", str(weighted), *flags]).stdout)
    flat_run = json.loads(runner.invoke(app, ["estimate", str(predictions), "--labels", str(flat), *flags]).stdout)
    assert _figures(weighted_run["systems"]) != _figures(flat_run["systems"])


@pytest.mark.parametrize("command", ["estimate", "report", "evaluate"])
def test_a_shown_judge_label_is_refused_by_every_command_unless_allowed(
    predictions: Path, weighted: Path, command: str
) -> None:
    args = {"estimate": ["estimate", str(predictions)], "report": ["report", str(predictions)],
            "evaluate": ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS),
                         "--no-progress"]}[command]
    result = runner.invoke(app, [*args, "--labels", str(weighted)])
    assert result.exit_code == 2 and "--allow-shown-judge" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("command", ["estimate", "report", "evaluate", "report A B", "agreement", "fit"])
def test_the_labels_file_is_opened_once(predictions: Path, weighted: Path, command: str,
                                        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import builtins
    import io

    opened: list[str] = []
    real_open, real_io_open = builtins.open, io.open
    real_os_open = os.open

    def counting(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(file) == str(weighted):
            opened.append(str(file))
        return real_open(file, *args, **kwargs)

    def counting_os(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(file) == str(weighted):
            opened.append(str(file))
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting)
    monkeypatch.setattr(io, "open", counting)
    monkeypatch.setattr(os, "open", counting_os)
    second = tmp_path / "second.jsonl"
    second.write_bytes(predictions.read_bytes())
    args = {"estimate": ["estimate", str(predictions)], "report": ["report", str(predictions)],
            "evaluate": ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS),
                         "--no-progress"],
            "report A B": ["report", str(predictions), str(second)],
            "agreement": ["agreement", "--judged", str(predictions)],
            "fit": ["fit", "--task", "correctness", "--data", str(SYSTEMS), "--out", str(tmp_path / "head.json")],
            }[command]
    result = runner.invoke(app, [*args, "--labels", str(weighted), "--allow-shown-judge", "--json"])
    if command == "report A B":  # two runs of one file's systems: refused after the one read, or measured
        assert result.exit_code in (0, 2), result.output
    else:
        assert result.exit_code == 0, result.output
    assert len(opened) == 1, opened


def test_graded_acts_on_a_yes_no_task_are_refused(predictions: Path, tmp_path: Path) -> None:
    """#54 item 20: grades (label --graded) given to a correctness plan: file, line, field, exit 2."""
    row = _labelled()[0]
    path = tmp_path / "graded.jsonl"
    path.write_text(_act(row, "ana", True, 0.5) + json.dumps({**json.loads(_act(row, "bob", True, 0.5)), "label": 3})
                    + "\n", encoding="utf-8")
    for args in (["estimate", str(predictions)], ["report", str(predictions)]):
        result = runner.invoke(app, [*args, "--labels", str(path)])
        assert result.exit_code == 2, result.output
        assert f"{path}:2: field 'label'" in result.output and "yes/no task" in result.output


def test_a_csv_header_typo_names_the_columns(predictions: Path, tmp_path: Path) -> None:
    """#54 item 10: ``id,lable`` names what it found and what it expected."""
    path = tmp_path / "labels.csv"
    path.write_text("id,lable\nnq-1006-fid,true\n", encoding="utf-8")
    result = runner.invoke(app, ["estimate", str(predictions), "--labels", str(path)])
    assert result.exit_code == 2 and "found id, lable" in result.output and "expected id, label" in result.output


@pytest.mark.parametrize("kind", ["fifo", "device", "loop"])
def test_special_files_as_labels_are_one_line(predictions: Path, tmp_path: Path, kind: str) -> None:
    """#54 item 34: a FIFO would hang, /dev/zero would fill memory, a link loop is no 'file not found'."""
    if kind == "fifo":
        path = tmp_path / "labels.jsonl"
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    else:
        path = tmp_path / "loop.jsonl"
        path.symlink_to(tmp_path / "loop.jsonl")
    result = runner.invoke(app, ["estimate", str(predictions), "--labels", str(path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert {"fifo": "a FIFO", "device": "a device", "loop": "symbolic link loop"}[kind] in result.output


def test_a_label_given_to_another_answer_is_refused(predictions: Path, tmp_path: Path) -> None:
    """A label carries the fingerprint of what the person saw; joined to another answer: exit 2."""
    records = [row for row in map(json.loads, predictions.read_text(encoding="utf-8").splitlines())
               if row.get("gold") is not None][:12]
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps({"id": r["id"], "system": r["system"], "label": bool(r["gold"]),
                                        "fingerprint": fingerprint(r["item"])}) + "\n" for r in records), encoding="utf-8")
    assert runner.invoke(app, ["estimate", str(predictions), "--labels", str(good)]).exit_code == 0
    judged = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS),
                                 "--no-progress", "--labels", str(good)])  # the dataset's items: the same prints
    assert judged.exit_code == 0, judged.output
    other = tmp_path / "other.jsonl"  # the same ids, the labels given to other answers
    moved = [{**r, "item": {**r["item"], "answer": "something else"}} for r in records]
    other.write_text("".join(json.dumps({"id": r["id"], "system": r["system"], "label": bool(r["gold"]),
                                         "fingerprint": fingerprint(r["item"])}) + "\n" for r in moved), encoding="utf-8")
    for args in (["estimate", str(predictions)], ["report", str(predictions)],
                 ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS), "--no-progress"]):
        result = runner.invoke(app, [*args, "--labels", str(other)])
        assert result.exit_code == 2, result.output
        assert "this label was given to another answer" in result.output and f"{other}:1" in result.output
        assert "Traceback" not in result.output
    hand = tmp_path / "hand.jsonl"  # a hand-written file without fingerprints keeps working
    hand.write_text("".join(json.dumps({"id": r["id"], "label": bool(r["gold"])}) + "\n" for r in records),
                    encoding="utf-8")
    assert runner.invoke(app, ["estimate", str(predictions), "--labels", str(hand)]).exit_code == 0


def test_one_type_holds_every_form(tmp_path: Path, weighted: Path) -> None:
    acts = read_people(weighted, allow_shown_judge=True)
    assert acts.form == "acts" and acts.annotators == ["ana", "bob"] and len(acts.ties) == 1 and acts.unsure == 1
    kept = next(label for label in acts.labels.values() if len(label.annotators) == 2)
    assert {name for name, _ in kept.annotators} == {"ana", "bob"}
    assert sum(label.shown_judge for label in acts.labels.values()) == 1
    csv = tmp_path / "l.csv"
    csv.write_text("id,label,system,inclusion_probability\nq1,yes,s,0.25\nq2,,s,\n", encoding="utf-8")
    people = read_people(csv)
    assert people.form == "csv" and people.labels[("s", "q1")].value is True
    assert people.labels[("s", "q1")].inclusion_probability == 0.25 and people.unlabelled_rows == 1


@pytest.mark.parametrize("command", ["estimate", "report", "evaluate", "calibrate", "fit", "train", "agreement"])
def test_every_trust_command_takes_the_one_option_set(command: str) -> None:
    """``--labels`` and ``--allow-shown-judge`` are declared once (``PEOPLE_LABELS``) and taken by every one."""
    import inspect

    from ragjury.commands._common import PEOPLE_LABELS

    module = __import__(f"ragjury.commands.{command}", fromlist=[command])
    parameters = inspect.signature(getattr(module, command)).parameters
    for name, (kind, _default) in PEOPLE_LABELS.options.items():
        assert parameters[name].annotation == kind, name


def test_agreement_reads_a_csv_of_labels_and_counts_what_it_left_out(
    predictions: Path, weighted: Path, tmp_path: Path
) -> None:
    """#54 items 22 and 36: ``agreement --gold labels.csv`` is no "TREC qrels"; an acts file's tie and
    unsure are counted in --json."""
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()][:20]
    csv = tmp_path / "labels.csv"
    csv.write_text("id,label\n" + "".join(f"{r['id']},{'true' if r['label'] else 'false'}\n" for r in rows),
                   encoding="utf-8")
    result = runner.invoke(app, ["agreement", "--gold", str(csv), "--judged", str(predictions), "--json"])
    assert result.exit_code == 0, result.output
    assert "qrels" not in result.output and json.loads(result.stdout)["people_labels"]["labels"] == 20
    acts = runner.invoke(app, ["agreement", "--labels", str(weighted), "--judged", str(predictions),
                               "--allow-shown-judge", "--json"])
    assert acts.exit_code == 0, acts.output
    people = json.loads(acts.stdout)["people_labels"]
    assert people["ties_left_out"] == 1 and people["unsure_left_out"] == 1
    terminal = runner.invoke(app, ["agreement", "--labels", str(weighted), "--judged", str(predictions),
                                   "--allow-shown-judge"], env={"COLUMNS": "200"})
    assert terminal.exit_code == 0 and "left out 1 tied between people, 1 unsure" in terminal.output
    both = runner.invoke(app, ["agreement", "--labels", str(csv), "--gold", str(csv), "--judged", str(predictions)])
    assert both.exit_code == 2 and "older name of --labels" in both.output


@pytest.fixture(scope="module")
def two_configs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Config A's and config B's runs, in two folders under one file name (``v1/preds.jsonl``,
    ``v2/preds.jsonl``, as CI lays them out), rows without a system: A's answers are chatgpt's, B's fid's."""
    root = tmp_path_factory.mktemp("ab")
    rows = [json.loads(line) for line in SYSTEMS.read_text(encoding="utf-8").splitlines()]
    out = []
    for folder, system in (("v1", "chatgpt"), ("v2", "fid")):
        data = root / f"{system}.jsonl"
        data.write_text("".join(json.dumps({**{k: v for k, v in row.items() if k != "system"},
                                            "id": row["id"].rsplit("-", 1)[0]}) + "\n"
                                for row in rows if row["system"] == system), encoding="utf-8")
        (root / folder).mkdir()
        path = root / folder / "preds.jsonl"
        result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data),
                                     "--out", str(path), "--no-progress"])
        assert result.exit_code == 0, result.output
        out.append(path)
    return out[0], out[1]


def _filled_plan(a: Path, b: Path, out: Path) -> Path:
    result = runner.invoke(app, ["label-plan", str(a), str(b), "--budget", "80", "--out", str(out)])
    assert result.exit_code == 0, result.output
    truth = {}
    for line in SYSTEMS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        truth[row["question"]] = truth.get(row["question"], {}) | {row["system"]: row.get("label")}
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert all(row["fingerprint"] for row in rows)  # a plan row knows what it shows
    first = a.resolve().parent.name if a.stem == b.stem else a.stem  # the config's name: its folder or its stem
    for row in rows:
        system = "chatgpt" if row["id"].startswith(f"{first}/") else "fid"
        given = truth[row["question"]][system]
        row["label"] = given if isinstance(given, bool) else bool(row["judge_label"])
    out.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return out


def test_a_b_gives_the_same_difference_everywhere_and_same_named_files_do_not_swap(
    two_configs: tuple[Path, Path], tmp_path: Path
) -> None:
    """#53 item 3 (A/B), #54 item 21: estimate A B, report A B and compare_predictions(a, b, labels=) give one
    B - A; the same plan given with the files swapped is refused (the labels judged other answers)."""
    from ragjury.evals.pipelines.compare_predictions import compare_predictions

    a, b = two_configs
    plan = _filled_plan(a, b, tmp_path / "plan.jsonl")
    estimate = runner.invoke(app, ["estimate", str(a), str(b), "--labels", str(plan), "--json"])
    assert estimate.exit_code == 0, estimate.output
    report = runner.invoke(app, ["report", str(a), str(b), "--labels", str(plan), "--json"])
    assert report.exit_code == 0, report.output
    python = compare_predictions(a, b, labels=plan).people.comparison.as_dict()  # type: ignore[union-attr]
    reference = json.loads(estimate.stdout)["comparison"]
    reported = json.loads(report.stdout)["people_estimate"]["comparison"]
    assert (reference["minuend"], reference["subtrahend"]) == ("v2", "v1")  # #54 item 14: B - A, named
    document = json.loads(report.stdout)  # one figure per config in report A B --json, not two
    people_rates = {row["system"]: row["prediction_powered"] for row in document["people_estimate"]["systems"]}
    for name, run in zip(("v1", "v2"), document["runs"]):
        assert run["system_estimates"]["systems"][0]["prediction_powered"] == people_rates[name]
    for other in (reported, python):
        assert other["difference"]["estimate"] == pytest.approx(reference["difference"]["estimate"], abs=1e-9)
        assert other["difference"]["interval"] == pytest.approx(reference["difference"]["interval"], abs=1e-9)
    # the same files swapped: each label stays with its file (named by its folder, not its place), B - A flips
    swapped = runner.invoke(app, ["estimate", str(b), str(a), "--labels", str(plan), "--json"])
    assert swapped.exit_code == 0, swapped.output
    flipped = json.loads(swapped.stdout)["comparison"]
    assert (flipped["minuend"], flipped["subtrahend"]) == ("v1", "v2")
    assert flipped["difference"]["estimate"] == pytest.approx(-reference["difference"]["estimate"], abs=1e-9)
    # labels keyed by position (A/, B/) as an older plan wrote them, given with the files swapped: refused
    positional = tmp_path / "positional.jsonl"
    positional.write_text(plan.read_text(encoding="utf-8").replace('"v1/', '"B/').replace('"v2/', '"A/')
                          .replace('"system": "v1"', '"system": "B"').replace('"system": "v2"', '"system": "A"'),
                          encoding="utf-8")
    for command in ("estimate", "report"):
        refused = runner.invoke(app, [command, str(b), str(a), "--labels", str(positional)])
        assert refused.exit_code == 2, refused.output
        assert any(why in refused.output for why in ("given to another answer", "no id in this file matches", "no label matches"))


def test_renaming_both_files_changes_no_figure(two_configs: tuple[Path, Path], tmp_path: Path) -> None:
    """The folds hash the question and the config's own id, never the file's name before it."""
    a, b = two_configs
    first, second = tmp_path / "baseline.jsonl", tmp_path / "candidate.jsonl"
    first.write_bytes(a.read_bytes())
    second.write_bytes(b.read_bytes())
    plan = _filled_plan(first, second, tmp_path / "plan.jsonl")
    renamed = tmp_path / "renamed.jsonl"  # the same labels keyed by the new names
    renamed.write_text(plan.read_text(encoding="utf-8").replace('"baseline/', '"old/').replace('"candidate/', '"new/')
                       .replace('"system": "baseline"', '"system": "old"').replace('"system": "candidate"',
                                                                                    '"system": "new"'), encoding="utf-8")
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    old.write_bytes(a.read_bytes())
    new.write_bytes(b.read_bytes())
    before = json.loads(runner.invoke(app, ["estimate", str(first), str(second), "--labels", str(plan), "--json"]).stdout)
    after = json.loads(runner.invoke(app, ["estimate", str(old), str(new), "--labels", str(renamed), "--json"]).stdout)
    assert after["comparison"]["difference"] == before["comparison"]["difference"]
    roles = {"baseline": "old", "candidate": "new"}
    kept = {roles[s["system"]]: s["prediction_powered"] for s in before["systems"]}
    assert {s["system"]: s["prediction_powered"] for s in after["systems"]} == kept


def test_a_label_given_on_the_page_carries_the_plan_rows_fingerprint(predictions: Path, tmp_path: Path) -> None:
    """#53 item 5: the plan row names what it shows; the session copies it into each act."""
    from ragjury.evals.io.label_acts import read_acts
    from ragjury.evals.labelling.items import load_items
    from ragjury.evals.labelling.session import LabelSession

    plan = tmp_path / "plan.jsonl"
    assert runner.invoke(app, ["label-plan", str(predictions), "--budget", "10", "--out", str(plan)]).exit_code == 0
    _task, items = load_items(plan)
    out = tmp_path / "labels.jsonl"
    session = LabelSession(items, out, "ana")
    screen = session.screen()
    session.act(screen.position, "label", label=True)
    (act,) = read_acts(out)
    row = next(json.loads(line) for line in plan.read_text(encoding="utf-8").splitlines()
               if json.loads(line)["id"] == act.id)
    assert act.fingerprint == row["fingerprint"] == fingerprint(
        next(json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()
             if json.loads(line)["id"] == act.id)["item"])


def test_label_summary_counts_only_its_items_and_names_the_real_next_command(
    two_configs: tuple[Path, Path], predictions: Path, tmp_path: Path
) -> None:
    """#54 items 5 and 22: an A/B plan's summary says `ragjury estimate A B --labels L`; another plan's labels
    are said apart (never "170 of 40"); --json has no NaN. #54 item 20: --graded on a yes/no task is refused."""
    from ragjury.evals.io.label_acts import LabelAct, append_act

    a, b = two_configs
    plan = tmp_path / "plan.jsonl"
    assert runner.invoke(app, ["label-plan", str(a), str(b), "--budget", "10", "--out", str(plan)]).exit_code == 0
    labels = tmp_path / "labels.jsonl"
    first = json.loads(plan.read_text(encoding="utf-8").splitlines()[0])
    append_act(labels, LabelAct(id=first["id"], system=first["system"], act="label", annotator="ana", label=True))
    for number in range(5):  # labels of another plan's items
        append_act(labels, LabelAct(id=f"other-{number}", system=None, act="label", annotator="ana", label=False))
    result = runner.invoke(app, ["label", str(plan), "--out", str(labels), "--summary"])
    assert result.exit_code == 0, result.output
    assert f"next: ragjury estimate {a} {b} --labels {labels}" in result.output
    assert "(1 of " in result.output and "5 label(s)" in result.output and "another plan" in result.output
    payload = runner.invoke(app, ["label", str(plan), "--out", str(labels), "--summary", "--json"])
    assert "NaN" not in payload.stdout and json.loads(payload.stdout)["labels_of_other_items"] == 5
    graded = runner.invoke(app, ["label", str(plan), "--out", str(labels), "--graded", "--no-browser"])
    assert graded.exit_code == 2 and "yes/no task" in graded.output


@pytest.mark.parametrize("command", ["estimate", "report", "evaluate"])
def test_with_labels_line_one_is_peoples_figure(predictions: Path, weighted: Path, command: str) -> None:
    """#53 item 6: the first line of estimate, evaluate and report is people's figure, the judge's beside it."""
    args = {"estimate": ["estimate", str(predictions)], "report": ["report", str(predictions)],
            "evaluate": ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS),
                         "--no-progress"]}[command]
    result = runner.invoke(app, [*args, "--labels", str(weighted), "--allow-shown-judge"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    if command == "report":  # after the line naming the file read
        lines = lines[1:]
    assert lines[0].startswith("correct as people would judge it"), lines[:3]
    assert "the judge said" in lines[1]
    assert "not yet measured against people" not in result.stdout and "to measure it:" not in result.stdout


@pytest.mark.parametrize("where", ["--data", "--gold", "label-plan"])
def test_a_fifo_as_any_input_is_one_line_not_a_hang(predictions: Path, tmp_path: Path, where: str) -> None:
    """#54 item 34: the FIFO is refused before it is opened (opening it would wait for a writer)."""
    fifo = tmp_path / "input.jsonl"
    os.mkfifo(fifo)
    args = {"--data": ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(fifo), "--no-progress"],
            "--gold": ["agreement", "--gold", str(fifo), "--judged", str(predictions)],
            "label-plan": ["label-plan", str(fifo), "--budget", "10", "--out", str(tmp_path / "plan.jsonl")]}[where]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "a FIFO" in result.output and "Traceback" not in result.output


def test_fit_states_the_tie_and_the_unsure(weighted: Path, tmp_path: Path) -> None:
    """#54 item 22: fit reads the same labels and says what it left out (terminal and --json)."""
    args = ["fit", "--task", "correctness", "--data", str(SYSTEMS), "--labels", str(weighted), "--allow-shown-judge",
            "--out", str(tmp_path / "head.json")]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    people = json.loads(result.stdout)["people_labels"]
    assert people["ties_left_out"] == 1 and people["unsure_left_out"] == 1
    terminal = runner.invoke(app, args)
    assert terminal.exit_code == 0 and "left out 1 tied between people, 1 unsure" in terminal.output


def test_print_of_a_labelled_comparison_leads_with_peoples_difference(two_configs: tuple[Path, Path],
                                                                      tmp_path: Path) -> None:
    """#53 item 6: print(compare_predictions(a, b, labels=L)) shows people's B - A first."""
    from ragjury.evals.pipelines.compare_predictions import compare_predictions

    a, b = two_configs
    plan = _filled_plan(a, b, tmp_path / "plan.jsonl")
    shown = str(compare_predictions(a, b, labels=plan)).splitlines()
    assert "as people would judge it" in shown[0] and shown[0].startswith("v2 − v1:")
    assert "the judges' own rates:" in shown
    assert "as people would judge it" not in str(compare_predictions(a, b)).splitlines()[0]


def test_labels_where_they_would_do_nothing_are_refused(weighted: Path, tmp_path: Path) -> None:
    """--labels is never accepted without effect: fit --task relevance (qrels are its labels)."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 2\n", encoding="utf-8")
    topics, passages = tmp_path / "topics.jsonl", tmp_path / "passages.jsonl"
    topics.write_text('{"qid": "q1", "query": "x"}\n', encoding="utf-8")
    passages.write_text('{"docid": "d1", "text": "y"}\n', encoding="utf-8")
    result = runner.invoke(app, ["fit", "--task", "relevance", "--data", str(qrels), "--topics", str(topics),
                                 "--passages", str(passages), "--labels", str(weighted), "--out",
                                 str(tmp_path / "h.json")])
    assert result.exit_code == 2 and "relevance reads people's grades" in result.output
