"""Stop calling a model server that is not there: a preflight request and a circuit breaker.

Why: with the server down, every item of a batch used to try (and retry) its own connection
before it was reported unscored: about 28 minutes for 15k rows. Now

- before a batch, ``preflight`` sends one cheap ``GET {base_url}/models`` with a short timeout
  (``RAGJURY_PREFLIGHT_TIMEOUT_S``); a refused or timed-out connection opens the breaker at once;
- during a batch, the ``CircuitBreaker`` of each ``StructuredCaller`` counts consecutive
  connection failures (a refused connection, a connect timeout; not invalid output, not an HTTP
  error, not a connection closed mid-response: those prove the server is there) and opens after
  ``RAGJURY_BREAKER_FAILURES`` of them (default 3; 0 switches the breaker off).

While the breaker is open no request is sent: the remaining items become unscored with the reason
``not attempted: model server unreachable at URL (...)``, so a 1,000-item batch against a dead
server ends in seconds (exit 3), and under ``--judge auto`` the ``FallbackJudge`` goes straight to
its fallback. After ``RAGJURY_BREAKER_RESET_S`` one probe request is let through (half-open): if it
connects the breaker closes again, so a long-lived judge recovers when the server comes back. A
preflight that connects also closes it.

A server that answers but refuses the configuration -- HTTP 401/403 (a missing or refused API
key) at the preflight or on any request, a 404 for the model (a wrong ``--model`` or
``--base-url``) on the first request -- is not a dead server and not an item failure: the breaker
keeps a ``ModelServerConfigError`` (an ``InputError``: one line with the fix, exit 2), sends
nothing more, and the runner raises it instead of letting items fall back (``config_error_of``).

Where it is enforced: ``rag_agent.model.server_model.build_model`` gives the model a breaker of
its own, and the model client's calls (``StructuredCaller.call``, ``LogprobCaller.distribution``)
check it before sending and record the outcome after, so structured and one-token calls alike stop
at once. The reference agent's model checks it on every request itself (``GuardedOllamaModel``,
raising ``failures.ModelServerUnreachable`` before anything is sent, so the SDK does not retry it).
A caller given another model keeps a breaker of its own around its calls. Judges without an HTTP
model (deterministic judges, pydantic-ai's ``TestModel``/``FunctionModel``) have no base URL: no
preflight.
"""

from __future__ import annotations

import asyncio
import re
import socket
import time
from collections.abc import Callable, Iterable
from contextlib import suppress
from typing import Any

from ragjury.rag_agent.core.input_files import InputError

NOT_ATTEMPTED = "not attempted: model server unreachable at"
"""Start of the reason of every judgment the breaker stopped (never sent to the server)."""

UNREACHABLE = "model server unreachable at"
"""Start of the reason of a judgment whose request found no server (``NOT_ATTEMPTED`` without
"not attempted": the request was sent, and the connection refused)."""
SERVER_FIX = "start your server (ollama serve, llama-server, ...), or check --base-url (it should end in /v1)"
"""What to do when the model server does not answer, said wherever a run stops for it."""


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
    return f"model server unreachable at {where}{detail}: {SERVER_FIX}"


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


def root_cause(error: BaseException) -> str:
    """``Type: message`` of the innermost error with a message (the one that says what happened);
    a cancellation is how a deadline stops a request, not what happened ("Cancelled via cancel
    scope 7fcf…" told a hung server's user nothing), so it is passed over."""
    best = error
    for link in _chain(error):
        if str(link) and type(link).__name__ != "CancelledError":
            best = link
    return f"{type(best).__name__}: {best}" if str(best) else type(best).__name__


KEY_VARIABLES = "RAGJURY_API_KEY or OPENAI_API_KEY"
"""Where ragjury reads an API key from (``RagjurySettings.api_key``)."""
KEY_SOURCES = f"{KEY_VARIABLES} (or pass --api-key)"
"""The same, with the command-line option that overrides them, for a fix a user can act on."""


REFUSED_KEY = frozenset({401, 403})
"""HTTP statuses that refuse the key: a configuration error whenever they come."""


class ModelServerConfigError(InputError):
    """The model server will not serve this configuration: HTTP 401/403 (a missing or refused API
    key) at any point, or 404 for the model (a wrong ``--model`` or ``--base-url``) at preflight or
    on the first request. Not an item failure: nothing would succeed, so no item may fall back and no verdict is
    cached; every command prints this one line (an ``InputError``) and exits 2.

    ``headline`` says what the server answered, ``fix`` what to change."""

    def __init__(self, headline: str, fix: str, *, status: int, where: str | None) -> None:
        self.headline = headline
        self.fix = fix
        self.status = status
        self.where = where
        super().__init__(headline, fix)


