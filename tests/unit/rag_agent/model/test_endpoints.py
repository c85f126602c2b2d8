"""Several servers of one model in one process: the least busy live one answers, a dead one's
items move to the others, each item is judged once, and every count adds up."""

from __future__ import annotations

import pytest
from fake_endpoints import fake_endpoint, fake_endpoints
from recording_server import closed_port

from ragjury.config.settings import RagjurySettings
from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.runner import run_judgments
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.judges.catalogue import build_judge
from ragjury.rag_agent.model.config_errors import ModelServerConfigError
from ragjury.rag_agent.model.unreachable import is_not_attempted
from ragjury.rag_agent.model.endpoints import PooledModel


def _settings(urls: list[str], **extra: object) -> RagjurySettings:
    options: dict[str, object] = {"http_retries": 0, "timeout_s": 10, "breaker_failures": 2, **extra}
    return RagjurySettings(_env_file=None, base_url=",".join(urls), judge_model="phi3:mini", **options)


def _items(count: int) -> list[CorrectnessItem]:
    return [CorrectnessItem(question=f"q{i}", answer=f"a{i}", references=[f"r{i}"]) for i in range(count)]


async def test_a_server_that_dies_mid_run_hands_its_items_to_the_others(tmp_path) -> None:
    with fake_endpoints(2, latency_s=0.02, slots=2) as live, fake_endpoint(latency_s=0.02, slots=2, die_after=3) as dying:
        servers = [*live, dying]
        judge = build_judge("correctness", "llm", _settings([s.base_url for s in servers], concurrency=2))
        assert isinstance(judge.model, PooledModel)
        cache = JudgmentCache(tmp_path / "cache.sqlite")
        items = _items(40)
        judgments, stats = await run_judgments(judge, items, cache=cache, progress=False)

        assert len(judgments) == 40 and all(not j.unscored for j in judgments), [j.unscored_reason for j in judgments]
        assert stats.judged == 40 and stats.unscored == 0 and stats.not_attempted == 0
        assert dying.dead.is_set() and dying.answered < 3
        by_url = {entry["url"]: entry for entry in stats.endpoints}
        answered = sum(server.answered for server in servers)
        assert [by_url[s.base_url]["answered"] for s in live] == [s.answered for s in live]
        # a request the dying server counted as it died may never reach the client: never more, though
        assert by_url[dying.base_url]["answered"] <= dying.answered
        assert by_url[dying.base_url]["failures"] >= 1
        assert by_url[dying.base_url]["moved"] == by_url[dying.base_url]["failures"]
        assert "endpoints" in stats.as_dict()

        again, second = await run_judgments(judge, items, cache=cache, progress=False)  # resumed: nothing sent
        assert second.cached == 40 and second.judged == 0 and again == judgments
        assert sum(server.answered for server in servers) == answered  # nothing sent again
        assert second.endpoints == [] or all(entry["answered"] == 0 for entry in second.endpoints)
        cache.close()


async def test_each_server_gets_work_within_its_limit() -> None:
    with fake_endpoints(3, latency_s=0.02, slots=4) as servers:
        judge = build_judge("correctness", "llm", _settings([s.base_url for s in servers], concurrency=2))
        _, stats = await run_judgments(judge, _items(24), progress=False)
        assert stats.judged == 24 and stats.unscored == 0
        assert sum(entry["answered"] for entry in stats.endpoints) == sum(s.answered for s in servers)
        assert all(s.answered > 0 for s in servers)  # the least busy one is chosen: none is left idle
        assert max(s.peak for s in servers) <= 2  # --concurrency is per server
        assert judge.concurrency == judge.settings.concurrency  # restored after the run


async def test_with_every_server_down_the_items_are_not_attempted() -> None:
    urls = [f"http://127.0.0.1:{closed_port()}/v1" for _ in range(2)]
    judge = build_judge("correctness", "llm", _settings(urls))
    judgments, stats = await run_judgments(judge, _items(5), progress=False)
    assert stats.not_attempted == 5 and stats.unscored == 5
    assert all(is_not_attempted(j.unscored_reason) for j in judgments)
    assert all(url in judgments[0].unscored_reason for url in urls)


async def test_a_server_of_another_model_is_a_configuration_error() -> None:
    with fake_endpoint() as good, fake_endpoint(models=("llama3.2:3b",)) as other:
        judge = build_judge("correctness", "llm", _settings([good.base_url, other.base_url]))
        with pytest.raises(ModelServerConfigError, match=f"model 'phi3:mini' is not served by {other.base_url}"):
            await run_judgments(judge, _items(3), progress=False)
        assert good.received == 0 and other.received == 0


async def test_a_failure_on_every_server_is_unscored_and_names_the_server_that_failed_last() -> None:
    from recording_server import recording_server

    with recording_server("500") as failing, recording_server("close") as closing:
        judge = build_judge("correctness", "llm", _settings([failing.base_url, closing.base_url], breaker_failures=50))
        judgments, stats = await run_judgments(judge, _items(1), progress=False)  # tried in list order
    assert stats.unscored == 1 and stats.not_attempted == 0  # failed, counted, never a silent 0
    for judgment in judgments:
        assert judgment.unscored_reason.startswith(f"connection closed mid-response by the model server at {closing.base_url}")
    by_url = {entry["url"]: entry for entry in stats.endpoints}
    assert by_url[failing.base_url]["moved"] == by_url[failing.base_url]["failures"] > 0  # its 500s went on
