"""``--api-key`` on every command that talks to a model: it reaches the server as the bearer token,
wins over $RAGJURY_API_KEY / $OPENAI_API_KEY, is listed in --help and never appears in the output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from recording_server import recording_server

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
RAGJURY = Path(sys.executable).with_name("ragjury")
KEY = "sk-cli-0123456789abcdef"

COMMANDS: dict[str, list[str]] = {
    "evaluate": ["evaluate", "--task", "correctness", "--judge", "llm", "--data", str(DATA), "--limit", "2",
                 "--no-cache", "--no-progress"],
    "verdict": ["verdict", "correctness", "-q", "Who?", "-a", "Marie Curie", "-r", "Marie Curie", "--judge", "llm"],
    "judge-evaluate": ["judge-evaluate", "What is RAG?", "--answer", "Retrieval plus generation.", "--judge", "llm"],
    "doctor": ["doctor"],
}


@pytest.fixture(autouse=True)
def _a_key_in_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    monkeypatch.setenv("RAGJURY_API_KEY", "sk-from-the-environment")
    monkeypatch.setenv("RAGJURY_HTTP_RETRIES", "0")
    monkeypatch.setenv("RAGJURY_TIMEOUT_S", "10")
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_key_given_on_the_command_line_is_sent_and_never_printed(name: str) -> None:
    with recording_server(mode="401") as server:
        command = [str(RAGJURY), *COMMANDS[name], "--base-url", server.base_url, "--api-key", KEY]
        result = subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)
        sent = {entry.authorization for entry in server.requests}
    assert sent == {f"Bearer {KEY}"}, (sent, result.stderr)
    assert KEY not in result.stdout + result.stderr
    assert "HTTP 401" in result.stdout + result.stderr  # the refusal is still reported


@pytest.mark.parametrize("name", [*COMMANDS, "calibrate", "ask", "relevance", "retrieval"])
def test_help_lists_the_option(name: str) -> None:
    words = {"verdict": ["verdict", "correctness"]}.get(name, [name])
    result = subprocess.run([str(RAGJURY), *words, "--help"], check=False, capture_output=True, text=True,
                            timeout=60, env={"COLUMNS": "100", "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert "--api-key" in result.stdout


def test_evaluate_help_groups_its_options_in_panels() -> None:
    result = subprocess.run([str(RAGJURY), "evaluate", "--help"], check=False, capture_output=True, text=True,
                            timeout=60, env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"})
    panels: dict[str, list[str]] = {}
    current = ""
    for line in result.stdout.splitlines():
        if line.startswith("╭─ "):
            current = line.removeprefix("╭─ ").split(" ─")[0]
            panels[current] = []
        elif line.startswith("│ ") and current:
            panels[current].append(line)
    assert {"Input", "Model", "Output", "Gates", "Run"} <= set(panels)
    def options(panel: str) -> str:
        return "\n".join(panels[panel])
    assert "--api-key" in options("Model") and "--base-url" in options("Model")
    assert "--data" in options("Input") and "--limit" in options("Input")
    assert "--fail-under" in options("Gates") and "--json" in options("Output")


@pytest.mark.parametrize("command", [["calibrate"], ["verdict", "correctness"], ["doctor"]])
def test_other_commands_put_the_model_options_in_their_panel(command: list[str]) -> None:
    result = subprocess.run([str(RAGJURY), *command, "--help"], check=False, capture_output=True, text=True,
                            timeout=60, env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"})
    model = result.stdout.split("╭─ Model ", 1)[1].split("╰", 1)[0]
    assert "--api-key" in model and "--base-url" in model and "--model" in model
