"""Stop calling a model server that is not there: the circuit breaker of one server.

Why: with the server down, every item of a batch used to try (and retry) its own connection
before it was reported unscored: about 28 minutes for 15k rows. Now

- before a batch, the preflight (``rag_agent.model.preflight``) sends one cheap
  ``GET {base_url}/models`` with a short timeout (``RAGJURY_PREFLIGHT_TIMEOUT_S``); a refused or
  timed-out connection opens the breaker at once;
- during a batch, the ``CircuitBreaker`` of each ``StructuredCaller`` counts consecutive
  connection failures (a refused connection, a connect timeout; not invalid output, not an HTTP
  error, not a connection closed mid-response: those prove the server is there,
  ``rag_agent.model.unreachable``) and opens after ``RAGJURY_BREAKER_FAILURES`` of them (default
  3; 0 switches the breaker off).

While the breaker is open no request is sent: the remaining items become unscored with the reason
``not attempted: model server unreachable at URL (...)``, so a 1,000-item batch against a dead
server ends in seconds (exit 3), and under ``--judge auto`` the ``FallbackJudge`` goes straight to
its fallback. After ``RAGJURY_BREAKER_RESET_S`` one probe request is let through (half-open): if it
connects the breaker closes again, so a long-lived judge recovers when the server comes back. A
preflight that connects also closes it.

A server that answers but refuses the configuration -- HTTP 401/403 (a missing or refused API
key) at the preflight or on any request, a 404 for the model (a wrong ``--model`` or
``--base-url``) on the first request -- is not a dead server and not an item failure: the breaker
keeps a ``ModelServerConfigError`` (``rag_agent.model.config_errors``: one line with the fix,
exit 2), sends nothing more, and the runner raises it instead of letting items fall back
(``config_error_of``).

Where it is enforced: ``rag_agent.model.server_model.build_model`` gives the model a breaker of
its own, and the model client's calls (``StructuredCaller.call``, ``LogprobCaller.distribution``)
check it before sending and record the outcome after, so structured and one-token calls alike stop
at once. The reference agent's model checks it on every request itself (``GuardedOllamaModel``,
raising ``failures.ModelServerUnreachable`` before anything is sent, so the SDK does not retry it).
A caller given another model keeps a breaker of its own around its calls. A judge says which
breakers its calls go through (``needs()``, ``rag_agent.core.needs``): ``breakers_of`` asks it.
Judges without an HTTP model (model-free judges, pydantic-ai's ``TestModel``/``FunctionModel``)
have no base URL: no preflight.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ragjury.rag_agent.core.needs import needs_of
from ragjury.rag_agent.model.config_errors import REFUSED_KEY, ModelServerConfigError, config_error
from ragjury.rag_agent.model.model_listing import list_models
from ragjury.rag_agent.model.unreachable import NO_ANSWER, NOT_ATTEMPTED, is_connect_failure, is_no_answer, is_not_a_completion, root_cause


class CircuitBreaker:
    """Counts consecutive connection failures to one server; opens after ``threshold`` of them.

    Shared by every request of a ``StructuredCaller`` (one judge): ``allow()`` before a request,
    ``record(error_or_None)`` after it. ``threshold=0`` switches it off. Thread-unsafe by design:
    all calls come from one event loop.
    """

    def __init__(
        self,
        where: str | None,
        *,
        threshold: int = 3,
        reset_after_s: float = 30.0,
        preflight_timeout_s: float = 5.0,
        api_key: str | None = None,
        model: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        timeout_s: float | None = None,
    ) -> None:
        self.where = where.rstrip("/") if where else None
        self.model = model
        """The model the requests name: the preflight refuses a server that lists others only."""
        self.threshold = max(0, threshold)
        self.reset_after_s = reset_after_s
        self.preflight_timeout_s = preflight_timeout_s
        self.api_key = api_key
        self.timeout_s = timeout_s
        """The deadline of one request (``--timeout``): named where the server answered too slowly."""
        self._clock = clock
        self.failures = 0
        """Consecutive connection failures so far."""
        self.attempts = 0
        """Requests let through (each may still make SDK-level retries)."""
        self.rejected = 0
        """Requests refused because the breaker was open."""
        self.preflights = 0
        """Preflight requests sent."""
        self.opened_at: float | None = None
        self.last_error: str | None = None
        self._probing = False
        self.config_error: ModelServerConfigError | None = None
        """Set when the server refused the configuration (401, 403, 404 for the model): from then
        on nothing is sent, whatever the threshold (``ModelServerConfigError``)."""
        self.served = False
        """True once a request got an answer: a later 404 is an item failure (a 401/403 never is)."""
        self.listed: list[str] | None = None
        self._asked_models = False
        """The model names ``GET {where}/models`` listed (by the preflight or ``models()``)."""

    @property
    def enabled(self) -> bool:
        return self.threshold > 0

    @property
    def is_open(self) -> bool:
        """True while requests are refused (open, cool-down not over, or a probe in flight), and
        for good after a configuration error."""
        if self.config_error is not None:
            return True
        if self.opened_at is None:
            return False
        return self._probing or self._clock() - self.opened_at < self.reset_after_s

    @property
    def reason(self) -> str:
        """The unscored reason of a judgment the breaker stopped."""
        if self.config_error is not None:
            return str(self.config_error)
        detail = f" ({self.last_error})" if self.last_error else ""
        return f"{NOT_ATTEMPTED} {self.where or 'the configured URL'}{detail}"

    def allow(self) -> bool:
        """May a request be sent now? Counts the attempt or the refusal."""
        if self.config_error is not None:
            self.rejected += 1
            return False
        if not self.enabled or self.opened_at is None:
            self.attempts += 1
            return True
        if self.is_open:
            self.rejected += 1
            return False
        self._probing = True  # half-open: exactly one probe until its outcome is recorded
        self.attempts += 1
        return True

    def record(self, error: BaseException | None) -> None:
        """The outcome of an allowed request: ``None`` (it reached the server) or its error."""
        if error is None:
            self.served = True
        if error is not None and is_connect_failure(error):
            self.record_failure(root_cause(error))
        elif error is not None and is_no_answer(error):
            within = f"{NO_ANSWER} {self.timeout_s:g}s" if self.timeout_s else "no answer in time"
            self.record_failure(f"{within} ({root_cause(error)})")
        elif error is not None and is_not_a_completion(error):
            self.record_failure(f"answered with no chat completion ({root_cause(error)[:120]})")
        else:
            self.record_success()

    def record_success(self) -> None:
        """The server answered (whatever it answered): close the breaker."""
        self.failures = 0
        self.opened_at = None
        self._probing = False

    def record_failure(self, detail: str) -> None:
        """A connection failure: open after ``threshold`` consecutive ones (or a failed probe)."""
        self.failures += 1
        probe_failed = self._probing
        self._probing = False
        if self.enabled and (probe_failed or self.failures >= self.threshold):
            self.trip(f"{self.failures} consecutive connection failures, last: {detail}")

    def release(self) -> None:
        """An allowed request ended without an outcome (cancelled): free the probe slot."""
        self._probing = False

    def trip(self, detail: str) -> None:
        """Open now: refuse requests for ``reset_after_s``."""
        if not self.enabled:
            return
        self.opened_at = self._clock()
        self.last_error = detail
        self._probing = False

    def refuse_configuration(self, error: ModelServerConfigError) -> None:
        """The server refused the configuration: send nothing more (the first error is kept)."""
        if self.config_error is None:
            self.config_error = error

    def config_error_for(
        self, status: int, *, model: str | None, body: str = ""
    ) -> ModelServerConfigError | None:
        """The configuration error of an HTTP ``status`` answered to a request, or None. A 401/403
        at any point of a run (a key revoked, expired or rate-refused mid-run is no item's fault:
        every later request would fail the same way); a 404 only until the server has answered a
        request (after that it is an item's failure)."""
        if self.served and status not in REFUSED_KEY:
            return None
        return config_error(
            status, self.where, model=model, api_key_set=bool(self.api_key), body=body, listed=self.listed
        )

    async def models(self) -> list[str] | None:
        """The model names the server lists (``GET {where}/models``, asked once), or None."""
        if self.listed is None and self.where is not None and not self._asked_models:
            self._asked_models = True
            listing = await list_models(self.where, api_key=self.api_key, timeout_s=self.preflight_timeout_s or 5.0)
            if listing.status == 200 and listing.names is not None:
                self.listed = listing.names
        return self.listed

    def reset(self) -> None:
        self.record_success()
        self.last_error = None

    async def preflight(self) -> bool:
        """``GET {where}/models`` with a short timeout; opens the breaker when nothing listens.

        Any HTTP answer proves the server is there and closes the breaker; a 401 or 403 also says
        the key is missing or refused: a configuration error (``config_error``), kept for good. A
        refused connection, a connect timeout or no answer in time opens it; other failures leave
        it as it is. The names a 200 lists are kept (``listed``) for the message of a later 404.
        Returns False when the breaker is open afterwards.
        """
        if not self.enabled or self.where is None or self.preflight_timeout_s <= 0:
            return True
        self.preflights += 1
        self._asked_models = True
        listing = await list_models(self.where, api_key=self.api_key, timeout_s=self.preflight_timeout_s)
        if listing.unreachable is not None:
            self.trip(f"preflight GET {listing.url}: {listing.unreachable}")
            return False
        if listing.status is None:
            return not self.is_open
        self.reset()
        if listing.status in REFUSED_KEY:
            refused = config_error(listing.status, self.where, model=None, api_key_set=bool(self.api_key))
            if refused is not None:
                self.refuse_configuration(refused)
                return False
        if listing.status == 200 and listing.names is not None:
            self.listed = listing.names
        refused = listing.refused(self.where, self.model)
        if refused is not None:
            self.refuse_configuration(refused)
            return False
        return True


def breakers_of(judge: object, *, enabled_only: bool = True) -> list[CircuitBreaker]:
    """The circuit breakers a judge's model calls go through, as the judge declares them
    (``needs()``); empty for a judge without a model. ``enabled_only=False`` includes
    switched-off breakers (they still carry a configuration error)."""
    declared = needs_of(judge).breakers
    return [b for b in declared if isinstance(b, CircuitBreaker) and (b.enabled or not enabled_only)]


def config_error_of(judge_or_breakers: object) -> ModelServerConfigError | None:
    """The configuration error one of the judge's servers answered (or of the breakers given), or
    None: the runner raises it, so the command prints one line and exits 2."""
    breakers = (
        judge_or_breakers
        if isinstance(judge_or_breakers, list)
        else breakers_of(judge_or_breakers, enabled_only=False)
    )
    return next((b.config_error for b in breakers if b.config_error is not None), None)


def any_open(judge: object) -> CircuitBreaker | None:
    """The first open breaker among the judge's, or None."""
    return next((b for b in breakers_of(judge) if b.is_open), None)


def raise_config_error(judge: object) -> None:
    """Raise the configuration error one of the judge's servers answered, if any: for a command
    that judges without the runner (one item), after its judgment, so a 401/403/404 is one line
    and exit 2 there too, not an unscored verdict or a silent fallback."""
    refused = config_error_of(judge)
    if refused is not None:
        raise refused


__all__ = [
    "CircuitBreaker",
    "any_open",
    "breakers_of",
    "config_error_of",
    "raise_config_error",
]
