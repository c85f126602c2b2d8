"""A dead model server costs seconds, not half an hour: preflight and circuit breaker.

Connection attempts are counted on the real transports (httpx2 under the OpenAI SDK, httpx for
the preflight), never inferred from wall time.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import aiohttp
import httpx
import httpx2
import pytest
from pydantic import BaseModel
from pydantic_ai.exceptions import ModelConnectionError, ModelHTTPError, UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from recording_server import closed_port, recording_server
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.config.settings import RagjurySettings, get_settings
from ragjury.rag_agent.judges.catalogue import build_judge
from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.runner import run_judgments
from ragjury.rag_agent.core.items import CorrectnessItem, ScoreItem
from ragjury.rag_agent.judges.combined.fallback import FallbackJudge
from ragjury.rag_agent.judges.llm.multi_dimension import JudgeLLM
from ragjury.rag_agent.judges.model_free.score import HeuristicScoreJudge
from ragjury.rag_agent.model.breaker import CircuitBreaker, breakers_of
from ragjury.rag_agent.model.unreachable import NOT_ATTEMPTED, is_connect_failure
from ragjury.rag_agent.model.client import StructuredCaller

N = 1000


def settings(**overrides: object) -> RagjurySettings:
    return RagjurySettings(_env_file=None, **overrides)  # type: ignore[call-arg]


def items(n: int = N) -> list[CorrectnessItem]:
    return [CorrectnessItem(question=f"q{i}", answer=f"answer {i}", references=[str(i)]) for i in range(n)]


@pytest.fixture
def attempts(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts every HTTP attempt that reaches a real transport: ``model`` (httpx2, the OpenAI
    SDK's client, retries included; aiohttp, the direct one-token path's) and ``preflight`` (httpx)."""
    counts: Counter[str] = Counter()
    model_send = httpx2.AsyncHTTPTransport.handle_async_request
    direct_send = aiohttp.ClientSession._request
    preflight_send = httpx.AsyncHTTPTransport.handle_async_request

    async def counted_direct(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        counts["model"] += 1
        return await direct_send(self, *args, **kwargs)

    async def counted_model(self, request):  # type: ignore[no-untyped-def]
        counts["model"] += 1
        return await model_send(self, request)

    async def counted_preflight(self, request):  # type: ignore[no-untyped-def]
        counts["preflight"] += 1
        return await preflight_send(self, request)

    monkeypatch.setattr(httpx2.AsyncHTTPTransport, "handle_async_request", counted_model)
    monkeypatch.setattr(aiohttp.ClientSession, "_request", counted_direct)
    monkeypatch.setattr(httpx.AsyncHTTPTransport, "handle_async_request", counted_preflight)
    return counts


# -- the breaker itself ----------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def refused() -> ModelConnectionError:
    error = ModelConnectionError("m", "Connection error.", phase="connect")
    error.__cause__ = ConnectionRefusedError(111, "Connect call failed")
    return error


def test_opens_after_threshold_consecutive_connection_failures_and_success_resets() -> None:
    breaker = CircuitBreaker("http://h/v1", threshold=3)
    for _ in range(2):
        assert breaker.allow()
        breaker.record(refused())
    assert breaker.allow()
    breaker.record(None)  # the server answered: the count starts again
    for _ in range(2):
        assert breaker.allow()
        breaker.record(refused())
    assert not breaker.is_open
    assert breaker.allow()
    breaker.record(refused())
    assert breaker.is_open and not breaker.allow() and breaker.rejected == 1
    assert breaker.reason.startswith(f"{NOT_ATTEMPTED} http://h/v1 (3 consecutive connection failures")


def test_only_connect_failures_count() -> None:
    assert is_connect_failure(refused())
    assert not is_connect_failure(ModelConnectionError("m", "Connection error.", phase="read"))
    assert not is_connect_failure(ModelHTTPError(500, "m", body="boom"))
    assert not is_connect_failure(UnexpectedModelBehavior("Exceeded maximum output retries (2)"))
    breaker = CircuitBreaker("http://h/v1", threshold=1)
    breaker.record(ModelConnectionError("m", "closed", phase="read"))
    breaker.record(ModelHTTPError(503, "m"))
    assert not breaker.is_open


def test_half_open_probe_after_cool_down_closes_on_success_and_reopens_on_failure() -> None:
    clock = Clock()
    breaker = CircuitBreaker("http://h/v1", threshold=1, reset_after_s=30, clock=clock)
    breaker.allow()
    breaker.record(refused())
    assert breaker.is_open
    clock.now = 31
    assert breaker.allow()  # one probe
    assert not breaker.allow()  # and only one while it is in flight
    breaker.record(refused())
    assert breaker.is_open
    clock.now = 62
    assert breaker.allow()
    breaker.record(None)
    assert not breaker.is_open and breaker.allow() and breaker.allow()


def test_threshold_zero_switches_it_off() -> None:
    breaker = CircuitBreaker("http://h/v1", threshold=0)
    for _ in range(10):
        assert breaker.allow()
        breaker.record(refused())
    assert not breaker.is_open


async def test_caller_stops_calling_a_model_that_cannot_connect() -> None:
    calls = Counter[str]()

    def down(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls["model"] += 1
        raise refused()

    caller = StructuredCaller(FunctionModel(down), settings(breaker_failures=3))

    class Out(BaseModel):
        ok: bool

    outcomes = [await caller.call("x", Out, f"item {i}") for i in range(50)]
    assert calls["model"] == 3
    assert all(not o.ok for o in outcomes)
    assert all((o.error or "").startswith(NOT_ATTEMPTED) for o in outcomes[3:])
    assert all(o.usage.requests == 0 for o in outcomes[3:])


# -- batches against a dead server ---------------------------------------------------------------


async def test_preflight_stops_a_1000_item_llm_batch_before_any_model_request(
    attempts: Counter[str], tmp_path: Path
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    judge = build_judge("correctness", "llm", settings(base_url=url))
    with JudgmentCache(tmp_path / "cache.sqlite") as cache:
        judgments, stats = await run_judgments(judge, items(), cache=cache, progress=False)
        assert cache.count() == 0  # nothing was judged, nothing is frozen in the cache
    assert attempts["preflight"] == 1 and attempts["model"] == 0
    assert stats.unscored == stats.not_attempted == N
    assert all((j.unscored_reason or "").startswith(f"{NOT_ATTEMPTED} {url}") for j in judgments)


async def test_without_preflight_the_breaker_stops_after_a_few_connection_failures(
    attempts: Counter[str],
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    s = settings(base_url=url, breaker_failures=3, http_retries=1, concurrency=4)
    judge = build_judge("correctness", "llm", s)
    judgments, stats = await run_judgments(judge, items(), progress=False, preflight=False)
    assert attempts["preflight"] == 0
    # At most threshold + concurrency requests get through, each tried 1 + http_retries times.
    assert 3 * 2 <= attempts["model"] <= (3 + 4) * 2
    assert stats.unscored == N and stats.not_attempted >= N - 7
    first = judgments[0].unscored_reason or ""
    assert first.startswith(f"model server unreachable at {url}")


async def test_auto_switches_to_the_fallback_without_trying_the_model(attempts: Counter[str]) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    judge = build_judge("correctness", "auto", settings(base_url=url))
    judgments, stats = await run_judgments(judge, items(), progress=False)
    assert attempts["preflight"] == 1 and attempts["model"] == 0
    assert stats.unscored == 0 and stats.fallback == N
    assert all(j.fallback_used and (j.fallback_reason or "").startswith(NOT_ATTEMPTED) for j in judgments)


async def test_fallback_skips_the_primary_while_its_breaker_is_open() -> None:
    calls = Counter[str]()

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls["model"] += 1
        return ModelResponse(parts=[TextPart("{}")])

    primary = JudgeLLM(FunctionModel(reply), settings=settings())
    (breaker,) = breakers_of(primary)
    breaker.trip("3 consecutive connection failures")
    judgment = await FallbackJudge(primary, HeuristicScoreJudge(settings())).ajudge(
        ScoreItem(question="What is RAG?", answer="RAG combines retrieval with generation.")
    )
    assert calls["model"] == 0
    assert judgment.scored and judgment.fallback_used and judgment.judge == "deterministic_score"
    assert (judgment.fallback_reason or "").startswith(NOT_ATTEMPTED)


async def test_preflight_to_a_live_server_lets_the_batch_run(attempts: Counter[str]) -> None:
    reply = json.dumps({"verdict": True, "reason": "same answer"})
    with recording_server(content=reply) as server:
        s = settings(base_url=server.base_url, http_retries=0, timeout_s=10)
        judge = build_judge("correctness", "llm", s)
        _, stats = await run_judgments(judge, items(5), progress=False)
        gets = [r.path for r in server.requests if r.method == "GET"]
    assert gets == ["/v1/models"] and attempts["preflight"] == 1
    assert stats.not_attempted == 0 and attempts["model"] >= 5


async def test_deterministic_judges_get_no_preflight(attempts: Counter[str]) -> None:
    judge = build_judge("correctness", "contains", settings(base_url=f"http://127.0.0.1:{closed_port()}/v1"))
    _, stats = await run_judgments(judge, items(20), progress=False)
    assert attempts["preflight"] == 0 and attempts["model"] == 0 and stats.scored == 20


# -- the command -----------------------------------------------------------------------------------


@pytest.fixture
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RAGJURY_CACHE_PATH", str(tmp_path / "cache.sqlite"))
    monkeypatch.delenv("RAGJURY_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    path = tmp_path / "rows.jsonl"
    rows = [
        {"id": f"r{i}", "question": f"question {i}", "answer": f"the answer is {i}", "references": [str(i)]}
        for i in range(N)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_evaluate_llm_with_server_down_exits_3_after_one_preflight(
    dataset: Path, attempts: Counter[str]
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    result = CliRunner().invoke(
        app,
        ["evaluate", "--task", "correctness", "--judge", "llm", "--data", str(dataset),
         "--base-url", url, "--no-progress", "--json"],
    )
    assert result.exit_code == 3, result.output
    summary = json.loads(result.stdout)
    assert summary["n"] == N and summary["scored"] == 0 and summary["not_attempted"] == N
    assert attempts["preflight"] == 1 and attempts["model"] == 0
    assert result.stderr.startswith(f"nothing was scored: model server unreachable at {url}")
    assert "start your server" in result.stderr  # the cause with its fix, in one line


def test_evaluate_auto_with_server_down_answers_every_item_by_fallback(
    dataset: Path, attempts: Counter[str]
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    result = CliRunner().invoke(
        app,
        ["evaluate", "--task", "correctness", "--judge", "auto", "--data", str(dataset),
         "--base-url", url, "--no-progress", "--json"],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["n"] == N and summary["scored"] == N and summary["fallback_used"] == N
    assert attempts["model"] == 0
