"""The one-token verdict request sent straight over aiohttp, for OpenAI-compatible servers.

Why: reading P("1") from one token's logprobs through pydantic-ai and the OpenAI SDK cost about
2.8 ms of client CPU a judgment (the SDK's request-body transform alone a quarter of it), so one
process judged ~300/s against a server that answers at once; aiohttp sends the same request for
~0.2 ms (``bench/bench_scale.py --raw-floor``, #55 item 4).

What stays as it was: the request body (the one pydantic-ai sends, field for field), the answer's
reading (``provider_details["logprobs"]`` of a ``ModelResponse``), the failures (pydantic-ai's own
exception types, with the SDK's messages, so ``describe_failure``, ``configuration_error`` and the
breaker see what they saw), the SDK's retries (``RAGJURY_HTTP_RETRIES``, same statuses, same
backoff), both deadlines, and the count of every attempt (``transport.note_attempt``). Only a
plain single-server model on an OpenAI-compatible server is sent this way (``direct_chat``):
Ollama, a pool, a dry run, a trace or a proxy keep pydantic-ai's path.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import random
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelConnectionError,
    ModelRequestTimeout,
    ModelTimeoutError,
    UnexpectedModelBehavior,
)
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.models import Model
from pydantic_ai.models.openai._errors import status_error
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.model.server_model import ServerModel, _targets_ollama
from ragjury.rag_agent.model.transport import CountingTransport, note_attempt

HANDLED_SETTINGS = frozenset(
    {"temperature", "max_tokens", "timeout", "request_timeout", "max_retries", "openai_logprobs",
     "openai_top_logprobs", "extra_body"}
)
"""The request settings this path writes into the body as pydantic-ai does; any other: not direct."""

RETRIED_STATUSES = frozenset({408, 409, 429})
"""Statuses the OpenAI SDK sends again (and every status from 500 up)."""
INITIAL_RETRY_DELAY_S = 0.5
MAX_RETRY_DELAY_S = 8.0
"""The OpenAI SDK's backoff: 0.5 s doubling to 8 s, less up to a quarter of jitter."""


def direct_chat(model: Model, settings: RagjurySettings, request_settings: ModelSettings) -> DirectChat | None:
    """The direct sender for ``model``'s one-token requests, or None where pydantic-ai's path must
    stay (not a plain single-server model, Ollama, a proxy, settings this path does not write)."""
    if type(model) is not ServerModel or _targets_ollama(settings) or set(request_settings) - HANDLED_SETTINGS:
        return None
    transport = _counting_transport(model)
    if transport is None or transport._proxy is not None:
        return None
    if importlib.util.find_spec("aiohttp") is None:  # pragma: no cover - a dependency; without it, the SDK's path
        return None
    return DirectChat(model, settings, request_settings)  # aiohttp itself is imported by the first request


def _counting_transport(model: ServerModel) -> CountingTransport | None:
    client = getattr(getattr(model, "client", None), "_client", None)
    transport = getattr(client, "_transport", None)
    return transport if isinstance(transport, CountingTransport) else None


def traced() -> bool:
    """True while pydantic-ai instruments every model request (``--trace``): its spans need its path."""
    return getattr(Agent, "_instrument_default", False) not in (False, None)


