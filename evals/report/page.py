"""The self-contained HTML report: inline CSS and SVG, every piece of user text escaped.

A report is mailed, attached to a CI run or opened years later offline, so it needs no network,
no JS library and no server; a per-item table (``evals.report.item_table``) adds one inline script.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ragjury.evals.report.formatting import Value, fmt
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


@dataclass(frozen=True)
class Ranking:
    """One people-vs-judge scatter: system -> (people's score, judge's score), and the correlation."""

    systems: Mapping[str, tuple[float, float]]
    correlation: RankCorrelation | None = None
    tau_interval: Interval | None = None
    axis_labels: tuple[str, str] = ("people", "judge")


_CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1000px;
color:#1f2933;padding:0 1rem}
h1{font-size:1.5rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #d9e2ec;padding-bottom:.25rem}
table{border-collapse:collapse;margin:.5rem 0}
td,th{padding:.3rem .6rem;border:1px solid #d9e2ec;text-align:right}
th{background:#f0f4f8}td.name,th.name{text-align:left}
.meta{width:100%;table-layout:fixed}.meta th{width:11rem}.meta td{text-align:left;overflow-wrap:anywhere}
.fail{color:#b42318;font-weight:600}.ok{color:#027a48;font-weight:600}.warn{color:#b54708;font-weight:600}
.cm td{min-width:3rem}.note{color:#52606d;font-size:.9rem}svg{display:block;margin:.5rem 0;max-width:100%;height:auto}
.grid{display:flex;flex-wrap:wrap;gap:2rem}.scroll{max-width:100%;overflow-x:auto}
.ci{color:#52606d;font-size:.85em;white-space:nowrap}
.cards{display:flex;flex-wrap:wrap;gap:.6rem;margin:1rem 0}
.card{border:1px solid #d9e2ec;border-radius:6px;padding:.4rem .7rem;min-width:8rem;background:#f8fafc}
.card b{display:block;font-size:1.15rem}.card span{color:#52606d;font-size:.8rem}
"""


