"""``--executor ray``: the items a run must judge, as a Ray Data pipeline on a cluster or a local Ray.

Why: one process judges as fast as its servers answer, but a fleet of servers (or a model-free
judge over millions of rows) wants workers on several machines. ``RayJudge`` wraps the judge the
command built; the runner (``evals.runs.runner``) hands it the items that are not in the cache,
and it sends them through ``map_batches`` with an async callable class (``JudgeWorker``) on an
actor pool (``ActorPoolStrategy``): one actor per endpoint for a judge that calls a model (each
bound to its endpoint, moving to the others only while that one is down), one per CPU for a
model-free judge. Judgments stream back to the driver as the workers' blocks complete, and the
runner writes each to the cache as it arrives, so resume, Ctrl-C, dedup and every count are the
ones of a run in one process: the cache decides what is done; a worker that dies loses only the
judgments it had not returned, and Ray runs its batch again. A worker whose server refused the
key (HTTP 401/403) says so with its judgments, and the driver stops the run with that error.
Each worker's pool shares with the others, through the run's board (``_Seats``), its latencies and
the servers its breakers tripped: a hung server costs a few seconds of hedging, not the deadline of
the items of the worker bound to it, and a server one worker found dead or hung the others leave
alone, as in one process.

Ray is imported here only, and this module only by ``--executor ray``: no other command pays for it.
Workers rebuild the judge with the factory the caller resolved (``JudgeSpec``: a picklable
function, its settings and options), so ragjury (with the judge's plug-in, if any) must be
installed on every node of a cluster.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import pickle
import re
import signal
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# A CLI prints only its own output: Ray Data's per-run INFO lines and the C++ core worker's
# notices go to Ray's session log files, not to the user's terminal (set before Ray is imported;
# a user's own setting wins).
os.environ.setdefault("RAY_DATA_LOG_LEVEL", "ERROR")
os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")

import ray  # noqa: E402
from ray.data import ActorPoolStrategy, DataContext  # noqa: E402

from ragjury.evals.runs.cache_codec import dump_judgment, load_judgment
from ragjury.rag_agent.core.needs import Needs, needs_of
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.model.breaker import breakers_of, config_error_of
from ragjury.rag_agent.model.config_errors import ModelServerConfigError


@dataclass(frozen=True)
class JudgeSpec:
    """How a worker builds the judge again: ``factory(settings, **options)``.

    ``factory`` is resolved by the caller (``functools.partial(build_judge, task, name)`` for a
    catalogue judge) and must pickle: Ray ships it to every worker. This module never resolves a
    judge's name itself."""

    factory: Callable[..., Any]
    settings: Any
    options: dict[str, Any] = field(default_factory=dict)

    def build(self, settings: Any | None = None) -> Any:
        return self.factory(settings or self.settings, **self.options)


@ray.remote(num_cpus=0)
class _Seats:
    """The run's board: hands each worker the next endpoint index, so the pool's workers cover
    every endpoint; says when the driver stopped the run (Ctrl-C), so workers send no new request;
    and holds what the workers' pools learned (``share``), so a hung or dead server found by one
    worker costs the others nothing."""

    def __init__(self) -> None:
        self.next = 0
        self.halted = False
        self.latencies: dict[int, deque[float]] = {}
        """Each pool's recent answered seconds, over all workers: what "late" is measured against."""
        self.trips: dict[tuple[int, str], tuple[int, str]] = {}
        """(pool, endpoint URL) -> (how many times a worker reported it tripped, the last reason)."""

    def take(self) -> int:
        taken, self.next = self.next, self.next + 1
        return taken

    def halt(self) -> None:
        self.halted = True

    def stopped(self) -> bool:
        return self.halted

    def share(
        self, latencies: dict[int, list[float]], trips: dict[tuple[int, str], str]
    ) -> tuple[dict[int, list[float]], dict[tuple[int, str], tuple[int, str]]]:
        """Take a worker's new latencies and newly tripped endpoints; give back every pool's
        latencies and every trip reported so far."""
        from ragjury.rag_agent.model.endpoints import LATENCY_WINDOW

        for pool, seconds in latencies.items():
            self.latencies.setdefault(pool, deque(maxlen=LATENCY_WINDOW)).extend(seconds)
        for key, detail in trips.items():
            self.trips[key] = (self.trips.get(key, (0, ""))[0] + 1, detail)
        return {pool: list(seconds) for pool, seconds in self.latencies.items()}, dict(self.trips)


