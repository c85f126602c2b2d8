"""Progress that reads whole: fitted columns on a terminal, periodic plain lines elsewhere."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.evals.runs.progress import (
    FitProgress,
    PlainProgress,
    duration,
    fit_columns,
    make_progress,
    plain_line,
)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
DESCRIPTION = "correctness: token-overlap"
PLAIN = re.compile(
    r"^(?P<desc>.+?):? (?P<done>\d+)/(?P<total>\d+) \((?P<pct>\d+)%\) (?P<rate>[\d.]+/s|-/s) "
    r"(?P<when>eta \S+|done in \S+|done)(?P<rest>( \w+ [\d,]+)*)$"
)


class Clock:
    """A hand-moved clock for rich's speed and time-left estimates."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def render(width: int, *, unscored: int = 3, tokens: int = 12_345) -> str:
    """One frame of a 15,094-item run, 10 % done at 150 items/s, on a terminal ``width`` wide."""
    clock = Clock()
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=True, color_system=None)
    progress = FitProgress(console, get_time=clock)
    task = progress.add_task(DESCRIPTION, total=15_094, unscored=0, tokens=0, cached=0)
    for _ in range(10):
        clock.now += 1.0
        progress.update(task, advance=150, unscored=unscored, tokens=tokens)
    console.print(progress.make_tasks_table(progress.tasks))
    return buffer.getvalue().rstrip("\n")


@pytest.mark.parametrize("width", [50, 60, 80, 100, 120, 200])
def test_terminal_frame_fits_the_width_and_every_column_is_whole(width: int) -> None:
    frame = render(width)
    assert "\n" not in frame and len(frame) < width
    assert "…" not in frame  # nothing is cut: a column that does not fit is left out
    assert frame.startswith(DESCRIPTION) and "1500/15094" in frame


def test_at_80_columns_the_essentials_are_there() -> None:
    frame = render(80)
    for part in ("1500/15094", "10%", "eta 1m31s", "unscored 3"):
        assert part in frame, frame


def test_wider_terminals_add_rate_tokens_and_a_bar() -> None:
    frame = render(120)
    assert "150/s" in frame and "tokens 12,345" in frame and "━" in frame
    assert "tokens" not in render(60) and "unscored 3" not in render(50)


def test_zero_tokens_and_cached_are_not_shown_but_zero_unscored_is() -> None:
    frame = render(200, unscored=0, tokens=0)
    assert "unscored 0" in frame and "tokens" not in frame and "cached" not in frame


def test_fit_columns_keeps_the_ranked_columns_and_only_shortens_the_description() -> None:
    widths = {"description": 60, "done": 11, "percent": 4, "eta": 9, "unscored": 10, "rate": 6}
    chosen, bar = fit_columns(widths, 50)
    assert set(chosen) == {"description", "done"} and bar == 0
    assert chosen["description"] + 1 + chosen["done"] <= 49  # shortened to fit beside done/total
    chosen, bar = fit_columns(widths, 200)
    assert set(chosen) == set(widths) and bar == 40


def test_duration_is_short_and_unambiguous() -> None:
    assert [duration(s) for s in (None, 0, 45, 113, 7_500)] == ["-", "0s", "45s", "1m53s", "2h05m"]


