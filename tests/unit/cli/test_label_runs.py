"""``label RUN_A RUN_B`` and ``label RUN1 ... RUNn --until best``: several configs' predictions files labelled
side by side, keyed as ``label-plan``/``estimate``/``report`` key the same files, and labels gathered until
settled read back by ``estimate`` and ``report`` through the confidence sequence (gates included)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.evals.io.label_acts import read_acts
from ragjury.evals.labelling.items import items_of_runs
from ragjury.evals.labelling.session import LabelSession
from ragjury.evals.stats.live_status import LiveStatus
from ragjury.evals.stats.sequential import parse_decision

SYSTEMS = Path(__file__).resolve().parents[3] / "examples" / "data" / "systems.jsonl"
runner = CliRunner()
ROWS = [json.loads(line) for line in SYSTEMS.read_text().splitlines() if line.strip()]
TRUTH = {row["id"].rsplit("-", 1)[0] + "/" + row["system"]: row["label"] for row in ROWS if row.get("label") is not None}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """chatgpt's and fid's answers as two configs' runs (ids without the system, as a config's own run has),
    and fid's again judged by another judge: three configs of one set of questions."""
    folder = tmp_path_factory.mktemp("runs")
    out: dict[str, Path] = {}
    for name, system, judge in (("chat", "chatgpt", "contains"), ("fid", "fid", "contains"),
                                ("fid2", "fid", "token-overlap")):
        data = folder / f"{name}-data.jsonl"
        data.write_text("".join(json.dumps({**{k: v for k, v in row.items() if k != "system"},
                                            "id": row["id"].rsplit("-", 1)[0]}) + "\n"
                                for row in ROWS if row["system"] == system))
        out[name] = folder / f"{name}.jsonl"
        done = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", judge, "--data", str(data),
                                   "--out", str(out[name]), "--no-progress"])
        assert done.exit_code == 0, done.output
    return out


def _label(items, labels: Path, until: str, stop_after: int) -> LiveStatus:  # type: ignore[no-untyped-def]
    """A person labels in the page's order (people's labels: the data's own), skipping unlabelled answers."""
    live = LiveStatus.of(items, parse_decision(until))
    session = LabelSession(items, labels, "ana", seed=2, sequential=live.mark)
    session.order = live.paired_order(session.order)
    screen, given = session.screen(), 0
    while not screen.finished and given < stop_after:
        item = screen.item
        assert item is not None
        name, ident = item.id.split("/", 1)
        truth = TRUTH.get(f"{ident}/{'chatgpt' if name == 'chat' else 'fid'}")
        if truth is None:
            screen = session.act(item.key, "skip", seen=screen.version)
        else:
            screen = session.act(item.key, "label", label=bool(truth), seen=screen.version)
            given += 1
    return live


def test_two_runs_are_keyed_as_label_plan_keys_them(runs: dict[str, Path]) -> None:
    task, items = items_of_runs([runs["chat"], runs["fid"]])
    assert task == "correctness" and len(items) == 500
    assert {item.system for item in items} == {"chat", "fid"}
    assert all(item.id.startswith(f"{item.system}/") and item.fingerprint for item in items)
    three = items_of_runs([runs["chat"], runs["fid"], runs["fid2"]])[1]
    assert {item.system for item in three} == {"chat", "fid", "fid2"}


def test_label_refuses_a_plan_beside_a_run_and_the_same_file_twice(runs: dict[str, Path], tmp_path: Path) -> None:
    done = runner.invoke(app, ["label", str(runs["chat"]), str(runs["chat"]), "--out", str(tmp_path / "l.jsonl"),
                               "--no-browser"])
    assert done.exit_code == 2 and "the same file given twice" in done.output
    done = runner.invoke(app, ["label", str(runs["chat"]), "--until", "best", "--out", str(tmp_path / "l.jsonl"),
                               "--no-browser"])
    assert done.exit_code == 2 and "--until best compares several configs; 1 found" in done.output


def test_a_b_labels_gathered_until_settled_give_the_sequence_in_estimate_report_and_the_gate(
        runs: dict[str, Path], tmp_path: Path) -> None:
    a, b = runs["chat"], runs["fid"]
    labels = tmp_path / "labels.jsonl"
    live = _label(items_of_runs([a, b])[1], labels, "B - A", 80)
    status = live.status(read_acts(labels))
    estimate = json.loads(runner.invoke(app, ["estimate", str(a), str(b), "--labels", str(labels), "--json"]).stdout)
    diff = estimate["comparison"]["difference"]
    assert estimate["sequential"]["words"] == status.words and estimate["sequential"]["valid"] == "sequence"
    sign = 1 if estimate["comparison"]["minuend"] == "fid" else -1
    assert sign * diff["estimate"] == pytest.approx(status.estimate, abs=1e-6)
    assert sorted(sign * x for x in diff["interval"]) == pytest.approx([status.low, status.high], abs=1e-6)
    assert estimate["comparison"]["method"].startswith('confidence sequence of label --until "B - A"')
    assert estimate["comparison"]["p_value"] is None
    report = runner.invoke(app, ["report", str(a), str(b), "--labels", str(labels), "--json"])
    assert report.exit_code == 0, report.output
    people = json.loads(report.stdout)["people_estimate"]["comparison"]
    assert people["difference"] == diff and people["method"] == estimate["comparison"]["method"]
    text = runner.invoke(app, ["report", str(a), str(b), "--labels", str(labels)]).stdout
    assert f"labels gathered until settled (label --until \"B - A\"): {status.words}" in text
    assert "no fixed-n p (a confidence sequence)" in text and "nan" not in text
    gated = runner.invoke(app, ["report", str(a), str(b), "--labels", str(labels), "--fail-unless-within", "0.02",
                                "--json"])
    reason = json.loads(gated.stdout)["gate"]["reason"]
    assert "confidence sequence of label --until" in reason


def test_best_over_three_runs_reads_back_in_estimate(runs: dict[str, Path], tmp_path: Path) -> None:
    paths = [runs["chat"], runs["fid"], runs["fid2"]]
    labels = tmp_path / "labels.jsonl"
    live = _label(items_of_runs(paths)[1], labels, "best", 90)
    status = live.status(read_acts(labels))
    assert status.n_units_labelled == 30 and status.labels == 90
    assert status.words.startswith(("not settled yet (in the running: ", "settled: "))
    done = runner.invoke(app, ["estimate", *map(str, paths), "--labels", str(labels), "--json"])
    assert done.exit_code == 0, done.output
    sequence = json.loads(done.stdout)["sweep"]["sequential"]
    assert sequence["until"] == "best" and sequence["words"] == status.words and len(sequence["pairs"]) == 3
    assert sequence["valid"] == "sequence" and sequence["level_each_pair"] == pytest.approx(1 - 0.05 / 3, abs=1e-6)
    text = runner.invoke(app, ["report", *map(str, paths), "--labels", str(labels)])
    assert text.exit_code == 0, text.output
    first = text.stdout.splitlines()[0]
    assert first == f"label --until best: {status.words}"


def test_compare_runs_carries_the_same_sequence(runs: dict[str, Path], tmp_path: Path) -> None:
    from ragjury.evals.pipelines.compare_runs import compare_runs

    paths = [runs["chat"], runs["fid"], runs["fid2"]]
    labels = tmp_path / "labels.jsonl"
    live = _label(items_of_runs(paths)[1], labels, "best", 45)
    sweep = compare_runs(paths, labels=labels)
    assert sweep.sequential is not None and sweep.sequential.words == live.status(read_acts(labels)).words
