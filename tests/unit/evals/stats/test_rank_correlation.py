"""The plain-Python rank correlations give scipy's figures (scipy is a dependency; the module
exists so that a run does not pay scipy.stats' import for a handful of numbers)."""

from __future__ import annotations

import math
import random

import pytest
from scipy import stats

from ragjury.evals.stats.agreement import average_ranks, kendall_tau_b, pearson, spearman


def cases() -> list[tuple[list[float], list[float]]]:
    rng = random.Random(7)
    out = []
    for n in (3, 4, 5, 6, 8, 12, 20, 33, 34, 50):
        for ties in (False, True):
            pool = [0.0, 0.25, 0.5, 0.75, 1.0] if ties else None
            x = [rng.choice(pool) if pool else rng.random() for _ in range(n)]
            y = [v + rng.gauss(0, 0.3) for v in x] if not ties else [rng.choice(pool) for _ in range(n)]
            out.append((x, y))
    out.append(([1, 2, 3, 4, 5], [5, 4, 3, 2, 1]))  # perfect disagreement
    out.append(([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 6, 5]))  # one discordant pair
    out.append(([1.0, 2.0, 3.0, 4.0], [2.0, 1.0, 4.0, 3.0]))
    return out


def close(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize(("x", "y"), cases())
def test_kendall_and_spearman_equal_scipy(x: list[float], y: list[float]) -> None:
    tau, p = kendall_tau_b(x, y)
    expected = stats.kendalltau(x, y)
    assert close(tau, float(expected.statistic)) and close(p, float(expected.pvalue)), (tau, p, expected)
    rho, p_rho = spearman(x, y)
    expected_rho = stats.spearmanr(x, y)
    assert close(rho, float(expected_rho.statistic))
    assert math.isclose(p_rho, float(expected_rho.pvalue), rel_tol=1e-7, abs_tol=1e-12)
    if len(set(x)) > 1 and len(set(y)) > 1:
        r, p_r = pearson(x, y)
        expected_r = stats.pearsonr(x, y)
        assert close(r, float(expected_r.statistic))
        assert math.isclose(p_r, float(expected_r.pvalue), rel_tol=1e-7, abs_tol=1e-12)


def test_constant_sides_and_ranks() -> None:
    assert all(math.isnan(v) for v in kendall_tau_b([1, 1, 1], [1, 2, 3]))
    assert math.isnan(spearman([2, 2, 2], [1, 2, 3])[0])
    assert average_ranks([10, 20, 20, 5]) == [2.0, 3.5, 3.5, 1.0]
