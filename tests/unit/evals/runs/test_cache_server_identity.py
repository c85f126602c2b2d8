"""#54 item 28: the cache key names the server and the temperature. A second server with the same
model name was never asked (its judgments came from the first server's cache rows), and
``RAGJURY_TEMPERATURE`` was keyed only with samples > 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recording_server import recording_server
from typer.testing import CliRunner

from ragjury.cli import app

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
VERDICT = '{"reason": "it names the same person", "verdict": "1"}'


def run(base_url: str, cache: Path) -> dict:
    result = CliRunner().invoke(app, ["evaluate", "--task", "correctness", "--judge", "llm", "--data",
                                      str(FIXTURES / "pipeline_correctness.jsonl"), "--no-progress", "--json",
                                      "--base-url", base_url, "--cache", str(cache)])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_a_second_server_of_the_same_model_is_asked_not_served_from_the_first_ones_cache(
        tmp_path: Path, offline_cli: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    with recording_server(content=VERDICT) as first, recording_server(content=VERDICT) as second:
        assert run(first.base_url, cache)["judged"] > 0
        again = run(first.base_url, cache)
        assert again["judged"] == 0 and again["cached"] == again["n"]  # the same server: the cache serves it
        other = run(second.base_url, cache)
    assert other["cached"] == 0 and len(second.chat_requests) > 0


def test_the_temperature_is_part_of_the_key_with_one_sample(
        tmp_path: Path, offline_cli: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache.sqlite"
    with recording_server(content=VERDICT) as server:
        monkeypatch.setenv("RAGJURY_TEMPERATURE", "0")
        run(server.base_url, cache)
        monkeypatch.setenv("RAGJURY_TEMPERATURE", "0.7")
        warmer = run(server.base_url, cache)
    assert warmer["cached"] == 0


def test_the_identity_names_the_server_without_its_credentials() -> None:
    from ragjury.config.settings import RagjurySettings
    from ragjury.rag_agent.judges.llm.correctness import CorrectnessJudge

    judge = CorrectnessJudge(settings=RagjurySettings(base_url="http://user:pw@host-a:8080/v1"))
    other = CorrectnessJudge(settings=RagjurySettings(base_url="http://host-b:8080/v1"))
    assert "host-a:8080" in judge.identity.key() and "pw" not in judge.identity.key()
    assert judge.identity.key() != other.identity.key()
