"""Prediction-powered estimates: equal to ppi_py's where they share a formula, and intervals that cover."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ragjury.evals.stats.label_plan import draw, inclusion_probabilities
from ragjury.evals.stats.prediction_powered import (
    _cross_fit,
    _folds,
    finite_population_mean,
    prediction_powered_mean,
)

with warnings.catch_warnings():  # ppi_py silences every warning of the process at import
    ppi_py = pytest.importorskip("ppi_py")


def _scripted(seed: int, n: int = 80, big_n: int = 3000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A judge that agrees with people 80 % of the time, probabilities blurred: λ lands inside (0, 1)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.7).astype(float)
    yhat = np.clip(np.where(rng.random(n) < 0.8, y, 1 - y) * 0.3 + rng.random(n) * 0.7, 0, 1)
    truth_u = (rng.random(big_n) < 0.7).astype(float)
    unlabelled = np.clip(np.where(rng.random(big_n) < 0.8, truth_u, 1 - truth_u) * 0.3 + rng.random(big_n) * 0.7, 0, 1)
    return y, yhat, unlabelled


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_point_estimate_and_interval_equal_ppi_py(seed: int, weighted: bool) -> None:
    y, yhat, unlabelled = _scripted(seed)
    w = np.random.default_rng(seed + 10).uniform(0.5, 2.0, y.shape[0]) if weighted else None
    ours = prediction_powered_mean(y, yhat, unlabelled, weights=w, interval="normal")
    low, high = ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=0.05, w=w)
    point = ppi_py.ppi_mean_pointestimate(y, yhat, unlabelled, w=w)
    assert 0.0 < ours.lam < 1.0  # the power tuning is exercised, not clipped away
    assert ours.value == pytest.approx(float(np.ravel(point)[0]), abs=1e-12)
    assert (ours.low, ours.high) == (pytest.approx(float(np.ravel(low)[0]), abs=1e-12),
                                     pytest.approx(float(np.ravel(high)[0]), abs=1e-12))


@pytest.mark.parametrize("lam", [0.0, 1.0])
def test_fixed_lambda_equals_ppi_py(lam: float) -> None:
    y, yhat, unlabelled = _scripted(5)
    ours = prediction_powered_mean(y, yhat, unlabelled, lam=lam, interval="normal")
    low, high = ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=0.05, lam=lam)
    assert (ours.low, ours.high) == (pytest.approx(float(np.ravel(low)[0])), pytest.approx(float(np.ravel(high)[0])))


def test_lambda_zero_is_the_labels_own_mean_with_the_finite_population_variance() -> None:
    y, yhat, unlabelled = _scripted(7, n=100, big_n=400)
    population = np.concatenate([yhat, unlabelled[:300]])
    human = finite_population_mean(y, yhat, population, lam=0.0, interval="t")
    assert human.value == pytest.approx(y.mean())
    expected = np.sqrt((1 - 100 / 400) * (y.var(ddof=1) / 100 + (1.959964 / 200) ** 2))  # + Wilson's term
    assert human.std_error == pytest.approx(expected)


def test_leave_one_out_sums_equal_recomputing_without_each_item() -> None:
    """The jackknife's O(n·K) leave-one-out values equal re-fitting without each label (same folds)."""
    y, yhat, unlabelled = _scripted(11, n=30, big_n=500)
    population = np.concatenate([yhat, unlabelled])
    pi = np.random.default_rng(3).uniform(0.02, 0.2, 30)
    folds = _folds(30)
    fit = _cross_fit(y, yhat, pi, float(population.mean()), None, folds)
    for i in range(30):
        keep = np.arange(30) != i
        again = finite_population_mean(y[keep], yhat[keep], population, inclusion=pi[keep], folds=folds[keep])
        assert fit.loo[i] == pytest.approx(again.value, abs=1e-12)


def _population(seed: int, size: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = (rng.random(size) < 0.75).astype(float)
    judge = np.where(rng.random(size) < 0.85, labels, 1 - labels)
    judge = np.where(rng.random(size) < 0.7, judge, 0.0)  # a strict judge: biased low
    return labels, judge


@pytest.mark.parametrize("scale", [1.0, 0.25])
def test_simulated_coverage_holds_and_a_wrong_variance_would_fail(scale: float) -> None:
    """400 seeded draws of 60 labels: the jackknife interval covers the true rate ~95 % of the
    time; the same interval with a quarter of the variance (half the width) covers far less."""
    labels, judge = _population(1)
    truth = labels.mean()
    rng = np.random.default_rng(2)
    covered = 0
    for _ in range(400):
        index = rng.choice(labels.shape[0], 60, replace=False)
        estimate = finite_population_mean(labels[index], judge[index], judge)
        half = (estimate.high - estimate.low) / 2 * np.sqrt(scale)
        covered += estimate.value - half <= truth <= estimate.value + half
    coverage = covered / 400
    if scale == 1.0:
        assert 0.92 <= coverage <= 0.98
    else:
        assert coverage < 0.80
    assert judge.mean() < truth - 0.1  # the naive mean is far off: the correction is what covers


def test_prediction_powered_is_narrower_than_people_alone_when_the_judge_tracks_them() -> None:
    labels, judge = _population(4)
    index = np.random.default_rng(5).choice(labels.shape[0], 100, replace=False)
    powered = finite_population_mean(labels[index], judge[index], judge)
    human = finite_population_mean(labels[index], judge[index], judge, lam=0.0)
    assert powered.width < 0.9 * human.width and 0.2 < powered.lam <= 1.0


def test_label_plan_probabilities_sum_to_the_budget_and_keep_the_estimate_unbiased() -> None:
    rng = np.random.default_rng(8)
    size = 3000
    probability = rng.beta(0.6, 0.6, size)
    labels = (rng.random(size) < probability).astype(float)
    pi = inclusion_probabilities(probability, 120)
    assert pi.sum() == pytest.approx(120) and pi.max() <= 1.0 and pi.min() > 0
    assert pi[np.argmin(np.abs(probability - 0.5))] > pi[np.argmin(probability)]  # the unsure item is likelier
    estimates, covered = [], 0
    for seed in range(300):
        picked = draw(pi, seed)
        estimate = finite_population_mean(labels[picked], probability[picked], probability, inclusion=pi[picked])
        estimates.append(estimate.value)
        covered += estimate.low <= labels.mean() <= estimate.high
    assert abs(np.mean(estimates) - labels.mean()) < 0.01
    assert covered / 300 >= 0.91


def test_binary_verdicts_give_uniform_chances_and_a_budget_over_the_items_takes_all() -> None:
    assert np.allclose(inclusion_probabilities([0.0, 1.0, 1.0, 0.0], 2), 0.5)
    assert np.array_equal(inclusion_probabilities([0.2, 0.9], 5), [1.0, 1.0])


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError):
        finite_population_mean([], [], [0.5])
    with pytest.raises(ValueError):
        finite_population_mean([1.0], [0.5], [0.5], inclusion=[1.5])
    with pytest.raises(ValueError):
        prediction_powered_mean([1.0, float("nan")], [0.5, 0.5], [0.5])
