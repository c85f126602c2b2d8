"""A key refused partway through a run (HTTP 401/403 after some answers) is a configuration error:
one server stops the run (exit 2, nothing cached from it, no fallback); in a pool the refusing
server is taken out at once and its items move to the others; when every server refuses, the run
stops as with one."""

from __future__ import annotations

import pytest
from fake_endpoint_settings import pool_settings, some_items
from fake_endpoints import fake_endpoint

from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.runner import run_judgments
from ragjury.rag_agent.judges.catalogue import build_judge
from ragjury.rag_agent.model.breaker import CircuitBreaker
from ragjury.rag_agent.model.config_errors import ModelServerConfigError

_settings = pool_settings
_items = some_items


def test_a_401_after_answers_is_still_a_configuration_error() -> None:
    breaker = CircuitBreaker("http://h/v1")
    breaker.record(None)  # the server answered: a later 401/403 is still the key, never the item
    assert breaker.config_error_for(401, model="m") is not None
    assert breaker.config_error_for(403, model="m") is not None
    assert breaker.config_error_for(404, model="m", body="model not found") is None


@pytest.mark.parametrize("name", ["llm", "auto"])
async def test_one_server_refusing_mid_run_stops_the_run(name: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    with fake_endpoint(refuse_after=5) as server:
        judge = build_judge("correctness", name, _settings([server.base_url]))
        cache = JudgmentCache(tmp_path / "cache.sqlite")
        with pytest.raises(ModelServerConfigError, match=f"HTTP 401 from {server.base_url}"):
            await run_judgments(judge, _items(30), cache=cache, progress=False)
        sent = server.received
    assert sent <= 5 + 2  # the answered ones and those in flight when the first 401 came back
    # only what the server answered before refusing is kept (``auto`` keeps its model judge's calls too)
    assert cache.count(owner=judge.identity.key()) <= 5 and cache.count() <= 10
    cache.close()


async def test_in_a_pool_the_refusing_server_is_taken_out_and_its_items_move() -> None:
    with fake_endpoint(latency_s=0.01) as healthy, fake_endpoint(refuse_after=3) as refusing:
        judge = build_judge("correctness", "llm", _settings([healthy.base_url, refusing.base_url]))
        judgments, stats = await run_judgments(judge, _items(30), progress=False)
        sent_to_refusing = refusing.received
    assert stats.judged == 30 and stats.unscored == 0, [j.unscored_reason for j in judgments if j.unscored]
    by_url = {entry["url"]: entry for entry in stats.endpoints}
    assert by_url[refusing.base_url]["answered"] <= 3 and by_url[refusing.base_url]["moved"] >= 1
    assert by_url[refusing.base_url]["failures"] == by_url[refusing.base_url]["moved"]
    assert sent_to_refusing <= 3 + 2  # taken out at the first 401: only requests already in flight followed
    assert by_url[healthy.base_url]["answered"] >= 27


async def test_when_every_server_of_a_pool_refuses_the_run_stops() -> None:
    with fake_endpoint(refuse_after=2) as first, fake_endpoint(refuse_after=2) as second:
        judge = build_judge("correctness", "llm", _settings([first.base_url, second.base_url]))
        with pytest.raises(ModelServerConfigError, match="HTTP 401 from"):
            await run_judgments(judge, _items(30), progress=False)
        assert first.received + second.received <= 2 * (2 + 2)
