"""``label --until`` and ``estimate --labels`` of a sequential session: the decision checked in one line, and
estimate reports the confidence sequence beside the fixed-n interval, saying which is valid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.evals.labelling.items import load_items
from ragjury.evals.stats.live_status import LiveStatus
from ragjury.evals.labelling.session import LabelSession
from ragjury.evals.stats.sequential import parse_decision

SYSTEMS = Path(__file__).resolve().parents[3] / "examples" / "data" / "systems.jsonl"
runner = CliRunner()


@pytest.fixture(scope="module")
def predictions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("until") / "preds.jsonl"
    done = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS),
                               "--out", str(out), "--no-progress"])
    assert done.exit_code == 0, done.output
    return out


@pytest.mark.parametrize(("until", "says"), [
    ("rate > 2", '--until \'rate > 2\': expected "rate >= 0.8", "B - A", "B >= A - 0.02" or "best"'),
    ("B - A", None),
])
def test_a_decision_that_does_not_fit_is_one_line(predictions: Path, tmp_path: Path, until: str, says: str | None) -> None:
    plan = tmp_path / "plan.jsonl"
    assert runner.invoke(app, ["label-plan", str(predictions), "--budget", "20", "--out", str(plan)]).exit_code == 0
    target = predictions if says else plan
    done = runner.invoke(app, ["label", str(target), "--out", str(tmp_path / "l.jsonl"), "--until", until,
                               "--no-browser"])
    assert done.exit_code == 2, done.output
    assert "Traceback" not in done.output
    assert (says or "is a label plan (already a sample)") in done.output


def test_estimate_reports_the_sequence_and_says_it_is_the_valid_one(predictions: Path, tmp_path: Path) -> None:
    _, items = load_items(predictions)
    live = LiveStatus.of(items, parse_decision("B - A"), max_labels=100)
    labels = tmp_path / "labels.jsonl"
    truth = {r["id"]: r["label"] for r in map(json.loads, SYSTEMS.read_text().splitlines()) if r.get("label") is not None}
    session = LabelSession(items, labels, "ana", seed=1, sequential=live.mark)
    screen, given = session.screen(), 0
    while not screen.finished and given < 60:
        item = screen.item
        assert item is not None
        if item.id in truth:
            screen = session.act(item.key, "label", label=bool(truth[item.id]), seen=screen.version)
            given += 1
        else:
            screen = session.act(item.key, "skip", seen=screen.version)
    done = runner.invoke(app, ["estimate", str(predictions), "--labels", str(labels), "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    sequence = data["sequential"]
    assert sequence["valid"] == "sequence" and sequence["fixed_n_valid"] is False
    assert sequence["until"] == "B - A" and sequence["words"] == live.status(session._acts).words
    assert sequence["interval_kind"].startswith("confidence sequence")
    text = runner.invoke(app, ["estimate", str(predictions), "--labels", str(labels)])
    assert text.exit_code == 0, text.output
    assert 'labels gathered until settled (label --until "B - A"): only the confidence sequence is valid' in text.stdout


def test_a_budget_without_a_decision_is_one_line(predictions: Path, tmp_path: Path) -> None:
    done = runner.invoke(app, ["label", str(predictions), "--out", str(tmp_path / "l.jsonl"), "--max-labels", "40",
                               "--no-browser"])
    assert done.exit_code == 2 and "--max-labels is the budget of --until: add --until" in done.output


@pytest.mark.parametrize(("args", "says"), [
    (["--active"], "--active is the order of --until: add --until"),
    (["--active", "--until", "B - A"], '--active works with "rate >= c" only'),
])
def test_active_is_for_rates_under_until(predictions: Path, tmp_path: Path, args: list[str], says: str) -> None:
    done = runner.invoke(app, ["label", str(predictions), "--out", str(tmp_path / "l.jsonl"), "--no-browser", *args])
    assert done.exit_code == 2 and says in done.output and "Traceback" not in done.output
