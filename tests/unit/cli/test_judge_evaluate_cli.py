"""``ragjury judge-evaluate`` and ``doctor``: exit codes, JSON shape, one-line errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

REPO = Path(__file__).resolve().parents[3]
SCORE_FIELDS = {"overall_score", "relevance", "completeness", "accuracy", "source_attribution", "coherence",
                "confidence", "reasoning"}
ENVELOPE_FIELDS = {"judge", "model", "prompt_version", "fallback_used", "fallback_reason", "latency_s", "usage",
                   "unscored", "unscored_reason"}


@pytest.fixture(autouse=True)
def no_model_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Point Ollama at a closed port so no test depends on a local server, and ignore any .env."""
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("RAGJURY_HTTP_RETRIES", "0")
    monkeypatch.delenv("RAGJURY_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)


runner = CliRunner()


def invoke(*args: str, stdin: str | None = None):
    return runner.invoke(app, list(args), input=stdin)


def test_json_output_has_all_score_fields_and_the_envelope_with_fallback() -> None:
    result = invoke("judge-evaluate", "What is RAG?", "--answer", "RAG combines retrieval with generation.", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert ENVELOPE_FIELDS <= payload.keys() and SCORE_FIELDS <= payload["value"].keys()
    assert payload["task"] == "score" and payload["gate_failures"] == []
    assert payload["fallback_used"] is True and "unreachable" in payload["fallback_reason"]
    assert 0.0 <= payload["label"] <= 1.0 and payload["label"] == payload["value"]["overall_score"]


def test_llm_only_never_falls_back_and_exits_3_unscored() -> None:
    result = invoke("judge-evaluate", "q", "--answer", "a", "--judge", "llm", "--json")
    assert result.exit_code == 3
    payload = json.loads(result.stdout)
    assert payload["unscored"] is True and payload["fallback_used"] is False
    assert payload["label"] is None and payload["value"] is None


def test_heuristic_needs_no_server_and_verbose_prints_a_table() -> None:
    result = invoke("judge-evaluate", "What is RAG?", "--answer", "RAG retrieves passages then generates.",
                    "--judge", "heuristic", "--verbose")
    assert result.exit_code == 0, result.output
    assert "source_attribution" in result.stdout and "overall" in result.stdout


def test_the_retired_name_deterministic_still_works_quietly() -> None:
    """The retired ``--judge deterministic`` (before issue #30) is the heuristic judge under its new name: the
    same JSON, nothing on stderr, and no longer listed."""
    args = ("judge-evaluate", "What is RAG?", "--answer", "RAG retrieves passages then generates.", "--json")
    old = invoke(*args, "--judge", "deterministic")  # the retired name
    new = invoke(*args, "--judge", "heuristic")
    assert old.exit_code == new.exit_code == 0, old.output
    old_payload, new_payload = (json.loads(result.stdout) for result in (old, new))
    old_payload.pop("latency_s"), new_payload.pop("latency_s")
    assert old_payload == new_payload and old_payload["judge"] == "heuristic"
    assert old.stderr == ""
    shown = invoke("judge-evaluate", "--help")
    assert "heuristic" in shown.stdout and "deterministic" not in shown.stdout


def test_fail_under_is_a_ci_gate() -> None:
    args = ("judge-evaluate", "What is RAG?", "--answer", "RAG combines retrieval with generation.",
            "--judge", "heuristic")
    assert invoke(*args, "--fail-under", "0.99").exit_code == 1
    assert invoke(*args, "--fail-under", "0.01").exit_code == 0


def test_answer_file_json_and_sources_jsonl(tmp_path: Path) -> None:
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"answer": "Paris is the capital of France.", "sources_used": ["d1"]}))
    sources = tmp_path / "sources.jsonl"
    sources.write_text('{"docid": "d1", "text": "Paris is the capital and largest city of France."}\n')
    result = invoke("judge-evaluate", "What is the capital of France?", "--answer-file", str(answer),
                    "--sources-file", str(sources), "--judge", "heuristic", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["value"]["source_attribution"] > 0.5 and payload["value"]["accuracy"] == 1.0


def test_answer_from_stdin_as_plain_text() -> None:
    result = invoke("judge-evaluate", "q about rag", "--answer-file", "-", "--judge", "heuristic", "--json",
                    stdin="rag is retrieval augmented generation\n")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["unscored"] is False


@pytest.mark.parametrize(
    ("files", "args", "message"),
    [
        ({}, ("--answer-file", "missing.json"), "missing.json: file not found"),
        ({"a.json": '{"answer": "x",'}, ("--answer-file", "a.json"), "a.json:1: malformed JSON"),
        ({"a.json": '{"answer": "x", "confidence": 3}'}, ("--answer-file", "a.json"),
         "a.json: field 'confidence': Input should be less than or equal to 1"),
        ({"s.jsonl": '{"id": "1", "content": "ok"}\n{"id": "2", "content": \n'},
         ("--answer", "x", "--sources-file", "s.jsonl"), "s.jsonl:2: malformed JSON"),
        ({"s.jsonl": '{"id": "1", "content": "ok"}\n{"id": "2"}\n'},
         ("--answer", "x", "--sources-file", "s.jsonl"), "s.jsonl:2: field 'content': Field required"),
        ({}, ("--answer", "x", "--answer-file", "y"), "exactly one of --answer"),
        ({}, (), "exactly one of --answer"),
    ],
)
def test_bad_input_is_one_line_exit_2_no_traceback(
    tmp_path: Path, files: dict[str, str], args: tuple[str, ...], message: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = invoke("judge-evaluate", "q", "--judge", "heuristic", *args)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.split())
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) <= 2  # one message (rich may wrap a long path once)


def test_doctor_reports_unreachable_server_with_a_fix() -> None:
    result = invoke("doctor", "--base-url", "http://127.0.0.1:9/v1")
    assert result.exit_code == 1
    assert "server reachable" in result.stdout and "fix:" in result.stdout


def test_python_cli_py_works_and_help_teaches() -> None:
    done = subprocess.run([sys.executable, str(REPO / "cli.py"), "judge-evaluate", "--help"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0
    assert "--fail-under" in done.stdout and "Examples" in done.stdout