def test_plain_lines_every_tenth_and_at_stop_and_never_cut() -> None:
    clock = Clock()
    buffer = io.StringIO()
    console = Console(file=buffer, width=40, force_terminal=False)
    progress = PlainProgress(console, get_time=clock, interval_s=1_000)
    task = progress.add_task(DESCRIPTION, total=15_094, unscored=0)
    for step in range(150):
        clock.now += 1.0
        progress.update(task, advance=100, unscored=step // 50)
    progress.update(task, advance=94)
    progress.stop()
    lines = buffer.getvalue().splitlines()
    assert len(lines) == 11  # the start, each tenth from 10 % to 90 %, the end (not twice at stop)
    for line in lines:
        match = PLAIN.match(line)
        assert match and match["desc"] == DESCRIPTION, line  # one whole line, though wider than 40
    assert lines[0].startswith(f"{DESCRIPTION} 0/15094 (0%) -/s eta -")
    assert "1600/15094 (11%) 100/s eta 2m15s" in lines[1] and lines[1].endswith("unscored 0")
    assert lines[-1].startswith(f"{DESCRIPTION} 15094/15094 (100%)") and "101/s done in 2m30s" in lines[-1]
    assert lines[-1].endswith("unscored 2")


def test_plain_lines_also_come_every_interval_when_the_work_is_slow() -> None:
    clock = Clock()
    buffer = io.StringIO()
    progress = PlainProgress(Console(file=buffer), get_time=clock, interval_s=30)
    task = progress.add_task("relevance", total=1_000)
    for _ in range(20):  # 20 items in 100 s: under a tenth, so only the clock makes lines
        clock.now += 5.0
        progress.advance(task)
    lines = buffer.getvalue().splitlines()
    assert [line.split()[1] for line in lines] == ["0/1000", "6/1000", "12/1000", "18/1000"]
    assert lines[1].startswith("relevance: 6/1000 (1%) 0.2/s eta 1h2")  # about 994 / 0.2 s left


def test_a_fast_run_gets_no_line_per_tenth() -> None:
    clock = Clock()
    buffer = io.StringIO()
    progress = PlainProgress(Console(file=buffer), get_time=clock)
    task = progress.add_task("correctness: contains", total=40, unscored=0)
    for _ in range(40):
        clock.now += 0.01  # 40 items in 0.4 s
        progress.advance(task)
    progress.stop()
    lines = buffer.getvalue().splitlines()
    assert [line.split()[2] for line in lines] == ["0/40", "40/40"]


def test_an_interrupted_run_ends_with_where_it_stopped() -> None:
    buffer = io.StringIO()
    progress = PlainProgress(Console(file=buffer), interval_s=1_000)
    task = progress.add_task("faithfulness", total=100, unscored=0)
    progress.update(task, advance=7, unscored=1)
    progress.stop()
    assert buffer.getvalue().splitlines()[-1].startswith("faithfulness: 7/100 (7%)")
    assert buffer.getvalue().splitlines()[-1].endswith("unscored 1")


def test_a_run_cached_in_full_says_done_once() -> None:
    buffer = io.StringIO()
    with PlainProgress(Console(file=buffer)) as progress:
        progress.add_task("correctness: contains", total=40, completed=40, unscored=0, cached=40)
    assert buffer.getvalue().splitlines() == ["correctness: contains 40/40 (100%) -/s done unscored 0 cached 40"]
    assert PLAIN.match(buffer.getvalue().strip())


def test_transient_plain_progress_prints_nothing() -> None:
    buffer = io.StringIO()
    with PlainProgress(Console(file=buffer), transient=True) as progress:
        progress.advance(progress.add_task("reading runs", total=3), 3)
    assert buffer.getvalue() == ""


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_make_progress_picks_by_terminal() -> None:
    terminal = Console(file=FakeTTY(), force_terminal=True)
    log = Console(file=io.StringIO(), force_terminal=False)
    forced = Console(file=io.StringIO(), force_terminal=True)  # FORCE_COLOR in a CI log
    assert isinstance(make_progress(terminal), FitProgress)
    assert isinstance(make_progress(log), PlainProgress)
    assert isinstance(make_progress(forced), PlainProgress)
    disabled = make_progress(log, enabled=False)
    assert not isinstance(disabled, PlainProgress | FitProgress) and disabled.disable


def test_plain_line_of_a_task_without_total_or_counters() -> None:
    progress = PlainProgress(Console(file=io.StringIO()))
    task = progress.add_task("agent", total=None, status="errors 0  tokens 1,234")
    assert plain_line(progress.tasks[0]) == "agent: 0/? (-%) -/s eta - errors 0  tokens 1,234"
    assert task == progress.tasks[0].id


def test_a_batch_in_a_non_tty_writes_readable_periodic_lines(tmp_path: Path) -> None:
    """``evaluate`` with stderr not a terminal (CliRunner, as in CI): plain lines, whole."""
    rows = [json.loads(line) for line in (FIXTURES / "pipeline_correctness.jsonl").read_text().splitlines()]
    data = tmp_path / "big.jsonl"
    with data.open("w") as handle:
        for index in range(1_500):
            row = dict(rows[index % len(rows)], id=f"r{index}")
            row["answer"] = f"{row['answer']} ({index})"  # distinct items: nothing deduplicated
            handle.write(json.dumps(row) + "\n")
    result = CliRunner().invoke(
        app,
        ["evaluate", "--task", "correctness", "--judge", "token-overlap", "--data", str(data), "--no-cache"],
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("correctness:")]
    assert len(lines) >= 2  # the start and the end; a tenth at most once a second in between
    assert lines[0].startswith("correctness: token-overlap 0/1500 (0%)")
    for line in lines:
        match = PLAIN.match(line)
        assert match, line
        assert match["desc"] == "correctness: token-overlap" and match["total"] == "1500"
    assert lines[-1].startswith("correctness: token-overlap 1500/1500 (100%)") and "done in" in lines[-1]
    assert "━" not in result.stderr and "…" not in result.stderr
