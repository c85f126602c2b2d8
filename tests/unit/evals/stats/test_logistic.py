"""The logistic head's fitting and cross-validation (``evals.stats.logistic``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import mannwhitneyu

from ragjury.evals.stats.logistic import auc, best_threshold, cross_validate, fit_logistic, fold_ids, kappa_of


def _data(n: int = 600, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)) * np.array([1.0, 5.0, 1.0]) + np.array([0.0, 10.0, 0.0])
    z = 2.0 * x[:, 0] - 0.4 * (x[:, 1] - 10.0)  # the third signal is noise
    y = rng.random(n) < 1.0 / (1.0 + np.exp(-z))
    return x, y


def test_the_fit_finds_the_signals_direction_and_ignores_noise() -> None:
    x, y = _data()
    head = fit_logistic(x, y, l2=1.0)
    weights = head.weights  # on standardised signals
    assert weights[0] > 1.0 and weights[1] < -1.0
    assert abs(weights[2]) < 0.3
    p = head.probability(x)
    assert ((p >= 0.5) == y).mean() > 0.75


def test_a_constant_signal_does_not_break_the_fit() -> None:
    x, y = _data()
    x[:, 2] = 3.0
    head = fit_logistic(x, y)
    assert np.isfinite(head.weights).all() and head.scale[2] == 1.0


def test_auc_equals_the_mann_whitney_statistic() -> None:
    rng = np.random.default_rng(1)
    p = np.round(rng.random(200), 1)  # ties on purpose
    g = rng.random(200) < p
    u = mannwhitneyu(p[g], p[~g]).statistic
    assert auc(p, g) == pytest.approx(u / (g.sum() * (~g).sum()))
    assert auc(p, np.ones(200, dtype=bool)) is None


def test_group_folds_keep_each_group_in_one_fold() -> None:
    groups = [f"q{i // 4}" for i in range(80)]
    ids = fold_ids(80, 5, seed=3, groups=groups)
    for g in set(groups):
        assert len({ids[i] for i in range(80) if groups[i] == g}) == 1
    assert len(set(ids)) == 5


def test_cross_validation_is_out_of_fold_and_honest() -> None:
    """On pure noise the in-sample fit looks better than chance; the out-of-fold kappa does not."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(120, 6))
    y = rng.random(120) < 0.5
    cv = cross_validate(x, y, folds=5, seed=0)
    assert abs(kappa_of(y, cv.verdict) or 0.0) < 0.25
    x, y = _data()
    cv = cross_validate(x, y, folds=5, seed=0)
    assert (kappa_of(y, cv.verdict) or 0.0) > 0.4


def test_best_threshold_maximises_kappa() -> None:
    p = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9])
    g = np.array([False, False, True, True, True, True])
    cut = best_threshold(p, g)
    assert kappa_of(g, p >= cut) == pytest.approx(1.0)
