"""A system's rate as people would measure it, from a judge on every item and people on a few.

The judge's mean is biased (a strict judge under-states every system) and its interval says
nothing about people. Prediction-powered inference (PPI++, Angelopoulos, Duchi & Zrnic 2023)
corrects the judge's mean with the labelled items' residuals, ``λ·mean(judge) + mean(y − λ·judge)``,
with λ tuned for the narrowest interval: λ near 0 when the judge says nothing (the estimate falls
back to the people's mean), near 1 when it agrees. The formulas follow ``ppi_py`` (the tests check
them against it); sample weights (inverse inclusion probabilities) keep the estimate unbiased when
the labelled items were drawn with unequal probabilities (``label-plan``). Numpy and scipy only.
"""

from __future__ import annotations

import hashlib

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Literal

import numpy as np
import numpy.typing as npt

IntervalKind = Literal["t", "normal"]
FiniteIntervalKind = Literal["jackknife", "t", "normal"]

DEFAULT_FINITE_INTERVAL: FiniteIntervalKind = "jackknife"
"""For a system's rate over its judged items: chosen on the tune half by ``bench/bench_ppi.py``."""

DEFAULT_INTERVAL: IntervalKind = "t"
"""Student's t on n − 1 degrees of freedom: the normal interval under-covers at 50 labels
(``bench/bench_ppi.py`` compares them on the tune half and reports on the confirm half)."""

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Estimate:
    """A rate with its interval, and what it was computed from."""

    value: float
    low: float
    high: float
    std_error: float
    n_labels: int
    """Human labels used (0 for the judge's own mean)."""
    n_items: int
    lam: float | None = None
    """The power-tuning weight on the judge (prediction-powered only): 0 = people only."""

    @property
    def width(self) -> float:
        return self.high - self.low

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "estimate": round(self.value, 6),
            "interval": [round(self.low, 6), round(self.high, 6)],
            "std_error": None if self.std_error != self.std_error else round(self.std_error, 6),  # NaN: a sequence
            "n_labels": self.n_labels,
            "n_items": self.n_items,
        }
        if self.lam is not None:
            out["lambda"] = round(self.lam, 6)
        return out


def _as_floats(values: Sequence[float] | npt.ArrayLike) -> Floats:
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(array)):
        raise ValueError("values must be finite numbers")
    return array


def _weights(weights: Sequence[float] | npt.ArrayLike | None, n: int) -> Floats:
    """Weights normalised to mean 1 (as ppi_py does), all ones when none are given."""
    if weights is None:
        return np.ones(n)
    array = _as_floats(weights)
    if array.shape[0] != n or np.any(array <= 0):
        raise ValueError("one positive weight per labelled item")
    return array / array.mean()


@cache
def _critical(level: float, n: int, interval: IntervalKind) -> float:
    from scipy import stats  # here, not at import: a run without labels never asks (0.3 s saved)

    upper = 1 - (1 - level) / 2
    if interval == "normal" or n < 2:
        return float(stats.norm.ppf(upper))
    return float(stats.t.ppf(upper, df=n - 1))


def interval_around(value: float, std_error: float, level: float, n: int, interval: IntervalKind) -> tuple[float, float]:
    half = _critical(level, n, interval) * std_error
    return value - half, value + half


def power_tuned_lambda(y: Floats, yhat: Floats, yhat_all: Floats, w: Floats, w_all: Floats) -> float:
    """λ minimising the estimate's variance (ppi_py's ``_calc_lam_glm`` for a mean), clipped to [0, 1]."""
    n, big_n = y.shape[0], yhat_all.shape[0]
    first = (w_all * yhat_all).mean() + (w * (y - yhat)).mean()
    grads = w * (y - first)
    grads_hat = w * (yhat - first)
    grads_hat_all = w_all * (yhat_all - first)
    covariance = 2 * ((grads - grads.mean()) * (grads_hat - grads_hat.mean())).sum() / n
    pooled = np.concatenate([grads_hat, grads_hat_all])
    variance = pooled.var(ddof=1) if pooled.shape[0] > 1 else 0.0
    if variance <= 0 or not math.isfinite(covariance):
        return 0.0
    return float(np.clip(covariance / (2 * (1 + n / big_n) * variance), 0.0, 1.0))


