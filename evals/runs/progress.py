"""Progress of a long run that reads whole at any width, and in CI logs.

rich's stock columns are cut mid-word on a narrow terminal and print one truncated frame in a
log. So on a terminal the columns that fit are chosen by importance at every refresh, and
elsewhere whole plain lines are written; counters (``unscored``, ``errors``, ``tokens``,
``cached``, ``status``) are task fields passed to ``add_task`` / ``update``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TaskID
from rich.table import Table
from rich.text import Text

PLAIN_INTERVAL_S = 30.0
"""Seconds between two plain lines of one task when fewer than 10 % were done in between."""
PLAIN_STEP = 0.10
"""A plain line each time another tenth of the work is done..."""
PLAIN_MIN_GAP_S = 1.0
"""...but not sooner than this after the last one: a run of a few seconds gets a few lines."""

COUNTERS: tuple[str, ...] = ("unscored", "errors", "tokens", "cached")
"""Task fields shown as ``name value``, in this order."""


def duration(seconds: float | None) -> str:
    """``45s``, ``1m53s``, ``2h05m``: short enough for a narrow terminal, unambiguous in a log."""
    if seconds is None or math.isnan(seconds) or math.isinf(seconds):
        return "-"
    total = max(0, int(round(seconds)))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"


START_FIELD = "_start"
"""Task field holding the count done before the run (cached items): not part of the rate."""


def rate(task: Task) -> str:
    """Items per second: rich's recent-window estimate while running, the whole run's average
    once finished (items done before the run, e.g. cached, excluded either way)."""
    speed = task.speed
    if task.finished and task.finished_time:
        judged = task.completed - task.fields.get(START_FIELD, 0)
        if judged <= 0:
            return "all cached"  # nothing judged: no rate, and "-/s" read as a failure
        speed = judged / task.finished_time
    if not speed:
        return "-/s"
    return f"{speed:.0f}/s" if speed >= 10 else f"{speed:.1f}/s"


HIDDEN_WHEN_ZERO = frozenset({"tokens", "cached"})
"""Counters that say nothing at 0 (a model-free judge spends no tokens); unscored 0 is news."""


def _counter(task: Task, name: str) -> str:
    value = task.fields.get(name)
    if value is None or (name in HIDDEN_WHEN_ZERO and not value):
        return ""
    return f"{name} {value:,}" if isinstance(value, int) else f"{name} {value}"


def _percent(task: Task) -> str:
    return f"{task.percentage:.0f}%" if task.total else "-%"


def _done(task: Task) -> str:
    total = "?" if task.total is None else f"{task.total:.0f}"
    return f"{task.completed:.0f}/{total}"


def _eta(task: Task) -> str:
    if task.finished_time is not None:
        return f"done in {duration(task.finished_time)}"
    if task.total is not None and task.completed >= task.total:
        return "done"  # complete from the start: every item was cached
    return f"eta {duration(task.time_remaining)}"


@dataclass(frozen=True)
class Cell:
    """One column: its text for a task, how it is aligned, and its rank (lower ranks stay longer)."""

    name: str
    text: Callable[[Task], str]
    rank: int
    justify: str = "left"
    style: str = ""


CELLS: tuple[Cell, ...] = (
    Cell("description", lambda task: str(task.description), 0, style="bold"),
    Cell("done", _done, 1, justify="right"),
    Cell("percent", _percent, 2, justify="right"),
    Cell("rate", rate, 6, justify="right", style="progress.data.speed"),
    Cell("elapsed", lambda task: f"elapsed {duration(task.elapsed)}", 10, style="progress.elapsed"),
    Cell("eta", _eta, 3, style="progress.remaining"),
    Cell("unscored", lambda task: _counter(task, "unscored"), 4),
    Cell("errors", lambda task: _counter(task, "errors"), 5),
    Cell("tokens", lambda task: _counter(task, "tokens"), 7),
    Cell("cached", lambda task: _counter(task, "cached"), 8),
    Cell("status", lambda task: str(task.fields.get("status") or ""), 11),
)
"""Display order; ``rank`` is the order in which columns are kept as the width shrinks."""
REQUIRED = ("description", "done")
"""Always shown: the description is shortened, last resort, so that done/total fits beside it."""
BAR_RANK = 9
"""The bar is placed after the counters (ranks up to 8) and before elapsed time and status."""
BAR_MIN, BAR_MAX = 10, 40


class FitProgress(Progress):
    """A rich progress display whose columns are chosen, at each refresh, to fit the width."""

    def __init__(
        self, console: Console, *, transient: bool = False, get_time: Callable[[], float] | None = None
    ):
        self._bar = BarColumn()
        self._width_of = console  # ``self.console`` exists only once rich's __init__ is done
        super().__init__(console=console, transient=transient, get_time=get_time, refresh_per_second=4)

    def add_task(self, description: str, start: bool = True, total: float | None = 100.0,
                 completed: int = 0, visible: bool = True, **fields: Any) -> TaskID:
        fields.setdefault(START_FIELD, completed)
        return super().add_task(description, start=start, total=total, completed=completed,
                                visible=visible, **fields)

    def make_tasks_table(self, tasks: Iterable[Task]) -> Table:
        visible = [task for task in tasks if task.visible]
        texts = {cell.name: [cell.text(task) for task in visible] for cell in CELLS}
        widths = {name: max((len(text) for text in column), default=0) for name, column in texts.items()}
        chosen, bar_width = fit_columns(widths, self._width_of.width)
        table = Table.grid(padding=(0, 1))
        for cell in CELLS:
            if cell.name in chosen:
                justify: Any = cell.justify
                table.add_column(width=chosen[cell.name], justify=justify, no_wrap=True)
            if cell.name == "description" and bar_width:
                table.add_column(width=bar_width, no_wrap=True)
        self._bar.bar_width = bar_width or None
        for row, task in enumerate(visible):
            cells: list[Any] = []
            for cell in CELLS:
                if cell.name in chosen:
                    cells.append(Text(_clip(texts[cell.name][row], chosen[cell.name]), style=cell.style))
                if cell.name == "description" and bar_width:
                    cells.append(self._bar(task))
            table.add_row(*cells)
        return table


def fit_columns(widths: dict[str, int], width: int) -> tuple[dict[str, int], int]:
    """Which columns to show within ``width`` (name -> width), and the bar's width (0: none).

    Columns join in ``rank`` order where they fit whole, one space apart; the bar comes after the
    counters and takes what is left (up to ``BAR_MAX``) if at least ``BAR_MIN`` is. Only the
    description is ever shortened, and only when it would not fit beside the done/total column.
    """
    available = max(10, width - 1)  # writing the last column of a line wraps on some terminals
    ranked = sorted((cell for cell in CELLS if widths.get(cell.name)), key=lambda cell: cell.rank)
    chosen: dict[str, int] = {}
    used = -1  # no separator before the first column
    bar_width: int | None = None
    for cell in ranked:
        if bar_width is None and cell.rank > BAR_RANK:
            bar_width = _bar_fit(available - used - 1)
            used += bar_width + 1 if bar_width else 0
        need = widths[cell.name] + 1
        if cell.name in REQUIRED or used + need <= available:
            chosen[cell.name] = widths[cell.name]
            used += need
    if bar_width is None:
        bar_width = _bar_fit(available - used - 1)
        used += bar_width + 1 if bar_width else 0
    if used > available and "description" in chosen:
        chosen["description"] = max(1, chosen["description"] - (used - available))
    return chosen, bar_width


def _bar_fit(room: int) -> int:
    return min(BAR_MAX, room) if room >= BAR_MIN else 0


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def plain_line(task: Task) -> str:
    """``correctness: 1500/15094 (10%) 120/s eta 1m53s unscored 0``: one task, whole."""
    label = str(task.description)
    parts = [label if ":" in label else f"{label}:", _done(task), f"({_percent(task)})"]
    parts += [rate(task), _eta(task)]
    parts += [text for name in COUNTERS if (text := _counter(task, name))]
    status = task.fields.get("status")
    if status:
        parts.append(str(status))
    return " ".join(parts)


class PlainProgress(Progress):
    """Progress as plain lines for logs: every ``interval_s`` or ``step`` of the work, and at stop.

    Built on a disabled rich ``Progress`` so callers use the same ``add_task`` / ``update`` /
    ``advance`` and rich still estimates speed and time left; nothing is drawn, lines are printed.
    """

    def __init__(
        self,
        console: Console,
        *,
        interval_s: float = PLAIN_INTERVAL_S,
        step: float = PLAIN_STEP,
        min_gap_s: float = PLAIN_MIN_GAP_S,
        transient: bool = False,
        get_time: Callable[[], float] | None = None,
    ):
        super().__init__(console=console, disable=True, get_time=get_time)
        self.interval_s = interval_s
        self.step = step
        self.min_gap_s = min_gap_s
        self.quiet = transient
        self._last: dict[TaskID, tuple[float, float, int]] = {}  # time, completed, step index

    def add_task(self, description: str, start: bool = True, total: float | None = 100.0,
                 completed: int = 0, visible: bool = True, **fields: Any) -> TaskID:
        fields.setdefault(START_FIELD, completed)
        task_id = super().add_task(description, start=start, total=total, completed=completed,
                                   visible=visible, **fields)
        self._emit(task_id)
        return task_id

    def update(self, task_id: TaskID, **kwargs: Any) -> None:  # type: ignore[override]
        super().update(task_id, **kwargs)
        self._maybe_emit(task_id)

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._maybe_emit(task_id)

    def stop(self) -> None:
        for task_id, task in list(self._tasks.items()):
            last = self._last.get(task_id)
            if last is None or last[1] != task.completed:
                self._emit(task_id)
        super().stop()

    def _step_of(self, task: Task) -> int:
        if not task.total:
            return 0
        return int(task.completed / task.total / self.step + 1e-9)

    def _maybe_emit(self, task_id: TaskID) -> None:
        task = self._tasks.get(task_id)
        last = self._last.get(task_id)
        if task is None or last is None:
            return
        when, completed, step = last
        if task.completed == completed:
            return
        waited = self.get_time() - when
        if waited >= self.interval_s or (self._step_of(task) > step and waited >= self.min_gap_s):
            self._emit(task_id)

    def _emit(self, task_id: TaskID) -> None:
        task = self._tasks[task_id]
        self._last[task_id] = (self.get_time(), task.completed, self._step_of(task))
        if not self.quiet and task.visible:
            self.console.print(plain_line(task), markup=False, highlight=False, soft_wrap=True, crop=False)


def make_progress(
    console: Console | None = None,
    *,
    enabled: bool = True,
    transient: bool = False,
    interval_s: float = PLAIN_INTERVAL_S,
) -> Progress:
    """The progress display of every long ragjury run, on stderr so stdout stays clean: fitted
    columns on a terminal, periodic plain lines elsewhere, nothing when ``enabled`` is False."""
    console = console or Console(stderr=True)
    if not enabled:
        return Progress(console=console, disable=True)
    if is_live_terminal(console):
        return FitProgress(console, transient=transient)
    return PlainProgress(console, interval_s=interval_s, transient=transient)


def is_live_terminal(console: Console) -> bool:
    """A terminal a live display can redraw: the stream is a TTY (``FORCE_COLOR`` in a CI job makes
    rich treat a log as a terminal, and a redrawn bar there is noise) and not a dumb one."""
    isatty = getattr(console.file, "isatty", None)
    try:
        tty = bool(isatty and isatty())
    except ValueError:  # a closed stream
        tty = False
    return tty and console.is_terminal and not console.is_dumb_terminal


class RateColumn(ProgressColumn):
    """Items per second as a stock rich column (for callers that build their own ``Progress``)."""

    def render(self, task: Task) -> Text:
        return Text(rate(task), style="progress.data.speed")


__all__ = [
    "FitProgress",
    "PlainProgress",
    "RateColumn",
    "duration",
    "fit_columns",
    "is_live_terminal",
    "make_progress",
    "plain_line",
    "rate",
]
