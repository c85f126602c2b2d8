"""Several servers of one model behind one pydantic-ai model: the least busy live one answers.

Why: one llama-server or Ollama box is the ceiling of a batch run. With ``--base-url`` naming
several servers (``RAGJURY_BASE_URLS``), ``build_model`` returns a ``PooledModel``: each request
goes to the live endpoint with the fewest requests outstanding, within a per-endpoint limit
(``EndpointPool.limit``, the run's ``--concurrency``). Every endpoint keeps its own preflight and
circuit breaker (``rag_agent.model.breaker``); a request that fails for a reason of the server,
not of the item (a refused connection, no answer in time, a connection closed mid-response, an
HTTP 5xx) is sent again to another live endpoint, so a dead or hung server's items move to the
others (each server tried gets a deadline of its own, ``RAGJURY_TIMEOUT_S``).
Only when every endpoint is down is a judgment "not attempted", as with one server. A server that
answers HTTP 401/403 to a request (its key refused, at any point of the run) is taken out of the
pool at once (``Endpoint.refused``) and the request moves on; when every server has refused, the
run stops with the configuration error (exit 2), as with one server.

The pool's ``PoolBreaker`` stands for all of them where the rest of ragjury expects one breaker:
open only when all endpoints are, a configuration error when any endpoint has one at preflight or
for the model (a key refused before the run, a model it does not serve: the model is part of the
cache key, so every server must serve it) or when every endpoint refused the key mid-run.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.models._request_timeout import enforce_request_deadline, start_request_deadline
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings

from ragjury.config.redaction import redact_url
from ragjury.rag_agent.model.breaker import CircuitBreaker, breakers_of
from ragjury.rag_agent.model.config_errors import REFUSED_KEY, ModelServerConfigError, model_listed
from ragjury.rag_agent.model.failures import (
    ModelServerUnreachable,
    closed_mid_response,
    configuration_error,
    http_error_of,
)
from ragjury.rag_agent.model.unreachable import NOT_ATTEMPTED, is_connect_failure, is_no_answer, is_not_a_completion


@dataclass(eq=False)
class Endpoint:
    """One server of the pool: its model, its breaker, and what it did."""

    url: str
    model: Model
    breaker: CircuitBreaker
    in_flight: int = 0
    sent: int = 0
    answered: int = 0
    """Requests it answered (a model response came back)."""
    failures: int = 0
    """Requests that failed there (whatever the reason)."""
    moved: int = 0
    """Failed requests sent on to another endpoint (its failure was the server's, not the item's)."""
    latency_s: float = 0.0
    """Summed latency of the answered requests."""
    refused: ModelServerConfigError | None = None
    """Set when it answered a request HTTP 401/403: out of the pool for the rest of the run."""
    hedges: int = 0
    """Requests sent here as a hedge: another server had not answered them in time."""
    late: int = 0
    """Requests another server answered first while this one had not (each counted on its breaker)."""
    unreadable: int = 0
    """Answers that could not hold the output asked for (``unreadable``): counted on its breaker."""

    def figures(self) -> dict[str, Any]:
        return {
            "url": redact_url(self.url),
            "answered": self.answered,
            "failures": self.failures,
            "moved": self.moved,
            "latency_s": self.latency_s,
            "hedges": self.hedges,
            "late": self.late,
            "unreadable": self.unreadable,
        }


@dataclass(frozen=True)
class _Failed:
    """A request's failure on one endpoint, and whether it took that endpoint out (a refused key)."""

    error: Exception
    withdrawn: bool


LATENCY_WINDOW = 200
HEDGE_MIN_ANSWERS = 5
HEDGE_FACTOR = 4.0
HEDGE_FLOOR_S = 2.0
HEDGE_POLL_S = 0.05
"""A request unanswered after max(2 s, 4 × the pool's recent p95 latency) also goes to another
live server, and the first answer wins (``PooledModel.request``): a hung server costs seconds, not
the whole request deadline (``bench/bench_scale.py --hedge``)."""


