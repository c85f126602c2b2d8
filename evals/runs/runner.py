"""Run a judge over many items without ever losing work, and show how it goes.

``run_judgments`` looks every item up in the cache first (zero model calls for cached items),
judges the rest through ``judge.ajudge_batch`` with bounded concurrency, and writes the judgments
to the cache from the ``on_result`` callback as they complete: a judgment that cost a model call
(or its own task) is committed the moment it completes; a vectorised model-free judge's chunk
(at most ``_MAX_CHUNK`` items) in one transaction when the chunk ends (``_Writes``). Identical
items in one batch are judged once. Progress (``evals.progress``) shows rate, ETA, tokens spent
and unscored counts: fitted to the terminal width, or as periodic plain lines where stderr is
not a terminal.

On Ctrl-C the run stops; everything that completed is committed before it ends (a SIGKILL loses
only what was in flight: at most one chunk of a vectorised judge), so re-running the same
command resumes where it stopped (``interrupted_message`` says so to the user).

Before judging, a judge that calls a model server gets a preflight (``rag_agent.model.preflight``): one
``GET {base_url}/models`` with a short timeout. When nothing listens, the judge's circuit breaker
opens and no item is sent: each becomes unscored "not attempted: model server unreachable at URL"
(or is answered by the fallback under ``--judge auto``) within seconds. Those judgments are not
written to the cache: nothing was judged. Model-free judges have no breaker and no preflight.
The runner asks the judge what it needs (``needs()``: its breakers and embedders), never its parts.

Several processes may run on one cache (two ``evaluate`` runs of the same data, or a CI job and a
person): items are claimed through leases in the cache (``JudgmentCache.claim``) a few at a
time, so each item is judged by one process; the others wait for its judgment and take it from
the cache. Both runs end with complete outputs.

With tracing on (``--trace``, ``rag_agent.tracing``) a run is a ``judge_batch`` span holding one
``judgment`` span per item, marked ``ragjury.cache`` hit or miss.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any, NamedTuple

import ragjury.rag_agent.tracing as tracing
from ragjury.evals.runs.cache import CacheMemo, JudgmentCache, judgment_key
from ragjury.rag_agent.core.call_memo import sharing
from ragjury.evals.runs.cache_leases import LEASE_TTL_S, new_lease_owner
from ragjury.rag_agent.core.protocol import BaseJudge, Judge
from ragjury.rag_agent.core.results import Judgment, Usage
from ragjury.rag_agent.core.needs import needs_of
from ragjury.rag_agent.model.breaker import breakers_of, config_error_of
from ragjury.rag_agent.model.preflight import preflight as preflight_servers
from ragjury.rag_agent.model.unreachable import is_not_attempted

if TYPE_CHECKING:
    from rich.progress import Progress


@dataclass
class RunStats:
    """What a batch run did and cost: every summary prints these."""

    total: int = 0
    cached: int = 0
    """Judgments taken from the cache (no model call)."""
    judged: int = 0
    """Judgments made in this run (deduplicated items count once)."""
    duplicates: int = 0
    """Items identical to an earlier item of this run (same judge, same input): they share its
    judgment, so ``cached + judged + duplicates == total`` for a run that was not interrupted."""
    unscored: int = 0
    """Unscored judgments among all results, cached or new."""
    fallback: int = 0
    not_attempted: int = 0
    """Unscored because the model server was unreachable: never sent (circuit breaker open)."""
    completed: int = 0
    """Items that have a judgment (cached, judged, shared or duplicate of one): ``total`` once the
    run ends, fewer when it was interrupted; the rest are not judged, never counted as scored."""
    usage: Usage = field(default_factory=Usage)
    """Tokens and requests spent in this run (cached judgments cost nothing now)."""
    wall_s: float = 0.0
    interrupted: bool = False
    executor: str | None = None
    """``ray`` when the items were judged on Ray (``--executor ray``); None in this process."""
    cache_unreadable: int = 0
    """Cached rows this run could not read back (a value type this version does not know, data
    that no longer validates): judged again, and counted here so that it is seen."""
    endpoints: list[dict[str, Any]] = field(default_factory=list)
    """With several servers (``--base-url A,B``): what each did in this run (url, answered,
    failures, moved, mean_latency_s); empty with one server."""

    @property
    def scored(self) -> int:
        return self.completed - self.unscored

    @property
    def not_judged(self) -> int:
        """Items an interrupted run never reached (0 for a finished run)."""
        return self.total - self.completed

    def merge(self, other: RunStats) -> RunStats:
        """The counts of two runs of one command together (``evaluate --agent`` runs one per system)."""
        return RunStats(
            total=self.total + other.total, cached=self.cached + other.cached, judged=self.judged + other.judged,
            duplicates=self.duplicates + other.duplicates, unscored=self.unscored + other.unscored,
            fallback=self.fallback + other.fallback, not_attempted=self.not_attempted + other.not_attempted,
            completed=self.completed + other.completed, usage=self.usage + other.usage,
            wall_s=self.wall_s + other.wall_s, interrupted=self.interrupted or other.interrupted,
            executor=self.executor or other.executor,
            cache_unreadable=self.cache_unreadable + other.cache_unreadable,
            endpoints=[*self.endpoints, *other.endpoints],
        )

    @property
    def tokens(self) -> int:
        return self.usage.total_tokens

    @property
    def requests(self) -> int:
        return self.usage.requests

    @property
    def judgments_per_s(self) -> float:
        """New judgments per second of wall time (cached hits excluded: they are free)."""
        return self.judged / self.wall_s if self.wall_s > 0 else 0.0

    def as_dict(self) -> dict[str, object]:
        endpoints: dict[str, object] = {"endpoints": self.endpoints} if self.endpoints else {}
        endpoints["executor"] = self.executor or "process"  # the contract's key, in either mode
        if self.cache_unreadable:
            endpoints["cache_unreadable"] = self.cache_unreadable
        return {
            "n": self.total,
            "scored": self.scored,
            "unscored": self.unscored,
            "not_judged": self.not_judged,
            "cached": self.cached,
            "judged": self.judged,
            "duplicates": self.duplicates,
            "fallback_used": self.fallback,
            "not_attempted": self.not_attempted,
            "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens,
            "tokens": self.tokens,
            "requests": self.requests,
            "wall_s": round(self.wall_s, 3),
            "judgments_per_s": round(self.judgments_per_s, 2),
            "interrupted": self.interrupted,
            **endpoints,
        }


class JudgedBatch(NamedTuple):
    """Judgments in input order and the run's stats; unpacks as ``judgments, stats``."""

    judgments: list[Judgment[Any]]
    stats: RunStats