SHARE_S = 0.25
"""How often a model-calling worker shares what its pools learned with the run's board (and reads
what the others did): a request held by a hung server is hedged, and a tripped server left alone,
within about this long of another worker's finding (``JudgeWorker._share``)."""


class JudgeWorker:
    """The async callable class of ``map_batches``: one judge per actor, bound to one endpoint.

    A batch is judged with at most ``slots`` judgments in flight across the batches the actor runs
    at once (Ray Data runs several), so the actor never sends its endpoint more than its share.
    """

    def __init__(self, spec: JudgeSpec, seats: Any, endpoints: int, slots: int, driver: tuple[str, int]) -> None:
        self.driver = driver
        self.seats = seats
        settings = spec.settings
        if endpoints > 1:
            seat = ray.get(seats.take.remote()) % endpoints
            settings = settings.model_copy(update={"preferred_endpoint": seat})
        self.judge = spec.build(settings)
        self.slots = slots
        self._gate: asyncio.Semaphore | None = None
        self.worker = ray.get_runtime_context().get_actor_id() or str(os.getpid())
        self.model_free = not breakers_of(self.judge, enabled_only=False)
        self._sharing: asyncio.Task[None] | None = None

    async def _share(self) -> None:
        """Runs beside the batches: each worker's pools (one per judge model, its endpoints in the
        same order everywhere) would otherwise learn alone. A request held by a hung server is sent
        to another one only after a few answers set what "late" means, and the worker bound to
        that server gets none of its own (Ray Data gives the next batch to a less busy worker): its
        items waited the full deadline. So each worker sends the board its new latencies and the
        endpoints its breakers tripped, and takes the pool-wide latencies (its hedges) and the
        others' trips (it sends nothing more there until the cool-down's probe), as one process's
        pool does."""
        from ragjury.rag_agent.model.endpoints import LATENCY_WINDOW, pools_of

        pools = pools_of(self.judge)
        if not pools:
            return

        def answered(pool: Any) -> int:  # each answer appends exactly one latency (PooledModel._send)
            return sum(endpoint.answered for endpoint in pool.endpoints)

        counted = [answered(pool) for pool in pools]
        known: dict[tuple[int, str], float | None] = {}  # the opening already reported or taken from the board
        seen: dict[tuple[int, str], int] = {}
        with suppress(Exception):  # the board is gone: the run is over
            while True:
                latencies: dict[int, list[float]] = {}
                trips: dict[tuple[int, str], str] = {}
                for number, pool in enumerate(pools):
                    new = answered(pool) - counted[number]
                    if new > 0:
                        latencies[number] = list(pool.latencies)[-new:]
                    counted[number] += new
                    for endpoint in pool.endpoints:
                        key, breaker = (number, endpoint.url), endpoint.breaker
                        if breaker.opened_at is not None and breaker.opened_at != known.get(key):
                            known[key] = breaker.opened_at
                            trips[key] = breaker.last_error or "tripped"
                shared, tripped = await self.seats.share.remote(latencies, trips)
                for number, seconds in shared.items():
                    if number < len(pools):  # keep the answers that came in meanwhile (sent next time)
                        pool = pools[number]
                        since = answered(pool) - counted[number]
                        recent = list(pool.latencies)[-since:] if since > 0 else []
                        pool.latencies = deque([*seconds, *recent], maxlen=LATENCY_WINDOW)
                for key, (times, detail) in tripped.items():
                    if times <= seen.get(key, 0):
                        continue
                    seen[key] = times
                    number, url = key
                    for endpoint in pools[number].endpoints if number < len(pools) else []:
                        if endpoint.url == url and not endpoint.breaker.is_open:
                            endpoint.breaker.trip(f"{detail} (found by another worker)")
                            known[key] = endpoint.breaker.opened_at
                await asyncio.sleep(SHARE_S)

    def _driver_gone(self) -> bool:
        """True when the driver's process is gone (checked where the actor shares its node): Ray
        would end the actor soon, but a request sent meanwhile is an orphan the resume repeats."""
        node, pid = self.driver
        if node != ray.get_runtime_context().get_node_id():
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:
            return False
        return False

    async def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        if self._driver_gone():
            os._exit(1)  # nobody will read these judgments: send nothing more
        items = [pickle.loads(data) for data in batch["item"]]
        if self.model_free:  # CPU work: the judge's own (maybe vectorised) batch method
            judgments = await self.judge.ajudge_batch(items)
        else:
            if self._gate is None:
                self._gate = asyncio.Semaphore(self.slots)
            if self._sharing is None:
                self._sharing = asyncio.ensure_future(self._share())
            gate = self._gate

            async def one(item: Any) -> Judgment[Any] | None:
                async with gate:
                    if self._driver_gone():
                        os._exit(1)
                    if await self.seats.stopped.remote():  # Ctrl-C: nothing new is sent
                        return None
                    return await self.judge.ajudge(item)

            answered = await asyncio.gather(*(one(item) for item in items))
            kept = [position for position, judgment in enumerate(answered) if judgment is not None]
            judgments = [answered[position] for position in kept]
            batch = {"index": np.asarray(batch["index"])[kept]}
        figures = json.dumps(_pool_figures(self.judge))
        refused = config_error_of(self.judge)  # a key refused here stops the driver's run too
        said = json.dumps([refused.headline, refused.fix, refused.status, refused.where]) if refused else ""
        return {
            "refused": np.asarray([said] * len(judgments), dtype=object),
            "index": np.asarray(batch["index"]),
            "judgment": np.asarray([dump_judgment(j) for j in judgments], dtype=object),
            "worker": np.asarray([self.worker] * len(judgments), dtype=object),
            "figures": np.asarray([figures] * len(judgments), dtype=object),
        }