def prediction_powered_mean(
    y: Sequence[float] | npt.ArrayLike,
    yhat: Sequence[float] | npt.ArrayLike,
    yhat_all: Sequence[float] | npt.ArrayLike,
    *,
    weights: Sequence[float] | npt.ArrayLike | None = None,
    lam: float | None = None,
    level: float = 0.95,
    interval: IntervalKind = DEFAULT_INTERVAL,
) -> Estimate:
    """PPI++ estimate of people's mean: ``y``/``yhat`` on the labelled items, ``yhat_all`` the
    judge on every item (the "unlabelled" set of ppi_py). ``lam=None`` tunes λ; 1 is plain PPI."""
    y_, yhat_, all_ = _as_floats(y), _as_floats(yhat), _as_floats(yhat_all)
    n = y_.shape[0]
    if n == 0 or yhat_.shape[0] != n or all_.shape[0] == 0:
        raise ValueError("need labelled items with a judge score each, and the judge on every item")
    w = _weights(weights, n)
    w_all = np.ones(all_.shape[0])
    tuned = power_tuned_lambda(y_, yhat_, all_, w, w_all) if lam is None else float(lam)
    imputed = w_all * tuned * all_
    rectifier = w * (y_ - tuned * yhat_)
    value = float(imputed.mean() + rectifier.mean())
    std_error = math.sqrt(imputed.std() ** 2 / all_.shape[0] + rectifier.std() ** 2 / n)
    low, high = interval_around(value, std_error, level, n, interval)
    return Estimate(value, low, high, std_error, n, all_.shape[0], lam=tuned)


FOLDS = 10
"""λ is cross-fitted: each label's residual uses the λ fitted on the other folds' labels, so λ
never sees the label it corrects (an in-sample λ biased the estimate by +0.010 at 30 labels)."""

_STATS = 5  # Σa, Σa·y, Σa·h, Σa·y·h, Σa·h² — what a λ needs, additive over items


def _lambda_of(sums: Floats) -> Floats:
    """λ = weighted cov(y, h) / var(h) from the additive sums (first axis), clipped to [0, 1].

    A variance that is zero up to round-off (a constant judge) gives exactly 0, not the ratio
    of two round-off errors."""
    sa, say, sah, sayh, sahh = sums
    covariance = sa * sayh - say * sah
    variance = sa * sahh - sah**2
    ok = variance > 1e-12 * np.maximum(sa * sahh, 1e-300)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, np.clip(np.nan_to_num(covariance / variance), 0.0, 1.0), 0.0)


def finite_population_lambda(
    y: Sequence[float] | npt.ArrayLike,
    yhat: Sequence[float] | npt.ArrayLike,
    inclusion: Sequence[float] | npt.ArrayLike,
) -> float:
    """λ minimising the finite-population variance of ``λ·mean(judge) + mean(y − λ·judge)``.

    The judge's mean over all N items is known exactly, so only the residuals vary: λ is their
    regression slope, weighted by ``(1 − π)/π²`` as the variance weights them — no ``1 + n/N``
    factor, which would shrink λ by 20 % at a quarter of the items labelled."""
    y_, h, pi = _as_floats(y), _as_floats(yhat), _as_floats(inclusion)
    if h.size == 0 or np.ptp(h) == 0:
        return 0.0
    a = (1 - pi) / pi**2
    return float(_lambda_of(np.array([a.sum(), (a * y_).sum(), (a * h).sum(), (a * y_ * h).sum(), (a * h * h).sum()])))


def folds_of(keys: Sequence[str]) -> npt.NDArray[np.int64]:
    """Each label's fold from a seeded hash of its key (the question, or the id): the same labels in
    any order give the same folds, hence the same estimate. Ranked by hash, then dealt round, so
    the folds stay balanced."""
    n = len(keys)
    order = sorted(range(n), key=lambda i: (hashlib.sha256(f"ragjury-folds:{keys[i]}".encode()).digest(), i))
    folds = np.empty(n, dtype=np.int64)
    for rank, index in enumerate(order):
        folds[index] = rank % max(1, min(FOLDS, n))
    return folds


def _folds(n: int) -> npt.NDArray[np.int64]:
    """Each label's fold: a fixed shuffle, so the same labels always give the same estimate."""
    return np.random.default_rng(n).permutation(n) % max(1, min(FOLDS, n))


@dataclass(frozen=True)
class _Fit:
    value: float
    lam: float
    loo: Floats
    """The estimate without each label in turn (the other folds' λ re-fitted without it)."""
    terms: Floats
    """Each label's term ``y + λ_fold·(mean(judge) − judge)``: the estimate is their Hájek mean."""