@contextmanager
def _concurrency(judge: object, concurrency: int | None, pools: Sequence[Any] = ()) -> Iterator[None]:
    """Set ``judge.concurrency`` for the run and restore it after (BaseJudge reads it).

    With several servers (``pools``) ``concurrency`` is per server: each pool's ``limit`` is set to
    it, and the judge keeps that many in flight per server."""
    width = max((len(pool.endpoints) for pool in pools), default=1)
    if pools:
        per_server = max(1, concurrency or int(getattr(judge, "concurrency", 4) or 4))
        for pool in pools:
            pool.limit = per_server
        concurrency = per_server * width
    if concurrency is None or not hasattr(judge, "concurrency"):
        yield
        return
    before = judge.concurrency  # type: ignore[attr-defined]
    judge.concurrency = max(1, concurrency)  # type: ignore[attr-defined]
    try:
        yield
    finally:
        judge.concurrency = before  # type: ignore[attr-defined]


def _pools(servers: Sequence[Any]) -> list[Any]:
    """The endpoint pools among a judge's breakers (``rag_agent.model.endpoints``; duck-typed, so
    a run without a model imports no pydantic-ai)."""
    return [breaker.pool for breaker in servers if getattr(breaker, "pool", None) is not None]


def _endpoint_figures(pools: Sequence[Any], judge: object) -> dict[str, dict[str, Any]]:
    """Each server's figures so far: this process's pools, plus what Ray workers reported."""
    if not pools:
        return {}
    from ragjury.rag_agent.model.endpoints import endpoint_figures

    figures = endpoint_figures(pools)
    remote = getattr(judge, "remote_endpoint_figures", None)
    for url, theirs in (remote() if callable(remote) else {}).items():
        into = figures.setdefault(url, {"url": url})
        for name, value in theirs.items():
            if name != "url":
                into[name] = into.get(name, 0) + value
    return figures


