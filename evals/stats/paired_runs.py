"""Two runs of one judge on the same questions: the paired difference B - A, its interval and a
p-value.

Why paired: both configs answered the same questions, and a question that is hard for A is
usually hard for B; comparing two separate intervals overstates the noise of the difference. The
interval is a seeded percentile bootstrap over questions; the p-value is McNemar's exact test on
the discordant pairs for 0/1 verdicts (a binomial test, no scipy needed) and a seeded sign-flip
(permutation) test for scores. Questions one run left unscored are out of the pairs, and counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragjury.evals.stats.intervals import RESAMPLES, Interval
from ragjury.evals.stats.run_result import bootstrap_mean_interval

SIGN_FLIPS = 10_000
"""Random sign flips of the sign-flip test (its p-value is resolved to about 1e-4)."""

MCNEMAR = "McNemar's exact test"
SIGN_FLIP = "sign-flip test"


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value: the discordant pairs as ``Binomial(a_only + b_only, 1/2)``
    (what ``scipy.stats.binomtest(b_only, a_only + b_only).pvalue`` gives); 1.0 with none."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    k = min(a_only, b_only)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def sign_flip_p(differences: Sequence[float], *, flips: int = SIGN_FLIPS, seed: int = 0) -> float:
    """Two-sided p-value of a mean paired difference of 0: each difference's sign flipped at random."""
    d = np.asarray(differences, dtype=np.float64)
    if d.size == 0 or not np.any(d):
        return 1.0
    observed = abs(d.mean())
    rng = np.random.default_rng(seed)
    extreme = 0
    chunk = max(1, 2_000_000 // d.size)
    done = 0
    while done < flips:
        size = min(chunk, flips - done)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(size, d.size))
        extreme += int((np.abs((signs * d).mean(axis=1)) >= observed - 1e-12).sum())
        done += size
    return (1 + extreme) / (1 + flips)


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], *, resamples: int = RESAMPLES, seed: int = 0
) -> Interval | None:
    """Percentile bootstrap interval of ``mean(b) - mean(a)``, the same questions drawn for both."""
    d = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    return bootstrap_mean_interval(d.tolist(), resamples=resamples, seed=seed)


@dataclass(frozen=True)
class PairedDifference:
    """B - A over the questions both runs scored, its interval, p-value and the pair counts."""

    binary: bool
    n_pairs: int
    n_unpaired: int
    """Shared questions left out: unscored in A, in B or in both."""
    a_mean: float | None
    b_mean: float | None
    difference: float | None
    interval: Interval | None
    p_value: float | None
    counts: dict[str, int]
    """Binary: a_only, b_only, both, neither (true verdicts); scores: a_higher, b_higher, tied."""

    @property
    def test(self) -> str:
        return MCNEMAR if self.binary else SIGN_FLIP

    def as_dict(self) -> dict[str, Any]:
        return {
            "n_pairs": self.n_pairs,
            "n_unpaired": self.n_unpaired,
            "a": _round(self.a_mean),
            "b": _round(self.b_mean),
            "difference": _round(self.difference),
            "interval": None if self.interval is None else self.interval.as_list(),
            "interval_method": "paired percentile bootstrap over questions (seed 0)",
            "p_value": _round(self.p_value),
            "test": self.test,
            "counts": dict(self.counts),
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def paired_difference(
    a: Sequence[Any], b: Sequence[Any], *, binary: bool, resamples: int = RESAMPLES, seed: int = 0
) -> PairedDifference:
    """B - A from the two runs' verdicts on the same questions, in the same order (None: unscored)."""
    if len(a) != len(b):
        raise ValueError("both runs need one verdict per shared question")
    pairs = [(float(x), float(y)) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    unpaired = len(a) - len(pairs)
    xs = [x for x, _ in pairs]
    ys = [y for _, y in pairs]
    if binary:
        counts = {
            "a_only": sum(1 for x, y in pairs if x and not y),
            "b_only": sum(1 for x, y in pairs if y and not x),
            "both": sum(1 for x, y in pairs if x and y),
            "neither": sum(1 for x, y in pairs if not x and not y),
        }
    else:
        counts = {
            "a_higher": sum(1 for x, y in pairs if x > y),
            "b_higher": sum(1 for x, y in pairs if y > x),
            "tied": sum(1 for x, y in pairs if x == y),
        }
    if not pairs:
        return PairedDifference(binary, 0, unpaired, None, None, None, None, None, counts)
    a_mean, b_mean = sum(xs) / len(xs), sum(ys) / len(ys)
    if binary:
        p_value = mcnemar_exact(counts["a_only"], counts["b_only"])
    else:
        p_value = sign_flip_p([y - x for x, y in pairs], seed=seed)
    return PairedDifference(
        binary,
        len(pairs),
        unpaired,
        a_mean,
        b_mean,
        b_mean - a_mean,
        paired_bootstrap(xs, ys, resamples=resamples, seed=seed),
        p_value,
        counts,
    )


__all__ = [
    "MCNEMAR",
    "PairedDifference",
    "SIGN_FLIP",
    "SIGN_FLIPS",
    "mcnemar_exact",
    "paired_bootstrap",
    "paired_difference",
    "sign_flip_p",
]