def _cross_fit(
    y: Floats, h: Floats, pi: Floats, judge_mean_all: float, lam: float | None, folds: npt.NDArray[np.int64]
) -> _Fit:
    """The cross-fitted estimate and its leave-one-out values, in O(n·K) array operations."""
    n = y.shape[0]
    k = int(folds.max()) + 1 if n else 1
    w = 1.0 / pi
    if lam is not None or np.ptp(h) == 0:
        fold_lam = np.full(k, 0.0 if lam is None else float(lam))
        loo_lam = np.broadcast_to(fold_lam, (n, k))
    else:
        a = (1 - pi) * w**2
        stats_ = np.stack([a, a * y, a * h, a * y * h, a * h * h])  # (5, n)
        per_fold = np.stack([np.bincount(folds, weights=row, minlength=k) for row in stats_])  # (5, K)
        train = stats_.sum(axis=1)[:, None] - per_fold  # (5, K): every fold but k
        fold_lam = _lambda_of(train)
        without = train[:, None, :] - stats_[:, :, None]  # (5, n, K): ... and without label j
        loo_lam = _lambda_of(without)
        loo_lam[np.arange(n), folds] = fold_lam[folds]  # label j's own fold never saw it
    terms = y + fold_lam[folds] * (judge_mean_all - h)
    value = float((w * terms).sum() / w.sum())
    fold_y = np.bincount(folds, weights=w * y, minlength=k)
    fold_h = np.bincount(folds, weights=w * (judge_mean_all - h), minlength=k)
    numerator = fold_y.sum() + loo_lam @ fold_h - w * terms
    with np.errstate(divide="ignore", invalid="ignore"):
        loo = numerator / (w.sum() - w)
    mean_lam = float((w * fold_lam[folds]).sum() / w.sum())
    return _Fit(value, mean_lam, np.nan_to_num(loo), terms)


def normal_quantile(p: float) -> float:
    from statistics import NormalDist  # the standard library's: no scipy for a normal quantile

    return NormalDist().inv_cdf(p)


def wilson_term(n: int, big_n: int, level: float) -> float:
    """Wilson's small-sample term ``(z / 2n)²`` (times 1 − n/N), added to the variance.

    The labels' part is a mean of rare residuals (a strict judge's misses): a t-interval around
    it under-covers at 50 labels (0.915 for EVOUNA's fid, bench_ppi confirm half) as Wald's
    interval does for a rare proportion; Wilson's term is what keeps his interval valid there,
    and it never lets the interval collapse to zero width. It costs ~10 % width at 50 labels,
    ~2 % at 200."""
    z = normal_quantile(1 - (1 - level) / 2)
    return max(0.0, 1 - n / big_n) * (z / (2 * n)) ** 2


def clip_estimate(estimate: Estimate, low: float = 0.0, high: float = 1.0) -> Estimate:
    """The estimate with its value and interval inside the range a rate (or a difference) can take."""
    clip = lambda x: min(high, max(low, x))  # noqa: E731
    return replace(estimate, value=clip(estimate.value), low=clip(estimate.low), high=clip(estimate.high))


def finite_population_fit(
    y: Sequence[float] | npt.ArrayLike,
    yhat: Sequence[float] | npt.ArrayLike,
    yhat_all: Sequence[float] | npt.ArrayLike,
    *,
    inclusion: Sequence[float] | npt.ArrayLike | None = None,
    lam: float | None = None,
    level: float = 0.95,
    interval: FiniteIntervalKind = DEFAULT_FINITE_INTERVAL,
    folds: Sequence[int] | npt.ArrayLike | None = None,
) -> tuple[Estimate, Floats]:
    """``finite_population_mean`` and each label's influence ψ (variance = Σψ²): two estimates
    that share labelled items (two systems' answers to one question) covary by Σ ψ_a·ψ_b."""
    y_, yhat_, all_ = _as_floats(y), _as_floats(yhat), _as_floats(yhat_all)
    n, big_n = y_.shape[0], all_.shape[0]
    if n == 0 or yhat_.shape[0] != n or big_n < n:
        raise ValueError("need labelled items with a judge score each, drawn from the judged items")
    pi = np.full(n, n / big_n) if inclusion is None else _as_floats(inclusion)
    if pi.shape[0] != n or np.any(pi <= 0) or np.any(pi > 1):
        raise ValueError("one inclusion probability in (0, 1] per labelled item")
    fold_of = _folds(n) if folds is None else np.asarray(folds, dtype=np.int64)
    fit = _cross_fit(y_, yhat_, pi, float(all_.mean()), lam, fold_of)
    if interval == "jackknife" and n > 2:
        influence = np.sqrt((1 - pi) * (n - 1) / n) * (fit.loo - fit.loo.mean())
        kind: IntervalKind = "t"
    else:
        w = 1.0 / pi
        influence = np.sqrt((1 - pi) * (n / (n - 1) if n > 1 else 1.0)) * w * (fit.terms - fit.value) / w.sum()
        kind = "normal" if interval == "normal" else "t"
    std_error = math.sqrt(float((influence**2).sum()) + wilson_term(n, big_n, level))
    low, high = interval_around(fit.value, std_error, level, n, kind)
    return clip_estimate(Estimate(fit.value, low, high, std_error, n, big_n, lam=fit.lam)), influence