def _counters(stats: RunStats) -> dict[str, int]:
    """The progress display's counters (``evals.progress`` shows those that fit the width)."""
    return {"unscored": stats.unscored, "tokens": stats.tokens, "cached": stats.cached}


async def run_judgments(
    judge: Judge[Any, Any],
    items: Sequence[Any],
    *,
    cache: JudgmentCache | None = None,
    concurrency: int | None = None,
    progress: bool | Progress = True,
    description: str = "judging",
    preflight: bool = True,
    lease_ttl_s: float = LEASE_TTL_S,
) -> JudgedBatch:
    """Judge ``items`` with ``judge``, through the cache; results keep input order.

    ``progress`` may be a ``Progress`` already on screen (a task is added to it), True for a
    new bar on stderr, or False for none. On cancellation (Ctrl-C) ``CancelledError`` or
    ``KeyboardInterrupt`` propagates; everything completed is already in the cache.
    ``preflight``: check that the judge's model server listens before sending the batch.

    With a cache, items are claimed (leases in the cache) before they are judged, so several
    processes on one cache judge each item once: this run judges what nobody else holds and
    takes the others' judgments from the cache as they land (counted as cached).
    """
    started = time.perf_counter()
    run_started = time.time()
    stats = RunStats(total=len(items))
    for started_runs in _RECORDING:
        started_runs.append(stats)
    identity = judge.identity
    owner = identity.key()
    keys = [judgment_key(identity, item) for item in items]
    results: list[Judgment[Any] | None] = [None] * len(items)

    traced_run = tracing.start_batch(identity, description, len(items))  # None unless --trace
    unreadable_before = cache.unreadable if cache is not None else 0
    hits = cache.get_many(keys) if cache is not None else {}
    from_cache = getattr(judge, "from_cache", None)  # a cut-off the key leaves out, applied again
    if hits and callable(from_cache):
        hits = {key: from_cache(judgment) for key, judgment in hits.items()}
    # Identical items are judged once; ``positions[key]`` lists every input index they fill.
    positions: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        if key in hits:
            results[index] = hits[key]
            tracing.cached(traced_run, hits[key])
            stats.cached += 1
            stats.unscored += hits[key].unscored
        else:
            positions.setdefault(key, []).append(index)
    todo_keys = list(positions)
    todo_items = [items[positions[key][0]] for key in todo_keys]
    stats.duplicates = sum(len(indices) - 1 for indices in positions.values())

    servers = breakers_of(judge, enabled_only=False)  # a 401/403/404 from one stops the run (exit 2)
    pools = _pools(servers)
    figures_before = _endpoint_figures(pools, judge)
    stats.executor = getattr(judge, "executor", None)
    if todo_items and preflight:  # before the progress display: a refused key is the one line shown
        try:
            await needs_of(judge).ready()  # no embeddings extra and no Ollama: how to install it (exit 2)
            await preflight_servers(judge)
            if servers and (refused := config_error_of(servers)) is not None:
                raise refused  # 401/403 at preflight: the run stops before any item (exit 2)
        except BaseException:
            tracing.end_batch(traced_run, stats.as_dict())
            raise

    own_progress = progress is True
    if own_progress:  # here, not at the top: a run without a bar (--no-progress, --json) never loads rich.progress
        from ragjury.evals.runs.progress import make_progress
    bar: Progress | None = make_progress() if own_progress else (progress or None)  # type: ignore[assignment]
    task_id = None
    if bar is not None:
        task_id = bar.add_task(description, total=len(items), completed=stats.cached, **_counters(stats))
        if own_progress:
            bar.start()
    stored: set[int] = set()
    lease_owner = new_lease_owner()

    def shown(advance: int) -> None:
        if bar is not None and task_id is not None:
            bar.update(task_id, advance=advance, **_counters(stats))

    writes = _Writes(cache, owner=owner, lease_owner=lease_owner, each=_commits_each(judge), shown=shown)

    def on_result(index: int, judgment: Judgment[Any]) -> None:
        """Called as each judgment completes: queue its commit (``_Writes``), count and show it."""
        key = todo_keys[index]
        unscored = judgment.unscored
        not_attempted = unscored and is_not_attempted(judgment.unscored_reason)
        misconfigured = bool(servers) and config_error_of(servers) is not None  # nothing of it is cached
        filled = positions[key]
        stored.add(index)
        tracing.judged(traced_run, judgment)
        for position in filled:
            results[position] = judgment
        if judgment.recalled:  # every model call of it was in the cache already (a panel's members)
            stats.cached += len(filled)
            stats.duplicates -= len(filled) - 1
        else:
            stats.judged += 1
        if unscored:
            stats.unscored += len(filled)
            stats.not_attempted += not_attempted * len(filled)
        if judgment.fallback_used:
            stats.fallback += 1
        usage = judgment.usage
        if usage.requests or usage.input_tokens or usage.output_tokens:
            stats.usage = stats.usage + usage
        writes.add(key, judgment, not_attempted=not_attempted or misconfigured, advance=len(filled))

    index_of = {key: index for index, key in enumerate(todo_keys)}

    def on_shared(key: str, judgment: Judgment[Any]) -> None:
        """A judgment another process made during this run: take it like a cache hit."""
        if callable(from_cache):
            judgment = from_cache(judgment)
        stored.add(index_of[key])
        tracing.cached(traced_run, judgment)
        filled = positions[key]
        for position in filled:
            results[position] = judgment
        stats.cached += len(filled)
        stats.unscored += judgment.unscored * len(filled)
        stats.fallback += int(judgment.fallback_used)
        if bar is not None and task_id is not None:
            bar.update(task_id, advance=len(filled), **_counters(stats))

    async def judge_these(indices: list[int]) -> None:
        batch = [todo_items[index] for index in indices]

        def forward(position: int, judgment: Judgment[Any]) -> None:
            on_result(indices[position], judgment)

        judged = await judge.ajudge_batch(batch, on_result=forward)
        # A judge that ignores ``on_result`` still has its judgments stored and counted.
        for position, judgment in enumerate(judged):
            if indices[position] not in stored:
                on_result(indices[position], judgment)
        writes.flush()  # the chunk is committed before the next one is claimed
        if servers and (refused := config_error_of(servers)) is not None:
            raise refused  # a configuration error, not an item failure: no fallback, exit 2

    try:
        if todo_items:
            with _concurrency(judge, concurrency, pools), sharing(CacheMemo(cache) if cache is not None else None):
                if cache is None:
                    await judge_these(list(range(len(todo_items))))
                else:
                    await _judge_shared(
                        cache,
                        todo_keys,
                        judge_these,
                        on_shared,
                        owner=lease_owner,
                        chunk=_claim_chunk(judge, getattr(judge, "concurrency", None) if pools else concurrency),
                        run_started=run_started,
                        lease_ttl_s=lease_ttl_s,
                    )
    except (asyncio.CancelledError, KeyboardInterrupt):
        stats.interrupted = True
        raise
    finally:
        try:
            writes.flush()  # interrupted (Ctrl-C) or failed: what completed is kept all the same
        finally:
            if cache is not None and todo_items:
                cache.release(lease_owner)
            stats.wall_s = time.perf_counter() - started
            stats.completed = sum(result is not None for result in results)  # each item once, however it came
            stats.cache_unreadable = cache.unreadable - unreadable_before if cache is not None else 0
            if pools:
                from ragjury.rag_agent.model.endpoints import endpoint_report

                stats.endpoints = endpoint_report(figures_before, _endpoint_figures(pools, judge))
            if bar is not None and own_progress:
                bar.stop()
            tracing.end_batch(traced_run, stats.as_dict())
    stats.fallback += sum(j.fallback_used for j in hits.values())
    return JudgedBatch([j for j in results if j is not None], stats)


