"""``ragjury report``: rebuild a run's report from its predictions file, or compare two runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ragjury.commands._common import JsonOption, fail, print_json, stdout, user_errors


def _figures_table(all_figures: list[Any]) -> Table:
    """One column per run: the figures with their bootstrap 95 % intervals."""
    from ragjury.evals.report.formatting import fmt
    from ragjury.evals.report.run_report import run_label

    table = Table(title="Figures (bootstrap 95 % intervals)")
    table.add_column("figure")
    for letter, figures in zip("AB", all_figures):
        name = run_label(letter, figures.run.name) if len(all_figures) == 2 else figures.run.name
        table.add_column(name, justify="right")
    names: list[str] = []
    for figures in all_figures:
        names.extend(name for name in figures.figures() if name not in names)
    for name in names:
        cells = []
        for figures in all_figures:
            value = figures.figures().get(name)
            interval = figures.intervals.get(name)
            cells.append(fmt(value) + (f" {interval.text()}" if interval is not None and value is not None else ""))
        table.add_row(name, *cells)
    for count in ("n", "scored", "unscored", "fallback_used", "labelled", "tokens"):
        table.add_row(count, *(f"{f.counts()[count]:,}" for f in all_figures), style="dim")
    return table


@user_errors
def report(
    predictions: Annotated[
        list[Path],
        typer.Argument(
            help="One predictions JSONL (from 'ragjury evaluate --out'), or two to compare.",
            metavar="PRED.jsonl",
        ),
    ],
    html: Annotated[
        Path | None, typer.Option("--html", help="Write the self-contained HTML report here.")
    ] = None,
    title: Annotated[str | None, typer.Option("--title", help="Title of the HTML report.")] = None,
    json_output: JsonOption = False,
) -> None:
    """Rebuild the report of a run from its predictions file alone, or compare two runs.

    The predictions file written by 'ragjury evaluate --out' carries each item's text, the gold
    label and the judgment, so the report needs neither the dataset nor the cache. It shows the
    figures with bootstrap 95 % intervals (accuracy, Cohen's kappa, Kendall's tau of the system
    ranking), the confusion matrix, people and judge side by side over the same items, the
    people-vs-judge system plot (equal axes, y = x line), and a per-item table with filters
    (disagreements, false positives, false negatives, unscored, fallback) and text search.

    Two files: both runs side by side, joined on the item id: figures of each, the paired
    difference B - A with its interval, the matrix of verdict changes, and the per-item table
    with both verdicts and filters for changed, fixed and broken items.

    Filters and search live in the address, so a link opens that view:
    report.html#filter=disagree (also fp, fn, unscored, fallback, changed, fixed, broken),
    report.html#q=paris.

    Examples:

      ragjury report preds.jsonl --html report.html

      ragjury report contains.jsonl llm.jsonl --html compare.html

      ragjury report preds.jsonl --json

    Exit codes: 0 done, 2 bad input.
    """
    from ragjury.evals.io.atomic_io import check_output_paths
    from ragjury.evals.io.predictions import load_predictions, run_names
    from ragjury.evals.report.page import write_html
    from ragjury.evals.report.run_report import build_report, report_payload

    if not 1 <= len(predictions) <= 2:
        raise fail(f"give one predictions file, or two to compare (got {len(predictions)})")
    check_output_paths([("--html", html)], [("PRED.jsonl", path) for path in predictions])
    names = run_names(predictions)
    runs = [load_predictions(path, name=name) for path, name in zip(predictions, names, strict=True)]
    report_, all_figures = build_report(runs, title=title)
    if html is not None:
        write_html(html, report_)
    if json_output:
        print_json(report_payload(all_figures, predictions, html), command="report")
        return
    from ragjury.evals.report.run_report import run_label

    for letter, figures in zip("AB", all_figures):
        name = f"{run_label(letter, figures.run.name)} ({figures.run.path})" if len(all_figures) == 2 else figures.run.path
        stdout.print(
            f"{name}: {len(figures.records):,} items, verdicts by {figures.sources.describe()}",
            highlight=False,
            soft_wrap=True,
        )
    from ragjury.evals.report.run_comparison import as_note

    if len(all_figures) == 2:  # the answer first: which kind of comparison, each rate, B - A
        from ragjury.evals.report.verdict_changes import compare_runs

        names = [figures.run.name for figures in all_figures]
        first_lines = compare_runs(*all_figures).runs.lines(names)
    else:
        first_lines = all_figures[0].result.lines(all_figures[0].run.task)
    for line in first_lines:
        stdout.print(escape(line), highlight=False, soft_wrap=True)
    shown = {as_note(line) for line in first_lines}
    stdout.print(_figures_table(all_figures))
    if len(all_figures) == 2:
        from ragjury.evals.report.terminal import metrics_table

        for table_title, rows in report_.tables.items():
            if table_title != "Runs":
                stdout.print(metrics_table(rows, title=table_title, row_header=""))
    for note in (note for note in report_.notes if note not in shown):
        stdout.print(note, style="yellow", highlight=False, soft_wrap=True)
    if html is not None:
        stdout.print(f"HTML report written to {html}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("report")(report)


__all__ = ["register", "report"]
