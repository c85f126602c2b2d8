"""Secrets ragjury is handed are never shown or stored: a key it cannot send is refused naming
``--api-key`` (never quoted), and credentials in a base URL are hidden in stderr, ``--json``,
predictions, the cache and the HTML report (issue 27, items 12-13)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
runner = CliRunner()
DEAD = "http://127.0.0.1:9/v1"


@pytest.fixture(autouse=True)
def _quick(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("RAGJURY_API_KEY", "OPENAI_API_KEY", "RAGJURY_BASE_URL", "RAGJURY_BASE_URLS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAGJURY_HTTP_RETRIES", "0")
    monkeypatch.setenv("RAGJURY_PREFLIGHT_TIMEOUT_S", "2")
    monkeypatch.chdir(tmp_path)


def _evaluate(*extra: str) -> list[str]:
    return ["evaluate", "--task", "correctness", "--judge", "llm", "--data", str(DATA), "--limit", "3",
            "--no-progress", *extra]


@pytest.mark.parametrize("key", ["sk-secret\rX", "sk-secret\x00", "sk-sécret", "sk-secret\u00a0", "sk secret"])
@pytest.mark.parametrize("command", [_evaluate("--no-cache"), ["doctor"]])
def test_a_key_that_cannot_be_sent_is_refused_naming_the_option_never_quoted(key: str, command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--base-url", DEAD, "--api-key", key])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: --api-key: the API key has"), result.output
    assert "secret" not in result.output and "Traceback" not in result.output


def test_a_bad_key_in_the_environment_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGJURY_API_KEY", "sk-secret\r")
    result = runner.invoke(app, [*_evaluate("--no-cache"), "--base-url", DEAD])
    assert result.exit_code == 2 and "$RAGJURY_API_KEY" in result.output and "secret" not in result.output


def test_credentials_in_a_base_url_are_hidden_wherever_it_is_shown_or_stored(tmp_path: Path) -> None:
    urls = "http://admin:hunter2@127.0.0.1:9/v1?token=tok123,http://admin:hunter2@127.0.0.1:7/v1"
    out, html, cache = tmp_path / "p.jsonl", tmp_path / "r.html", tmp_path / "c.sqlite"
    result = runner.invoke(app, [*_evaluate("--cache", str(cache)), "--base-url", urls, "--json",
                                 "--out", str(out), "--html", str(html)])
    assert result.exit_code == 3, result.output
    stored = [result.output, out.read_text(encoding="utf-8"), html.read_text(encoding="utf-8")]
    with sqlite3.connect(cache) as db:
        stored += [repr(row) for table in ("entries", "meta") for row in db.execute(f"select * from {table}")]  # noqa: S608
    for text in stored:
        assert "hunter2" not in text and "tok123" not in text
    payload = json.loads(result.stdout)
    assert [entry["url"] for entry in payload["endpoints"]] == [
        "http://***@127.0.0.1:9/v1?token=***", "http://***@127.0.0.1:7/v1"
    ]
    assert "http://***@127.0.0.1:9/v1" in out.read_text(encoding="utf-8")  # the reason still says where


def test_doctor_hides_credentials_in_the_url() -> None:
    result = runner.invoke(app, ["doctor", "--base-url", "http://admin:hunter2@127.0.0.1:9/v1", "--json"])
    assert result.exit_code == 1, result.output
    assert "hunter2" not in result.output and "***@127.0.0.1:9" in result.output
