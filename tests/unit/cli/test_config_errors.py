"""Configuration errors never fall back: a 401/403 (the key) or a 404 for the model is one line with
the fix and exit 2, under the default ``--judge auto`` as under ``--judge llm``. A server that fails
on items (HTTP 500) still falls back, counted, as before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from recording_server import recording_server

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
RAGJURY = Path(sys.executable).with_name("ragjury")


@pytest.fixture(autouse=True)
def _no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RAGJURY_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAGJURY_TIMEOUT_S", "10")
    monkeypatch.setenv("RAGJURY_HTTP_RETRIES", "0")


def evaluate(base_url: str, *extra: str, model: str = "phi3:mini") -> subprocess.CompletedProcess[str]:
    """The command as a user types it (the console script, its own process: stderr as they see it)."""
    command = [str(RAGJURY), "evaluate", "--task", "correctness", "--data", str(DATA),
               "--base-url", base_url, "--model", model, "--no-cache", *extra]
    return subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("judge", [[], ["--judge", "llm"]], ids=["auto", "llm"])
def test_a_401_is_one_line_with_the_fix_and_exit_2(judge: list[str]) -> None:
    with recording_server(mode="401") as server:
        result = evaluate(server.base_url, *judge)
        chats = len(server.chat_requests)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        f"error: HTTP 401 from {server.base_url}: the server wants an API key: set RAGJURY_API_KEY or OPENAI_API_KEY (or pass --api-key)"
    ]
    assert result.stdout == "" and chats == 0  # stopped at the preflight, before any item


@pytest.mark.parametrize("judge", [[], ["--judge", "llm"]], ids=["auto", "llm"])
def test_a_401_on_the_first_request_stops_the_run_too(judge: list[str]) -> None:
    with recording_server(mode="401-chat") as server:  # GET /models is open, chat wants a key
        result = evaluate(server.base_url, "--no-progress", *judge)
        chats = len(server.chat_requests)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith(f"error: HTTP 401 from {server.base_url}")
    assert "fallback" not in result.stdout + result.stderr and chats <= 4


def test_a_403_names_the_key() -> None:
    with recording_server(mode="403") as server:
        result = evaluate(server.base_url)
    assert result.returncode == 2
    assert "HTTP 403" in result.stderr and "RAGJURY_API_KEY or OPENAI_API_KEY" in result.stderr


def test_a_wrong_model_lists_the_models_the_server_has() -> None:
    with recording_server(mode="404-model") as server:
        result = evaluate(server.base_url, "--no-progress", model="gpt-4o-mini")
        chats = len(server.chat_requests)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: model 'gpt-4o-mini' is not served by {server.base_url} (it lists: phi3:mini, llama3.2:3b): "
        "pass --model with one of the listed names"
    ]
    assert chats == 0  # found at the preflight (GET /models), before any item


def test_a_server_error_still_falls_back_as_before() -> None:
    with recording_server(mode="500") as server:
        result = evaluate(server.base_url, "--no-progress", "--json", "--limit", "4")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["n"] == 4 and payload["fallback_used"] == 4


@pytest.mark.parametrize("command", [
    ["verdict", "correctness", "-q", "q", "-a", "a", "-r", "a", "--judge", "llm"],
    ["verdict", "correctness", "-q", "q", "-a", "a", "-r", "a"],
    ["judge-evaluate", "q", "--answer", "a"],
])
def test_one_item_commands_stop_on_a_refused_key_too(command: list[str]) -> None:
    with recording_server(mode="401") as server:
        shown = subprocess.run([str(RAGJURY), *command, "--base-url", server.base_url], capture_output=True,
                               text=True, timeout=60)
    assert shown.returncode == 2, shown.stdout + shown.stderr
    assert "RAGJURY_API_KEY" in shown.stderr and "fallback" not in shown.stdout