def unreadable(response: ModelResponse, parameters: ModelRequestParameters) -> str | None:
    """Why a completion cannot hold the structured output the request asked for, or None: no tool
    call where a tool was required, no JSON object at all where native or prompted JSON was. A
    member answering well-formed junk (``banana``) read as "answered" and kept the run while a
    healthy member stood idle (#54 item 27): it now counts against its breaker, as a garbage page
    does, and the request moves on. Lenient on purpose: anything with a ``{`` is left to the
    judge's own validation (an item's failure, not the server's)."""
    mode = parameters.output_mode
    if mode not in ("tool", "native", "prompted"):
        return None  # plain text (the one-token call): the caller reads it
    if any(isinstance(part, ToolCallPart) for part in response.parts):
        return None
    text = "".join(part.content for part in response.parts if isinstance(part, TextPart))
    if mode == "tool" and parameters.output_tools and not parameters.allow_text_output:
        return f"no tool call (answered {text.strip()[:40]!r})"
    if "{" not in text:
        return f"no JSON object (answered {text.strip()[:40]!r})"
    return None


def server_failure(error: BaseException) -> bool:
    """True when a failed request says nothing about the item: the server was unreachable, did not
    answer in time, dropped the connection, answered HTTP 5xx or answered 200 with no chat
    completion (an HTML page). Another server may answer it."""
    if is_connect_failure(error) or is_no_answer(error) or closed_mid_response(error) or is_not_a_completion(error):
        return True
    http = http_error_of(error)
    return http is not None and http.status_code >= 500


class EndpointPool:
    """The endpoints of one model and the choice of the next one (fewest outstanding, under the
    limit, breaker closed; ``preferred`` first when it qualifies). Event-loop confined, like the
    breakers; waiting for a free slot uses futures of the running loop, so the pool outlives the
    loops of the sync wrappers."""

    def __init__(self, endpoints: Sequence[Endpoint], *, limit: int, preferred: int | None = None) -> None:
        self.endpoints = list(endpoints)
        self.limit = max(1, limit)
        self.preferred = self.endpoints[preferred] if preferred is not None else None
        self._waiters: list[asyncio.Future[None]] = []
        self.latencies: deque[float] = deque(maxlen=LATENCY_WINDOW)
        """Seconds of the pool's recent answered requests (any endpoint): what "late" is measured against."""

    def hedge_delay(self) -> float | None:
        """How long a request may wait before it is also sent to another server: ``HEDGE_FACTOR``
        times the 95th percentile of the recent answers, at least ``HEDGE_FLOOR_S``; None until
        ``HEDGE_MIN_ANSWERS`` answers (no figure to call a wait long) or with one endpoint."""
        if len(self.endpoints) < 2 or len(self.latencies) < HEDGE_MIN_ANSWERS:
            return None
        ordered = sorted(self.latencies)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        return max(HEDGE_FLOOR_S, HEDGE_FACTOR * p95)

    def try_acquire(self, exclude: set[Endpoint]) -> Endpoint | None:
        """A live endpoint with a free slot now (its slot taken), or None: a hedge never waits."""
        free = [e for e in self.live(exclude) if e.in_flight < self.limit]
        for chosen in sorted(free, key=lambda e: (e.in_flight, e.sent)):
            if chosen.breaker.allow():
                chosen.in_flight += 1
                chosen.sent += 1
                return chosen
        return None

    def live(self, exclude: set[Endpoint] | frozenset[Endpoint] = frozenset()) -> list[Endpoint]:
        return [e for e in self.endpoints if e not in exclude and e.refused is None and not e.breaker.is_open]

    async def acquire(self, exclude: set[Endpoint]) -> Endpoint | None:
        """The endpoint for the next request (its slot taken), or None when none is live."""
        refused: set[Endpoint] = set()
        while True:
            live = self.live(exclude | refused)
            if not live:
                return None
            free = [e for e in live if e.in_flight < self.limit]
            if free:
                chosen = min(free, key=lambda e: (e is not self.preferred, e.in_flight, e.sent))
                if not chosen.breaker.allow():  # half-open with its probe out: not now
                    refused.add(chosen)
                    continue
                chosen.in_flight += 1
                chosen.sent += 1
                return chosen
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:  # a slot frees, or a breaker's cool-down ends: look again
                await asyncio.wait({waiter}, timeout=0.5)
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)

    def release(self, endpoint: Endpoint) -> None:
        endpoint.in_flight -= 1
        while self._waiters:
            waiter = self._waiters.pop(0)
            if not waiter.done() and not waiter.get_loop().is_closed():
                waiter.set_result(None)
                break

    def figures(self) -> list[dict[str, Any]]:
        return [endpoint.figures() for endpoint in self.endpoints]