_MAX_CHUNK = 512
"""Most items claimed (and handed to ``ajudge_batch``) at a time."""

_CLAIM_ALL = 1_000_000
"""Items claimed at a time by a judge that runs a whole run's items as one pipeline (Ray)."""


def _vectorised(judge: object) -> bool:
    """A model-free judge with its own ``ajudge_batch`` (one pass over the batch, no model server)."""
    per_item = getattr(type(judge), "ajudge_batch", None) is BaseJudge.ajudge_batch
    return not per_item and not breakers_of(judge)


def _commits_each(judge: Judge[Any, Any]) -> bool:
    """Whether each judgment is worth a commit of its own: True unless the judge is vectorised
    and names no model (a commit would cost more than the judgment); a judgment that took a
    model call, or a task of its own, is committed the moment it completes."""
    return not _vectorised(judge) or judge.identity.model is not None


def _claim_chunk(judge: object, concurrency: int | None) -> int:
    """Items claimed at a time: a few per request slot for a judge with a model or one that
    judges item by item (so a second process on the cache gets its share), a large batch for a
    model-free judge with its own vectorised ``ajudge_batch``."""
    if getattr(judge, "claims_all", False):  # Ray: one pipeline for every item not in the cache
        return _CLAIM_ALL
    if _vectorised(judge):
        return _MAX_CHUNK
    slots = concurrency or int(getattr(judge, "concurrency", 4) or 4)
    return max(8, 2 * slots)


