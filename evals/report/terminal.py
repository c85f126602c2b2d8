"""Rich tables for the terminal: agreement, the confusion matrix, any figures, a rank correlation."""

from __future__ import annotations

from collections.abc import Mapping

from rich.table import Table

from ragjury.evals.results.formatting import Value, fmt
from ragjury.evals.stats.agreement import BINARY_ALPHA, AgreementFigures, RankCorrelation
from ragjury.evals.stats.intervals import Interval

AGREEMENT_ROWS: tuple[str, ...] = (
    "n_total",
    "n_scored",
    "coverage",
    "accuracy",
    "cohen_kappa",
    "quadratic_kappa",
    "krippendorff_alpha",
    "precision",
    "recall",
    "f1",
)


def agreement_table(
    sections: Mapping[str, AgreementFigures],
    *,
    title: str = "Agreement",
    intervals: Mapping[str, Mapping[str, Interval | None]] | None = None,
) -> Table:
    """One column per section (e.g. binary, graded), one row per figure; with ``intervals``
    (section -> figure -> bootstrap interval) each figure that has one shows it beside it."""
    table = Table(title=title)
    table.add_column("figure")
    for name in sections:
        table.add_column(name, justify="right")
    binary = all(figures.binary for figures in sections.values())
    for row in AGREEMENT_ROWS:
        values = [getattr(figures, row) for figures in sections.values()]
        if all(value is None for value in values):
            continue
        shown = "binary_krippendorff_alpha" if binary and row == "krippendorff_alpha" else row  # as in --json
        cells = []
        for section, value in zip(sections, values, strict=True):
            known = (intervals or {}).get(section, {})
            binary_alpha = row == "krippendorff_alpha" and sections[section].binary
            interval = known.get(BINARY_ALPHA if binary_alpha else row)
            cells.append(fmt(value) + (f" {interval.text()}" if interval is not None and value is not None else ""))
        table.add_row(shown, *cells)
    return table


def confusion_table(
    figures: AgreementFigures, *, title: str = "Confusion (rows: gold, columns: judge)"
) -> Table:
    table = Table(title=title)
    table.add_column("gold \\ judge")
    for label in figures.labels:
        table.add_column(fmt(label), justify="right")
    table.add_column("total", justify="right", style="dim")
    for label, row in zip(figures.labels, figures.confusion, strict=True):
        table.add_row(fmt(label), *(str(count) for count in row), str(sum(row)))
    if figures.n_unscored:
        table.caption = f"{figures.n_unscored} gold item(s) unscored by the judge, not in the matrix"
    return table


def metrics_table(
    rows: Mapping[str, Mapping[str, Value]], *, title: str = "Metrics", row_header: str = "name"
) -> Table:
    """A generic table: one row per key of ``rows``, one column per figure name (union, in order)."""
    columns: list[str] = []
    for values in rows.values():
        columns.extend(name for name in values if name not in columns)
    table = Table(title=title)
    table.add_column(row_header)
    for column in columns:
        table.add_column(column, justify="right")
    for name, values in rows.items():
        table.add_row(name, *(fmt(values.get(column)) for column in columns))
    return table


def correlation_text(
    correlation: RankCorrelation, *, what: str = "system rankings", tau_interval: Interval | None = None
) -> str:
    """One line; ``tau_interval`` (bootstrap 95 %) is shown beside Kendall's tau when given."""
    if correlation.n < 3:
        return f"{what}: not compared ({correlation.n} systems; a rank correlation needs 3 or more)"
    tau = fmt(correlation.kendall_tau)
    if tau_interval is not None and correlation.kendall_tau is not None:
        tau += f" {tau_interval.text()}"
    return f"{what}: Kendall tau {tau}, Spearman {fmt(correlation.spearman)} over {correlation.n} systems"


__all__ = ["AGREEMENT_ROWS", "agreement_table", "confusion_table", "correlation_text", "metrics_table"]
