"""The report's per-system estimates: a forest plot of the three intervals and the judge's bias.

For each system, three horizontal intervals on one shared axis — the judge's own mean, people's
labels alone, and the prediction-powered estimate — so a reader sees at a glance how far the
judge is off (the gap between the first and the others) and what the labels bought (the last
interval's width against the second's). Inline SVG; every piece of user text is escaped.
"""

from __future__ import annotations

import html

from ragjury.evals.stats.prediction_powered import Estimate
from ragjury.evals.stats.run_estimates import EstimatesResult

ROWS = (("judge only", "judge", "#9aa0a6"), ("people only", "human_only", "#4c78a8"),
        ("prediction-powered", "prediction_powered", "#e45756"))


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def forest_svg(result: EstimatesResult, *, width: int = 640) -> str:
    """Three intervals per system on one axis spanning every interval drawn (padded, within [0, 1])."""
    intervals: list[Estimate] = []
    for system in result.systems:
        for _label, attribute, _colour in ROWS:
            estimate = getattr(system, attribute)
            if estimate is not None:
                intervals.append(estimate)
    low = max(0.0, min(e.low for e in intervals) - 0.02)
    high = min(1.0, max(e.high for e in intervals) + 0.02)
    if high - low < 0.05:
        low, high = max(0.0, low - 0.05), min(1.0, high + 0.05)
    left, right, row_h = 150, width - 20, 14
    x = lambda value: left + (value - low) / (high - low) * (right - left)  # noqa: E731
    parts: list[str] = []
    y = 10
    for system in result.systems:
        parts.append(f'<text x="4" y="{y + 12}" font-weight="bold">{_e(system.system)}</text>')
        y += row_h
        for label, attribute, colour in ROWS:
            estimate = getattr(system, attribute)
            y += row_h
            parts.append(f'<text x="16" y="{y + 4}" font-size="11">{_e(label)}</text>')
            if estimate is None:
                parts.append(f'<text x="{left}" y="{y + 4}" font-size="11" fill="#888">not enough labels</text>')
                continue
            parts.append(
                f'<line x1="{x(estimate.low):.1f}" x2="{x(estimate.high):.1f}" y1="{y}" y2="{y}" '
                f'stroke="{colour}" stroke-width="3"><title>{_e(label)}: {estimate.value:.3f} '
                f'[{estimate.low:.3f}, {estimate.high:.3f}]</title></line>'
                f'<circle cx="{x(estimate.value):.1f}" cy="{y}" r="4" fill="{colour}"/>'
            )
        y += row_h
    ticks = []
    for step in range(6):
        value = low + (high - low) * step / 5
        ticks.append(
            f'<line x1="{x(value):.1f}" x2="{x(value):.1f}" y1="4" y2="{y}" stroke="#ddd"/>'
            f'<text x="{x(value):.1f}" y="{y + 14}" font-size="11" text-anchor="middle">{value:.2f}</text>'
        )
    height = y + 22
    return (
        f'<svg class="forest" role="img" aria-label="per-system estimates" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg" font-family="sans-serif" font-size="12">'
        + "".join(ticks) + "".join(parts) + "</svg>"
    )


def estimates_html(result: EstimatesResult) -> str:
    """The section: the forest plot, then a table with each estimate's interval, the bias and what the labels are worth."""
    rows = []
    for system in result.systems:
        cells = []
        for _label, attribute, _colour in ROWS:
            estimate = getattr(system, attribute)
            cells.append("-" if estimate is None else f"{estimate.value:.3f} [{estimate.low:.3f}, {estimate.high:.3f}]")
        bias = "-" if system.bias is None else f"{system.bias:+.3f}"
        worth = "-" if system.effective_labels is None else f"{system.effective_labels:.0f}"
        rows.append(
            f"<tr><td>{_e(system.system)}</td><td>{system.n_labels:,} / {system.n_items:,}</td>"
            + "".join(f"<td>{_e(cell)}</td>" for cell in cells)
            + f"<td>{bias}</td><td>{worth}</td></tr>"
        )
    notes = [*result.notes, *(f"{s.system}: {note}" for s in result.systems for note in s.notes)]
    return (
        '<section id="estimates"><h2>System rates from a few labels</h2>'
        f"<p>{result.n_labels:,} human labels; {result.level:.0%} intervals. The prediction-powered estimate "
        "corrects the judge's mean with the labelled items; its interval holds for the people's rate.</p>"
        + forest_svg(result)
        + "<table><thead><tr><th>system</th><th>labels / items</th><th>judge only</th><th>people only</th>"
        "<th>prediction-powered</th><th>judge bias</th><th>labels worth</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
        + "".join(f'<p class="note">{_e(note)}</p>' for note in notes)
        + "</section>"
    )


__all__ = ["estimates_html", "forest_svg"]