_PALETTE = (
    "#2563eb",
    "#f97316",
    "#16a34a",
    "#9333ea",
    "#dc2626",
    "#0891b2",
    "#ca8a04",
    "#db2777",
    "#4b5563",
    "#65a30d",
)


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _svg_text(
    x: float, y: float, text: object, *, size: int = 10, anchor: str = "start", extra: str = ""
) -> str:
    return f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}'{extra}>{_e(text)}</text>"


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
            cells.append(f"<td>{_e(_cell(value))}{extra}</td>")
        rows.append(f"<tr><td class='name'>{_e(row)}</td>{''.join(cells)}</tr>")
    note = (
        "<p class='note'>In brackets: bootstrap 95 % intervals (items resampled 1,000 times).</p>"
        if any(any(v is not None for v in section.values()) for section in intervals.values())
        else ""
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


def _bins(series: Mapping[str, Sequence[Value]], n_bins: int) -> tuple[list[str], dict[str, list[int]]]:
    """Categories (discrete values) or equal-width bins (continuous), plus counts per series."""
    values = [v for vs in series.values() for v in vs if v is not None]
    has_unscored = any(v is None for vs in series.values() for v in vs)
    discrete = all(isinstance(v, bool | int) for v in values) and len(set(values)) <= 12
    counts: dict[str, list[int]] = {}
    if discrete:
        categories = sorted(set(values))
        names = [fmt(c) for c in categories]
        for name, vs in series.items():
            seen = Counter(v for v in vs if v is not None)
            counts[name] = [seen.get(c, 0) for c in categories]
    else:
        low = min((float(v) for v in values), default=0.0)
        high = max((float(v) for v in values), default=1.0)
        width = (high - low) / n_bins or 1.0
        names = [f"{low + i * width:.2f}" for i in range(n_bins)]
        for name, vs in series.items():
            row = [0] * n_bins
            for v in vs:
                if v is not None:
                    row[min(int((float(v) - low) / width), n_bins - 1)] += 1
            counts[name] = row
    if has_unscored:
        names.append("unscored")
        for name, vs in series.items():
            counts[name].append(sum(1 for v in vs if v is None))
    return names, counts


def histogram_svg(series: Mapping[str, Sequence[Value]], *, n_bins: int = 10, width: int = 520) -> str:
    """Grouped bars, one colour per series: categories for labels, equal-width bins for scores."""
    if not series or not any(series.values()):
        return ""
    names, counts = _bins(series, n_bins)
    height, left, bottom, top = 220, 40, 30, 24
    peak = max((c for row in counts.values() for c in row), default=0) or 1
    group = (width - left - 10) / max(len(names), 1)
    bar = group * 0.8 / max(len(counts), 1)
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' role='img'>"]
    plot_h = height - bottom - top
    axis_y = height - bottom
    parts.append(f"<line x1='{left}' y1='{axis_y}' x2='{width - 10}' y2='{axis_y}' stroke='#52606d'/>")
    parts.append(_svg_text(left - 6, top + 4, peak, anchor="end"))
    parts.append(_svg_text(left - 6, axis_y, 0, anchor="end"))
    for s, (series_name, row) in enumerate(counts.items()):
        colour = _PALETTE[s % len(_PALETTE)]
        for i, count in enumerate(row):
            h = plot_h * count / peak
            x = left + i * group + group * 0.1 + s * bar
            parts.append(
                f"<rect x='{x:.1f}' y='{height - bottom - h:.1f}' width='{bar:.1f}' height='{h:.1f}' "
                f"fill='{colour}'><title>{_e(series_name)} {_e(names[i])}: {count}</title></rect>"
            )
        parts.append(
            f"<rect x='{left + s * 110}' y='4' width='10' height='10' fill='{colour}'/>"
            f"<text x='{left + s * 110 + 14}' y='13' font-size='11'>{_e(series_name)}</text>"
        )
    for i, name in enumerate(names):
        x = left + i * group + group / 2
        parts.append(_svg_text(x, axis_y + 14, name, anchor="middle"))
    parts.append("</svg>")
    return "".join(parts)


def _axis(values: Sequence[float]) -> tuple[float, float]:
    low, high = min(values), max(values)
    pad = (high - low) * 0.1 or max(abs(high) * 0.05, 0.05)
    return low - pad, high + pad


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    """Rank 1 = highest score; ties share the better rank."""
    ordered = sorted(scores.values(), reverse=True)
    return {name: ordered.index(value) + 1 for name, value in scores.items()}


def scatter_svg(
    systems: Mapping[str, tuple[float, float]],
    *,
    axis_labels: tuple[str, str] = ("people", "judge"),
    size: int = 400,
) -> str:
    """One dot per system at (people's score, judge's score) on *equal* axes, with the y = x line.

    Why equal axes and the diagonal: a judge that is stricter than people everywhere puts every
    dot under the line, an offset that per-axis scaling would hide; whether the two *orders*
    agree is what Kendall's tau says. Dots are numbered by the people's ranking (1 = best by
    people); the legend lists them in that order with the judge's rank beside it, so a swap in
    the ranking reads directly. Hover a dot for its exact scores.
    """
    if not systems:
        return ""
    low, high = _axis([float(v) for pair in systems.values() for v in pair])
    margin = 56
    span = size - 2 * margin

    def sx(v: float) -> float:
        return margin + span * (v - low) / (high - low)

    def sy(v: float) -> float:
        return size - margin - span * (v - low) / (high - low)

    people_rank = _ranks({name: x for name, (x, _) in systems.items()})
    judge_rank = _ranks({name: y for name, (_, y) in systems.items()})
    order = sorted(systems, key=lambda name: (people_rank[name], name))
    number = {name: position for position, name in enumerate(order, start=1)}
    entries = {
        name: f"{number[name]}. {name}: people #{people_rank[name]}, judge #{judge_rank[name]}"
        f"  ({systems[name][0]:.3f}, {systems[name][1]:.3f})"
        for name in order
    }
    longest = max(len(text) for text in entries.values())
    width = size + 24 + int(longest * 6.2)
    height = max(size, margin + 16 * len(order) + 8)
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' role='img'>"
    ]
    parts.append(
        f"<rect x='{margin}' y='{margin}' width='{span}' height='{span}' fill='none' stroke='#9aa5b1'/>"
    )
    parts.append(
        f"<line class='diagonal' x1='{sx(low):.1f}' y1='{sy(low):.1f}' x2='{sx(high):.1f}' y2='{sy(high):.1f}' "
        "stroke='#9aa5b1' stroke-dasharray='4 3'><title>y = x: the judge scores as people do</title></line>"
    )
    parts.append(_svg_text(sx(high) - 4, sy(high) + 12, "y = x", size=9, anchor="end", extra=" fill='#7b8794'"))
    for step in range(3):
        value = low + (high - low) * (0.1 + 0.4 * step)
        parts.append(_svg_text(sx(value), size - margin + 14, f"{value:.3f}", anchor="middle"))
        parts.append(_svg_text(margin - 4, sy(value) + 3, f"{value:.3f}", anchor="end"))
    parts.append(_svg_text(margin + span / 2, size - 16, axis_labels[0], size=12, anchor="middle"))
    parts.append(
        f"<text x='16' y='{size / 2}' font-size='12' text-anchor='middle' "
        f"transform='rotate(-90 16 {size / 2})'>{_e(axis_labels[1])}</text>"
    )
    for i, (name, (x, y)) in enumerate(systems.items()):
        colour = _PALETTE[i % len(_PALETTE)]
        parts.append(
            f"<circle cx='{sx(x):.1f}' cy='{sy(y):.1f}' r='7' fill='{colour}' fill-opacity='0.85'>"
            f"<title>{_e(name)}: {x:.4f} vs {y:.4f}</title></circle>"
        )
        parts.append(
            _svg_text(sx(x), sy(y) + 3.5, number[name], size=9, anchor="middle", extra=" fill='white'")
        )
    parts.append(_svg_text(size + 8, margin - 12, "by people's rank", size=10, extra=" fill='#52606d'"))
    for position, name in enumerate(order):
        colour = _PALETTE[list(systems).index(name) % len(_PALETTE)]
        legend_y = margin + 16 * position
        parts.append(f"<circle cx='{size + 8}' cy='{legend_y - 3}' r='5' fill='{colour}'/>")
        parts.append(_svg_text(size + 18, legend_y, entries[name], size=10))
    parts.append("</svg>")
    return "".join(parts)


