"""#54 item 28: a panel served wholly from the run's cache (its model member's calls all held there)
reported "judged 20, cached 0"; it is counted as cached, and no request is sent."""

from __future__ import annotations

import json
from pathlib import Path

from recording_server import recording_server
from typer.testing import CliRunner

from ragjury.cli import app

DATA = Path(__file__).resolve().parents[4] / "examples" / "data" / "correctness.jsonl"


def test_a_panel_whose_model_calls_are_all_cached_counts_them_cached(tmp_path: Path, offline_cli: Path) -> None:
    common = ["--task", "correctness", "--data", str(DATA), "--limit", "20", "--no-progress", "--json",
              "--cache", str(tmp_path / "cache.sqlite")]
    with recording_server(mode="logprobs") as server:
        first = CliRunner().invoke(app, ["evaluate", "--judge", "llm", *common, "--base-url", server.base_url])
        assert first.exit_code in (0, 1), first.output
        sent = len(server.chat_requests)
        panel = CliRunner().invoke(app, ["evaluate", "--judge", "panel:llm,contains", *common,
                                         "--base-url", server.base_url])
        assert len(server.chat_requests) == sent
    assert panel.exit_code in (0, 1), panel.output
    payload = json.loads(panel.stdout)
    assert (payload["cached"], payload["judged"]) == (20, 0), {k: payload[k] for k in ("cached", "judged", "n")}
    assert payload["cached"] + payload["judged"] + payload["duplicates"] == payload["n"]
