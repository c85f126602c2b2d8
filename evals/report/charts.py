"""The report's charts as inline SVG: histograms, the people-vs-judge scatter, and a probability
judge's P(yes) histogram by gold label, reliability diagram and ROC curve.

Why SVG drawn in Python: the report is one self-contained file (no JS chart library, no CDN), and
figures computed here (``evals.stats.probability_curves``) are the ones a test can check. Every
chart carries a ``class`` naming it, so a test or a stylesheet can find it.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence

from ragjury.evals.results.formatting import Value, fmt
from ragjury.evals.stats.probability_curves import (
    area_under,
    reliability_bins,
    roc_points,
    split_histogram,
)

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
    return _bars(names, counts, width=width)


def _bars(
    names: Sequence[str],
    counts: Mapping[str, Sequence[int]],
    *,
    width: int = 520,
    css_class: str = "chart-histogram",
    x_label: str | None = None,
    colours: Sequence[str] = (),
) -> str:
    """Grouped bars: one group per name, one bar per series, a legend on top."""
    height, left, bottom, top = 220 + (14 if x_label else 0), 40, 30 + (14 if x_label else 0), 24
    peak = max((c for row in counts.values() for c in row), default=0) or 1
    group = (width - left - 10) / max(len(names), 1)
    bar = group * 0.8 / max(len(counts), 1)
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' role='img' class='{css_class}'>"
    ]
    plot_h = height - bottom - top
    axis_y = height - bottom
    parts.append(f"<line x1='{left}' y1='{axis_y}' x2='{width - 10}' y2='{axis_y}' stroke='#52606d'/>")
    parts.append(_svg_text(left - 6, top + 4, peak, anchor="end"))
    parts.append(_svg_text(left - 6, axis_y, 0, anchor="end"))
    for s, (series_name, row) in enumerate(counts.items()):
        colour = colours[s] if s < len(colours) else _PALETTE[s % len(_PALETTE)]
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
    if x_label:
        parts.append(_svg_text(left + (width - left) / 2, height - 4, x_label, size=11, anchor="middle"))
    parts.append("</svg>")
    return "".join(parts)


def _axis(values: Sequence[float]) -> tuple[float, float]:
    low, high = min(values), max(values)
    pad = (high - low) * 0.1 or max(abs(high) * 0.05, 0.05)
    return low - pad, high + pad


def scatter_bounds(plots: Sequence[Mapping[str, tuple[float, float]]]) -> tuple[float, float]:
    """One (low, high) for every plot given: equal axes within a plot, and the same across plots."""
    return _axis([float(v) for systems in plots for pair in systems.values() for v in pair])


def _ranks(scores: Mapping[str, float]) -> dict[str, int]:
    """Rank 1 = highest score; ties share the better rank."""
    ordered = sorted(scores.values(), reverse=True)
    return {name: ordered.index(value) + 1 for name, value in scores.items()}


def scatter_svg(
    systems: Mapping[str, tuple[float, float]],
    *,
    axis_labels: tuple[str, str] = ("people", "judge"),
    size: int = 400,
    bounds: tuple[float, float] | None = None,
) -> str:
    """One dot per system at (people's score, judge's score) on *equal* axes, with the y = x line.

    Why equal axes and the diagonal: a judge that is stricter than people everywhere puts every
    dot under the line, an offset that per-axis scaling would hide; whether the two *orders*
    agree is what Kendall's tau says. Dots are numbered by the people's ranking (1 = best by
    people); the legend lists them in that order with the judge's rank beside it, so a swap in
    the ranking reads directly. Hover a dot for its exact scores. ``bounds`` (low, high) puts
    several plots on one axis, so two runs' plots can be read against each other.
    """
    if not systems:
        return ""
    low, high = bounds or scatter_bounds([systems])
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
        f"viewBox='0 0 {width} {height}' role='img' class='chart-ranking' data-low='{low:.4f}' data-high='{high:.4f}'>"
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


MAX_CURVE_POINTS = 400
"""Points drawn of a ROC curve (its AUC is computed from all of them)."""

GOLD_COLOURS = ("#16a34a", "#dc2626")
"""People said yes (green) / no (red), in the P(yes) charts."""


def probability_histogram_svg(probabilities: Sequence[float], gold: Sequence[bool], *, bins: int = 10) -> str:
    """P(yes) in equal-width bins, the items people said yes to beside those they said no to.

    Why split by gold: a judge that separates the classes puts green on the right and red on the
    left; the bins where both colours stand are the borderline items, where a cut-off is decided.
    """
    if not probabilities:
        return ""
    counts = split_histogram(probabilities, gold, bins)
    names = [f"{i / bins:.1f}" for i in range(bins)]
    return _bars(names, counts, css_class="chart-phist", x_label="P(yes), bin from", colours=GOLD_COLOURS)


def _unit_square(size: int, margin: int, x_label: str, y_label: str, css_class: str, title: str) -> tuple[list[str], float]:
    """The frame of a [0, 1] x [0, 1] plot: box, ticks, labels, the dashed y = x line."""
    span = size - 2 * margin
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{size}' height='{size}' viewBox='0 0 {size} {size}' "
        f"role='img' class='{css_class}'><title>{_e(title)}</title>",
        f"<rect x='{margin}' y='{margin}' width='{span}' height='{span}' fill='none' stroke='#9aa5b1'/>",
        f"<line class='diagonal' x1='{margin}' y1='{margin + span}' x2='{margin + span}' y2='{margin}' "
        "stroke='#9aa5b1' stroke-dasharray='4 3'/>",
    ]
    for tick in (0.0, 0.5, 1.0):
        parts.append(_svg_text(margin + span * tick, margin + span + 13, f"{tick:.1f}", anchor="middle"))
        parts.append(_svg_text(margin - 4, margin + span * (1 - tick) + 3, f"{tick:.1f}", anchor="end"))
    parts.append(_svg_text(margin + span / 2, size - 6, x_label, size=11, anchor="middle"))
    parts.append(
        f"<text x='12' y='{margin + span / 2}' font-size='11' text-anchor='middle' "
        f"transform='rotate(-90 12 {margin + span / 2})'>{_e(y_label)}</text>"
    )
    return parts, span


def reliability_svg(probabilities: Sequence[float], gold: Sequence[bool], *, bins: int = 10, size: int = 300) -> str:
    """Mean P(yes) of each bin against the share people said yes: on y = x the probabilities mean
    what they say; under it the judge is overconfident. Dot area follows the bin's items."""
    points = reliability_bins(probabilities, gold, bins)
    if not points:
        return ""
    margin = 40
    parts, span = _unit_square(size, margin, "mean P(yes) in the bin", "share people said yes", "chart-reliability",
                               "reliability diagram")
    peak = max(point.n for point in points)
    coords = []
    for point in points:
        x = margin + span * point.mean_probability
        y = margin + span * (1 - point.observed)
        coords.append(f"{x:.1f},{y:.1f}")
        radius = 3 + 6 * (point.n / peak) ** 0.5
        parts.append(
            f"<circle cx='{x:.1f}' cy='{y:.1f}' r='{radius:.1f}' fill='#2563eb' fill-opacity='0.75'>"
            f"<title>P {point.low:.1f}-{point.high:.1f}: {point.n} item(s), mean P {point.mean_probability:.3f}, "
            f"people yes {point.observed:.3f}</title></circle>"
        )
    parts.insert(4, f"<polyline points='{' '.join(coords)}' fill='none' stroke='#2563eb' stroke-width='1.5'/>")
    parts.append("</svg>")
    return "".join(parts)