class _Writes:
    """The cache writes and progress updates of one run, in as few transactions as crash safety
    allows.

    - ``each=True`` (a judge naming a model, or one judging item by item): every judgment is
      committed in ``add``, before anything else happens: a process killed at any moment (SIGKILL
      included) has lost only the judgments still in flight.
    - ``each=False`` (a vectorised judge that names no model): judgments are queued and committed
      in one transaction when the chunk ends (``flush``, called by the runner before it claims
      the next chunk), or as soon as the event loop gets control back if the judge awaits
      between results; a SIGKILL loses at most the chunk being judged (up to ``_MAX_CHUNK``
      items, well under a second of work). One commit per row cost more than judging the row
      (15,094 rows of ``contains``: 3.5 s of commits for 0.8 s of judging).

    Items a breaker stopped (not attempted) are not stored; their leases are given back so that
    another process may try them. The progress bar advances at each commit.
    """

    def __init__(
        self,
        cache: JudgmentCache | None,
        *,
        owner: str,
        lease_owner: str,
        each: bool,
        shown: Callable[[int], None],
    ) -> None:
        self.cache = cache
        self.owner = owner
        self.lease_owner = lease_owner
        self.each = each
        self.shown = shown
        self.entries: list[tuple[str, Judgment[Any]]] = []
        self.released: list[str] = []
        self.advance = 0
        self.scheduled = False
        self.loop = asyncio.get_running_loop()

    def add(self, key: str, judgment: Judgment[Any], *, not_attempted: bool, advance: int) -> None:
        """Queue one completed judgment (commit it now when ``each``); called on the loop's thread."""
        if self.cache is not None:
            if not_attempted:  # nothing judged, nothing stored: let another process try it
                self.released.append(key)
            else:
                self.entries.append((key, judgment))
        self.advance += advance
        if self.each:
            self.flush()
        elif not self.scheduled:
            self.scheduled = True
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        """Commit what is queued (one transaction) and advance the progress bar."""
        self.scheduled = False
        entries, self.entries = self.entries, []
        released, self.released = self.released, []
        if self.cache is not None:
            if entries:
                self.cache.put_many(entries, owner=self.owner)
            if released:
                self.cache.release(self.lease_owner, released)
        advance, self.advance = self.advance, 0
        if advance:
            self.shown(advance)