class PoolBreaker(CircuitBreaker):
    """The breaker ragjury sees for a pool: open when every endpoint's breaker is open, a
    configuration error when any endpoint has one (or serves another model, found at preflight)."""

    def __init__(self, pool: EndpointPool, model_name: str) -> None:
        first = pool.endpoints[0].breaker
        self.pool = pool
        self.model_name = model_name
        self._refused: ModelServerConfigError | None = None
        super().__init__(
            ",".join(e.url for e in pool.endpoints),
            threshold=first.threshold,
            reset_after_s=first.reset_after_s,
            preflight_timeout_s=first.preflight_timeout_s,
            api_key=first.api_key,
        )
        self.group_key = f"pool:{id(self)}"
        """Preflight groups breakers by this: a pool's endpoints answer for themselves."""

    @property
    def breakers(self) -> list[CircuitBreaker]:
        return [endpoint.breaker for endpoint in self.pool.endpoints]

    @property  # type: ignore[override]
    def config_error(self) -> ModelServerConfigError | None:
        own = self._refused or next((b.config_error for b in self.breakers if b.config_error), None)
        if own is not None:
            return own
        refused = [e.refused for e in self.pool.endpoints]
        return refused[0] if all(refused) else None  # every server refused the key: the run stops

    @config_error.setter
    def config_error(self, value: ModelServerConfigError | None) -> None:
        if value is not None and self._refused is None:
            self._refused = value

    @property  # type: ignore[override]
    def served(self) -> bool:
        return False  # each endpoint decides (its own ``served``); ``config_error_for`` reads theirs

    @served.setter
    def served(self, value: bool) -> None:
        pass

    @property
    def enabled(self) -> bool:
        return any(b.enabled for b in self.breakers)

    @property
    def is_open(self) -> bool:
        return self.config_error is not None or not self.pool.live()

    @property
    def reason(self) -> str:
        if self.config_error is not None:
            return str(self.config_error)
        details = "; ".join(f"{b.where}: {b.last_error}" for b in self.breakers if b.last_error)
        return f"{NOT_ATTEMPTED} {', '.join(e.url for e in self.pool.endpoints)}" + (f" ({details})" if details else "")

    def allow(self) -> bool:
        return not self.is_open

    def record(self, error: BaseException | None) -> None:
        """Outcomes are recorded per endpoint by ``PooledModel.request``."""

    def release(self) -> None:
        pass

    def trip(self, detail: str) -> None:
        for breaker in self.breakers:
            breaker.trip(detail)

    def reset(self) -> None:
        for breaker in self.breakers:
            breaker.reset()

    def config_error_for(self, status: int, *, model: str | None, body: str = "") -> ModelServerConfigError | None:
        return self.config_error  # recorded by the endpoint that answered it

    async def models(self) -> list[str] | None:
        return next((b.listed for b in self.breakers if b.listed is not None), None)

    async def preflight(self) -> bool:
        """Every endpoint's own preflight; then each that lists its models must list this one."""
        await asyncio.gather(*(b.preflight() for b in self.breakers))
        for breaker in self.breakers:
            if breaker.listed and not model_listed(self.model_name, breaker.listed):  # the pool's fix, not one server's
                shown = ", ".join(breaker.listed[:6])
                self.config_error = ModelServerConfigError(
                    f"model '{self.model_name}' is not served by {breaker.where} (it lists: {shown})",
                    "every --base-url must serve the same model (it is part of the cache key)",
                    status=404,
                    where=breaker.where,
                )
                break
        return not self.is_open


