"""Turning a failed model call into one honest line: the reason an unscored judgment gives.

Why its own module: every path that calls a model (typed calls, one-token calls, the agent) must
tell the same story for the same failure -- unreachable, timed out, closed mid-response, HTTP
status, invalid output -- so the mapping lives once, apart from how the call is made.
"""

from __future__ import annotations

from typing import Any

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

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.model.breaker import CircuitBreaker
from ragjury.rag_agent.model.config_errors import ModelServerConfigError
from ragjury.rag_agent.model.unreachable import is_connect_failure, root_cause, timeout_fix


class ModelServerUnreachable(ModelAPIError):
    """Raised by a guarded model (the agent's) instead of sending a request while its breaker is open: nothing
    was sent. Its message is the breaker's "not attempted: ..." reason. (Here, not in
    ``rag_agent.model.breaker``: the breaker must import without pydantic-ai, 0.6 s, for runs that
    call no model.)"""


_CLOSED_MID_RESPONSE = frozenset({"RemoteProtocolError", "ReadError", "LocalProtocolError"})
"""Transport errors (httpx, httpx2, httpcore, h11) of a connection that was open, then broke."""


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def closed_mid_response(error: BaseException) -> bool:
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


def http_error_of(error: BaseException) -> ModelHTTPError | None:
    seen: set[int] = set()
    link: BaseException | None = error
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        if isinstance(link, ModelHTTPError):
            return link
        link = link.__cause__ or link.__context__
    return None


async def configuration_error(error: BaseException, breaker: CircuitBreaker) -> ModelServerConfigError | None:
    """The configuration error a failed request stands for, recorded in ``breaker`` (so nothing
    more is sent and the runner stops the run with it); None for an item's own failure.

    An HTTP 401 or 403 (the key) at any point, or a 404 (the model name, or a base URL without the
    API) before the server has answered any request: no item could succeed, so none may fall back.
    For a 404 the message lists the models the server offers (``GET /models``, asked once).
    """
    http = http_error_of(error)
    if http is None or http.status_code not in (401, 403, 404):
        return None
    if http.status_code == 404 and breaker.served:
        return None
    body = http.body if isinstance(http.body, str) else repr(http.body)
    if http.status_code == 404:
        await breaker.models()
    refused = breaker.config_error_for(http.status_code, model=http.model_name, body=body)
    if refused is not None:
        breaker.refuse_configuration(refused)
    return breaker.config_error or refused


def describe_failure(error: BaseException, settings: RagjurySettings) -> str:
    """A one-line, user-facing reason for an unscored judgment that says what went wrong.

    Connection failures are told apart: a server that could not be reached (nothing listens, DNS,
    connect timeout) is "unreachable"; a connection that was open and broke is "closed
    mid-response" (the server is there: it crashed, restarted or dropped the request). Invalid
    output names the field, message and value of the last validation error.
    """
    url = getattr(error, "server_url", None) or settings.openai_base_url  # the pool's server that failed
    if isinstance(error, ModelServerUnreachable):
        return error.message
    if isinstance(error, ModelConnectionError):
        cause = _one_line(root_cause(error), 200)
        if is_connect_failure(error):
            return f"model server unreachable at {url}: {cause}"
        if isinstance(error, ModelTimeoutError):
            return (f"model request timed out after {settings.timeout_s:g}s (no answer from {url}; "
                    f"{timeout_fix(settings.timeout_s)}): {cause}")
        if closed_mid_response(error) or getattr(error, "phase", None) in ("read", "write"):
            return f"connection closed mid-response by the model server at {url}: {cause}"
        return f"model server connection failed at {url}: {cause}"
    if isinstance(error, ModelRequestTimeout | TimeoutError):
        return f"model request timed out after {settings.timeout_s:g}s ({timeout_fix(settings.timeout_s)})"
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
    if isinstance(error, IndexError):  # the response's choices[0] was read from an empty list
        return f"the model server at {url} returned no choices (an empty 'choices' list)"
    return f"{type(error).__name__}: {str(error)[:300]}"


__all__ = [
    "ModelServerConfigError",
    "ModelServerUnreachable",
    "closed_mid_response",
    "configuration_error",
    "describe_failure",
    "http_error_of",
    "last_validation_error",
]
