"""The self-contained HTML report: inline CSS and SVG, every piece of user text escaped.

A report is mailed, attached to a CI run or opened years later offline, so it needs no network,
no JS library and no server; a per-item table (``evals.report.item_table``) adds one inline script.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ragjury.evals.report.charts import (
    histogram_svg,
    probability_histogram_svg,
    reliability_svg,
    roc_svg,
    scatter_bounds,
    scatter_svg,
)
from ragjury.evals.results.formatting import Value, agreement_band, fmt, is_agreement_figure
from ragjury.evals.report.terminal import AGREEMENT_ROWS, correlation_text
from ragjury.evals.stats.agreement import AgreementFigures, RankCorrelation
from ragjury.rag_agent.core.input_files import InputError

if TYPE_CHECKING:
    from ragjury.evals.report.item_table import ItemTable
    from ragjury.evals.stats.intervals import Interval

@dataclass
class HtmlReport:
    """Everything one HTML report shows; empty parts are left out."""

    title: str
    meta: Mapping[str, str] = field(default_factory=dict)
    """Inputs and settings, shown at the top (file names, --rel, ...)."""
    figures: Mapping[str, AgreementFigures] = field(default_factory=dict)
    """Agreement sections, each with its confusion matrix."""
    distributions: Mapping[str, Sequence[Value]] = field(default_factory=dict)
    """Label or score series to histogram side by side (``None`` values count as unscored)."""
    systems: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    """System -> (score by people, score by the judge), for the ranking scatter."""
    axis_labels: tuple[str, str] = ("people", "judge")
    correlation: RankCorrelation | None = None
    tables: Mapping[str, Mapping[str, Mapping[str, Value]]] = field(default_factory=dict)
    """Extra tables: title -> row -> column -> value."""
    gate_failures: Sequence[str] = ()
    notes: Sequence[str] = ()
    """Warnings shown under the header, e.g. that a fallback judge produced some verdicts."""
    summary: Mapping[str, str] = field(default_factory=dict)
    """Headline figures shown first, as cards (e.g. items, coverage, kappa with its interval)."""
    intervals: Mapping[str, Mapping[str, Interval | None]] = field(default_factory=dict)
    """Section (a key of ``figures``) -> figure -> bootstrap 95 % interval, shown beside the figure."""
    tau_interval: Interval | None = None
    """Bootstrap 95 % interval of the Kendall tau of ``correlation``."""
    distribution_note: str | None = None
    """What the histogram counts (which items, how many), shown under it."""
    rankings: Mapping[str, Ranking] = field(default_factory=dict)
    """Further people-vs-judge scatter plots (e.g. one per run when two runs are compared)."""
    sections: Sequence[str] = ()
    """Ready-made HTML sections (their builders escape what they show), after the agreement
    figures: e.g. the per-system estimates of ``evals.report.estimates_view``."""
    items: ItemTable | None = None
    """The per-item table (filters, search, expandable text); needs the page's one inline script."""
    breakdowns: Mapping[str, Mapping[str, Mapping[str, Value]]] = field(default_factory=dict)
    """Page-only tables shown after the plots (per system; latency, tokens and cost per judge):
    the terminal prints ``tables``, and these are too wide for it."""
    lead_tables: Sequence[str] = ()
    """Titles of ``tables`` shown first, under the summary: a comparison's answer (is B better
    than A?) comes before the figures and plots that explain it."""
    summary_bands: Mapping[str, float | None] = field(default_factory=dict)
    summary_band_n: Mapping[str, int] = field(default_factory=dict)
    """The scored items behind each banded card: too few, and the band says so."""
    """Summary card -> its kappa or alpha, for the Landis–Koch band shown on the card."""
    probabilities: Mapping[str, tuple[Sequence[float], Sequence[bool]]] = field(default_factory=dict)
    """Section -> (P(yes), people's label) of a probability judge's labelled, scored items: drawn
    as a histogram split by gold label, a reliability diagram and a ROC curve."""


@dataclass(frozen=True)
class Ranking:
    """One people-vs-judge scatter: system -> (people's score, judge's score), and the correlation."""

    systems: Mapping[str, tuple[float, float]]
    correlation: RankCorrelation | None = None
    tau_interval: Interval | None = None
    axis_labels: tuple[str, str] = ("people", "judge")


_CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1500px;
color:#1f2933;padding:0 1rem}
h1{font-size:1.5rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #d9e2ec;padding-bottom:.25rem}
table{border-collapse:collapse;margin:.5rem 0}
td,th{padding:.3rem .6rem;border:1px solid #d9e2ec;text-align:right}
th{background:#f0f4f8;overflow-wrap:normal;word-break:normal;hyphens:manual}td.name,th.name{text-align:left}
.meta{width:100%;table-layout:fixed}.meta th{width:11rem}.meta td{text-align:left;overflow-wrap:anywhere}
.fail{color:#b42318;font-weight:600}.ok{color:#027a48;font-weight:600}.warn{color:#b54708;font-weight:600}
.cm td{min-width:3rem}.note{color:#52606d;font-size:.9rem}svg{display:block;margin:.5rem 0;max-width:100%;height:auto}
.grid{display:flex;flex-wrap:wrap;gap:2rem}.scroll{max-width:100%;overflow-x:auto}
.ci{color:#52606d;font-size:.85em;white-space:nowrap}
.cards{display:flex;flex-wrap:wrap;gap:.6rem;margin:1rem 0}
.card{border:1px solid #d9e2ec;border-radius:6px;padding:.4rem .7rem;min-width:8rem;background:#f8fafc}
.card b{display:block;font-size:1.15rem}.card span{color:#52606d;font-size:.8rem}
.band{display:inline-block;font-size:.75rem;font-weight:600;border-radius:3px;padding:0 .3rem;margin-left:.3rem;
white-space:nowrap;vertical-align:middle}
.card .band{font-size:.75rem;color:inherit;margin:.15rem 0 0}
.band-n-too-small{background:#f2f4f7;color:#344054}.band-poor{background:#fee4e2;color:#912018}.band-slight{background:#fdead7;color:#93370d}
.band-fair{background:#fef0c7;color:#7a2e0e}.band-moderate{background:#eef4c4;color:#3f621a}
.band-substantial{background:#d1fadf;color:#05603a}.band-almost-perfect{background:#a6f4c5;color:#054f31}
.charts{display:flex;flex-wrap:wrap;gap:1.5rem;align-items:flex-start}
.lead{border:2px solid #1f2933;border-radius:6px;padding:.2rem 1rem .6rem;margin:1rem 0}
@media (max-width:1000px){.scroll table{font-size:.8rem}.scroll td,.scroll th{padding:.25rem .35rem}}
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def band_html(value: float | None, n: int | None = None) -> str:
    """The Landis–Koch band of a kappa or alpha as a coloured label that names it in text too
    ("n too small" on fewer than ``BAND_MIN_N`` scored items)."""
    band = agreement_band(value, n)
    if band is None:
        return ""
    return (
        f" <span class='band band-{band.replace(' ', '-')}' title='Landis–Koch band of this agreement figure'>"
        f"{band}</span>"
    )


def _figure_rows(
    sections: Mapping[str, AgreementFigures],
    intervals: Mapping[str, Mapping[str, Interval | None]] | None = None,
) -> str:
    """One column per section, one row per figure; a bootstrap interval, where known, follows
    its figure in the same cell."""
    intervals = intervals or {}
    head = "".join(f"<th>{_e(name)}</th>" for name in sections)
    rows = []
    for row in AGREEMENT_ROWS:
        values = [getattr(figures, row) for figures in sections.values()]
        if all(value is None for value in values):
            continue
        cells = []
        for name, value in zip(sections, values, strict=True):
            interval = intervals.get(name, {}).get(row)
            extra = f" <span class='ci' title='bootstrap 95 % interval'>{_e(interval.text())}</span>" if interval else ""
            n = getattr(sections[name], "n_scored", None)
            band = band_html(value, n) if is_agreement_figure(row) else ""
            cells.append(f"<td>{_e(_cell(value))}{band}{extra}</td>")
        rows.append(f"<tr><td class='name'>{_e(row)}</td>{''.join(cells)}</tr>")
    note = (
        "<p class='note'>In brackets: bootstrap 95 % intervals (items resampled 1,000 times).</p>"
        if any(any(v is not None for v in section.values()) for section in intervals.values())
        else ""
    )
    note += (
        "<p class='note'>Kappa and alpha bands (Landis &amp; Koch): below 0 poor, 0–0.20 slight, 0.21–0.40 fair, "
        "0.41–0.60 moderate, 0.61–0.80 substantial, above 0.80 almost perfect.</p>"
    )
    return f"<div class='scroll'><table><tr><th class='name'>figure</th>{head}</tr>{''.join(rows)}</table></div>{note}"


def confusion_html(figures: AgreementFigures, caption: str) -> str:
    """The confusion matrix as an HTML table, cells shaded by count (diagonal green, rest red)."""
    peak = max((count for row in figures.confusion for count in row), default=0) or 1
    head = "".join(f"<th>{_e(fmt(label))}</th>" for label in figures.labels)
    body = []
    for i, (label, row) in enumerate(zip(figures.labels, figures.confusion, strict=True)):
        cells = []
        for j, count in enumerate(row):
            colour = "22,163,74" if i == j else "220,38,38"
            cells.append(
                f"<td style='background:rgba({colour},{0.08 + 0.6 * count / peak:.3f})'>{count}</td>"
            )
        body.append(f"<tr><th>{_e(fmt(label))}</th>{''.join(cells)}<td class='note'>{sum(row)}</td></tr>")
    note = (
        f"<p class='note'>{figures.n_unscored} unscored item(s) not shown.</p>" if figures.n_unscored else ""
    )
    return (
        f"<table class='cm'><caption>{_e(caption)}</caption><tr><th>gold \\ judge</th>{head}"
        f"<th class='note'>total</th></tr>{''.join(body)}</table>{note}"
    )


def _banded(row: str, column: str) -> bool:
    """A table cell read on the Landis–Koch scale: a kappa or alpha column, or a kappa or alpha
    row's plain values (not a difference or an interval, which are no agreement)."""
    if is_agreement_figure(column):
        return True
    return is_agreement_figure(row) and " - " not in column and "interval" not in column


def _value_cell(row: str, column: str, value: object) -> str:
    band = band_html(value) if isinstance(value, float) and _banded(row, column) else ""  # type: ignore[arg-type]
    return f"<td>{_e(_cell(value))}{band}</td>"


def _table_html(title: str, rows: Mapping[str, Mapping[str, Value]], *, lead: bool = False) -> str:
    """A titled table; a table of one row is shown as figure/value lines, so a run's many
    figures stack down the page instead of running off its side."""
    columns: list[str] = []
    for values in rows.values():
        columns.extend(name for name in values if name not in columns)
    if len(rows) == 1:
        (name, values), = rows.items()
        head = f"<tr><th class='name'>figure</th><th>{_e(name)}</th></tr>" if name else ""
        body = "".join(
            f"<tr><td class='name'>{_e(c)}</td>{_value_cell(c, name, values.get(c))}</tr>" for c in columns
        )
        table = f"<div class='scroll'><table>{head}{body}</table></div>"
    else:
        head = "".join(f"<th>{_e(c)}</th>" for c in columns)
        body = "".join(
            f"<tr><td class='name'>{_name(name)}</td>"
            + "".join(_value_cell(name, c, values.get(c)) for c in columns)
            + "</tr>"
            for name, values in rows.items()
        )
        table = f"<div class='scroll'><table><tr><th class='name'></th>{head}</tr>{body}</table></div>"
    if lead:
        return f"<section class='lead'><h2>{_e(title)}</h2>{table}</section>"
    return f"<h2>{_e(title)}</h2>{table}"


def _name(name: object) -> str:
    """A row's name, escaped, that may break after an underscore ("answer_correctness"), never
    inside a word: the column of names gives way before a figure's."""
    return _e(name).replace("_", "_<wbr>")


def _cell(value: object) -> str:
    """Table cells: thousands separators on counts (``15,094``), figures as ``fmt``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return fmt(value)


def _ranking_html(ranking: Ranking, bounds: tuple[float, float] | None = None) -> str:
    text = ""
    if ranking.correlation is not None:
        text = correlation_text(ranking.correlation)
        if ranking.tau_interval is not None:
            text += f"; Kendall tau bootstrap 95 % interval {ranking.tau_interval.text()}"
        text = f"<p>{_e(text)}</p>"
    return text + scatter_svg(ranking.systems, axis_labels=ranking.axis_labels, bounds=bounds)


def _probability_html(name: str, probabilities: Sequence[float], gold: Sequence[bool]) -> str:
    """A probability judge's three views of P(yes) against people's labels, side by side."""
    heading = f"<h3>{_e(name)}</h3>" if name else ""
    charts = [
        probability_histogram_svg(probabilities, gold),
        reliability_svg(probabilities, gold),
        roc_svg(probabilities, gold),
    ]
    return (
        f"{heading}<div class='charts'>{''.join(charts)}</div>"
        f"<p class='note'>{len(probabilities):,} labelled item(s) with a P(yes). Left: P(yes) of the items people said "
        "yes to (green) and no to (red); where both stand are the borderline items. Middle: reliability, the share "
        "people said yes against the mean P(yes) per bin (on the dashed line the probabilities mean what they say). "
        "Right: ROC curve and its AUC (0.5 is chance).</p>"
    )


def render_html(report: HtmlReport) -> str:
    """The whole report as one HTML document with inline CSS and SVG; no external assets, and no
    script unless the report has a per-item table (whose filters need one, inline)."""
    out = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{_e(report.title)}</title><style>{_CSS}",
    ]
    if report.items is not None:
        from ragjury.evals.report.item_table import ITEMS_CSS

        out.append(ITEMS_CSS)
    out.append(f"</style></head><body><h1>{_e(report.title)}</h1>")
    if report.summary:
        cards = "".join(
            f"<div class='card'><span>{_e(k)}</span><b>{_e(v)}</b>{band_html(report.summary_bands.get(k), report.summary_band_n.get(k))}</div>"
            for k, v in report.summary.items()
        )
        out.append(f"<div class='cards'>{cards}</div>")
    if report.meta:
        rows = "".join(
            f"<tr><th class='name'>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in report.meta.items()
        )
        out.append(f"<table class='meta'>{rows}</table>")
    out.extend(f"<p class='warn'>{_e(note)}</p>" for note in report.notes)
    if report.gate_failures:
        items = "".join(f"<li>{_e(f)}</li>" for f in report.gate_failures)
        out.append(f"<p class='fail'>Gates failed:</p><ul class='fail'>{items}</ul>")
    for title in report.lead_tables:
        if title in report.tables:
            out.append(_table_html(title, report.tables[title], lead=True))
    if report.figures:
        out.append("<h2>Agreement</h2>")
        out.append(_figure_rows(report.figures, report.intervals))
        out.append("<h2>Confusion matrices</h2><div class='grid'>")
        out.extend(confusion_html(figures, name) for name, figures in report.figures.items())
        out.append("</div>")
    out.extend(report.sections)
    if report.distributions:
        out.append("<h2>Score distributions</h2>")
        out.append(histogram_svg(report.distributions))
        if report.distribution_note:
            out.append(f"<p class='note'>{_e(report.distribution_note)}</p>")
    if report.probabilities:
        out.append("<h2>P(yes) against people's labels</h2>")
        for name, (probabilities, gold) in report.probabilities.items():
            out.append(_probability_html(name, probabilities, gold))
    rankings: dict[str, Ranking] = {}
    if report.systems:
        rankings[""] = Ranking(report.systems, report.correlation, report.tau_interval, report.axis_labels)
    rankings.update(report.rankings)
    if rankings:
        out.append("<h2>System ranking: people vs judge</h2>")
        plots = [ranking.systems for ranking in rankings.values() if ranking.systems]
        bounds = scatter_bounds(plots) if plots else None
        if len(rankings) > 1:
            out.append("<p class='note'>Both plots share one axis, so their dots can be compared.</p>")
        for name, ranking in rankings.items():
            if name:
                out.append(f"<h3>{_e(name)}</h3>")
            out.append(_ranking_html(ranking, bounds))
    for title, rows in report.breakdowns.items():
        out.append(_table_html(title, rows))
    for title, rows in report.tables.items():
        if title not in report.lead_tables:
            out.append(_table_html(title, rows))
    if report.items is not None:
        from ragjury.evals.report.item_table import items_html

        out.append(items_html(report.items))
    out.append("<p class='note'>Generated by ragjury.</p></body></html>")
    return "".join(out)


def write_html(path: str | Path, report: HtmlReport) -> Path:
    """Write the report atomically (a kill never leaves half a page, a failure keeps the old one);
    a path that cannot be written is an ``InputError`` (exit 2 in the CLI)."""
    from ragjury.evals.io.atomic_io import write_text_atomic

    target = Path(path)
    try:
        write_text_atomic(target, render_html(report))
    except OSError as error:
        raise InputError(path, error.strerror or str(error)) from None
    return target


__all__ = [
    "HtmlReport",
    "Ranking",
    "band_html",
    "confusion_html",
    "histogram_svg",
    "render_html",
    "scatter_svg",
    "write_html",
]
