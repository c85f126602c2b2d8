"""The one-token verdict request sent straight over aiohttp (``rag_agent.model.direct``, #55 item 4)
is the request pydantic-ai and the OpenAI SDK send, read the same way, failing the same way.

Each case runs one judge twice against a fresh recording server: once with the direct path, once
with it switched off (``logprob_caller.direct = None``: pydantic-ai's ``model_request``), and
compares the bodies the server recorded, the P("1") read, the usage, and the unscored reasons.
"""

from __future__ import annotations

import asyncio
import re
import ssl
from typing import Any

import pytest
from fake_endpoints import fake_endpoint
from pydantic_ai import Agent
from recording_server import closed_port, recording_server

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.items import CorrectnessItem, RelevanceItem
from ragjury.rag_agent.judges.catalogue import build_judge
from ragjury.rag_agent.model import direct
from ragjury.rag_agent.model.direct import DirectChat, direct_chat, traced
from ragjury.rag_agent.model.logprobs import logprob_settings
from ragjury.rag_agent.model.server_model import build_model, build_guarded_model

ITEMS: dict[str, Any] = {
    "correctness": CorrectnessItem(question="Capital of France?", answer="Paris, I think", references=["Paris"]),
    "relevance": RelevanceItem(query="capital of France", retrieved_text="Paris is the capital of France."),
}


def settings_for(url: str, **extra: Any) -> RagjurySettings:
    options: dict[str, Any] = {"http_retries": 0, "timeout_s": 2, "breaker_failures": 0, **extra}
    return RagjurySettings(_env_file=None, base_url=url, judge_model="phi3:mini", **options)


def judged(url: str, *, direct: bool, task: str = "correctness", **extra: Any) -> Any:
    judge = build_judge(task, "llm", settings_for(url, **extra))
    caller = judge.logprob_caller  # type: ignore[attr-defined]
    if direct:
        assert isinstance(caller.direct, DirectChat)
    else:
        caller.direct = None
    return judge.judge_sync(ITEMS[task])


def both(mode: str, task: str = "correctness", **extra: Any) -> list[tuple[Any, list[Any]]]:
    """(judgment, recorded chat requests) of the direct path, then of pydantic-ai's."""
    runs = []
    for direct in (True, False):
        with recording_server(mode) as server:
            runs.append((judged(server.base_url, direct=direct, task=task, **extra), server.chat_requests))
    return runs


@pytest.mark.parametrize(("task", "extra"), [
    ("correctness", {}),
    ("correctness", {"api_key": "sk-test", "max_tokens": 300, "temperature": 0.7}),
    ("relevance", {}),
])
def test_the_direct_request_is_the_sdk_paths_and_reads_the_same_p_yes(task: str, extra: dict[str, Any]) -> None:
    (direct, sent), (sdk, expected) = both("logprobs", task, **extra)
    assert len(sent) == len(expected) == 1
    assert sent[0].path == expected[0].path == "/v1/chat/completions"
    assert sent[0].body == expected[0].body
    assert sent[0].body["logprobs"] is True and sent[0].body["max_tokens"] == 1
    assert sent[0].authorization == expected[0].authorization
    assert direct.method == sdk.method == "logprobs"
    assert direct.value == sdk.value and direct.value.probability is not None
    assert direct.usage == sdk.usage and direct.usage.requests == 1


@pytest.mark.parametrize("mode", [
    "ok",  # no logprobs: auto goes on to the structured verdict (through pydantic-ai) both times
    "401-chat", "404", "html", "hang-chat", "empty-choices", "positive-logprobs", "nan-logprobs", "redirect",
])
def test_a_failed_direct_request_is_unscored_as_the_sdk_paths(mode: str) -> None:
    (direct, _), (sdk, _) = both(mode, timeout_s=1)
    assert direct.value == sdk.value
    assert direct.method == sdk.method
    assert without_port(direct.unscored_reason) == without_port(sdk.unscored_reason)
    assert direct.usage == sdk.usage
    if mode != "ok":
        assert direct.value is None and direct.unscored_reason  # unscored and counted, never 0.0


def without_port(reason: str | None) -> str | None:
    """The reason with the loopback port it names blanked (each run had a server of its own)."""
    return None if reason is None else re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", reason)