class PooledModel(WrapperModel):
    """A pydantic-ai model whose requests go to the endpoints of an ``EndpointPool``.

    It guards its own requests (``guards_requests``): the model client checks only whether the
    whole pool is down; each request takes a slot of one endpoint, records the outcome on that
    endpoint's breaker, and moves to another live endpoint after a server failure.
    """

    guards_requests = True

    def __init__(self, pool: EndpointPool, model_name: str) -> None:
        super().__init__(pool.endpoints[0].model)
        self.pool = pool
        self.breaker = PoolBreaker(pool, model_name)

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        tried: set[Endpoint] = set()
        last: Exception | None = None
        junk: ModelResponse | None = None
        while True:
            endpoint = await self.pool.acquire(tried)
            if endpoint is None:
                if junk is not None:  # every live server answered junk: the judge says what it got
                    return junk
                if last is not None:
                    raise last
                raise ModelServerUnreachable(self.model_name, self.breaker.reason)
            attempts = {asyncio.ensure_future(self._send(endpoint, messages, model_settings, model_request_parameters)):
                        endpoint}
            started = time.perf_counter()
            hedged = False
            try:
                while attempts:
                    delay = None if hedged else self.pool.hedge_delay()
                    remaining = None if delay is None else delay - (time.perf_counter() - started)
                    # hedged: wait for an answer; no figure yet, or due with every other server busy: look
                    # again after HEDGE_POLL_S; else sleep until the hedge is due
                    timeout = None if hedged else HEDGE_POLL_S if remaining is None or remaining <= 0 else remaining
                    done, _ = await asyncio.wait(attempts, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                    if not done:
                        if delay is not None and time.perf_counter() - started >= delay:
                            other = self.pool.try_acquire(tried | set(attempts.values()))
                            if other is not None:  # one hedge per request: the first answer wins
                                hedged = True
                                other.hedges += 1
                                attempts[asyncio.ensure_future(
                                    self._send(other, messages, model_settings, model_request_parameters))] = other
                        continue  # (every other server busy: looked at again after HEDGE_POLL_S)
                    for task in done:
                        tried_endpoint = attempts.pop(task)
                        outcome = task.result()
                        if isinstance(outcome, ModelResponse) and unreadable(outcome, model_request_parameters):
                            tried.add(tried_endpoint)  # counted on its breaker (_send): another server may answer
                            tried_endpoint.moved += 1
                            junk = outcome
                            if attempts:
                                continue
                            break
                        if isinstance(outcome, ModelResponse):
                            for loser, slow in attempts.items():  # the slower server: backed off as if it failed
                                loser.cancel()
                                slow.late += 1
                                slow.breaker.record_failure(f"no answer within {time.perf_counter() - started:.1f}s "
                                                            "while another server answered")
                            return outcome
                        tried.add(tried_endpoint)
                        last = outcome.error
                        if not await self._moves(tried_endpoint, outcome):
                            for loser in attempts:
                                loser.cancel()
                            raise outcome.error
            finally:
                for task in attempts:
                    task.cancel()

    async def _send(self, endpoint: Endpoint, messages: list[ModelMessage], model_settings: ModelSettings | None,
                    model_request_parameters: ModelRequestParameters) -> ModelResponse | _Failed:
        """One request to one endpoint, its slot and breaker kept: the response, or the failure
        (returned, not raised, so a hedge can wait on two). Cancelled: the slot is freed."""
        started = time.perf_counter()
        try:  # a deadline of its own per server: a hung one's timeout moves the item, counted there
            with enforce_request_deadline(start_request_deadline(endpoint.model, model_settings, stream=False)):
                response = await endpoint.model.request(messages, model_settings, model_request_parameters)
        except Exception as failure:
            self.pool.release(endpoint)
            endpoint.failures += 1
            with suppress(AttributeError):  # its reason names this server, not the first one
                failure.server_url = endpoint.url  # type: ignore[attr-defined]
            # a refused key takes the endpoint out now, before another request can pick it
            return _Failed(failure, withdrawn=self._withdrawn(endpoint, failure))
        except BaseException:
            self.pool.release(endpoint)
            endpoint.breaker.release()
            raise
        self.pool.release(endpoint)
        why = unreadable(response, model_request_parameters)
        if why is None:
            endpoint.breaker.record(None)
        else:  # it answered, but nothing the judge can read: the server's failure, as a garbage page
            endpoint.unreadable += 1
            endpoint.breaker.record_failure(f"answered no readable output: {why}")
        endpoint.answered += 1
        seconds = time.perf_counter() - started
        endpoint.latency_s += seconds
        self.pool.latencies.append(seconds)
        return response

    async def _moves(self, endpoint: Endpoint, failed: _Failed) -> bool:
        """Whether a failed request may go on to another endpoint (a server failure, a refused
        key), its breaker told; False when it is the item's failure or a configuration error."""
        failure = failed.error
        if failed.withdrawn:  # its key refused: out of the pool (in _send), the item moves
            return True
        refused = await configuration_error(failure, endpoint.breaker)
        endpoint.breaker.record(failure)
        if refused is not None or not server_failure(failure):
            return False
        endpoint.moved += 1
        return True

    def _start_request_deadline(self, model_settings: ModelSettings | None, *, stream: bool) -> Any:
        """No deadline over the whole pooled request (pydantic-ai's ``request_timeout``): each
        server tried gets a fresh one (``request``), as pydantic-ai's ``FallbackModel`` does, so a
        hung server's timeout is its failure (counted, the item moved), not the item's."""
        return None

    def _withdrawn(self, endpoint: Endpoint, failure: BaseException) -> bool:
        """Take ``endpoint`` out of the pool when ``failure`` is HTTP 401/403 (its key refused):
        True when it did (counted as a failure moved on). Never for a 404 or any other status."""
        http = http_error_of(failure)
        if http is None or http.status_code not in REFUSED_KEY:
            return False
        endpoint.breaker.release()
        if endpoint.refused is None:
            endpoint.refused = endpoint.breaker.config_error_for(http.status_code, model=http.model_name)
        endpoint.moved += 1
        return endpoint.refused is not None


def pools_of(judge: object) -> list[EndpointPool]:
    """The endpoint pools a judge's model calls go through (none for one server)."""
    return [b.pool for b in breakers_of(judge, enabled_only=False) if isinstance(b, PoolBreaker)]


def endpoint_figures(pools: Sequence[EndpointPool]) -> dict[str, dict[str, Any]]:
    """Each endpoint's figures, summed over the pools (several judges may share the servers)."""
    summed: dict[str, dict[str, Any]] = {}
    for pool in pools:
        for figures in pool.figures():
            into = summed.setdefault(figures["url"], {"url": figures["url"]})
            for name, value in figures.items():
                if name != "url":
                    into[name] = into.get(name, 0) + value
    return summed


def endpoint_report(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """What each endpoint did between two ``endpoint_figures``: answered, failures, moved and
    mean latency of its answers, for the summary and ``--json``."""
    report = []
    for url, now in after.items():
        then = before.get(url, {})
        delta = {name: now[name] - then.get(name, 0) for name in now if name != "url"}
        answered = int(delta.get("answered", 0))
        report.append(
            {
                "url": url,
                "answered": answered,
                "failures": int(delta.get("failures", 0)),
                "moved": int(delta.get("moved", 0)),
                "hedges": int(delta.get("hedges", 0)),
                "late": int(delta.get("late", 0)),
                "unreadable": int(delta.get("unreadable", 0)),
                "mean_latency_s": round(delta.get("latency_s", 0.0) / answered, 4) if answered else None,
            }
        )
    return report


__all__ = [
    "Endpoint",
    "EndpointPool",
    "PoolBreaker",
    "PooledModel",
    "endpoint_figures",
    "endpoint_report",
    "pools_of",
    "server_failure",
]
