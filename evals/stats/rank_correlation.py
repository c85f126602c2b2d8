"""Kendall's tau-b, Spearman's rho and Pearson's r with their p-values, in plain Python.

Ranking a handful of systems should not pay for importing ``scipy.stats``. The definitions and
p-values are scipy's (tested equal to ``kendalltau``/``spearmanr``/``pearsonr``): tau-b's exact
p-value for small untied samples (Kendall 1970), else the tie-corrected normal approximation.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence


def _pearson(x: Sequence[float], y: Sequence[float]) -> float:
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return math.nan
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties given the mean of the ranks they span (as ``scipy.stats.rankdata``)."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            ranks[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), by its continued fraction (also the
    judge card's t quantile, ``judge_card._t_quantile_exact``)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1) / (a + b + 2):  # the continued fraction converges fast on this side only
        return 1.0 - incomplete_beta(b, a, 1.0 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return front * result / a


def _t_two_sided(r: float, n: int) -> float:
    """Two-sided p-value of a correlation ``r`` over ``n`` pairs, from Student's t (n - 2 df)."""
    dof = n - 2
    if dof <= 0:
        return math.nan
    if abs(r) >= 1.0:
        return 0.0
    t_squared = r * r * dof / ((1.0 - r) * (1.0 + r))
    return incomplete_beta(dof / 2, 0.5, dof / (dof + t_squared))


def pearson(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Pearson's r and its two-sided p-value (NaN for a constant side)."""
    r = _pearson(x, y)
    return r, (math.nan if math.isnan(r) else _t_two_sided(r, len(x)))


def spearman(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Spearman's rho (Pearson's r of the average ranks) and its two-sided p-value."""
    return pearson(average_ranks(x), average_ranks(y))


def _inversion_counts(n: int, up_to: int) -> list[int]:
    """How many permutations of n items have k inversions, for k = 0 .. up_to (Mahonian numbers)."""
    counts = [1] + [0] * up_to
    for size in range(2, n + 1):
        running, updated = 0, []
        for k in range(up_to + 1):
            running += counts[k]
            if k - size >= 0:
                running -= counts[k - size]
            updated.append(running)
        counts = updated
    return counts


def _tie_sums(values: Sequence[float]) -> tuple[int, int, int]:
    """Tied pairs, and the two tie terms of the variance of (concordant - discordant)."""
    groups = [t for t in Counter(values).values() if t > 1]
    return (
        sum(t * (t - 1) // 2 for t in groups),
        sum(t * (t - 1) * (t - 2) for t in groups),
        sum(t * (t - 1) * (2 * t + 5) for t in groups),
    )


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Kendall's tau-b and its two-sided p-value (NaN when a side is constant)."""
    n = len(x)
    concordant = discordant = 0
    for i in range(n):
        for j in range(i + 1, n):
            s = (x[i] - x[j]) * (y[i] - y[j])
            if s > 0:
                concordant += 1
            elif s < 0:
                discordant += 1
    total = n * (n - 1) // 2
    x_ties, x0, x1 = _tie_sums(x)
    y_ties, y0, y1 = _tie_sums(y)
    if x_ties == total or y_ties == total:
        return math.nan, math.nan
    difference = concordant - discordant
    tau = max(-1.0, min(1.0, difference / math.sqrt(total - x_ties) / math.sqrt(total - y_ties)))
    if x_ties == 0 and y_ties == 0 and (n <= 33 or min(discordant, total - discordant) <= 1):
        c = min(discordant, total - discordant)
        if 4 * c == n * (n - 1):
            return tau, 1.0
        p = 2 * sum(_inversion_counts(n, c)) / math.factorial(n)
        return tau, min(1.0, p)
    m = n * (n - 1.0)
    variance = (m * (2 * n + 5) - x1 - y1) / 18 + 2 * x_ties * y_ties / m + x0 * y0 / (9 * m * (n - 2))
    z = difference / math.sqrt(variance)
    return tau, math.erfc(abs(z) / math.sqrt(2))


__all__ = ["average_ranks", "incomplete_beta", "kendall_tau_b", "pearson", "spearman"]