def test_a_connection_closed_mid_response_is_told_as_the_sdk_path_tells_it() -> None:
    (direct, _), (sdk, _) = both("close")
    prefix = "connection closed mid-response by the model server at http://127.0.0.1:"
    assert direct.value is None and sdk.value is None
    assert direct.unscored_reason.startswith(prefix) and sdk.unscored_reason.startswith(prefix)
    assert direct.usage == sdk.usage


def test_an_unreachable_server_is_told_as_the_sdk_path_tells_it() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    direct, sdk = judged(url, direct=True), judged(url, direct=False)
    assert direct.value is None and direct.unscored_reason == sdk.unscored_reason
    assert direct.unscored_reason.startswith(f"model server unreachable at {url}: ")
    assert direct.usage == sdk.usage


def test_a_server_error_is_retried_as_the_sdk_retries_it() -> None:
    """HTTP 500 with ``RAGJURY_HTTP_RETRIES=1``: two attempts each, both counted, the same reason."""
    runs = []
    for direct in (True, False):
        with fake_endpoint(fail_every=1, logprobs=True) as server:
            runs.append((judged(server.base_url, direct=direct, http_retries=1), server.received))
    (direct, direct_sent), (sdk, sdk_sent) = runs
    assert direct_sent == sdk_sent == 2
    assert direct.usage.requests == sdk.usage.requests == 2
    assert direct.unscored_reason == sdk.unscored_reason
    assert direct.unscored_reason.startswith("model server answered HTTP 500")


def test_only_a_plain_openai_compatible_server_is_sent_directly() -> None:
    url = "http://127.0.0.1:9/v1"
    settings = settings_for(url)
    request = logprob_settings(settings)
    assert direct_chat(build_model(settings), settings, request) is not None
    assert direct_chat(build_guarded_model(settings), settings, request) is None  # the agent's model
    ollama = RagjurySettings(_env_file=None, judge_model="phi3:mini")  # no base URL: Ollama
    assert direct_chat(build_model(ollama), ollama, logprob_settings(ollama)) is None
    pool = settings_for(f"{url},http://127.0.0.1:10/v1")
    assert direct_chat(build_model(pool), pool, logprob_settings(pool)) is None  # several servers
    assert direct_chat(build_model(settings), settings, {**request, "seed": 1}) is None  # a field it does not write


def test_a_proxy_from_the_environment_keeps_the_sdk_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    settings = settings_for("http://models.internal:8080/v1")
    assert direct_chat(build_model(settings), settings, logprob_settings(settings)) is None


def test_the_connection_pool_is_closed_when_its_event_loop_ends() -> None:
    """No "Unclosed client session" at exit: ``asyncio.run`` finalises the pool's keeper."""
    with fake_endpoint(logprobs=True) as server:
        settings = settings_for(server.base_url)
        chat = direct_chat(build_model(settings), settings, logprob_settings(settings))
        assert chat is not None
        sessions = []

        async def once() -> None:
            await chat.request("Answer 1 or 0.", "1?")
            sessions.append(next(iter(chat._sessions.values()))[0])

        asyncio.run(once())
        asyncio.run(once())  # a second loop gets a pool of its own
    assert len(sessions) == 2 and sessions[0] is not sessions[1]
    assert all(session.closed for session in sessions)


def test_https_trusts_the_certificates_the_sdk_client_trusts() -> None:
    settings = settings_for("https://models.example.org/v1")
    chat = direct_chat(build_model(settings), settings, logprob_settings(settings))
    assert chat is not None
    context = chat._ssl_context()
    assert isinstance(context, ssl.SSLContext) and context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


def test_a_traced_run_keeps_pydantic_ais_path_for_its_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--trace`` instruments every pydantic-ai request (``Agent.instrument_all``): the direct path
    would send without a span, so it steps aside while tracing is on."""
    assert not traced()
    monkeypatch.setattr(Agent, "_instrument_default", True)
    assert traced()
    with recording_server("logprobs") as server:
        judge = build_judge("correctness", "llm", settings_for(server.base_url))
        sent: list[str] = []
        monkeypatch.setattr(direct, "note_attempt", lambda: sent.append("direct"))
        judgment = judge.judge_sync(ITEMS["correctness"])
    assert judgment.method == "logprobs" and sent == [] and len(server.chat_requests) == 1