def roc_svg(probabilities: Sequence[float], gold: Sequence[bool], *, size: int = 300) -> str:
    """The ROC curve of P(yes) against people's labels, with its AUC (0.5: no better than chance)."""
    points = roc_points(probabilities, gold)
    if not points:
        return ""
    margin = 40
    parts, span = _unit_square(size, margin, "false positive rate", "true positive rate", "chart-roc", "ROC curve")
    area = area_under(points)
    if len(points) > MAX_CURVE_POINTS:  # 15,000 items: a few hundred points draw the same curve
        step = (len(points) - 1) / (MAX_CURVE_POINTS - 1)
        points = [points[round(k * step)] for k in range(MAX_CURVE_POINTS)]
    coords = " ".join(f"{margin + span * x:.1f},{margin + span * (1 - y):.1f}" for x, y in points)
    parts.append(f"<polyline points='{coords}' fill='none' stroke='#9333ea' stroke-width='2'/>")
    parts.append(_svg_text(margin + span - 4, margin + span - 8, f"AUC {fmt(area, 3)}", size=12, anchor="end",
                           extra=" class='auc'"))
    parts.append("</svg>")
    return "".join(parts)


__all__ = [
    "histogram_svg",
    "probability_histogram_svg",
    "reliability_svg",
    "roc_svg",
    "scatter_bounds",
    "scatter_svg",
]
