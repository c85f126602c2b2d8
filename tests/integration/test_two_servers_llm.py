"""Two real llama-servers of one model in one run (``--base-url A,B``): every item judged once,
both servers answer, and the counts add up; resumed, nothing is sent again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from llama_server import RunningServer, running_server

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "examples" / "data" / "correctness.jsonl"
RAGJURY = Path(sys.executable).with_name("ragjury")


def test_two_servers_share_one_run(llm_server: RunningServer, tmp_path: Path) -> None:
    with running_server(log_path=tmp_path / "second.log") as second:
        urls = f"{llm_server.base_url},{second.base_url}"
        command = [str(RAGJURY), "evaluate", "--task", "correctness", "--judge", "llm", "--data", str(DATA),
                   "--limit", "8", "--base-url", urls, "--concurrency", "1", "--json", "--no-progress",
                   "--cache", str(tmp_path / "cache.sqlite")]
        env = {**os.environ, "RAGJURY_MAX_TOKENS": "384", "RAGJURY_TIMEOUT_S": "300", "RAGJURY_TEMPERATURE": "0"}
        first = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False, env=env)
        assert first.returncode in (0, 1, 3), first.stderr
        payload = json.loads(first.stdout)
        assert payload["judged"] == 8 and payload["cached"] == 0 and payload["not_attempted"] == 0
        assert payload["scored"] + payload["unscored"] == payload["n"] == 8
        endpoints = {entry["url"]: entry for entry in payload["endpoints"]}
        assert set(endpoints) == {llm_server.base_url, second.base_url}
        assert all(entry["answered"] > 0 and entry["failures"] == 0 for entry in endpoints.values())
        assert sum(entry["answered"] for entry in endpoints.values()) <= payload["requests"]

        again = json.loads(subprocess.run(command, capture_output=True, text=True, timeout=600, check=False,
                                          env=env).stdout)
        assert again["cached"] == 8 - payload["unscored"]
        assert again["judged"] == payload["unscored"]  # only the unscored ones are retried
