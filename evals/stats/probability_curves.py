"""What a probability judge's P(yes) says against people's labels: histogram bins, reliability, ROC.

Why: a kappa is one threshold's view. A judge that reads P(yes) from one token's probabilities
can be wrong in two separate ways — it ranks items badly (the ROC curve and its AUC say so), or
it ranks them well but its probabilities mean the wrong thing (the reliability diagram says so,
and a calibration file fixes it). The histogram split by gold label shows where the borderline
items sit. The report draws these from the figures here; they are plain numbers so they can be
tested without a browser.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ReliabilityBin:
    """One equal-width bin of P(yes): its items, their mean P and the share people said yes."""

    low: float
    high: float
    n: int
    mean_probability: float
    observed: float


def _bin_of(p: float, bins: int) -> int:
    return min(max(int(p * bins), 0), bins - 1)


def split_histogram(probabilities: Sequence[float], gold: Sequence[bool], bins: int = 10) -> dict[str, list[int]]:
    """Counts per equal-width P bin, for the items people said yes to and those they said no to."""
    counts = {"gold yes": [0] * bins, "gold no": [0] * bins}
    for p, g in zip(probabilities, gold, strict=True):
        counts["gold yes" if g else "gold no"][_bin_of(p, bins)] += 1
    return counts


def reliability_bins(probabilities: Sequence[float], gold: Sequence[bool], bins: int = 10) -> list[ReliabilityBin]:
    """The non-empty bins of a reliability diagram: a calibrated judge's bins sit on y = x."""
    groups: list[list[tuple[float, bool]]] = [[] for _ in range(bins)]
    for p, g in zip(probabilities, gold, strict=True):
        groups[_bin_of(p, bins)].append((p, g))
    out = []
    for index, group in enumerate(groups):
        if group:
            out.append(
                ReliabilityBin(
                    low=index / bins,
                    high=(index + 1) / bins,
                    n=len(group),
                    mean_probability=sum(p for p, _ in group) / len(group),
                    observed=sum(g for _, g in group) / len(group),
                )
            )
    return out


def roc_points(probabilities: Sequence[float], gold: Sequence[bool]) -> list[tuple[float, float]]:
    """(false positive rate, true positive rate) at every distinct threshold, from (0, 0) to (1, 1).

    Tied probabilities move both rates in one step (a diagonal segment), so the area under the
    polyline equals the AUC with ties counted half. Empty when either class is missing.
    """
    positives = sum(bool(g) for g in gold)
    negatives = len(gold) - positives
    if positives == 0 or negatives == 0:
        return []
    ordered = sorted(zip(probabilities, gold, strict=True), key=lambda pair: -pair[0])
    points = [(0.0, 0.0)]
    tp = fp = 0
    index = 0
    while index < len(ordered):
        threshold = ordered[index][0]
        while index < len(ordered) and ordered[index][0] == threshold:
            if ordered[index][1]:
                tp += 1
            else:
                fp += 1
            index += 1
        points.append((fp / negatives, tp / positives))
    return points


def area_under(points: Sequence[tuple[float, float]]) -> float | None:
    """Trapezoid area under a ROC polyline (None for an empty curve)."""
    if not points:
        return None
    return sum((x2 - x1) * (y1 + y2) / 2 for (x1, y1), (x2, y2) in zip(points, points[1:], strict=False))


__all__ = ["ReliabilityBin", "area_under", "reliability_bins", "roc_points", "split_histogram"]