async def _judge_shared(
    cache: JudgmentCache,
    todo_keys: list[str],
    judge_these: Callable[[list[int]], Awaitable[None]],
    on_shared: Callable[[str, Judgment[Any]], None],
    *,
    owner: str,
    chunk: int,
    run_started: float,
    lease_ttl_s: float,
    poll_s: float = 0.2,
) -> None:
    """Judge ``todo_keys`` as one of possibly several processes on ``cache``.

    Claims the next ``chunk`` keys nobody holds and judges them, until none is left; then waits
    for the keys other processes hold, taking their judgments as they are stored, and claims
    (and judges) any whose lease was given up or expired without a judgment. Leases are renewed
    in the background while this runs. A chunk judged in under a second doubles the next one (up
    to ``_MAX_CHUNK``): fast judges pay few claims, slow (model) judges share the work finely.
    """
    index_of = {key: index for index, key in enumerate(todo_keys)}
    queue = deque(todo_keys)  # keys not yet looked at
    waiting: dict[str, None] = {}  # keys held by others (ordered set)

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(lease_ttl_s / 3)
            cache.renew(owner, ttl_s=lease_ttl_s)

    renewing = asyncio.create_task(heartbeat())
    try:
        idle = poll_s
        while queue or waiting:
            if queue:
                window = list(islice(queue, 0, 2 * chunk))
                claimed, skipped = cache.claim(
                    window, owner=owner, ttl_s=lease_ttl_s, limit=chunk, fresh_since=run_started
                )
                for _ in range(len(claimed) + len(skipped)):
                    queue.popleft()
                waiting.update(dict.fromkeys(skipped))
                if claimed:
                    began = time.perf_counter()
                    await judge_these([index_of[key] for key in claimed])
                    if time.perf_counter() - began < 1.0:
                        chunk = max(chunk, min(2 * chunk, _MAX_CHUNK))
                    continue
                if queue:
                    continue
            # Only keys held by other processes are left: take their results, or take over.
            found = cache.get_many(list(waiting), fresh_since=run_started)
            for key, judgment in found.items():
                del waiting[key]
                on_shared(key, judgment)
            if waiting:
                claimed, _ = cache.claim(
                    list(waiting), owner=owner, ttl_s=lease_ttl_s, limit=chunk, fresh_since=run_started
                )
                for key in claimed:
                    del waiting[key]
                if claimed:
                    await judge_these([index_of[key] for key in claimed])
                    idle = poll_s
                elif not found:
                    await asyncio.sleep(idle)
                    idle = min(idle * 1.5, 2.0)
    finally:
        renewing.cancel()
        with suppress(asyncio.CancelledError):
            await renewing


_RECORDING: list[list[RunStats]] = []
"""The lists of the ``recording_runs`` blocks open now (none outside a command): nothing is kept
once a block ends, so a long-lived process (a notebook, a server) holds no stats of past runs."""


@contextmanager
def recording_runs() -> Iterator[list[RunStats]]:
    """The stats of every ``run_judgments`` started inside the block, newest last, each filled in
    as its run goes: a run stopped by Ctrl-C raises instead of returning them, and a command's
    ``--json`` still owes its counts."""
    started: list[RunStats] = []
    _RECORDING.append(started)
    try:
        yield started
    finally:
        for index, open_list in enumerate(_RECORDING):
            if open_list is started:  # by identity: two empty lists are equal
                del _RECORDING[index]
                break


def interrupted_message(cache: JudgmentCache | None, saved: int | None = None) -> str:
    """What to tell a user whose run was interrupted: where the work is and how to resume."""
    if cache is None:
        return "interrupted: caching was off (--no-cache), so the completed judgments were not kept."
    count = f"{saved} judgments are" if saved is not None else "every completed judgment is"
    return (
        f"interrupted: {count} saved in {cache.path}; run the same command again to resume "
        "(cached items are not judged again)."
    )


def __getattr__(name: str) -> Any:
    """``RateColumn`` and ``make_progress``, still importable from here (``evals.runs.progress``)."""
    if name in ("RateColumn", "make_progress"):
        from ragjury.evals.runs import progress

        return getattr(progress, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["RateColumn", "JudgedBatch", "RunStats", "interrupted_message", "make_progress", "recording_runs",
           "run_judgments"]
