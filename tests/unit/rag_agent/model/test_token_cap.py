"""The token cap reaches the server in the fields it honours, checked on the wire: a real HTTP
server records the JSON body of each chat request.

pydantic-ai sends ``ModelSettings.max_tokens`` as ``max_completion_tokens`` only; Ollama's
``/v1`` reads ``max_tokens`` (ollama/ollama#7125) and llama-server reads ``max_tokens`` too, so
``max_tokens`` must be in the body; to Ollama ``options.num_predict`` (its native field) as well.
"""

from __future__ import annotations

from pydantic import BaseModel
from recording_server import recording_server

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.model.client import StructuredCaller
from ragjury.rag_agent.model.server_model import build_model, model_settings, token_cap_body


class Label(BaseModel):
    label: bool


def settings(**overrides: object) -> RagjurySettings:
    return RagjurySettings(_env_file=None, **overrides)  # type: ignore[call-arg]


async def test_openai_compatible_server_gets_max_tokens_in_the_body() -> None:
    with recording_server() as server:
        s = settings(base_url=server.base_url, max_tokens=77, http_retries=0, timeout_s=10)
        outcome = await StructuredCaller(build_model(s), s).call("Judge.", Label, "Is it?")
        assert outcome.ok and outcome.output == Label(label=True)
        (request,) = server.chat_requests
    assert request.path == "/v1/chat/completions"
    body = request.body or {}
    assert body["max_tokens"] == 77  # llama-server and Ollama /v1 read this one
    assert body["max_completion_tokens"] == 77  # what pydantic-ai sends itself, unchanged
    assert "options" not in body  # not an Ollama target: no Ollama-only field


async def test_ollama_gets_max_tokens_and_options_num_predict() -> None:
    with recording_server() as server:
        host = f"http://127.0.0.1:{server.port}"
        s = settings(ollama_host=host, base_url=None, max_tokens=42, http_retries=0, timeout_s=10)
        assert s.targets_ollama and s.openai_base_url == f"{host}/v1"
        outcome = await StructuredCaller(build_model(s), s).call("Judge.", Label, "Is it?")
        assert outcome.ok
        (request,) = server.chat_requests
    body = request.body or {}
    assert request.path == "/v1/chat/completions"
    assert body["max_tokens"] == 42
    assert body["options"] == {"num_predict": 42}


async def test_every_retry_carries_the_cap() -> None:
    # Invalid output is sent back for correction: each of the 1 + retries requests is capped.
    with recording_server(content='{"label": "maybe"}') as server:
        s = settings(base_url=server.base_url, max_tokens=64, retries=2, http_retries=0, timeout_s=10)
        outcome = await StructuredCaller(build_model(s), s).call("Judge.", Label, "Is it?")
        assert not outcome.ok
        bodies = [r.body or {} for r in server.chat_requests]
    assert len(bodies) == 3 and all(b["max_tokens"] == 64 for b in bodies)


def test_model_settings_carry_the_cap_in_extra_body() -> None:
    s = settings(base_url="http://127.0.0.1:8080/v1", max_tokens=100)
    request = model_settings(s)
    assert request["max_tokens"] == 100 and request["extra_body"] == {"max_tokens": 100}
    ollama = model_settings(settings(base_url=None, max_tokens=100))
    assert ollama["extra_body"] == {"max_tokens": 100, "options": {"num_predict": 100}}
    on_ollama_port = token_cap_body(settings(base_url="http://gpu-box:11434/v1", max_tokens=90))
    assert on_ollama_port == {"max_tokens": 90, "options": {"num_predict": 90}}


def test_openai_itself_gets_no_unknown_fields() -> None:
    s = settings(base_url="https://api.openai.com/v1", max_tokens=100)
    assert token_cap_body(s) == {}
    assert "extra_body" not in model_settings(s) and model_settings(s)["max_tokens"] == 100
