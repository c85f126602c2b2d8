"""Which items people should label next: more of those the judge is unsure of, never too few of the rest.

An item's chance of being picked grows with the judge's uncertainty, ``sqrt(p(1 − p))`` of its
probability (the residual's spread, which is what a label buys down), mixed with a uniform share
so no weight 1/π explodes. Items are drawn by randomised systematic sampling with these chances
(Madow's πps design, items in random order): each item is picked with exactly its written-down π,
so the estimate can weight each label by 1/π and stay unbiased, and a budget of 40 over two
systems of equal size is 20 and 20 labels, not a Poisson draw's 23 and 16 (the count is the
budget's share rounded down or up). A judge with only 0/1 verdicts gives no per-item
uncertainty: every item gets the same chance (uniform sampling).

Unequal chances cost effective labels: with sharp probabilities (mass at 0 and 1) one class gets
the smallest chances, its few labels carry ~10× weights and coverage fell to 0.84–0.91. So the
uniform share is raised until Kish's effective sample size is at least ``MIN_EFFECTIVE_SHARE``
of the expected labels (at share 1 the draw is uniform and loses nothing).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

UNIFORM_SHARE = 0.1
"""Share of the budget spread uniformly: bounds 1/π at N / (0.1 · budget). Chosen on the tune half
by ``bench/bench_ppi.py`` among 0.1, 0.3 and 0.5 (the narrowest intervals there)."""


MIN_EFFECTIVE_SHARE = 0.7
"""Kish's effective sample size a plan must keep, as a share of its expected labels."""

SHARE_STEPS = tuple(round(0.1 * k, 1) for k in range(1, 11))


def effective_sample_size(pi: npt.NDArray[np.float64]) -> float:
    """Kish's effective sample size (Σw)²/Σw² of a Poisson draw with chances π, in expectation:
    ``N² / Σ 1/π`` (equal to the expected labels Σπ when every π is the same, less otherwise)."""
    return float(pi.shape[0] ** 2 / (1.0 / pi).sum())


def guarded_probabilities(
    scores: Sequence[float] | npt.ArrayLike, budget: float, *, uniform_share: float = UNIFORM_SHARE
) -> tuple[npt.NDArray[np.float64], float]:
    """π with the smallest uniform share (from ``uniform_share`` up) whose effective sample size
    is ≥ ``MIN_EFFECTIVE_SHARE`` of the expected labels, and that share (1.0: uniform)."""
    for share in [uniform_share] + [s for s in SHARE_STEPS if s > uniform_share]:
        pi = inclusion_probabilities(scores, budget, uniform_share=share)
        if effective_sample_size(pi) >= MIN_EFFECTIVE_SHARE * pi.sum():
            return pi, share
    return inclusion_probabilities(scores, budget, uniform_share=1.0), 1.0


def inclusion_probabilities(
    scores: Sequence[float] | npt.ArrayLike, budget: float, *, uniform_share: float = UNIFORM_SHARE
) -> npt.NDArray[np.float64]:
    """π for each item, summing to ``budget`` (capped at 1 each, the excess spread over the rest)."""
    p = np.asarray(scores, dtype=np.float64).reshape(-1)
    n = p.shape[0]
    if n == 0 or budget <= 0:
        raise ValueError("need items and a positive budget")
    if not 0 <= uniform_share <= 1:
        raise ValueError("uniform_share must be in [0, 1]")
    if budget >= n:
        return np.ones(n)
    spread = np.sqrt(np.clip(p, 0.0, 1.0) * (1 - np.clip(p, 0.0, 1.0)))
    if spread.sum() <= 0 or np.all(np.isin(p, (0.0, 1.0))):
        shape = np.full(n, 1.0 / n)
    else:
        shape = (1 - uniform_share) * spread / spread.sum() + uniform_share / n
    pi = budget * shape
    capped = np.zeros(n, dtype=bool)
    for _ in range(n):  # water-filling: items at 1 stay there, the rest share what is left
        over = (pi > 1) & ~capped
        if not over.any():
            break
        capped |= over
        left = budget - capped.sum()
        pi = np.where(capped, 1.0, left * shape / shape[~capped].sum())
    return np.clip(pi, 1e-12, 1.0)


def paired_scores(a: npt.ArrayLike, b: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """One score per question for a plan that labels both runs' answers to it (the paired A/B
    design): the p whose p(1 − p) is the mean of the two judges' p(1 − p), so a question is as
    likely to be drawn as the two residuals it buys down together."""
    pa, pb = (np.clip(np.asarray(x, dtype=np.float64), 0.0, 1.0) for x in (a, b))
    variance = (pa * (1 - pa) + pb * (1 - pb)) / 2
    return (1 - np.sqrt(np.clip(1 - 4 * variance, 0.0, 1.0))) / 2


def draw(pi: npt.NDArray[np.float64], seed: int) -> npt.NDArray[np.bool_]:
    """Which items are picked, each with its own chance ``pi`` and ``sum(pi)`` of them in all
    (rounded down or up): one uniform start, steps of 1 along the items' cumulated chances, the
    items taken in a random order so that no pair is tied by its place in the file."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(pi.shape[0])
    upper = np.cumsum(pi[order])
    lower = upper - pi[order]
    start = rng.random()
    hits = np.floor(upper - start) - np.floor(lower - start)  # a point start + k falls in (lower, upper]
    picked = np.zeros(pi.shape[0], dtype=bool)
    picked[order] = hits >= 1
    return picked


__all__ = [
    "MIN_EFFECTIVE_SHARE",
    "UNIFORM_SHARE",
    "draw",
    "effective_sample_size",
    "guarded_probabilities",
    "inclusion_probabilities",
    "paired_scores",
]
