"""#54 item 2: with one cache, ``calibrate --judge llm`` after ``evaluate --judge llm`` on the same
items sends no new model request, and neither does ``evaluate --judge llm --calibration CAL`` after
it: the model call is the same, only the cut-off applied to its P("1") differs (counted on a real
HTTP server, tests/recording_server.py)."""

from __future__ import annotations

import json
from pathlib import Path

from recording_server import recording_server
from typer.testing import CliRunner

from ragjury.cli import app

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"


def test_calibrate_and_a_calibrated_run_after_a_run_send_no_new_request(tmp_path: Path, offline_cli: Path) -> None:
    cache, cal = tmp_path / "cache.sqlite", tmp_path / "cal.json"
    runner = CliRunner()
    with recording_server(mode="logprobs") as server:
        common = ["--base-url", server.base_url, "--cache", str(cache), "--no-progress"]
        first = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "llm", "--data", str(DATA),
                                    "--json", *common])
        assert first.exit_code in (0, 1), first.output
        assert json.loads(first.stdout)["scored"] == 40
        paid = len(server.chat_requests)
        assert paid >= 40
        fitted = runner.invoke(app, ["calibrate", "--task", "correctness", "--judge", "llm", "--data", str(DATA),
                                     "--out", str(cal), "--json", *common])
        assert fitted.exit_code == 0, fitted.output
        assert len(server.chat_requests) == paid, "calibrate paid again for the same model calls"
        calibrated = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "llm", "--data", str(DATA),
                                         "--calibration", str(cal), "--json", "--out", str(tmp_path / "p.jsonl"),
                                         *common])
        assert calibrated.exit_code in (0, 1), calibrated.output
        assert len(server.chat_requests) == paid, "the calibrated run paid again for the same model calls"
    threshold = json.loads(cal.read_text())["threshold"]
    payload = json.loads(calibrated.stdout)
    assert payload["scored"] == 40 and payload["cached"] == 40
    rows = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text().splitlines() if line.strip()]
    for row in rows:  # the calibrated cut-off, applied to the cached P("1"), not the plain run's 0.5
        p_true = row["value"]["probability"]
        assert row["label"] is (p_true >= threshold) and f"{threshold:g}" in row["value"]["reason"], row["value"]
