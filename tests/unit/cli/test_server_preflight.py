"""Every model command checks its server before judging (issue 26, 3.1 and 3.2): a model the
server does not list, or a base URL that answers HTTP but is no OpenAI-compatible API, is one line
naming it and the fix, exit 2, with no item sent and no fallback -- under ``--judge auto`` too."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from fake_endpoints import fake_endpoint
from recording_server import recording_server
from typer.testing import CliRunner

from ragjury.cli import app_for

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
DATA = EXAMPLES / "data" / "correctness.jsonl"
TREC = EXAMPLES / "data" / "trec"

COMMANDS = {
    "evaluate-llm": ["evaluate", "--task", "correctness", "--judge", "llm", "--data", str(DATA), "--limit", "3"],
    "evaluate-auto": ["evaluate", "--task", "correctness", "--data", str(DATA), "--limit", "3"],
    "verdict-auto": ["verdict", "correctness", "-q", "q", "-a", "a", "-r", "a"],
    "judge-evaluate": ["judge-evaluate", "q", "--answer", "a"],
    "calibrate": ["calibrate", "--task", "correctness", "--data", str(DATA), "--out", "c.json", "--no-progress"],
    "relevance": ["relevance", "--judge", "llm", "--topics", str(TREC / "topics.jsonl"), "--passages",
                  str(TREC / "passages.jsonl"), "--runs", str(TREC / "runs"), "--depth", "2", "--out", "j.qrels",
                  "--no-progress"],
}


def run(command: list[str], tmp_path: Path, base_url: str, model: str) -> subprocess.CompletedProcess[str]:
    """The command in this process, as the console script runs it (``cli.app_for``), in ``tmp_path``:
    what these tests read (exit code, stdout, stderr) is the process's; a subprocess cost ~1.5 s more
    a test in imports alone."""
    out = ["--out", str(tmp_path / "p.jsonl"), "--no-progress"] if command[0] == "evaluate" else []
    argv = [*command, *out, "--base-url", base_url, "--model", model]
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(app_for(argv), argv)
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(argv, result.exit_code, result.stdout, result.stderr)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_model_the_server_does_not_serve_is_exit_2_before_judging(name: str, tmp_path: Path) -> None:
    with fake_endpoint(models=("phi3:mini", "qwen2.5:7b")) as server:
        result = run(COMMANDS[name], tmp_path, server.base_url, "llama3:8b")
        sent = server.received
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: model 'llama3:8b' is not served by {server.base_url} (it lists: phi3:mini, qwen2.5:7b): "
        "pass --model with one of the listed names"
    ]
    assert sent == 0 and result.stdout == ""
    assert not (tmp_path / "p.jsonl").exists()  # no provenance names a model that never answered


def test_ask_checks_the_agent_model_too(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"docid": "d1", "text": "Paris is in France."}\n')
    with fake_endpoint() as server:
        result = run(["ask", "where is Paris?", "-c", str(corpus)], tmp_path, server.base_url, "nope")
        sent = server.received
    assert result.returncode == 2 and sent == 0
    assert "model 'nope' is not served by" in result.stderr


@pytest.mark.parametrize(("mode", "answered"), [("404", "HTTP 404"), ("html", "a page that is not JSON"),
                                               ("redirect", "HTTP 301, a redirect to https://example.org/login")])
@pytest.mark.parametrize("name", ["evaluate-llm", "evaluate-auto", "verdict-auto"])
def test_a_url_that_is_no_api_is_one_line_and_exit_2(mode: str, answered: str, name: str, tmp_path: Path) -> None:
    with recording_server(mode=mode) as server:
        result = run(COMMANDS[name], tmp_path, server.base_url, "phi3:mini")
        chats = len(server.chat_requests)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: {server.base_url} is not an OpenAI-compatible API (GET {server.base_url}/models answered "
        f"{answered}): check --base-url (RAGJURY_BASE_URL): the server's API base, usually ending in /v1"
    ]
    assert chats == 0 and "fallback" not in result.stdout
