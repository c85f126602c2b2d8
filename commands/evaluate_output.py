"""What both modes of ``ragjury evaluate`` print at the end: run stats, who judged, gates, exit code."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from ragjury.commands._common import EXIT_BELOW_THRESHOLD, EXIT_UNSCORED, stderr, stdout


def run_table(title: str, stats: dict[str, Any]) -> Table:
    table = Table(title=title, show_header=False)
    table.add_column("figure")
    table.add_column("value", justify="right")
    for name in ("n", "scored", "unscored", "not_judged", "fallback_used", "cached", "judged", "duplicates", "tokens",
                 "requests"):
        if name == "not_judged" and not stats.get(name):
            continue  # only an interrupted run has any
        if name in stats:
            value = stats[name]
            table.add_row(name, f"{value:,}" if isinstance(value, int) else str(value))
    table.add_row("wall time", f"{stats['wall_s']:.2f}s")
    if stats.get("judged"):  # an all-cached run judged nothing: no rate to show
        table.add_row("judgments/s", f"{stats['judgments_per_s']:.1f}")
    if stats.get("executor") not in (None, "process"):
        table.add_row("executor", str(stats["executor"]))
    for endpoint in stats.get("endpoints") or []:  # several servers: what each one did
        latency = endpoint["mean_latency_s"]
        shown = f"{latency * 1000:.0f} ms" if latency is not None else "-"
        table.add_row(
            escape(endpoint["url"]),
            f"{endpoint['answered']:,} answered, {shown}, {endpoint['failures']:,} failed ({endpoint['moved']:,} moved)"
            + (f", {endpoint['unreadable']:,} unreadable" if endpoint.get("unreadable") else ""),
        )
    return table


def verdict_lines(stages: dict[str, Any]) -> None:
    """Print which judges produced the verdicts, per stage (yellow when a fallback answered): the
    requested judge ("auto") is a policy, the judgments say who actually judged."""
    for stage, sources in stages.items():
        prefix = f"{stage} verdicts by" if stage else "verdicts by"
        style = "yellow" if sources.fallback else None
        stdout.print(f"{prefix}: {escape(sources.describe())}", style=style, highlight=False, soft_wrap=True)


def unscored_lines(stages: dict[str, Any]) -> None:
    """Print, in bold red, each stage's share unscored with its commonest reasons, when any is:
    the gates and figures above are computed on the scored judgments only."""
    for stage, share in stages.items():
        if share.count:
            prefix = f"{stage}: " if stage else ""
            stdout.print(f"[bold red]unscored[/]: {prefix}{escape(share.describe())}", highlight=False, soft_wrap=True)


def one_value_line(labels: Sequence[object], *, at_least: int = 5) -> str | None:
    """A warning when every scored verdict (or score) is the same value: the figures then say
    nothing about the answers, and the judge may not be discriminating at all."""
    values = [label for label in labels if label is not None]
    if len(values) < at_least or len(set(values)) != 1:
        return None
    return (
        f"warning: all {len(values):,} scored verdicts are {values[0]!s}: the judge does not tell these "
        "answers apart; check it against people on a few (ragjury calibrate, ragjury estimate)"
    )


def print_run_warnings(labels: Sequence[object]) -> None:
    """A warning when the judge gave one value only (the unscored share is in the summary)."""
    warning = one_value_line(labels)
    if warning is not None:
        stderr.print(escape(warning), style="yellow", highlight=False, soft_wrap=True)


def nothing_scored_line(why_unscored: str | None) -> None:
    """The one line a run that scored nothing ends with, printed first: the cause and its fix
    (a dead server: where, and what to start), never wrapped inside a word."""
    why = why_unscored or "every judgment is unscored (see the reasons in the predictions)"
    stderr.print(f"[red]nothing was scored[/]: {escape(why)}", highlight=False, soft_wrap=True)


def finish_run(
    failures: list[str],
    scored: int,
    json_output: bool,
    html: Path | None,
    *,
    why_unscored: str | None = None,
    cause_shown: bool = False,
) -> None:
    """Where the report went, the gates that failed, and the exit code (3 when nothing was scored,
    with its cause unless ``cause_shown``: the summary printed it already, first)."""
    if scored == 0 and not cause_shown:
        nothing_scored_line(why_unscored)
    if html is not None and not json_output:
        stdout.print(f"HTML report written to {html}", highlight=False)
    for failure in failures:
        stderr.print(f"[red]gate failed:[/] {escape(failure)}", highlight=False, soft_wrap=True)
    if scored == 0:
        raise typer.Exit(EXIT_UNSCORED)
    if failures:
        raise typer.Exit(EXIT_BELOW_THRESHOLD)


__all__ = [
    "finish_run",
    "nothing_scored_line",
    "one_value_line",
    "print_run_warnings",
    "run_table",
    "unscored_lines",
    "verdict_lines",
]
