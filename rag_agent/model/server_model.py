"""Building the pydantic-ai model for a server, with each server's quirks.

Why its own module: which class speaks to Ollama and llama-server, which body fields carry the
token cap to which server, how requests are counted and which circuit breaker a model carries
are facts about servers, settled once when the model is built, apart from how calls are made.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

from pydantic_ai.models import Model, create_async_httpx2_client
from pydantic_ai.models.ollama import OllamaModel
from pydantic_ai.providers.ollama import OllamaProvider
from pydantic_ai.settings import ModelSettings

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.model.breaker import CircuitBreaker
from ragjury.rag_agent.model.failures import ModelServerUnreachable, configuration_error
from ragjury.rag_agent.model.transport import CountingTransport


class ServerModel(OllamaModel):
    """``OllamaModel`` with the circuit breaker of its server (``rag_agent.model.breaker``).

    The breaker is checked and fed by the model client around each call (``StructuredCaller``,
    ``LogprobCaller``), not by the model itself, so a request is not one more layer deep.
    """

    guards_requests = False
    """True where the model checks the breaker on every request itself (``GuardedOllamaModel``)."""

    def __init__(self, model_name: str, *, provider: OllamaProvider, breaker: CircuitBreaker) -> None:
        super().__init__(model_name, provider=provider)
        self.breaker = breaker


class GuardedOllamaModel(ServerModel):
    """A ``ServerModel`` whose every request goes through its breaker: the reference agent's, whose
    runs make several requests (tool calls) that each must stop while the server is away.

    While the breaker is open a request raises ``ModelServerUnreachable`` without touching the
    network; otherwise its outcome is recorded (a refused connection counts towards opening it,
    any answer from the server closes it). Everything else is ``OllamaModel``'s.
    """

    guards_requests = True

    def _admit(self) -> None:
        if not self.breaker.allow():
            raise ModelServerUnreachable(self.model_name, self.breaker.reason)

    async def request(self, *args: Any, **kwargs: Any) -> Any:
        self._admit()
        try:
            response = await super().request(*args, **kwargs)
        except Exception as failure:
            await configuration_error(failure, self.breaker)  # 401/403/404: nothing more is sent
            self.breaker.record(failure)
            raise
        except BaseException:
            self.breaker.release()
            raise
        self.breaker.record(None)
        return response

    @asynccontextmanager
    async def request_stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        self._admit()
        opened = False
        try:
            async with super().request_stream(*args, **kwargs) as stream:
                opened = True
                self.breaker.record(None)
                yield stream
        except Exception as failure:
            if not opened:
                await configuration_error(failure, self.breaker)
                self.breaker.record(failure)
            raise
        except BaseException:
            if not opened:
                self.breaker.release()
            raise


def build_model(
    settings: RagjurySettings, model_name: str | None = None, *, model_class: type[ServerModel] | None = None
) -> Model:
    """A chat model on Ollama's OpenAI-compatible API, or any OpenAI-compatible server.

    Both go through ``OllamaModel``: its profile sends ``response_format: json_schema`` without
    OpenAI's ``strict`` flag, which Ollama and llama.cpp's ``llama-server`` both accept.

    Requests go through a ``CountingTransport``, so every HTTP attempt (the SDK's retries
    included) is counted in the usage of the call that made it, whether or not it succeeded. The
    model carries a circuit breaker of its own (``ServerModel.breaker``), which the model client's
    calls go through (``rag_agent.model.client``, ``rag_agent.model.logprobs``).
    """
    model_class = model_class or ServerModel
    name = model_name or settings.judge_model
    urls = settings.base_urls
    model: Model
    if len(urls) == 1:
        model = _server_model(settings, urls[0], name, model_class)
    else:  # several servers of one model: each request to the least busy live one
        from ragjury.rag_agent.model.endpoints import Endpoint, EndpointPool, PooledModel

        endpoints = []
        for url in urls:
            # The pool guards every request itself (``PooledModel``): its endpoints are plain.
            server = _server_model(settings, url, name, ServerModel)
            endpoints.append(Endpoint(url, server, server.breaker))
        preferred = settings.preferred_endpoint if settings.preferred_endpoint in range(len(urls)) else None
        model = PooledModel(EndpointPool(endpoints, limit=settings.concurrency, preferred=preferred), name)
    from ragjury.rag_agent.model.dry_model import DryRunModel, active_log

    dry_run = active_log()  # ``--dry-run``: record what would be sent, send nothing
    if dry_run is not None:
        dry_run.models_built += 1
        return DryRunModel(model, dry_run)
    return model


def _server_model(settings: RagjurySettings, url: str, name: str, model_class: type[ServerModel]) -> ServerModel:
    """The model of one server, counting its HTTP attempts, with a breaker of its own."""
    http_client = create_async_httpx2_client(transport=CountingTransport(url))
    provider = OllamaProvider(base_url=url, api_key=settings.api_key or None, http_client=http_client)
    return model_class(name, provider=provider, breaker=new_breaker(url, settings, model=name))


def build_guarded_model(settings: RagjurySettings, model_name: str | None = None) -> Model:
    """``build_model`` for callers that hand the model to pydantic-ai themselves (the reference
    agent): every request then goes through the breaker (``GuardedOllamaModel``)."""
    return build_model(settings, model_name, model_class=GuardedOllamaModel)


def _is_openai_api(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host == "api.openai.com" or host.endswith(".openai.azure.com")


def _targets_ollama(settings: RagjurySettings) -> bool:
    """Ollama by configuration (no ``base_url``) or by its well-known port."""
    return settings.targets_ollama or urlsplit(settings.openai_base_url).port == 11434


def token_cap_body(settings: RagjurySettings, max_tokens: int | None = None) -> dict[str, Any]:
    """Body fields that carry the token cap to servers that ignore pydantic-ai's own field.

    pydantic-ai's OpenAI chat model maps ``ModelSettings.max_tokens`` to ``max_completion_tokens``
    only (its ``openai_chat_supports_max_completion_tokens`` profile flag defaults to True, and
    Ollama's profile keeps it). But:

    - Ollama's OpenAI-compatible ``/v1/chat/completions`` reads ``max_tokens`` (mapped to its
      ``num_predict``) and ignores ``max_completion_tokens`` (ollama/ollama#7125): a cap of 10 gave
      422 tokens. So ``max_tokens`` is sent too.
    - llama.cpp's ``llama-server`` reads ``max_tokens`` (its ``n_predict``) as well.
    - To Ollama (no ``RAGJURY_BASE_URL``, or a base URL on port 11434) ``options.num_predict`` is
      also sent: the field Ollama's native ``/api/chat`` honours. The ``/v1`` endpoint does not
      read ``options`` today (ollama/ollama#18575 reports ``/v1`` unbounded on 0.34 even with
      ``max_tokens``), so it is there for proxies and versions that forward ``options``; the
      request deadline (``RAGJURY_TIMEOUT_S``, after which the connection is dropped and Ollama
      stops generating) remains the backstop that always holds.
    - Nothing extra goes to OpenAI's own API, which rejects unknown fields; there
      ``max_completion_tokens`` is the right field.

    The values pydantic-ai sends itself are unchanged: these are merged into the JSON body through
    ``ModelSettings.extra_body`` (the OpenAI SDK merges ``extra_body`` into the request body).
    """
    cap = settings.max_tokens if max_tokens is None else max_tokens
    url = settings.openai_base_url
    if _is_openai_api(url):
        return {}
    body: dict[str, Any] = {"max_tokens": cap}
    if _targets_ollama(settings):
        body["options"] = {"num_predict": cap}
    return body


def model_settings(settings: RagjurySettings) -> ModelSettings:
    """Request settings every call carries: temperature, ``max_tokens`` (always, in the fields
    each server honours: see ``token_cap_body``), deadlines."""
    request = ModelSettings(
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        timeout=settings.timeout_s,
        request_timeout=settings.timeout_s,
        max_retries=settings.http_retries,
    )
    extra_body = token_cap_body(settings)
    if extra_body:
        request["extra_body"] = extra_body
    return request


def capped_settings(settings: RagjurySettings, max_tokens: int) -> ModelSettings:
    """The per-call settings of a call capped at ``max_tokens`` (never above the settings' own cap),
    in every field a server reads the cap from (``token_cap_body``)."""
    cap = min(max_tokens, settings.max_tokens)
    capped = ModelSettings(max_tokens=cap)
    extra_body = token_cap_body(settings, cap)
    if extra_body:
        capped["extra_body"] = extra_body
    return capped


def model_label(model: Model | str) -> str:
    return model if isinstance(model, str) else model.model_name


def model_base_url(model: Model | str) -> str | None:
    """The HTTP base URL of a model (None for in-process models such as ``TestModel``)."""
    url = None if isinstance(model, str) else getattr(model, "base_url", None)
    return str(url).rstrip("/") if url else None


def server_urls(model: Model | str) -> list[str]:
    """Every base URL ``model`` sends to (a pool's endpoints; a dry run's real model's), sorted;
    empty for an in-process model. Part of a model judge's cache key (``ModelJudge.server``)."""
    own = getattr(model, "server_urls", None)
    if isinstance(own, list):
        return own
    pool = getattr(model, "pool", None)
    urls = [e.url for e in pool.endpoints] if pool is not None else [getattr(model, "base_url", None)]
    return sorted({str(url).rstrip("/") for url in urls if url})


def new_breaker(where: str | None, settings: RagjurySettings, *, model: str | None = None) -> CircuitBreaker:
    """A circuit breaker for the server at ``where``, configured from the settings; ``model``, the
    name requests send, is checked against the server's list at preflight."""
    return CircuitBreaker(
        where,
        threshold=settings.breaker_failures,
        reset_after_s=settings.breaker_reset_s,
        preflight_timeout_s=settings.preflight_timeout_s,
        api_key=settings.api_key,
        model=model,
        timeout_s=settings.timeout_s,
    )


__all__ = [
    "GuardedOllamaModel",
    "capped_settings",
    "ServerModel",
    "build_guarded_model",
    "build_model",
    "model_base_url",
    "model_label",
    "model_settings",
    "new_breaker",
    "server_urls",
    "token_cap_body",
]
