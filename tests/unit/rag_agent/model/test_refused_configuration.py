"""A server that refuses the configuration (401/403, 404 for the model) is a configuration error,
not an item failure: the breaker keeps it, nothing more is sent, and the runner raises it.

A real HTTP server (``tests/recording_server.py``) answers the statuses; the requests it saw are
counted there.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel
from recording_server import recording_server

from ragjury.config.settings import RagjurySettings
from ragjury.evals.runs.runner import run_judgments
from ragjury.rag_agent.core.input_files import InputError
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.judges.catalogue import build_judge
from ragjury.rag_agent.judges.combined.fallback import FallbackJudge
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge
from ragjury.rag_agent.model.breaker import CircuitBreaker, config_error_of, raise_config_error
from ragjury.rag_agent.model.config_errors import ModelServerConfigError, config_error
from ragjury.rag_agent.model.client import StructuredCaller
from ragjury.rag_agent.model.server_model import build_model


class Label(BaseModel):
    label: bool


def settings(**overrides: object) -> RagjurySettings:
    return RagjurySettings(_env_file=None, **overrides)  # type: ignore[call-arg]


@pytest.fixture(autouse=True)
def _no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RAGJURY_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_the_messages_name_the_fix() -> None:
    url = "http://h/v1"
    missing = config_error(401, url, model="m", api_key_set=False)
    assert isinstance(missing, InputError)  # every command prints it as one line, exit 2
    assert str(missing) == f"HTTP 401 from {url}: the server wants an API key: set RAGJURY_API_KEY or OPENAI_API_KEY (or pass --api-key)"
    refused = config_error(401, url, model="m", api_key_set=True)
    assert refused is not None and "refused the API key" in str(refused)
    forbidden = config_error(403, url, model="gpt-4o", api_key_set=True)
    assert forbidden is not None and "model 'gpt-4o'" in str(forbidden) and "--model" in str(forbidden)
    unknown = config_error(404, url, model="x", api_key_set=False, body="model 'x' not found", listed=["a", "b"])
    assert str(unknown) == f"model 'x' not found on {url}: check --model; the server lists: a, b"
    no_api = config_error(404, url, model="x", api_key_set=False, body="404 page not found")
    assert no_api is not None and "--base-url" in str(no_api)
    assert config_error(500, url, model="x", api_key_set=False) is None
    assert config_error(429, url, model="x", api_key_set=False) is None


async def test_a_preflight_answered_401_is_a_configuration_error() -> None:
    with recording_server(mode="401") as server:
        breaker = CircuitBreaker(server.base_url, preflight_timeout_s=2)
        assert await breaker.preflight() is False
    assert isinstance(breaker.config_error, ModelServerConfigError) and breaker.config_error.status == 401
    assert breaker.is_open and not breaker.allow()  # nothing more is sent, for good
    assert breaker.reason == str(breaker.config_error)


async def test_a_preflight_keeps_the_listed_models() -> None:
    with recording_server(mode="404-model") as server:
        breaker = CircuitBreaker(server.base_url, preflight_timeout_s=2)
        assert await breaker.preflight() is True
    assert breaker.listed == ["phi3:mini", "llama3.2:3b"] and breaker.config_error is None


async def test_a_first_request_answered_401_stops_every_later_call() -> None:
    with recording_server(mode="401-chat") as server:
        s = settings(base_url=server.base_url, http_retries=0, timeout_s=5)
        caller = StructuredCaller(build_model(s), s)
        first = await caller.call("Judge.", Label, "Is it?")
        second = await caller.call("Judge.", Label, "Is it?")
        sent = len(server.chat_requests)
    assert first.error is not None and first.error.startswith(f"HTTP 401 from {server.base_url}")
    assert "RAGJURY_API_KEY" in first.error
    assert second.error == first.error and sent == 1  # the second call sent nothing
    assert caller.breaker is not None and caller.breaker.config_error is not None


async def test_a_wrong_model_names_the_models_the_server_lists() -> None:
    with recording_server(mode="404-model") as server:
        s = settings(base_url=server.base_url, http_retries=0, timeout_s=5, judge_model="gpt-4o-mini")
        outcome = await StructuredCaller(build_model(s), s).call("Judge.", Label, "Is it?")
    assert outcome.error == (
        f"model 'gpt-4o-mini' not found on {server.base_url}: check --model; "
        "the server lists: phi3:mini, llama3.2:3b"
    )


async def test_the_breaker_switched_off_still_keeps_a_configuration_error() -> None:
    with recording_server(mode="401-chat") as server:
        s = settings(base_url=server.base_url, http_retries=0, timeout_s=5, breaker_failures=0)
        caller = StructuredCaller(build_model(s), s)
        await caller.call("Judge.", Label, "Is it?")
        await caller.call("Judge.", Label, "Is it?")
        assert len(server.chat_requests) == 1


async def test_after_an_answer_a_404_is_an_item_failure() -> None:
    breaker = CircuitBreaker("http://h/v1")
    breaker.record(None)  # the server answered a request: the configuration works
    assert breaker.config_error_for(404, model="m", body="model not found") is None


async def test_the_runner_raises_it_and_caches_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ragjury.evals.runs.cache import JudgmentCache

    items = [CorrectnessItem(question=f"q{i}", answer="Paris", references=["Paris"]) for i in range(12)]
    with recording_server(mode="401-chat") as server:
        s = settings(base_url=server.base_url, http_retries=0, timeout_s=5)
        judge = FallbackJudge(build_judge("correctness", "llm", s), ContainsJudge())
        cache = JudgmentCache(tmp_path / "cache.db")
        with pytest.raises(ModelServerConfigError, match="HTTP 401"):
            await run_judgments(judge, items, cache=cache, progress=False)
        sent = len(server.chat_requests)
    assert sent <= judge.concurrency  # the requests in flight when the first 401 came back, no more
    assert cache.get_many(_keys(judge, items)) == {}  # nothing of a misconfigured run is reused
    with pytest.raises(ModelServerConfigError):
        raise_config_error(judge)
    assert config_error_of(judge) is not None


def _keys(judge: object, items: list[CorrectnessItem]) -> list[str]:
    from ragjury.evals.runs.cache import judgment_key

    return [judgment_key(judge.identity, item) for item in items]  # type: ignore[attr-defined]


async def test_a_server_error_still_falls_back() -> None:
    items = [CorrectnessItem(question=f"q{i}", answer="Paris", references=["Paris"]) for i in range(3)]
    with recording_server(mode="500") as server:
        s = settings(base_url=server.base_url, http_retries=0, timeout_s=5)
        judge = FallbackJudge(build_judge("correctness", "llm", s), ContainsJudge())
        judgments, stats = await run_judgments(judge, items, progress=False)
    assert stats.fallback == 3 and all(j.fallback_used for j in judgments)
    assert config_error_of(judge) is None
