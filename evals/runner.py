"""Run a judge over many items without ever losing work, and show how it goes.

``run_judgments`` looks every item up in the cache first (zero model calls for cached items),
judges the rest through ``judge.ajudge_batch`` with bounded concurrency, and writes each judgment
to the cache from the ``on_result`` callback the moment it completes. Identical items in one
batch are judged once. A rich progress bar shows rate, ETA, tokens spent and unscored counts.

On Ctrl-C the run stops; everything that completed is already committed, so re-running the same
command resumes where it stopped (``interrupted_message`` says so to the user).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from evals.cache import JudgmentCache, judgment_key
from rag_agent.protocol import Judge
from rag_agent.results import Judgment, Usage


@dataclass
class RunStats:
    """What a batch run did and cost: every summary prints these."""

    total: int = 0
    cached: int = 0
    """Judgments taken from the cache (no model call)."""
    judged: int = 0
    """Judgments made in this run (deduplicated items count once)."""
    unscored: int = 0
    """Unscored judgments among all results, cached or new."""
    fallback: int = 0
    usage: Usage = field(default_factory=Usage)
    """Tokens and requests spent in this run (cached judgments cost nothing now)."""
    wall_s: float = 0.0
    interrupted: bool = False

    @property
    def scored(self) -> int:
        return self.total - self.unscored

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

    def merge(self, other: RunStats) -> RunStats:
        """Two runs' stats added up (the agent pipeline runs several judges)."""
        return RunStats(
            total=self.total + other.total,
            cached=self.cached + other.cached,
            judged=self.judged + other.judged,
            unscored=self.unscored + other.unscored,
            fallback=self.fallback + other.fallback,
            usage=self.usage + other.usage,
            wall_s=self.wall_s + other.wall_s,
            interrupted=self.interrupted or other.interrupted,
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "n": self.total,
            "scored": self.scored,
            "unscored": self.unscored,
            "cached": self.cached,
            "judged": self.judged,
            "fallback_used": self.fallback,
            "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens,
            "tokens": self.tokens,
            "requests": self.requests,
            "wall_s": round(self.wall_s, 3),
            "judgments_per_s": round(self.judgments_per_s, 2),
            "interrupted": self.interrupted,
        }


class RunResult(NamedTuple):
    """Judgments in input order and the run's stats; unpacks as ``judgments, stats``."""

    judgments: list[Judgment[Any]]
    stats: RunStats


class RateColumn(ProgressColumn):
    """Judgments per second, from rich's own speed estimate."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:.1f}/s" if speed else "-/s", style="progress.data.speed")


def make_progress(console: Console | None = None, *, enabled: bool = True) -> Progress:
    """The progress bar every long ragjury run shows (on stderr, so stdout stays clean)."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[status]}"),
        console=console or Console(stderr=True),
        disable=not enabled,
        transient=False,
    )


@contextmanager
def _concurrency(judge: object, concurrency: int | None) -> Iterator[None]:
    """Set ``judge.concurrency`` for the run and restore it after (BaseJudge reads it)."""
    if concurrency is None or not hasattr(judge, "concurrency"):
        yield
        return
    before = judge.concurrency  # type: ignore[attr-defined]
    judge.concurrency = max(1, concurrency)  # type: ignore[attr-defined]
    try:
        yield
    finally:
        judge.concurrency = before  # type: ignore[attr-defined]


def _status(stats: RunStats) -> str:
    return f"tokens {stats.tokens:,}  unscored {stats.unscored}  cached {stats.cached}"


async def run_judgments(
    judge: Judge[Any, Any],
    items: Sequence[Any],
    *,
    cache: JudgmentCache | None = None,
    concurrency: int | None = None,
    progress: bool | Progress = True,
    description: str = "judging",
) -> RunResult:
    """Judge ``items`` with ``judge``, through the cache; results keep input order.

    ``progress`` may be a ``Progress`` already on screen (a task is added to it), True for a
    new bar on stderr, or False for none. On cancellation (Ctrl-C) ``CancelledError`` or
    ``KeyboardInterrupt`` propagates; everything completed is already in the cache.
    """
    started = time.perf_counter()
    stats = RunStats(total=len(items))
    identity = judge.identity
    owner = identity.key()
    keys = [judgment_key(identity, item) for item in items]
    results: list[Judgment[Any] | None] = [None] * len(items)

    hits = cache.get_many(keys) if cache is not None else {}
    # Identical items are judged once; ``positions[key]`` lists every input index they fill.
    positions: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        if key in hits:
            results[index] = hits[key]
            stats.cached += 1
            stats.unscored += hits[key].unscored
        else:
            positions.setdefault(key, []).append(index)
    todo_keys = list(positions)
    todo_items = [items[positions[key][0]] for key in todo_keys]

    own_progress = progress is True
    bar: Progress | None = make_progress() if own_progress else (progress or None)  # type: ignore[assignment]
    task_id = None
    if bar is not None:
        task_id = bar.add_task(description, total=len(items), completed=stats.cached, status=_status(stats))
        if own_progress:
            bar.start()
    stored: set[int] = set()

    def on_result(index: int, judgment: Judgment[Any]) -> None:
        """Called as each judgment completes: commit it first, then count and show it."""
        key = todo_keys[index]
        if cache is not None:
            cache.put(key, judgment, owner=owner)
        stored.add(index)
        filled = positions[key]
        for position in filled:
            results[position] = judgment
        stats.judged += 1
        stats.unscored += judgment.unscored * len(filled)
        stats.fallback += int(judgment.fallback_used)
        stats.usage = stats.usage + judgment.usage
        if bar is not None and task_id is not None:
            bar.update(task_id, advance=len(filled), status=_status(stats))

    try:
        if todo_items:
            with _concurrency(judge, concurrency):
                judged = await judge.ajudge_batch(todo_items, on_result=on_result)
            # A judge that ignores ``on_result`` still has its judgments stored and counted.
            for index, judgment in enumerate(judged):
                if index not in stored:
                    on_result(index, judgment)
    except (asyncio.CancelledError, KeyboardInterrupt):
        stats.interrupted = True
        raise
    finally:
        stats.wall_s = time.perf_counter() - started
        if bar is not None and own_progress:
            bar.stop()
    stats.fallback += sum(j.fallback_used for j in hits.values())
    return RunResult([j for j in results if j is not None], stats)


def interrupted_message(cache: JudgmentCache | None, saved: int | None = None) -> str:
    """What to tell a user whose run was interrupted: where the work is and how to resume."""
    if cache is None:
        return "interrupted: caching was off (--no-cache), so the completed judgments were not kept."
    count = f"{saved} judgments are" if saved is not None else "every completed judgment is"
    return (
        f"interrupted: {count} saved in {cache.path}; run the same command again to resume "
        "(cached items are not judged again)."
    )


__all__ = ["RateColumn", "RunResult", "RunStats", "interrupted_message", "make_progress", "run_judgments"]
