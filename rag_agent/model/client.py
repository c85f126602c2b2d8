"""One way to reach a model and get typed output back, shared by every LLM judge and the agent.

Why one place: timeouts, ``max_tokens``, retries, output mode and the mapping from failures
to honest "unscored" reasons must be the same for every judge.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import urlsplit

from pydantic_ai import Agent, NativeOutput, PromptedOutput, ToolOutput
from pydantic_ai.exceptions import (
    AgentRunError,
    ModelAPIError,
    ModelConnectionError,
    ModelHTTPError,
    ModelRequestTimeout,
    ModelTimeoutError,
    OutputTokenLimitExceeded,
    ToolRetryError,
    UnexpectedModelBehavior,
    UsageLimitExceeded,
)
from pydantic_ai.models import Model, create_async_httpx2_client
from pydantic_ai.models.ollama import OllamaModel
from pydantic_ai.providers.ollama import OllamaProvider
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RunUsage

from ragjury.config.settings import OutputMode, RagjurySettings
from ragjury.rag_agent.core.results import Usage
from ragjury.rag_agent.model.breaker import CircuitBreaker, is_connect_failure, root_cause
from ragjury.rag_agent.model.transport import CountingTransport, counting_requests

OutputT = TypeVar("OutputT")


class ModelServerUnreachable(ModelAPIError):
    """Raised by a guarded model instead of sending a request while its breaker is open: nothing
    was sent. Its message is the breaker's "not attempted: ..." reason. (Here, not in
    ``rag_agent.breaker``: the breaker must import without pydantic-ai, 0.6 s, for runs that
    call no model.)"""


class GuardedOllamaModel(OllamaModel):
    """``OllamaModel`` whose every request goes through a circuit breaker (``rag_agent.breaker``).

    While the breaker is open a request raises ``ModelServerUnreachable`` without touching the
    network; otherwise its outcome is recorded (a refused connection counts towards opening it,
    any answer from the server closes it). Everything else is ``OllamaModel``'s.
    """

    def __init__(self, model_name: str, *, provider: OllamaProvider, breaker: CircuitBreaker) -> None:
        super().__init__(model_name, provider=provider)
        self.breaker = breaker

    def _admit(self) -> None:
        if not self.breaker.allow():
            raise ModelServerUnreachable(self.model_name, self.breaker.reason)

    async def request(self, *args: Any, **kwargs: Any) -> Any:
        self._admit()
        try:
            response = await super().request(*args, **kwargs)
        except Exception as failure:
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
                self.breaker.record(failure)
            raise
        except BaseException:
            if not opened:
                self.breaker.release()
            raise


def build_model(settings: RagjurySettings, model_name: str | None = None) -> Model:
    """A chat model on Ollama's OpenAI-compatible API, or any OpenAI-compatible server.

    Both go through ``OllamaModel``: its profile sends ``response_format: json_schema`` without
    OpenAI's ``strict`` flag, which Ollama and llama.cpp's ``llama-server`` both accept.

    Requests go through a ``CountingTransport``, so every HTTP attempt (the SDK's retries
    included) is counted in the usage of the call that made it, whether or not it succeeded, and
    through a circuit breaker of the model's own (``GuardedOllamaModel``).
    """
    url = settings.openai_base_url
    http_client = create_async_httpx2_client(transport=CountingTransport(url))
    provider = OllamaProvider(base_url=url, api_key=settings.api_key or None, http_client=http_client)
    model = GuardedOllamaModel(
        model_name or settings.judge_model, provider=provider, breaker=new_breaker(url, settings)
    )
    from ragjury.rag_agent.model.dry_model import DryRunModel, active_log

    dry_run = active_log()  # ``--dry-run``: record what would be sent, send nothing
    if dry_run is not None:
        dry_run.models_built += 1
        return DryRunModel(model, dry_run)
    return model


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


def output_spec(output_type: type[OutputT], mode: OutputMode) -> object:
    """Wrap ``output_type`` in the pydantic-ai output mode the settings ask for."""
    if mode == "native":
        return NativeOutput(output_type)
    if mode == "tool":
        return ToolOutput(output_type)
    if mode == "prompted":
        return PromptedOutput(output_type)
    raise ValueError(f"unknown output mode {mode!r}; choose native, tool or prompted")


def model_label(model: Model | str) -> str:
    return model if isinstance(model, str) else model.model_name


@dataclass
class CallOutcome(Generic[OutputT]):
    """The result of one structured call: the output, or why there is none."""

    output: OutputT | None
    usage: Usage
    latency_s: float
    error: str | None = None
    retries_used: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None and self.output is not None


_CLOSED_MID_RESPONSE = frozenset({"RemoteProtocolError", "ReadError", "LocalProtocolError"})
"""Transport errors (httpx, httpx2, httpcore, h11) of a connection that was open, then broke."""


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _closed_mid_response(error: BaseException) -> bool:
    seen: set[int] = set()
    link: BaseException | None = error
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if type(link).__name__ in _CLOSED_MID_RESPONSE:
            return True
        link = link.__cause__ or link.__context__
    return False


def _validation_detail(errors: list[Any]) -> str:
    """``field: message (got value)`` for each pydantic error dict, joined."""
    parts = []
    for entry in errors[:3]:
        if not isinstance(entry, dict):
            parts.append(str(entry))
            continue
        loc = ".".join(str(x) for x in entry.get("loc") or ()) or "output"
        got = f" (got {_one_line(repr(entry['input']), 60)})" if "input" in entry else ""
        parts.append(f"{loc}: {entry.get('msg', 'invalid')}{got}")
    if len(errors) > 3:
        parts.append(f"and {len(errors) - 3} more")
    return "; ".join(parts)


def last_validation_error(error: BaseException) -> str | None:
    """What was wrong with the model's last output, from the cause of "Exceeded maximum output
    retries": pydantic-ai raises it ``from`` a ``ToolRetryError`` whose retry part carries the
    pydantic error details (field, message, input) that were sent back to the model."""
    seen: set[int] = set()
    link: BaseException | None = error.__cause__ or error.__context__
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if isinstance(link, ToolRetryError):
            content = getattr(link.tool_retry, "content", None)
            if isinstance(content, list) and content:
                return _validation_detail(content)
            return _one_line(str(content if content is not None else link), 200)
        errors = getattr(link, "errors", None)
        if callable(errors):  # a pydantic ValidationError
            try:
                return _validation_detail(list(errors()))
            except Exception:  # noqa: BLE001 - a best-effort detail, never a new failure
                return _one_line(str(link), 200)
        link = link.__cause__ or link.__context__
    return None


def describe_failure(error: BaseException, settings: RagjurySettings) -> str:
    """A one-line, user-facing reason for an unscored judgment that says what went wrong.

    Connection failures are told apart: a server that could not be reached (nothing listens, DNS,
    connect timeout) is "unreachable"; a connection that was open and broke is "closed
    mid-response" (the server is there: it crashed, restarted or dropped the request). Invalid
    output names the field, message and value of the last validation error.
    """
    url = settings.openai_base_url
    if isinstance(error, ModelServerUnreachable):
        return error.message
    if isinstance(error, ModelConnectionError):
        cause = _one_line(root_cause(error), 200)
        if is_connect_failure(error):
            return f"model server unreachable at {url}: {cause}"
        if isinstance(error, ModelTimeoutError):
            return f"model request timed out after {settings.timeout_s:g}s (no answer from {url}): {cause}"
        if _closed_mid_response(error) or getattr(error, "phase", None) in ("read", "write"):
            return f"connection closed mid-response by the model server at {url}: {cause}"
        return f"model server connection failed at {url}: {cause}"
    if isinstance(error, ModelRequestTimeout | TimeoutError):
        return f"model request timed out after {settings.timeout_s:g}s"
    if isinstance(error, ModelHTTPError):
        return f"model server answered HTTP {error.status_code}: {_one_line(str(error.body), 200)}"
    if isinstance(error, OutputTokenLimitExceeded):
        return (
            f"model output cut off at the token cap (max_tokens={settings.max_tokens}; "
            f"raise RAGJURY_MAX_TOKENS): {_one_line(str(error), 200)}"
        )
    if isinstance(error, UnexpectedModelBehavior):
        detail = last_validation_error(error)
        last = f"; last error: {detail}" if detail else ""
        return f"invalid model output after {settings.retries} retries: {_one_line(error.message, 120)}{last}"
    if isinstance(error, UsageLimitExceeded):
        return f"usage limit exceeded: {error}"
    if isinstance(error, AgentRunError):
        return f"{type(error).__name__}: {str(error)[:300]}"
    return f"{type(error).__name__}: {str(error)[:300]}"


def model_base_url(model: Model | str) -> str | None:
    """The HTTP base URL of a model (None for in-process models such as ``TestModel``)."""
    url = None if isinstance(model, str) else getattr(model, "base_url", None)
    return str(url).rstrip("/") if url else None


def new_breaker(where: str | None, settings: RagjurySettings) -> CircuitBreaker:
    """A circuit breaker for the server at ``where``, configured from the settings."""
    return CircuitBreaker(
        where,
        threshold=settings.breaker_failures,
        reset_after_s=settings.breaker_reset_s,
        preflight_timeout_s=settings.preflight_timeout_s,
        api_key=settings.api_key,
    )


def breaker_for(model: Model | str, settings: RagjurySettings) -> CircuitBreaker:
    """The circuit breaker of calls to ``model``: the model's own (``build_model``), or a new one."""
    own = getattr(model, "breaker", None)
    if isinstance(own, CircuitBreaker):
        return own
    return new_breaker(model_base_url(model), settings)