def model_listed(model: str, listed: Iterable[str]) -> bool:
    """Whether a server that lists ``listed`` serves ``model`` (``name`` and ``name:latest`` alike)."""
    names = set(listed)
    return model in names or f"{model}:latest" in names or model.removesuffix(":latest") in names


def not_an_api(where: str | None, answered: str) -> ModelServerConfigError:
    """A URL that answers HTTP but is no OpenAI-compatible API (``GET /models`` gave ``answered``)."""
    return ModelServerConfigError(
        f"{where} is not an OpenAI-compatible API (GET {where}/models answered {answered})",
        "check --base-url (RAGJURY_BASE_URL): the server's API base, usually ending in /v1",
        status=404,
        where=where,
    )


def not_served(model: str, where: str | None, listed: list[str]) -> ModelServerConfigError:
    """A server whose ``GET /models`` lists other models than the one asked for."""
    more = f" and {len(listed) - 12} more" if len(listed) > 12 else ""
    return ModelServerConfigError(
        f"model '{model}' is not served by {where} (it lists: {', '.join(listed[:12])}{more})",
        "pass --model with one of the listed names",
        status=404,
        where=where,
    )


async def check_servers(judge: object) -> None:
    """Preflight every server the judge calls and raise the configuration error one answered
    (an unknown model, a URL that is no API, a refused key): one line, exit 2, before any item is
    judged -- for the commands that judge one item without the runner."""
    await preflight(judge)
    raise_config_error(judge)


def config_error(
    status: int,
    where: str | None,
    *,
    model: str | None,
    api_key_set: bool,
    body: str = "",
    listed: list[str] | None = None,
    path: str = "/chat/completions",
) -> ModelServerConfigError | None:
    """The configuration error an HTTP ``status`` from the server at ``where`` stands for (401,
    403, 404), with its fix; None for any other status (an item failure, or a server failure)."""
    url = where or "the configured URL"
    if status == 401:
        if api_key_set:
            return ModelServerConfigError(
                f"HTTP 401 from {url}",
                f"the server refused the API key: check {KEY_SOURCES}",
                status=status,
                where=where,
            )
        return ModelServerConfigError(
            f"HTTP 401 from {url}",
            f"the server wants an API key: set {KEY_SOURCES}",
            status=status,
            where=where,
        )
    if status == 403:
        if not api_key_set:
            return ModelServerConfigError(
                f"HTTP 403 from {url}",
                f"access refused without an API key: set {KEY_SOURCES}",
                status=status,
                where=where,
            )
        subject = f"model '{model}'" if model else "this model"
        return ModelServerConfigError(
            f"HTTP 403 from {url}",
            f"the API key may not use {subject}: check the key ({KEY_VARIABLES}, or --api-key) and --model",
            status=status,
            where=where,
        )
    if status == 404:
        lists = ""
        if listed:
            more = f" and {len(listed) - 12} more" if len(listed) > 12 else ""
            lists = f"; the server lists: {', '.join(listed[:12])}{more}"
        about_model = "model" in body.lower() or bool(model and listed and not model_listed(model, listed))
        if model and about_model:
            return ModelServerConfigError(
                f"model '{model}' not found on {url}", f"check --model{lists}", status=status, where=where
            )
        return ModelServerConfigError(
            f"HTTP 404 from {url}{path}",
            f"no such endpoint or model: check --base-url (it usually ends in /v1) and --model{lists}",
            status=status,
            where=where,
        )
    return None


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
    ) -> None:
        self.where = where.rstrip("/") if where else None
        self.model = model
        """The model the requests name: the preflight refuses a server that lists others only."""
        self.threshold = max(0, threshold)
        self.reset_after_s = reset_after_s
        self.preflight_timeout_s = preflight_timeout_s
        self.api_key = api_key
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
            self.record_failure(f"no answer in time ({root_cause(error)})")
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
            import httpx

            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            try:
                async with httpx.AsyncClient(
                    timeout=httpx.Timeout(self.preflight_timeout_s or 5.0)
                ) as client:
                    reply = await client.get(f"{self.where}/models", headers=headers)
                if reply.status_code == 200:
                    self.listed = _listed_names(reply)
            except (httpx.HTTPError, ValueError):
                return None
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
        url = f"{self.where}/models"
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        self.preflights += 1
        self._asked_models = True
        import httpx  # here, not at the top: a run with no model server imports none of it

        try:
            async with httpx.AsyncClient(timeout=httpx.Timeout(self.preflight_timeout_s)) as client:
                reply = await client.get(url, headers=headers)
        except (httpx.ConnectError, httpx.ConnectTimeout) as error:
            self.trip(f"preflight GET {url}: {root_cause(error)}")
            return False
        except httpx.ReadTimeout:  # it took the connection and never answered: as good as gone
            self.trip(f"preflight GET {url}: no answer within {self.preflight_timeout_s:g}s")
            return False
        except httpx.HTTPError:
            return not self.is_open
        self.reset()
        if reply.status_code in (401, 403):
            refused = config_error(reply.status_code, self.where, model=None, api_key_set=bool(self.api_key))
            if refused is not None:
                self.refuse_configuration(refused)
                return False
        refused = self._refused_listing(reply)
        if refused is not None:
            self.refuse_configuration(refused)
            return False
        return True

    def _refused_listing(self, reply: Any) -> ModelServerConfigError | None:
        """What a ``GET /models`` answer proves wrong with the configuration, or None: a 404 or a
        page that is not JSON (not an OpenAI-compatible API at this URL), or a list of models
        without ours (the server would answer with another model, or refuse every request)."""
        if reply.status_code == 404:
            return not_an_api(self.where, "HTTP 404")
        if reply.status_code != 200:
            return None
        try:
            self.listed = _listed_names(reply)
        except (ValueError, AttributeError):
            return not_an_api(self.where, "a page that is not JSON")
        if self.model and self.listed and not model_listed(self.model, self.listed):
            return not_served(self.model, self.where, self.listed)
        return None


