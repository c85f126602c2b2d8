"""Intervals that hold for many configs at once: a max-t simultaneous paired bootstrap over questions.

Why simultaneous: a sweep of k configs has k rates and k(k-1)/2 paired differences; at 95 % each,
several of them "find" a difference that is not there. Here every interval of one family (each
config's rate and every pair's paired difference, so the difference to the baseline and to the
best, whichever config that turns out to be) covers its true value *together* with all the others
at the stated confidence.

Why a max-t bootstrap and not Holm on paired tests: Holm gives yes/no decisions, not intervals,
and it treats the tests as if they could be arbitrarily dependent, so it is conservative when they
are strongly correlated, as configs answering the same questions are. The bootstrap resamples the
questions once per draw and computes every contrast on the same draw, so it keeps their actual
correlation (the same hard questions pull every config down together); each contrast is scaled by
its own bootstrap standard error (studentised), and the quantile of the largest scaled deviation
over the family widens every interval just enough to hold jointly. Including every pair makes the
difference to the *data-chosen* best valid too (no selection effect). ``bench/bench_sweep.py``
measures the familywise coverage on EVOUNA-NQ (docs/reports.md "Comparing many configs").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

CONFIDENCE = 0.95
RESAMPLES = 2_000
"""Bootstrap draws: the 95 % quantile of the maximum is resolved to about +-0.05 in t."""
MIN_QUESTIONS = 10
"""Fewer shared questions than this: no interval (a bootstrap of a handful of questions says nothing)."""
METHOD = "max-t simultaneous paired bootstrap over questions"


@dataclass(frozen=True)
class Simultaneous:
    """Each config's rate and every pair's paired difference, each with an interval that holds for
    the whole family at once (``confidence``); ``None`` intervals where too few questions."""

    n: int
    means: np.ndarray
    """Per config, the mean verdict (rate) on the shared questions."""
    rate_low: np.ndarray | None
    rate_high: np.ndarray | None
    diff: np.ndarray
    """``diff[i, j]`` = mean of config i - mean of config j (paired, the same questions)."""
    diff_low: np.ndarray | None
    diff_high: np.ndarray | None
    critical: float | None
    """The quantile of the max |studentised deviation| (1.96 would be a single interval's)."""
    confidence: float
    resamples: int
    seed: int

    def interval(self, i: int, j: int) -> tuple[float, float] | None:
        """The simultaneous interval of config i - config j."""
        if self.diff_low is None or self.diff_high is None:
            return None
        return float(self.diff_low[i, j]), float(self.diff_high[i, j])

    def rate_interval(self, i: int) -> tuple[float, float] | None:
        if self.rate_low is None or self.rate_high is None:
            return None
        return float(self.rate_low[i]), float(self.rate_high[i])

    def method(self) -> str:
        return (f"{METHOD} ({self.resamples:,} draws, seed {self.seed}); {self.confidence:.0%} for all "
                "rates and differences together")

    def as_dict(self) -> dict[str, Any]:
        return {"method": METHOD, "confidence": self.confidence, "resamples": self.resamples, "seed": self.seed,
                "critical_value": None if self.critical is None else round(self.critical, 4), "n_questions": self.n}


def resample_weights(n: int, draws: int, rng: np.random.Generator) -> np.ndarray:
    """How often each question is drawn in each bootstrap draw (draws x n counts, each row sums to n)."""
    picks = rng.integers(0, n, size=(draws, n)) + n * np.arange(draws)[:, None]  # one bincount, not a loop
    return np.bincount(picks.ravel(), minlength=draws * n).reshape(draws, n).astype(np.float64)


def pair_index(k: int) -> tuple[np.ndarray, np.ndarray]:
    """The (i, j) of every pair i < j."""
    i, j = np.triu_indices(k, 1)
    return i, j


def max_t(
    observed: np.ndarray, boot: np.ndarray, confidence: float, n: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """Lower and upper ends for each contrast (columns of ``boot``, draws x m) and the critical value.

    Each contrast is scaled by its bootstrap standard error, inflated by sqrt(n / (n - 1)) (the
    bootstrap's variance of a mean is (n - 1) / n of the usual estimate, which undercovers at small
    n); the critical value is the ``confidence`` quantile of the largest |scaled deviation| over the
    family. A contrast that never varies (two configs that agree on every question, a rate of 0 or
    1) has no spread: its interval is the point, and it is left out of the maximum."""
    se = boot.std(axis=0) * np.sqrt(n / max(n - 1, 1))
    varies = se > 1e-12
    if not varies.any():
        return observed.copy(), observed.copy(), 0.0
    scaled = np.abs(boot[:, varies] - observed[varies]) / se[varies]
    critical = float(np.quantile(scaled.max(axis=1), confidence))
    half = critical * se
    return observed - half, observed + half, critical


def simultaneous(
    values: np.ndarray,
    *,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    seed: int = 0,
    weights: np.ndarray | None = None,
) -> Simultaneous:
    """The family's intervals from ``values`` (questions x configs: 0/1 verdicts or scores, no
    missing value: the questions every config scored). ``weights``: the draws to use (tests and the
    bench pass their own); by default ``resamples`` seeded multinomial draws."""
    y = np.asarray(values, dtype=np.float64)
    if y.ndim != 2 or y.shape[1] < 1:
        raise ValueError("values must be a questions x configs matrix")
    n, k = y.shape
    means = y.mean(axis=0) if n else np.full(k, np.nan)
    diff = means[:, None] - means[None, :]
    if n < MIN_QUESTIONS:
        return Simultaneous(n, means, None, None, diff, None, None, None, confidence, resamples, seed)
    if weights is None:
        weights = resample_weights(n, resamples, np.random.default_rng(seed))
    boot_means = weights @ y / n  # draws x configs, every config on the same resampled questions
    i, j = pair_index(k)
    observed = np.concatenate([means, means[i] - means[j]])
    boot = np.concatenate([boot_means, boot_means[:, i] - boot_means[:, j]], axis=1)
    low, high, critical = max_t(observed, boot, confidence, n)
    rate_low, rate_high = low[:k], high[:k]
    diff_low = np.zeros((k, k))
    diff_high = np.zeros((k, k))
    diff_low[i, j], diff_high[i, j] = low[k:], high[k:]
    diff_low[j, i], diff_high[j, i] = -high[k:], -low[k:]
    return Simultaneous(n, means, rate_low, rate_high, diff, diff_low, diff_high, critical, confidence,
                        int(weights.shape[0]), seed)


def prediction_powered(judge: np.ndarray, people: np.ndarray, inclusion: np.ndarray) -> np.ndarray:
    """Per question and config, the judge's verdict corrected by people's label where there is one:
    ``z = y + r (h - y) / pi`` (``people`` NaN where unlabelled, ``inclusion`` the chance the label
    was drawn). ``mean(z)`` is the rate as people would judge it, unbiased when labels were drawn
    with those chances; ``simultaneous(z)`` gives its intervals (the questions resampled with their
    labels, so the labelling's own randomness is in them)."""
    y = np.asarray(judge, dtype=np.float64)
    h = np.asarray(people, dtype=np.float64)
    pi = np.asarray(inclusion, dtype=np.float64)
    labelled = ~np.isnan(h)
    correction = np.where(labelled, (np.nan_to_num(h) - y) / np.where(labelled, pi, 1.0), 0.0)
    return y + correction


__all__ = [
    "CONFIDENCE",
    "METHOD",
    "MIN_QUESTIONS",
    "RESAMPLES",
    "Simultaneous",
    "max_t",
    "pair_index",
    "prediction_powered",
    "resample_weights",
    "simultaneous",
]
