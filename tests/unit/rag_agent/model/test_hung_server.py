"""A server that accepts connections and never answers costs seconds, not a deadline per item."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from recording_server import recording_server

DATA = Path(__file__).resolve().parents[4] / "examples" / "data" / "correctness.jsonl"


@pytest.mark.parametrize(("mode", "preflight"), [("hang", "0.5"), ("hang-chat", "0")])
def test_a_hung_server_ends_the_run_in_seconds(mode: str, preflight: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGJURY_TIMEOUT_S", "1")
    monkeypatch.setenv("RAGJURY_HTTP_RETRIES", "0")
    monkeypatch.setenv("RAGJURY_PREFLIGHT_TIMEOUT_S", preflight)
    with recording_server(mode=mode) as server:
        started = time.perf_counter()
        result = CliRunner().invoke(app, ["evaluate", "--task", "correctness", "--data", str(DATA), "--limit", "20",
                                          "--base-url", server.base_url, "--no-cache", "--no-progress", "--json",
                                          "--concurrency", "4"])
        elapsed = time.perf_counter() - started
    payload = json.loads(result.stdout)
    assert payload["n"] == 20 and payload["fallback_used"] + payload["unscored"] == 20  # every row honestly marked
    assert elapsed < 10, f"{elapsed:.1f}s for 20 rows against a hung server"
    assert len(server.chat_requests) <= 8  # the breaker stopped sending after a few timeouts in a row
