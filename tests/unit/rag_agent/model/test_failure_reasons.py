"""Unscored reasons that say what went wrong, and usage that counts the requests the server saw.

A real HTTP server (``tests/recording_server.py``) answers with invalid output, HTTP 500s or a
connection closed mid-body; a closed port stands for a server that is down.
"""

from __future__ import annotations

import json

from pydantic import BaseModel
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from recording_server import closed_port, recording_server

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.items import ScoreItem
from ragjury.rag_agent.judges.llm.multi_dimension import JudgeLLM
from ragjury.rag_agent.model.client import StructuredCaller
from ragjury.rag_agent.model.server_model import build_model


class Label(BaseModel):
    label: bool


def settings(**overrides: object) -> RagjurySettings:
    return RagjurySettings(_env_file=None, **overrides)  # type: ignore[call-arg]


async def test_invalid_output_names_the_field_the_message_and_the_value() -> None:
    with recording_server(content='{"label": "maybe"}') as server:
        s = settings(base_url=server.base_url, retries=2, http_retries=0, timeout_s=10)
        outcome = await StructuredCaller(build_model(s), s).call("Judge.", Label, "Is it?")
        seen = len(server.chat_requests)
    reason = outcome.error or ""
    assert reason.startswith("invalid model output after 2 retries")
    assert "label" in reason and "valid boolean" in reason and "'maybe'" in reason
    assert outcome.usage.requests == seen == 3


async def test_invalid_judge_output_names_the_missing_field() -> None:
    incomplete = {
        "relevance": 9,
        "completeness": 8,
        "accuracy": 10,
        "coherence": 10,
        "confidence": 7,
        "reasoning": "no attribution rating",
    }

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(json.dumps(incomplete))])

    judgment = await JudgeLLM(FunctionModel(reply), settings=settings(retries=1)).ajudge(
        ScoreItem(question="q", answer="a")
    )
    assert judgment.unscored
    reason = judgment.unscored_reason or ""
    assert "invalid model output after 1 retries" in reason
    assert "source_attribution" in reason and "Field required" in reason


async def test_connection_closed_mid_response_is_not_called_unreachable() -> None:
    with recording_server(mode="close") as server:
        s = settings(base_url=server.base_url, http_retries=0, timeout_s=10)
        outcome = await StructuredCaller(build_model(s), s).call("Judge.", Label, "Is it?")
        seen = len(server.chat_requests)
    reason = outcome.error or ""
    assert "connection closed mid-response" in reason and server.base_url in reason
    assert "unreachable" not in reason
    assert outcome.usage.requests == seen == 1


async def test_server_down_is_unreachable_with_the_cause() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    s = settings(base_url=url, http_retries=0, timeout_s=5)
    outcome = await StructuredCaller(build_model(s), s).call("Judge.", Label, "Is it?")
    reason = outcome.error or ""
    assert reason.startswith(f"model server unreachable at {url}")
    assert (
        "ConnectionRefusedError" in reason or "ConnectError" in reason
    )  # the cause, not "Connection error."
    assert outcome.usage.requests == 1  # one connection attempt was made


async def test_http_500s_count_every_request_the_server_saw() -> None:
    with recording_server(mode="500") as server:
        s = settings(base_url=server.base_url, http_retries=1, timeout_s=10)
        caller = StructuredCaller(build_model(s), s)
        outcomes = [await caller.call("Judge.", Label, f"item {i}") for i in range(3)]
        seen = len(server.chat_requests)
    assert seen == 6  # the first try and one HTTP retry, per item
    assert all("HTTP 500" in (o.error or "") for o in outcomes)
    assert [o.usage.requests for o in outcomes] == [2, 2, 2]
    # An answering server, even with errors, is reachable: the circuit breaker stays closed.
    assert caller.breaker is not None and not caller.breaker.is_open and caller.breaker.failures == 0