@dataclass
class StructuredCaller:
    """Runs typed calls against one model with one set of settings; agents are built once per
    (instructions, output type) and reused.

    Every call goes through ``breaker`` (``rag_agent.breaker``): while it is open (the server did
    not accept connections) a call returns at once, unscored "not attempted", without a request.
    The breaker is the model's own when ``build_model`` made it (the model then records outcomes
    per request); for any other model the caller keeps one and records each call's outcome.
    """

    model: Model | str
    settings: RagjurySettings
    output_mode: OutputMode | None = None
    _agents: dict[tuple[str, type, str | None], Agent[None, object]] = field(default_factory=dict, repr=False)
    breaker: CircuitBreaker | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.breaker is None:
            self.breaker = breaker_for(self.model, self.settings)

    @property
    def model_name(self) -> str:
        return model_label(self.model)

    def agent_for(
        self, instructions: str, output_type: type[OutputT], name: str | None = None
    ) -> Agent[None, OutputT]:
        """The agent for one prompt and output type; ``name`` (``judge:prompt@version``) names
        its OpenTelemetry spans (``invoke_agent NAME``) when tracing is on."""
        key = (instructions, output_type, name)
        if key not in self._agents:
            self._agents[key] = Agent(
                self.model,
                name=name,
                output_type=output_spec(output_type, self.output_mode or self.settings.output_mode),  # type: ignore[arg-type]
                instructions=instructions,
                model_settings=model_settings(self.settings),
                retries=self.settings.retries,
                defer_model_check=True,
            )
        return self._agents[key]  # type: ignore[return-value]

    async def call(
        self, instructions: str, output_type: type[OutputT], prompt: str, *, name: str | None = None
    ) -> CallOutcome[OutputT]:
        """One structured call; failures become ``CallOutcome.error``, never exceptions.

        Usage is counted into our own ``RunUsage`` so that a run that fails (invalid output
        after the retries) still reports the requests and tokens it spent: they were paid for.
        ``requests`` counts every HTTP attempt the server saw (``rag_agent.transport``), failed
        ones and the SDK's retries included; for in-process models, pydantic-ai's count.
        """
        breaker = self.breaker
        assert breaker is not None
        guarded = getattr(self.model, "breaker", None) is breaker  # the model records outcomes
        if guarded and breaker.is_open:
            breaker.rejected += 1
            return CallOutcome(None, Usage(), 0.0, breaker.reason)
        if not guarded and not breaker.allow():
            return CallOutcome(None, Usage(), 0.0, breaker.reason)
        agent = self.agent_for(instructions, output_type, name)
        run_usage = RunUsage()
        started = time.perf_counter()
        output: OutputT | None = None
        error: str | None = None
        recorded = False
        try:
            with counting_requests() as attempts:
                try:
                    output = (await agent.run(prompt, usage=run_usage)).output
                except Exception as failure:  # noqa: BLE001 - mapped to an honest unscored reason
                    error = describe_failure(failure, self.settings)
                    if not guarded:
                        breaker.record(failure)
                else:
                    if not guarded:
                        breaker.record(None)
                recorded = True
        finally:
            if not recorded and not guarded:  # cancelled: no outcome to learn from
                breaker.release()
        model_requests = run_usage.requests or 0
        usage = Usage(
            input_tokens=run_usage.input_tokens or 0,
            output_tokens=run_usage.output_tokens or 0,
            requests=max(model_requests, attempts.requests),
        )
        return CallOutcome(
            output, usage, time.perf_counter() - started, error, retries_used=max(0, model_requests - 1)
        )


__all__ = [
    "CallOutcome",
    "GuardedOllamaModel",
    "OutputT",
    "StructuredCaller",
    "breaker_for",
    "build_model",
    "describe_failure",
    "last_validation_error",
    "model_base_url",
    "model_label",
    "model_settings",
    "new_breaker",
    "output_spec",
    "token_cap_body",
]