def _pool_figures(judge: Any) -> dict[str, dict[str, Any]]:
    from ragjury.rag_agent.model.endpoints import endpoint_figures, pools_of

    return endpoint_figures(pools_of(judge))


def _tripped(judge: Any) -> dict[tuple[int, str], str]:
    """The endpoints whose breaker is open in ``judge``'s pools, keyed as the board keys them."""
    from ragjury.rag_agent.model.endpoints import pools_of

    return {
        (number, endpoint.url): endpoint.breaker.last_error or "tripped"
        for number, pool in enumerate(pools_of(judge))
        for endpoint in pool.endpoints
        if endpoint.breaker.opened_at is not None and endpoint.breaker.is_open
    }


def start_ray(**local: Any) -> bool:
    """Join the cluster at ``RAY_ADDRESS`` or start a local Ray (unless one is up already);
    True when this call started it (and ``stop_ray`` should end it)."""
    if ray.is_initialized():
        return False
    options: dict[str, Any] = {"log_to_driver": False, "include_dashboard": False, **local}
    if os.environ.get("RAY_ADDRESS"):
        options = {"log_to_driver": False}
    handlers = _signal_handlers()
    try:
        with _native_notices_dropped(), _daemons_in_a_session_of_their_own():
            ray.init(logging_level=logging.ERROR, **options)
    except SystemExit as ended:  # Ray's own SIGTERM handler, while it starts: exit 15 and no word
        _restore_signal_handlers(handlers)
        if ended.code not in (signal.SIGTERM, -signal.SIGTERM, 128 + signal.SIGTERM):
            raise
        with contextlib.suppress(Exception):
            ray.shutdown()
        print("stopped by SIGTERM while Ray was starting: nothing was judged (exit 143)", file=sys.stderr)
        raise SystemExit(128 + signal.SIGTERM) from None
    _restore_signal_handlers(handlers)  # SIGTERM ends a run as Ctrl-C does (cli.main), not in Ray's abort
    context = DataContext.get_current()
    context.enable_progress_bars = False  # ragjury draws its own progress
    context.print_on_execution_start = False
    return True


@contextmanager
def _daemons_in_a_session_of_their_own() -> Iterator[None]:
    """Start the local Ray's daemons (GCS, raylet, and the workers the raylet starts) outside the
    driver's process group. Why: a signal to the group (``kill -TERM -PGID``, ``timeout``, a CI
    job cancelled) killed the raylet at the moment the driver began to stop; the driver's Ray core
    then ended the process with exit 1 and no output, before it could save, print the run and
    exit 143 (1 run in 8 on a loaded machine). Now only the driver gets the signal and stops the
    daemons itself (``stop_ray``); they still die with the driver if it is killed (Ray's
    kernel-level fate-sharing). Ray's own process class is swapped for the call only; where it
    is missing (another Ray version) the daemons start as before."""
    from ray._private import services

    console_popen = getattr(services, "ConsolePopen", None)
    if console_popen is None or sys.platform == "win32":
        yield
        return

    class InOwnSession(console_popen):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("start_new_session", True)
            super().__init__(*args, **kwargs)

    services.ConsolePopen = InOwnSession
    try:
        yield
    finally:
        services.ConsolePopen = console_popen


NATIVE_LINE = re.compile(r"^\[\d{4}-\d\d-\d\d [\d:,]+ [DIWEF] \d+ \d+\] \w+\.cc:\d+: ")
"""A line Ray's C++ core writes to the process's stderr, e.g. ``[2026-11-27 18:52:14,213 I 27377
27377] logging.cc:303: Set ray log level from environment variable ...``."""


