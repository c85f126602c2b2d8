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

import math
from collections.abc import Sequence
from dataclasses import dataclass
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
            "std_error": round(self.std_error, 6),
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


def _loo_estimates(
    y: Floats, h: Floats, w: Floats, all_: Floats, lam: float | None
) -> tuple[Floats, Floats]:
    """The estimate and λ with each labelled item left out in turn (vectorised sums, O(n)).

    Same formulas as ``power_tuned_lambda`` and ``finite_population_mean`` on the n − 1 items
    left, with the weights renormalised to mean 1 on them as there."""
    n, big_n = y.shape[0], all_.shape[0]
    m = n - 1
    total = lambda values: values.sum() - values  # noqa: E731 - one name for "sum without item i"
    sw, swy, swh = total(w), total(w * y), total(w * h)
    ma = all_.mean()
    if lam is not None:
        lams = np.full(n, float(lam))
    else:
        s2, s2y, s2h, s2yh = total(w**2), total(w**2 * y), total(w**2 * h), total(w**2 * y * h)
        s2hh = total(w**2 * h * h)
        first = ma + (swy - swh) / sw
        scale = m / sw
        sum_g_gh = scale**2 * (s2yh - first * (s2y + s2h) + first**2 * s2)
        mean_g = (swy - first * sw) / sw
        mean_gh = (swh - first * sw) / sw
        covariance = 2.0 / m * (sum_g_gh - m * mean_g * mean_gh)
        sum_gh = scale * (swh - first * sw)
        sumsq_gh = scale**2 * (s2hh - 2 * first * s2h + first**2 * s2)
        sum_ga = all_.sum() - big_n * first
        sumsq_ga = (all_**2).sum() - 2 * first * all_.sum() + big_n * first**2
        pooled = m + big_n
        variance = (sumsq_gh + sumsq_ga - (sum_gh + sum_ga) ** 2 / pooled) / (pooled - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            raw = covariance / (2 * (1 + m / big_n) * variance)
        lams = np.where(variance > 0, np.clip(np.nan_to_num(raw), 0.0, 1.0), 0.0)
    return lams * ma + (swy - lams * swh) / sw, lams


def finite_population_mean(
    y: Sequence[float] | npt.ArrayLike,
    yhat: Sequence[float] | npt.ArrayLike,
    yhat_all: Sequence[float] | npt.ArrayLike,
    *,
    inclusion: Sequence[float] | npt.ArrayLike | None = None,
    lam: float | None = None,
    level: float = 0.95,
    interval: FiniteIntervalKind = DEFAULT_FINITE_INTERVAL,
) -> Estimate:
    """People's rate over exactly the judged items, when the labelled ones were drawn from them.

    ``yhat_all`` is the judge on every item, labelled ones included; ``inclusion`` is each
    labelled item's chance of having been drawn (default n/N, uniform). The judge's mean over all
    items is then known exactly and only the labelled residuals ``y − λ·yhat`` vary (a Hájek
    mean weighted by 1/π). The default interval is the jackknife's: it re-tunes λ without each
    item, so the interval pays for λ having been fitted on the same few labels (the plug-in
    variance does not, and under-covers at 50 labels). ``lam=0`` is the human-only estimate
    under the same design, so the two compare fairly.
    """
    y_, yhat_, all_ = _as_floats(y), _as_floats(yhat), _as_floats(yhat_all)
    n, big_n = y_.shape[0], all_.shape[0]
    if n == 0 or yhat_.shape[0] != n or big_n < n:
        raise ValueError("need labelled items with a judge score each, drawn from the judged items")
    pi = np.full(n, n / big_n) if inclusion is None else _as_floats(inclusion)
    if pi.shape[0] != n or np.any(pi <= 0) or np.any(pi > 1):
        raise ValueError("one inclusion probability in (0, 1] per labelled item")
    w = 1.0 / pi
    tuned = power_tuned_lambda(y_, yhat_, all_, w / w.mean(), np.ones(big_n)) if lam is None else float(lam)
    residual = y_ - tuned * yhat_
    centre = float((w * residual).sum() / w.sum())
    value = tuned * float(all_.mean()) + centre
    if interval == "jackknife" and n > 2:
        loo, _ = _loo_estimates(y_, yhat_, w, all_, lam)
        variance = float((n - 1) / n * ((1 - pi) * (loo - loo.mean()) ** 2).sum())
        kind: IntervalKind = "t"
    else:
        variance = float(((1 - pi) * w**2 * (residual - centre) ** 2).sum() / w.sum() ** 2)
        if n > 1:
            variance *= n / (n - 1)
        kind = "normal" if interval == "normal" else "t"
    std_error = math.sqrt(max(variance, 0.0))
    low, high = interval_around(value, std_error, level, n, kind)
    return Estimate(value, low, high, std_error, n, big_n, lam=tuned)


def judge_mean(yhat_all: Sequence[float] | npt.ArrayLike, *, level: float = 0.95) -> Estimate:
    """The judge's own mean and its sampling interval: what the rate would be if the judge were right."""
    all_ = _as_floats(yhat_all)
    if all_.shape[0] == 0:
        raise ValueError("no judged items")
    value = float(all_.mean())
    std_error = float(all_.std() / math.sqrt(all_.shape[0]))
    low, high = interval_around(value, std_error, level, all_.shape[0], "normal")
    return Estimate(value, low, high, std_error, 0, all_.shape[0])


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
    "FiniteIntervalKind",
    "IntervalKind",
    "effective_labels",
    "finite_population_mean",
    "interval_around",
    "judge_mean",
    "power_tuned_lambda",
    "prediction_powered_mean",
    "two_sided_p",
]
