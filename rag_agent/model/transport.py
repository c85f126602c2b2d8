"""The HTTP transport under every model request: it counts each attempt the server sees.

Why: pydantic-ai counts a request in its usage only when a response came back, and the OpenAI
SDK retries failed requests on its own (``RAGJURY_HTTP_RETRIES``). A run of HTTP 500s was
reported as ``requests 0`` while the server saw two requests per item. This transport sits
below the SDK's retries, so every attempt that left this process is counted: into the counter
of the call in progress (``counting_requests()``, a context variable, so concurrent calls keep
separate counts) and into a process-wide total.

It also keeps one connection pool per event loop: the client is created once per model and
outlives ``asyncio.run`` calls (the sync wrappers start a loop per call), and connections belong
to the loop that opened them. Proxies from the environment (``HTTPS_PROXY``, ``NO_PROXY``, ...)
are honoured as a default httpx client would.
"""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx2

_LIMITS = httpx2.Limits(max_connections=1000, max_keepalive_connections=100)
"""The OpenAI SDK's own pool limits (pydantic-ai's default client uses the same)."""


@dataclass
class RequestCount:
    """HTTP attempts made while it was the current counter."""

    requests: int = 0


_CURRENT: ContextVar[RequestCount | None] = ContextVar("ragjury_request_count", default=None)


@contextmanager
def counting_requests() -> Iterator[RequestCount]:
    """Count the HTTP attempts of the model requests made inside the block (this task and the
    tasks it starts)."""
    count = RequestCount()
    token = _CURRENT.set(count)
    try:
        yield count
    finally:
        _CURRENT.reset(token)


def note_attempt() -> None:
    """Count one HTTP attempt: into the call in progress and the process-wide total (the
    transport's, and the direct one-token path's, ``rag_agent.model.direct``)."""
    CountingTransport.total += 1
    count = _CURRENT.get()
    if count is not None:
        count.requests += 1


def _environment_proxy(url: str) -> str | None:
    parts = urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    if not proxies or urllib.request.proxy_bypass_environment(parts.hostname or "", proxies):
        return None
    return proxies.get(parts.scheme) or proxies.get("all")


class CountingTransport(httpx2.AsyncBaseTransport):
    """Counts every HTTP attempt, then sends it through a per-event-loop connection pool."""

    total = 0
    """Attempts made through any instance in this process (diagnostics and tests)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.attempts = 0
        self._proxy = _environment_proxy(base_url)
        self._pools: dict[asyncio.AbstractEventLoop, httpx2.AsyncHTTPTransport] = {}

    def _pool(self) -> httpx2.AsyncHTTPTransport:
        loop = asyncio.get_running_loop()
        pool = self._pools.get(loop)
        if pool is None:
            # Pools of loops that have closed cannot be used or closed any more: drop them.
            for old in [other for other in self._pools if other.is_closed()]:
                del self._pools[old]
            pool = httpx2.AsyncHTTPTransport(limits=_LIMITS, proxy=self._proxy)
            self._pools[loop] = pool
        return pool

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.attempts += 1
        note_attempt()
        return await self._pool().handle_async_request(request)

    async def aclose(self) -> None:
        pool = self._pools.pop(asyncio.get_running_loop(), None)
        if pool is not None:
            await pool.aclose()


__all__ = ["CountingTransport", "RequestCount", "counting_requests", "note_attempt"]
