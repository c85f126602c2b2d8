"""``ragjury doctor`` names the fix for what the server answered (the key for 401/403, ``--model``
and the listed models for a wrong name, ``--base-url`` for a 404), and in a real terminal prints
only its own output (no pydantic-ai banner)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from recording_server import recording_server
from typer.testing import CliRunner

from ragjury.cli import app

RAGJURY = Path(sys.executable).with_name("ragjury")
SCORES = ('{"relevance": 8, "completeness": 8, "accuracy": 8, "source_attribution": 5, "coherence": 9, '
          '"confidence": 8, "reasoning": "ok"}')


@pytest.fixture(autouse=True)
def _no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RAGJURY_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAGJURY_HTTP_RETRIES", "0")


def doctor(base_url: str, *extra: str) -> tuple[int, dict[str, dict[str, object]]]:
    result = CliRunner().invoke(app, ["doctor", "--base-url", base_url, "--json", *extra])
    payload = json.loads(result.stdout)
    return result.exit_code, {check["name"]: check for check in payload["checks"]}


@pytest.mark.parametrize("mode", ["401", "403"])
def test_a_refused_key_names_the_key_variables(mode: str) -> None:
    with recording_server(mode=mode) as server:
        code, checks = doctor(server.base_url)
    assert code == 1
    assert checks["server reachable"]["ok"] is True  # it answered: not "start your server"
    key = checks["API key"]
    assert key["ok"] is False and f"HTTP {mode}" in str(key["detail"])
    assert "RAGJURY_API_KEY or OPENAI_API_KEY" in str(key["fix"]) and "start your server" not in str(key["fix"])


def test_a_key_refused_on_the_chat_request_names_it_too() -> None:
    with recording_server(mode="401-chat") as server:
        code, checks = doctor(server.base_url, "--model", "phi3:mini")
    call = checks["structured call"]
    assert code == 1 and call["ok"] is False
    assert str(call["detail"]).startswith("HTTP 401") and "RAGJURY_API_KEY" in str(call["fix"])


def test_a_wrong_model_names_model_and_the_listed_ones() -> None:
    with recording_server(mode="404-model") as server:
        code, checks = doctor(server.base_url, "--model", "gpt-4o-mini")
    model = checks["model available"]
    assert code == 1 and model["ok"] is False
    assert "phi3:mini, llama3.2:3b" in str(model["detail"]) and "--model" in str(model["fix"])


def test_no_api_at_the_url_names_base_url() -> None:
    with recording_server(mode="404") as server:
        code, checks = doctor(server.base_url)
    listing = checks["model list"]
    assert code == 1 and listing["ok"] is False and "--base-url" in str(listing["fix"])


def _terminal_env() -> dict[str, str]:
    """The environment of a person at a terminal: none of the variables that make pydantic-ai keep
    its banner to itself (pytest's, CI's, a coding agent's, the opt-out)."""
    quiet = {"PYDANTIC_AI_NO_BANNER", "CI", "PYTEST_VERSION", "PYTEST_CURRENT_TEST", "AI_AGENT", "AGENT"}
    env = {k: v for k, v in os.environ.items() if k not in quiet and not k.startswith(("CLAUDE", "CODEX", "COPILOT"))}
    return env | {"TERM": "xterm", "COLUMNS": "80"}


def in_a_terminal(command: str) -> str:
    shown = subprocess.run(["script", "-qc", command, "/dev/null"], check=False, capture_output=True, text=True,
                           env=_terminal_env(), timeout=120)
    return shown.stdout


@pytest.mark.skipif(shutil.which("script") is None, reason="needs util-linux 'script' for a pseudo-terminal")
def test_doctor_in_a_terminal_prints_only_its_own_output() -> None:
    # The control: in this terminal, a plain pydantic-ai run does show the banner, so its absence
    # below is ragjury's doing, not the environment's.
    control = in_a_terminal(
        f"{sys.executable} -c \"from pydantic_ai import Agent; from pydantic_ai.models.test import TestModel; "
        "Agent(TestModel()).run_sync('hi')\""
    )
    assert "observability" in control, control
    with recording_server(content=SCORES) as server:
        shown = in_a_terminal(f"{RAGJURY} doctor --base-url {server.base_url}")
    assert "server reachable" in shown and "structured call" in shown, shown
    assert "observability" not in shown and "Logfire" not in shown, shown


def test_several_servers_are_each_checked() -> None:
    from fake_endpoints import fake_endpoint

    with recording_server(content=SCORES) as good, fake_endpoint(models=("qwen2.5:7b",)) as other:
        code, checks = doctor(f"{good.base_url},{other.base_url}", "--model", "phi3:mini")
    assert code == 1
    assert checks[f"server reachable at {good.base_url}"]["ok"] is True
    assert checks[f"model available at {good.base_url}"]["ok"] is True
    assert checks[f"model available at {other.base_url}"]["ok"] is False
    assert "qwen2.5:7b" in checks[f"model available at {other.base_url}"]["detail"]


def test_a_structured_call_that_times_out_names_the_timeout_setting_and_the_time_it_took() -> None:
    with recording_server(mode="hang-chat") as server:
        code, checks = doctor(server.base_url, "--model", "phi3:mini", "--timeout", "1")
    call = checks["structured call"]
    assert code == 1 and call["ok"] is False
    assert "timed out after 1s" in str(call["detail"]) and "the call took" in str(call["detail"])
    assert "--timeout" in str(call["fix"]) and "RAGJURY_TIMEOUT_S" in str(call["fix"])