class DirectChat:
    """Sends one chat request per call with a connection pool per event loop (closed when the loop's
    ``asyncio.run`` ends), and returns the ``ModelResponse`` pydantic-ai would have returned."""

    def __init__(self, model: ServerModel, settings: RagjurySettings, request_settings: ModelSettings) -> None:
        self.model = model
        self.model_name = model.model_name
        self.url = str(model.base_url).rstrip("/") + "/chat/completions"
        self.timeout_s = request_settings.get("timeout", settings.timeout_s)
        self.request_timeout_s = request_settings.get("request_timeout")
        self.retries = int(request_settings.get("max_retries", settings.http_retries) or 0)
        self.headers = {"Authorization": f"Bearer {model.client.api_key}",  # the provider's (or its placeholder)
                        "Content-Type": "application/json", "Accept": "application/json"}
        self._fields = self._body_fields(model, request_settings)
        self._sessions: dict[asyncio.AbstractEventLoop, tuple[Any, AsyncIterator[None]]] = {}

    @staticmethod
    def _body_fields(model: ServerModel, request: ModelSettings) -> dict[str, Any]:
        """The body's fields besides ``model`` and ``messages``, as pydantic-ai's chat model and the
        SDK write them (``extra_body`` merged last, as the SDK merges it)."""
        fields: dict[str, Any] = {"stream": False}
        if "max_tokens" in request:
            max_completion = model.profile.get("openai_chat_supports_max_completion_tokens", True)  # type: ignore[attr-defined]
            fields["max_completion_tokens" if max_completion else "max_tokens"] = request["max_tokens"]
        for name, field in (("temperature", "temperature"), ("openai_logprobs", "logprobs"),
                            ("openai_top_logprobs", "top_logprobs")):
            if name in request:
                fields[field] = request[name]  # type: ignore[literal-required]
        fields.update(request.get("extra_body") or {})  # type: ignore[arg-type]
        return fields

    def body(self, instructions: str, prompt: str) -> dict[str, Any]:
        return {"model": self.model_name,
                "messages": [{"role": "system", "content": instructions}, {"role": "user", "content": prompt}],
                **self._fields}

    async def _session(self) -> Any:
        import aiohttp

        loop = asyncio.get_running_loop()
        held = self._sessions.get(loop)
        if held is not None:
            return held[0]
        for old in [other for other in self._sessions if other.is_closed()]:
            del self._sessions[old]
        session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=1000, ssl=self._ssl_context()),
            timeout=aiohttp.ClientTimeout(total=None, connect=self.timeout_s, sock_read=self.timeout_s),
        )
        closer = _closed_with_the_loop(session)
        await closer.__anext__()  # the loop now finalises it at shutdown_asyncgens (asyncio.run's end)
        self._sessions[loop] = (session, closer)
        return session

    def _ssl_context(self) -> Any:
        """For HTTPS, the certificates the SDK's client trusts (httpx2's context: ``SSL_CERT_FILE``,
        the system's store); for HTTP, aiohttp's default (unused)."""
        if not self.url.startswith("https:"):
            return True
        import httpx2

        return httpx2.create_ssl_context()

    async def request(self, instructions: str, prompt: str) -> ModelResponse:
        """One request, retried as the SDK would, within the request's deadline; raises what
        pydantic-ai's path raises. (One function: the socket stays four frames below ``ajudge``.)"""
        data = json.dumps(self.body(instructions, prompt)).encode()
        session = await self._session()
        try:
            async with asyncio.timeout(self.request_timeout_s):
                for attempt in range(self.retries + 1):
                    last = attempt == self.retries
                    note_attempt()
                    try:
                        async with session.post(self.url, data=data, headers=self.headers,
                                                allow_redirects=False) as answer:  # the SDK follows none
                            status, headers, content = answer.status, answer.headers, await answer.read()
                    except (OSError, TimeoutError, aiohttp_errors()) as failure:
                        if last:
                            raise self._transport_error(failure) from failure
                        await asyncio.sleep(self._backoff(attempt, None))
                        continue
                    if 200 <= status < 300:
                        return self._response(headers, content)
                    told = self._should_retry(headers)  # the server's word first, as the SDK takes it
                    retried = told if told is not None else status in RETRIED_STATUSES or status >= 500
                    if last or not retried:
                        raise self._status_error(status, headers, content)
                    await asyncio.sleep(self._backoff(attempt, headers))
        except TimeoutError:  # the deadline over every attempt (an attempt's own is a ModelTimeoutError)
            raise ModelRequestTimeout(self.model_name, self.request_timeout_s or 0.0) from None
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _should_retry(headers: Any) -> bool | None:
        value = headers.get("x-should-retry")
        return {"true": True, "false": False}.get(value) if value else None

    @staticmethod
    def _backoff(attempt: int, headers: Any) -> float:
        """The SDK's wait before the next attempt: the server's ``retry-after`` (up to 60 s), else
        0.5 s doubling to 8 s, less up to a quarter of jitter."""
        if headers is not None:
            for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
                try:
                    wait = float(headers.get(name, "")) * scale
                except ValueError:
                    continue
                if 0 < wait <= 60:
                    return wait
        return min(INITIAL_RETRY_DELAY_S * 2.0**attempt, MAX_RETRY_DELAY_S) * (1 - 0.25 * random.random())

    def _transport_error(self, failure: BaseException) -> ModelConnectionError:
        """pydantic-ai's error for an aiohttp failure, with the phase it happened in and the SDK's message."""
        import aiohttp

        if isinstance(failure, aiohttp.ConnectionTimeoutError):
            return ModelTimeoutError(self.model_name, "Request timed out.", phase="connect")
        if isinstance(failure, aiohttp.ServerTimeoutError | TimeoutError):
            return ModelTimeoutError(self.model_name, "Request timed out.", phase="read")
        if isinstance(failure, aiohttp.ClientConnectorError):
            return ModelConnectionError(self.model_name, "Connection error.", phase="connect")
        return ModelConnectionError(self.model_name, "Connection error.", phase="read")

    def _status_error(self, status: int, headers: Any, content: bytes) -> Exception:
        """The error pydantic-ai raises for the SDK's ``APIStatusError``: its message ("Error code:
        500 - {...}"), its body (the JSON answer's ``error`` object, the answer, or its text); from
        400 up a ``ModelHTTPError`` of the status's category, below (a redirect) a ``ModelAPIError``."""
        text = content.decode(errors="replace").strip()
        answer: Any = text
        try:
            answer = json.loads(text)
            message = f"Error code: {status} - {answer}"
        except ValueError:
            message = text or f"Error code: {status}"
        body = answer.get("error", answer) if isinstance(answer, dict) else answer
        if status < 400:
            return ModelAPIError(self.model_name, message)
        fields = body if isinstance(body, dict) else {}
        return status_error(self.model_name, "openai", status_code=status, body=body, code=fields.get("code"),
                            error_type=fields.get("type"), message=message, headers=dict(headers))

    def _response(self, headers: Any, content: bytes) -> ModelResponse:
        """The ``ModelResponse`` of a completion: its text, usage and first choice's logprobs."""
        kind = headers.get("content-type", "")
        try:
            answer = json.loads(content) if "json" in kind or kind == "" else None
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise UnexpectedModelBehavior(f"Invalid response from {self.model.system} chat completions endpoint, "
                                          "expected JSON data")
        choices = answer.get("choices")
        if not isinstance(choices, list) or not all(isinstance(c, dict) and isinstance(c.get("message"), dict)
                                                    for c in choices):
            raise UnexpectedModelBehavior(f"Invalid response from {self.model.system} chat completions endpoint: "
                                          "no list of choices with a message")
        choice = choices[0]  # an empty list: IndexError, as pydantic-ai's path raises
        usage = answer.get("usage") if isinstance(answer.get("usage"), dict) else {}
        details: dict[str, Any] = {}
        logprobs = (choice.get("logprobs") or {}).get("content") if isinstance(choice.get("logprobs"), dict) else None
        if logprobs:
            details["logprobs"] = logprobs
        if choice.get("finish_reason"):
            details["finish_reason"] = choice["finish_reason"]
        text = choice["message"].get("content")
        return ModelResponse(
            parts=[TextPart(text)] if isinstance(text, str) and text else [],
            usage=RequestUsage(input_tokens=int(usage.get("prompt_tokens") or 0),
                               output_tokens=int(usage.get("completion_tokens") or 0)),
            model_name=str(answer.get("model") or self.model_name),
            provider_name=self.model.system,
            provider_details=details or None,
        )


def aiohttp_errors() -> type[Exception]:
    import aiohttp

    return aiohttp.ClientError


async def _closed_with_the_loop(session: Any) -> AsyncIterator[None]:
    """Held open for the loop's life: ``asyncio.run`` finalises its async generators before it
    closes the loop, and this one closes the pool then (no "Unclosed client session" at exit)."""
    try:
        yield
    finally:
        await session.close()


__all__ = ["DirectChat", "direct_chat", "traced"]