def _listed_names(reply: Any) -> list[str]:
    """The model ids of a ``/models`` answer (OpenAI's ``{"data": [{"id": ...}]}``)."""
    payload = reply.json()
    data = payload.get("data") if isinstance(payload, dict) else None
    return [str(entry.get("id")) for entry in data or [] if isinstance(entry, dict) and entry.get("id")]


def breakers_of(judge: object, *, enabled_only: bool = True) -> list[CircuitBreaker]:
    """The circuit breakers a judge's model calls go through, found through the usual wrappers
    (``caller``, ``primary``, ``fallback``, ``inner``, a panel's ``members``); empty for a judge
    without a model. ``enabled_only=False`` includes switched-off breakers (they still carry a
    configuration error)."""
    found: dict[int, CircuitBreaker] = {}
    seen: set[int] = set()

    def visit(obj: Any, depth: int) -> None:
        if obj is None or id(obj) in seen or depth > 6:
            return
        seen.add(id(obj))
        if isinstance(obj, CircuitBreaker):
            found[id(obj)] = obj
            return
        for name in ("breaker", "caller", "primary", "fallback", "inner"):
            visit(getattr(obj, name, None), depth + 1)
        members = getattr(obj, "members", None)
        if isinstance(members, list | tuple):
            for member in members:
                visit(member, depth + 1)

    visit(judge, 0)
    return [breaker for breaker in found.values() if breaker.enabled or not enabled_only]


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


async def preflight(judge: object) -> list[CircuitBreaker]:
    """Preflight every server the judge calls (one request per URL); returns the breakers left
    open. A judge without a model (deterministic) sends nothing. A 401/403 is passed on to every
    breaker of that URL (``config_error_of`` finds it)."""
    by_url: dict[str, list[CircuitBreaker]] = {}
    for breaker in breakers_of(judge):
        if breaker.where is not None:  # a pool of servers is a group of its own (``group_key``)
            by_url.setdefault(getattr(breaker, "group_key", breaker.where), []).append(breaker)
    if not by_url:
        return []
    leaders = [group[0] for group in by_url.values()]
    await asyncio.gather(*(leader.preflight() for leader in leaders))
    for group in by_url.values():
        leader = group[0]
        for other in group[1:]:
            other.listed = leader.listed
            if leader.config_error is not None:
                other.refuse_configuration(leader.config_error)
            elif other.model and leader.listed and not model_listed(other.model, leader.listed):
                other.refuse_configuration(not_served(other.model, other.where, leader.listed))
            elif leader.is_open and leader.last_error:
                other.trip(leader.last_error)
            elif not leader.is_open:
                other.reset()
    return [b for group in by_url.values() for b in group if b.is_open]


def is_not_attempted(reason: str | None) -> bool:
    """True for the reason of a judgment the breaker stopped (it was never sent)."""
    return bool(reason) and reason.startswith(NOT_ATTEMPTED)  # type: ignore[union-attr]


__all__ = [
    "KEY_SOURCES",
    "KEY_VARIABLES",
    "NOT_ATTEMPTED",
    "REFUSED_KEY",
    "SERVER_FIX",
    "CircuitBreaker",
    "ModelServerConfigError",
    "any_open",
    "breakers_of",
    "check_servers",
    "config_error",
    "config_error_of",
    "is_connect_failure",
    "is_no_answer",
    "is_not_attempted",
    "model_listed",
    "not_an_api",
    "not_served",
    "preflight",
    "raise_config_error",
    "root_cause",
    "unreachable_cause",
]
