"""A model server that could not be reached: telling that failure from the others, and saying so.

Why its own module: the breaker counts only these failures (a refused connection, a connect
timeout, no answer in time), the pool moves a request on for them, and every command ends a run
that never reached its server with the same line (``unreachable_cause``). Plain exceptions only:
no pydantic-ai, so a run that calls no model pays nothing for it.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterable

NOT_ATTEMPTED = "not attempted: model server unreachable at"
"""Start of the reason of every judgment the breaker stopped (never sent to the server)."""

UNREACHABLE = "model server unreachable at"
"""Start of the reason of a judgment whose request found no server (``NOT_ATTEMPTED`` without
"not attempted": the request was sent, and the connection refused)."""
SERVER_FIX = "start your server (ollama serve, llama-server, ...), or check --base-url (it should end in /v1)"
"""What to do when the model server does not answer, said wherever a run stops for it."""
NO_ANSWER = "no answer within"
"""How the breaker words a request the server took and did not answer in time (a slow server, not
a missing one: ``slow_server_cause``)."""
TIMEOUT_FIX = "raise the deadline with --timeout SECONDS or RAGJURY_TIMEOUT_S"
"""What to do when the server is there but slower than the deadline of one request."""


def timeout_fix(seconds: float | None) -> str:
    """``TIMEOUT_FIX`` naming the deadline that was too short (``--timeout 1`` → "it was 1s")."""
    now = f" (now {seconds:g}s)" if seconds is not None else ""
    return f"raise the deadline{now} with --timeout SECONDS or RAGJURY_TIMEOUT_S, or check that the server is not overloaded"


def unreachable_cause(reason: str | None) -> str | None:
    """The one line a run that never reached its model server ends with: where, what the
    connection answered, and the fix; None for any other unscored reason."""
    prefix = next((p for p in (NOT_ATTEMPTED, UNREACHABLE) if reason and reason.startswith(p)), None)
    if reason is None or prefix is None:
        return None
    rest = reason[len(prefix):].strip()
    servers = re.match(r"[^\s,]+(?:, [^\s,]+)*", rest)  # a pool's message lists every server
    where = servers.group(0).rstrip(":") if servers else "?"
    answered = re.findall(r"\b([A-Z][A-Za-z]*(?:Error|Timeout|Refused))\b", rest)
    detail = f" ({answered[-1]})" if answered else ""
    slow = re.search(NO_ANSWER + r" ([0-9.]+)s", rest)
    if slow is not None and not re.search(r"Connect(Error|Timeout)|Refused", rest):  # there, but slow
        seconds = float(slow.group(1))
        return (f"model server at {where} did not answer within {seconds:g}s{detail}: the server is there but "
                f"slower than the deadline; {timeout_fix(seconds)}")
    return f"model server unreachable at {where}{detail}: {SERVER_FIX}"


def is_not_attempted(reason: str | None) -> bool:
    """True for the reason of a judgment the breaker stopped (it was never sent)."""
    return bool(reason) and reason.startswith(NOT_ATTEMPTED)  # type: ignore[union-attr]


_CONNECT_ERROR_NAMES = frozenset({"ConnectError", "ConnectTimeout"})
"""Transport errors (httpx, httpx2, httpcore) raised before the request reached the server."""


def _chain(error: BaseException) -> Iterable[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def is_connect_failure(error: BaseException) -> bool:
    """True when ``error`` says the server could not be reached at all (nothing was sent).

    pydantic-ai's ``ModelConnectionError`` says where the transport failed (``phase``): only
    ``connect`` counts. Without a phase, the cause chain is searched for a connect error
    (refused, DNS failure, connect timeout). A connection closed mid-response, a read timeout,
    an HTTP status or invalid output all prove that the server is there.
    """
    phase = getattr(error, "phase", None)
    if phase is not None:
        return phase == "connect"
    for link in _chain(error):
        if type(link).__name__ in _CONNECT_ERROR_NAMES:
            return True
        if isinstance(link, ConnectionRefusedError | socket.gaierror):
            return True
    return False


_NO_ANSWER_NAMES = frozenset({"ReadTimeout", "ModelTimeoutError", "ModelRequestTimeout", "TimeoutError"})


def is_no_answer(error: BaseException) -> bool:
    """True when the server took the request and never answered in time (a read timeout or the
    request's deadline): a hung server, which should cost seconds, not a deadline per item."""
    if getattr(error, "phase", None) == "read" and "timeout" in type(error).__name__.lower():
        return True
    return any(type(link).__name__ in _NO_ANSWER_NAMES for link in _chain(error))


def is_not_a_completion(error: BaseException) -> bool:
    """True when the server answered HTTP 200 with something that is no chat completion (an HTML
    error page of a proxy, JSON of another API): the server's failure, not the item's — another
    server may answer it, and the breaker counts it as for a hung one. A completion whose *content*
    is no verdict is the item's (the judge's retries and its unscored reason handle that)."""
    return any(type(link).__name__ == "UnexpectedModelBehavior" and str(link).startswith("Invalid response from")
               for link in _chain(error))


def root_cause(error: BaseException) -> str:
    """``Type: message`` of the innermost error with a message (the one that says what happened);
    a cancellation is how a deadline stops a request, not what happened ("Cancelled via cancel
    scope 7fcf…" told a hung server's user nothing), so it is passed over."""
    best = error
    for link in _chain(error):
        if str(link) and type(link).__name__ != "CancelledError":
            best = link
    return f"{type(best).__name__}: {best}" if str(best) else type(best).__name__


__all__ = [
    "is_not_a_completion",
    "NOT_ATTEMPTED",
    "NO_ANSWER",
    "SERVER_FIX",
    "TIMEOUT_FIX",
    "UNREACHABLE",
    "is_connect_failure",
    "is_no_answer",
    "is_not_attempted",
    "root_cause",
    "timeout_fix",
    "unreachable_cause",
]