def _table_html(title: str, rows: Mapping[str, Mapping[str, Value]]) -> str:
    """A titled table; a table of one row is shown as figure/value lines, so a run's many
    figures stack down the page instead of running off its side."""
    columns: list[str] = []
    for values in rows.values():
        columns.extend(name for name in values if name not in columns)
    if len(rows) == 1:
        (name, values), = rows.items()
        head = f"<tr><th class='name'>figure</th><th>{_e(name)}</th></tr>" if name else ""
        body = "".join(
            f"<tr><td class='name'>{_e(c)}</td><td>{_e(_cell(values.get(c)))}</td></tr>" for c in columns
        )
        return f"<h2>{_e(title)}</h2><div class='scroll'><table>{head}{body}</table></div>"
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = "".join(
        f"<tr><td class='name'>{_e(name)}</td>"
        + "".join(f"<td>{_e(_cell(values.get(c)))}</td>" for c in columns)
        + "</tr>"
        for name, values in rows.items()
    )
    return f"<h2>{_e(title)}</h2><div class='scroll'><table><tr><th class='name'></th>{head}</tr>{body}</table></div>"


def _cell(value: object) -> str:
    """Table cells: thousands separators on counts (``15,094``), figures as ``fmt``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return fmt(value)


def _ranking_html(ranking: Ranking) -> str:
    text = ""
    if ranking.correlation is not None:
        text = correlation_text(ranking.correlation)
        if ranking.tau_interval is not None:
            text += f"; Kendall tau bootstrap 95 % interval {ranking.tau_interval.text()}"
        text = f"<p>{_e(text)}</p>"
    return text + scatter_svg(ranking.systems, axis_labels=ranking.axis_labels)


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
            f"<div class='card'><span>{_e(k)}</span><b>{_e(v)}</b></div>" for k, v in report.summary.items()
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
    rankings: dict[str, Ranking] = {}
    if report.systems:
        rankings[""] = Ranking(report.systems, report.correlation, report.tau_interval, report.axis_labels)
    rankings.update(report.rankings)
    if rankings:
        out.append("<h2>System ranking: people vs judge</h2>")
        for name, ranking in rankings.items():
            if name:
                out.append(f"<h3>{_e(name)}</h3>")
            out.append(_ranking_html(ranking))
    for title, rows in report.tables.items():
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


__all__ = ["HtmlReport", "Ranking", "confusion_html", "histogram_svg", "render_html", "scatter_svg", "write_html"]
