"""What both modes of ``ragjury evaluate`` print at the end: run stats, who judged, gates, exit code."""

from __future__ import annotations

from collections import Counter
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
    for name in ("n", "scored", "unscored", "fallback_used", "cached", "judged", "duplicates", "tokens", "requests"):
        if name in stats:
            value = stats[name]
            table.add_row(name, f"{value:,}" if isinstance(value, int) else str(value))
    table.add_row("wall time", f"{stats['wall_s']:.2f}s")
    table.add_row("judgments/s", f"{stats['judgments_per_s']:.1f}")
    if stats.get("executor"):
        table.add_row("executor", str(stats["executor"]))
    for endpoint in stats.get("endpoints") or []:  # several servers: what each one did
        latency = endpoint["mean_latency_s"]
        shown = f"{latency * 1000:.0f} ms" if latency is not None else "-"
        table.add_row(
            escape(endpoint["url"]),
            f"{endpoint['answered']:,} answered, {shown}, {endpoint['failures']:,} failed ({endpoint['moved']:,} moved)",
        )
    return table


def verdict_lines(stages: dict[str, Any]) -> None:
    """Print which judges produced the verdicts, per stage (yellow when a fallback answered): the
    requested judge ("auto") is a policy, the judgments say who actually judged."""
    for stage, sources in stages.items():
        prefix = f"{stage} verdicts by" if stage else "verdicts by"
        style = "yellow" if sources.fallback else None
        stdout.print(f"{prefix}: {escape(sources.describe())}", style=style, highlight=False, soft_wrap=True)


def unscored_lines(judgments: Sequence[Any], *, shown: int = 3) -> list[str]:
    """The unscored share and its commonest reasons, one line each: a run that left items
    unscored says how many and why beside its figures, not only in the predictions file."""
    reasons = Counter(str(j.unscored_reason or "no reason recorded") for j in judgments if j.unscored)
    if not reasons or not judgments:
        return []
    total = sum(reasons.values())
    lines = [f"unscored: {total:,} of {len(judgments):,} ({total / len(judgments):.0%}), not counted in the figures"]
    for reason, count in reasons.most_common(shown):
        lines.append(f"  {count:,} x {reason[:160]}")
    if len(reasons) > shown:
        lines.append(f"  and {len(reasons) - shown:,} other reason(s): see unscored_reason in the predictions")
    return lines


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


def print_run_warnings(judgments: Sequence[Any], labels: Sequence[object]) -> None:
    """The unscored share with its reasons (red from half the items), and a one-value warning."""
    lines = unscored_lines(judgments)
    share = sum(j.unscored for j in judgments) / max(1, len(judgments))
    for number, line in enumerate(lines):
        style = ("red" if share >= 0.5 else "yellow") if number == 0 else None
        stderr.print(escape(line), style=style, highlight=False, soft_wrap=True)
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