@contextmanager
def _native_notices_dropped() -> Iterator[None]:
    """Ray's C++ core announces its log level on the process's own stderr (file descriptor 2)
    while it starts, whatever the level: hold fd 2 for that moment and pass on every line that
    is not one of those notices. Ray's daemons started meanwhile keep the held file, not the
    user's terminal."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real stderr (embedded): nothing to hold
        yield
        return
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            with suppress(OSError, ValueError):
                sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            passed = [line for line in held.read().decode(errors="replace").splitlines() if not NATIVE_LINE.match(line)]
            if passed:
                print("\n".join(passed), file=sys.stderr)


def stop_ray(started: bool) -> None:
    """Shut down the Ray this run started; a second Ctrl-C during the shutdown is ignored (it
    printed a 40-line traceback from inside ``ray.shutdown``)."""
    if not (started and ray.is_initialized()):
        return
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: no handlers to change
        ray.shutdown()
        return
    try:
        ray.shutdown()
    finally:
        signal.signal(signal.SIGINT, previous)


def _signal_handlers() -> dict[int, Any]:
    try:
        return {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    except ValueError:
        return {}


def _restore_signal_handlers(handlers: dict[int, Any]) -> None:
    for sig, handler in handlers.items():
        with contextlib.suppress(ValueError, TypeError):
            if handler is not None:
                signal.signal(sig, handler)


@dataclass(frozen=True)
class _Layout:
    actors: int
    endpoints: int
    slots: int
    model_free: bool


class RayJudge:
    """A judge whose ``ajudge_batch`` runs on Ray; everything else is the wrapped judge's.

    The driver keeps the wrapped judge (``inner``): the runner preflights its servers and reads
    its configuration errors as in one process. ``claims_all``: the runner hands over every item
    not in the cache at once, one pipeline per run rather than one per chunk.
    """

    claims_all = True
    executor = "ray"

    def __init__(self, inner: Any, spec: JudgeSpec, *, block_items: int | None = None) -> None:
        self.inner = inner
        self.spec = spec
        self.identity = inner.identity
        self.concurrency = getattr(inner, "concurrency", 4)
        self.block_items = block_items
        self._figures: dict[str, dict[str, dict[str, Any]]] = {}

    def needs(self) -> Needs:
        """The wrapped judge's: the driver preflights its servers as in one process."""
        return needs_of(self.inner)

    async def ajudge(self, item: Any) -> Judgment[Any]:
        return await self.inner.ajudge(item)

    def remote_endpoint_figures(self) -> dict[str, dict[str, Any]]:
        """Each endpoint's figures summed over the workers (their latest report each)."""
        summed: dict[str, dict[str, Any]] = {}
        for per_worker in self._figures.values():
            for url, figures in per_worker.items():
                into = summed.setdefault(url, {"url": url})
                for name, value in figures.items():
                    if name != "url":
                        into[name] = into.get(name, 0) + value
        return summed

    def _layout(self) -> _Layout:
        """One actor per endpoint for a judge that calls a model (its slots: the per-server limit),
        one per CPU of the cluster for a model-free judge."""
        from ragjury.rag_agent.model.endpoints import pools_of

        if breakers_of(self.inner, enabled_only=False):
            pools = pools_of(self.inner)
            endpoints = max((len(pool.endpoints) for pool in pools), default=1)
            slots = pools[0].limit if pools else max(1, int(self.concurrency))
            return _Layout(actors=endpoints, endpoints=endpoints, slots=slots, model_free=False)
        cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
        return _Layout(actors=max(1, cpus), endpoints=1, slots=1, model_free=True)

    def _refused(self, said: str) -> ModelServerConfigError:
        """A worker's configuration error, kept by the driver's breakers too (so the runner and
        every later check see it, as in one process) and returned to be raised."""
        headline, fix, status, where = json.loads(said)
        refused = ModelServerConfigError(headline, fix, status=status, where=where)
        for breaker in breakers_of(self.inner, enabled_only=False):
            breaker.refuse_configuration(refused)
        return refused

    async def ajudge_batch(
        self, items: Sequence[Any], on_result: Callable[[int, Judgment[Any]], None] | None = None
    ) -> list[Judgment[Any]]:
        if not items:
            return []
        layout = self._layout()
        model_free = layout.model_free
        # A model judge's batch is one item: each judgment streams back (and is cached) as it
        # completes, so Ctrl-C or a killed driver loses only requests in flight, as in one process.
        per_block = self.block_items or (512 if model_free else 1)
        rows = [{"index": index, "item": pickle.dumps(item)} for index, item in enumerate(items)]
        seats = _Seats.remote()
        if not model_free:  # what the driver's preflight found (a dead server) spares every worker its connect
            seats.share.remote({}, _tripped(self.inner))
        blocks = max(1, -(-len(rows) // per_block))
        dataset = ray.data.from_items(rows, override_num_blocks=blocks).map_batches(
            JudgeWorker,
            fn_constructor_kwargs={
                "spec": self.spec, "seats": seats, "endpoints": layout.endpoints, "slots": layout.slots,
                "driver": (ray.get_runtime_context().get_node_id(), os.getpid()),
            },
            # A model-calling actor runs several batches at once (two per slot), all through its
            # slots: while one waits for its answer (or Ray schedules the next), the others keep the
            # endpoint busy. It waits on the network, so it asks for a tenth of a CPU.
            compute=ActorPoolStrategy(
                size=min(layout.actors, blocks) if model_free else layout.actors,
                max_concurrent_calls_per_actor=1 if model_free else 2 * layout.slots,
            ),
            batch_size=per_block,
            batch_format="numpy",
            num_cpus=1 if model_free else 0.1,
        )
        results: list[Judgment[Any] | None] = [None] * len(items)
        loop = asyncio.get_running_loop()
        arrived: asyncio.Queue[dict[str, Any] | BaseException | None] = asyncio.Queue()
        stop = threading.Event()

        def hand_over(message: dict[str, Any] | BaseException | None) -> None:
            with suppress(RuntimeError):  # the driver's loop is gone (Ctrl-C): nobody to tell
                loop.call_soon_threadsafe(arrived.put_nowait, message)

        def stream() -> None:  # Ray's iterator blocks: it runs beside the event loop
            try:
                for row in dataset.iter_rows():
                    if stop.is_set():
                        return
                    hand_over(row)
            except BaseException as error:  # noqa: BLE001 - handed to the driver's task
                if not stop.is_set():
                    hand_over(error)
            else:
                hand_over(None)

        def take(row: dict[str, Any]) -> None:
            index = int(row["index"])
            self._figures[str(row["worker"])] = json.loads(row["figures"])
            if row["refused"]:  # a worker's server refused the key: the run stops (exit 2)
                raise self._refused(row["refused"])
            if results[index] is not None:  # a batch Ray ran again: the first judgment stands
                return
            judgment = load_judgment(row["judgment"])
            results[index] = judgment
            if on_result is not None:
                on_result(index, judgment)

        reader = threading.Thread(target=stream, name="ragjury-ray-results", daemon=True)
        reader.start()
        try:
            while (row := await arrived.get()) is not None:
                if isinstance(row, BaseException):
                    raise row
                take(row)
        except asyncio.CancelledError:  # Ctrl-C: no new request; keep what the workers answered
            seats.halt.remote()
            await _drain(arrived, take, grace_s=DRAIN_S)
            raise
        finally:
            stop.set()
        missing = [index for index, judgment in enumerate(results) if judgment is None]
        for index in missing:  # not expected: judged here rather than lost
            judgment = await self.inner.ajudge(items[index])
            results[index] = judgment
            if on_result is not None:
                on_result(index, judgment)
        return [judgment for judgment in results if judgment is not None]


DRAIN_S = 3.0
"""After Ctrl-C, how long the driver still takes the judgments the workers are returning (an
answer is a few hundred milliseconds from the worker to the driver), so they are cached."""


async def _drain(arrived: asyncio.Queue[Any], take: Callable[[dict[str, Any]], None], *, grace_s: float) -> None:
    """Take the rows that arrive within ``grace_s`` (a second Ctrl-C ends it at once)."""
    loop = asyncio.get_running_loop()
    ends = loop.time() + grace_s
    with suppress(asyncio.TimeoutError, asyncio.CancelledError):
        while (left := ends - loop.time()) > 0:
            row = await asyncio.wait_for(arrived.get(), left)
            if row is None or isinstance(row, BaseException):
                return
            take(row)


def ray_judge(
    inner: Any, *, factory: Callable[..., Any], settings: Any, options: dict[str, Any] | None = None
) -> RayJudge:
    """The judge ``inner`` (built by ``factory(settings, **options)``, which workers call again) on Ray."""
    return RayJudge(inner, JudgeSpec(factory, settings, dict(options or {})))


__all__ = ["JudgeSpec", "JudgeWorker", "RayJudge", "ray_judge", "start_ray", "stop_ray"]