def finite_population_mean(
    y: Sequence[float] | npt.ArrayLike,
    yhat: Sequence[float] | npt.ArrayLike,
    yhat_all: Sequence[float] | npt.ArrayLike,
    *,
    inclusion: Sequence[float] | npt.ArrayLike | None = None,
    lam: float | None = None,
    level: float = 0.95,
    interval: FiniteIntervalKind = DEFAULT_FINITE_INTERVAL,
    folds: Sequence[int] | npt.ArrayLike | None = None,
) -> Estimate:
    """People's rate over exactly the judged items, when the labelled ones were drawn from them.

    ``yhat_all`` is the judge on every item, labelled ones included; ``inclusion`` is each
    labelled item's chance of having been drawn (default n/N, uniform). The judge's mean over all
    items is then known exactly and only the labelled residuals ``y − λ·yhat`` vary (a Hájek
    mean weighted by 1/π). λ is cross-fitted over ``FOLDS`` folds (``finite_population_lambda``
    on the other folds). The default interval is the jackknife's: it re-fits λ without each
    label, so the interval pays for λ having been fitted on the same few labels. ``lam=0`` is
    the human-only estimate under the same design, so the two compare fairly. The variance gets
    ``wilson_term``; the estimate and interval are clipped to [0, 1].
    """
    estimate, _ = finite_population_fit(
        y, yhat, yhat_all, inclusion=inclusion, lam=lam, level=level, interval=interval, folds=folds
    )
    return estimate


def judge_mean(yhat_all: Sequence[float] | npt.ArrayLike, *, level: float = 0.95) -> Estimate:
    """The judge's own mean and its sampling interval: what the rate would be if the judge were right."""
    all_ = _as_floats(yhat_all)
    if all_.shape[0] == 0:
        raise ValueError("no judged items")
    value = float(all_.mean())
    std_error = float(all_.std() / math.sqrt(all_.shape[0]))
    low, high = interval_around(value, std_error, level, all_.shape[0], "normal")
    return clip_estimate(Estimate(value, low, high, std_error, 0, all_.shape[0]))


def wilson_interval(successes: float, n: int, level: float = 0.95) -> tuple[float, float, float]:
    """Wilson's score interval of a proportion and its z: valid where all n labels are one class
    (``[n/(n + z²), 1]`` for n of n), where a t-interval around the labels has zero width."""
    z = normal_quantile(1 - (1 - level) / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0))
    return max(0.0, centre - half), min(1.0, centre + half), z


def effective_labels(classical: Estimate, powered: Estimate) -> float | None:
    """How many labels the human-only interval would need to be as narrow: n × (width ratio)²."""
    if powered.width <= 0 or classical.width <= 0:
        return None
    return classical.n_labels * (classical.width / powered.width) ** 2


def two_sided_p(value: float, std_error: float, n: int, interval: IntervalKind = DEFAULT_INTERVAL) -> float:
    """p-value of ``value = 0`` on the interval's own reference distribution."""
    if std_error <= 0:
        return 0.0 if value != 0 else 1.0
    from scipy import stats  # lazily, as in ``_critical``

    statistic = abs(value) / std_error
    if interval == "normal" or n < 2:
        return float(2 * stats.norm.sf(statistic))
    return float(2 * stats.t.sf(statistic, df=n - 1))


__all__ = [
    "DEFAULT_FINITE_INTERVAL",
    "DEFAULT_INTERVAL",
    "Estimate",
    "FOLDS",
    "FiniteIntervalKind",
    "IntervalKind",
    "clip_estimate",
    "effective_labels",
    "finite_population_fit",
    "folds_of",
    "finite_population_lambda",
    "finite_population_mean",
    "interval_around",
    "judge_mean",
    "normal_quantile",
    "power_tuned_lambda",
    "prediction_powered_mean",
    "two_sided_p",
    "wilson_interval",
    "wilson_term",
]
