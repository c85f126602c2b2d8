"""``ragjury fit`` writes a head with its cross-validated figures; ``--judge fitted:HEAD`` applies it."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragjury.cli import app

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
runner = CliRunner()


def test_fit_writes_a_head_beside_its_base_judges_figures(tmp_path: Path) -> None:
    head = tmp_path / "head.json"
    result = runner.invoke(app, ["fit", "--task", "correctness", "--data", str(DATA), "--out", str(head), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["n"] == 40 and payload["base"]["judge"] == "contains"
    low, high = payload["head_random"]["kappa_interval"]
    assert low <= payload["head_random"]["kappa"] <= high
    assert payload["beats_base"] == (payload["gain_interval"][0] > 0)  # shown, not a point above
    stored = json.loads(head.read_text())
    assert stored["figures"]["base"]["kappa"] == payload["base"]["kappa"] and stored["n"] == 40

    judged = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", f"fitted:{head}", "--data", str(DATA),
                                 "--no-progress", "--no-cache", "--json"])
    assert judged.exit_code == 0, judged.output
    assert json.loads(judged.stdout)["scored"] == 40


def test_fit_says_plainly_when_the_head_does_not_beat_its_base(tmp_path: Path) -> None:
    result = runner.invoke(app, ["fit", "--task", "correctness", "--data", str(DATA), "--out", str(tmp_path / "h.json")])
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert ("beats contains by" in first) or ("does NOT beat contains" in first) or ("no better than contains shown" in first)


def test_fit_never_says_beats_where_the_gain_interval_holds_0(tmp_path: Path) -> None:
    """#54 item 4: the example set's gain is +0.050 [+0.000, +0.159]: no gain shown."""
    result = runner.invoke(app, ["fit", "--task", "correctness", "--data", str(DATA), "--out", str(tmp_path / "h.json"),
                                 "--json"])
    payload = json.loads(result.stdout)
    low, high = payload["gain_interval"]
    assert low <= 0 <= high and payload["beats_base"] is False
    said = runner.invoke(app, ["fit", "--task", "correctness", "--data", str(DATA), "--out", str(tmp_path / "h.json")])
    first = " ".join(said.stdout.split())
    assert "beats" not in first.split("signals:")[0] and "no better than contains shown" in first


def test_gain_shown_reads_the_interval_not_the_point() -> None:
    from ragjury.evals.pipelines.fit_run import gain_shown

    assert gain_shown({"gain": 0.05, "gain_interval": [0.0, 0.16]}) == "unshown"
    assert gain_shown({"gain": 0.05, "gain_interval": [-0.02, 0.16]}) == "unshown"
    assert gain_shown({"gain": 0.10, "gain_interval": [0.01, 0.2]}) == "beats"
    assert gain_shown({"gain": -0.10, "gain_interval": [-0.2, -0.01]}) == "worse"
    assert gain_shown({"gain": None}) == "unmeasured"


def test_bad_fits_are_one_line_and_exit_2(tmp_path: Path) -> None:
    relevance = runner.invoke(app, ["fit", "--task", "relevance", "--data", str(DATA), "--out", str(tmp_path / "h.json")])
    assert relevance.exit_code == 2 and "--task relevance needs --topics and --passages" in relevance.output
    few = tmp_path / "few.jsonl"
    few.write_text("".join(json.dumps({"question": "q", "answer": "Paris", "reference": "Paris", "label": i % 2 == 0}) + "\n"
                           for i in range(12)))
    too_few = runner.invoke(app, ["fit", "--task", "correctness", "--data", str(few), "--out", str(tmp_path / "h.json")])
    assert too_few.exit_code == 2 and "at least 10 of each" in too_few.output
    assert "Traceback" not in too_few.output
    same = runner.invoke(app, ["fit", "--task", "correctness", "--data", str(DATA), "--out", str(DATA)])
    assert same.exit_code == 2


def test_a_head_for_another_task_is_refused_before_judging(tmp_path: Path) -> None:
    head = tmp_path / "head.json"
    assert runner.invoke(app, ["fit", "--task", "correctness", "--data", str(DATA), "--out", str(head)]).exit_code == 0
    result = runner.invoke(app, ["evaluate", "--task", "faithfulness", "--judge", f"fitted:{head}", "--data", str(DATA),
                                 "--no-progress", "--no-cache"])
    assert result.exit_code == 2 and "fitted for correctness" in result.output


def test_estimate_fit_cross_fits_a_head_on_the_estimates_labels(tmp_path: Path) -> None:
    systems = DATA.parent / "systems.jsonl"
    preds = tmp_path / "preds.jsonl"
    assert runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(systems),
                               "--out", str(preds), "--no-progress", "--no-cache"]).exit_code == 0
    plain = json.loads(runner.invoke(app, ["estimate", str(preds), "--json"]).stdout)
    result = runner.invoke(app, ["estimate", str(preds), "--fit", "--json"])
    assert result.exit_code == 0, result.output
    fitted = json.loads(result.stdout)
    assert fitted["judge"] == "cross-fitted head" and fitted["n_labels"] == plain["n_labels"] == 120
    for before, after in zip(plain["systems"], fitted["systems"], strict=True):
        low, high = after["prediction_powered"]["interval"]
        assert low < after["prediction_powered"]["estimate"] < high
        b_low, b_high = before["prediction_powered"]["interval"]
        assert high - low < b_high - b_low  # the head tracks the labels better than contains here
