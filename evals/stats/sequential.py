"""Label until you know: an anytime-valid confidence sequence for people's rate, or B − A, with the judge's help.

Why a sequence: a fixed-n interval is valid when n is fixed in advance; a person who looks after
every label and stops once it excludes the threshold makes it fail far more often than 5 %
(``bench/bench_sequential.py`` measures how often). A confidence sequence holds at every stopping
time at once, so "stop when it is settled" is a valid rule.

Which sequence, and why: the betting confidence sequence of Waudby-Smith & Ramdas (JRSS-B 2024),
hedged capital process with their predictable plug-in bets, in its *sampling without replacement*
form (Waudby-Smith & Ramdas, NeurIPS 2020): a person labels each item at most once, from a known
finite set of N items, so the mean of the items still unlabelled is known given θ and the labels so
far, and the sequence shrinks to the exact value at N labels. Betting is chosen over a Howard et
al. (2021) normal-mixture or empirical-Bernstein boundary because it adapts to the small variance
of the judge's residuals (what the control variate buys) without a tuned intrinsic time, and is
never wider than those boundaries at the sample sizes of a labelling session (WSR, §5).

The judge as a control variate (PPI-style, Angelopoulos et al. 2023; the anytime form of Kilian,
Cortinovis & Caron 2025): with the judge's P ``h`` on every item, θ = mean(people) is tested via the
increments ``w·(y − λ·h) + λ·H − m(θ)``: H the judge's mean over the items not yet labelled, m(θ)
the people's mean over those items if θ were true, w = 1/(|R|·q) the inverse chance of the item
drawn (1 for a uniform order; ``active_weights`` for an order favouring the judge's unsure items,
never zero for any item), λ fitted on the labels before (predictable, in [0, 1]). Each increment
has mean zero under θ whatever λ and the order's chances, so the capital process is a martingale;
λ near 1 removes what the judge already knows and narrows the sequence. B − A is the same
with y = y_B − y_A and h = h_B − h_A per question (paired). Numpy only; vectorised over draws.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]

TRUNCATION = 0.75
"""WSR's c: no bet stakes more than 75 % of the capital a worst-case item could take away."""

LAMBDA_AFTER = 10
"""λ is fitted on the labels before once there are this many; before that, λ = ``LAMBDA_START``."""

LAMBDA_START = 0.5

GRID_LIMIT = 4001
"""Candidate values of θ tested: every k/N when N is small enough (θ is one of them), else a grid
(its interval rounded outwards by one step)."""

HORIZON_SHARES = (0.25, 0.5, 1.0)
"""The bets are an even mixture of three, each tuned to stop near a share of the budget (WSR's
fixed-horizon bet ``sqrt(2 log(2/α) / (σ̂² n))``): chosen on DL19's tune half, where WSR's
horizon-free bet needed 272 labels (median) to settle a rate 8 points from its threshold and the
mixture 176 (a single bet tuned to half the budget: 165, but wider early). A mixture of
martingales is one, so the sequence stays valid."""


def horizons_for(budget: int) -> tuple[int, ...]:
    """The mixture's horizons for a budget of ``budget`` labels."""
    return tuple(max(1, round(share * budget)) for share in HORIZON_SHARES)


NO_DIFFERENCE = 0.02
"""``--until "B - A"`` says "no difference" once the sequence lies within ± 2 points."""


@dataclass(frozen=True)
class Stream:
    """What a labelling order gives at each step t (arrays of shape (draws, T), in label order).

    ``y``: people's value of the t-th unit; ``h``: the judge's; ``w``: 1/(|R_t|·q_t) of the unit
    drawn (q_t its chance among the remaining R_t); ``w_low``/``w_high``: the smallest and largest
    such weight any remaining unit could have had; ``h_rest``: the judge's mean over R_t."""

    y: Floats
    h: Floats
    w: Floats
    w_low: Floats
    w_high: Floats
    h_rest: Floats


@dataclass(frozen=True)
class ConfidenceSequence:
    """The confidence sequence after each step: running intersection, so it never widens."""

    estimate: Floats
    low: Floats
    high: Floats


def _lambdas(y: Floats, h: Floats) -> Floats:
    """λ_t from the labels before t: the regression slope of y on h, clipped to [0, 1]."""
    d, t = y.shape
    zero = np.zeros((d, 1))
    cum = lambda x: np.concatenate([zero, np.cumsum(x, axis=1)[:, :-1]], axis=1)  # noqa: E731
    n = np.arange(t, dtype=np.float64)[None, :]
    sy, sh, syh, shh = cum(y), cum(h), cum(y * h), cum(h * h)
    with np.errstate(divide="ignore", invalid="ignore"):
        cov = syh - sy * sh / np.maximum(n, 1)
        var = shh - sh * sh / np.maximum(n, 1)
        lam = np.where(var > 1e-9, np.clip(cov / var, 0.0, 1.0), 0.0)
    return np.where(n >= LAMBDA_AFTER, lam, LAMBDA_START)


def grid_for(n_items: int, low: float, high: float) -> tuple[Floats, bool]:
    """The θ tested: every attainable mean k/N in [low, high] where few enough, else an even grid."""
    exact = round((high - low) * n_items) + 1
    if exact <= GRID_LIMIT:
        return low + np.arange(exact) / n_items, True
    return np.linspace(low, high, GRID_LIMIT), False


def confidence_sequence(
    stream: Stream,
    n_items: int,
    *,
    y_range: tuple[float, float] = (0.0, 1.0),
    h_range: tuple[float, float] = (0.0, 1.0),
    level: float = 0.95,
    lam: float | None = None,
    horizons: tuple[int, ...] | None = None,
) -> ConfidenceSequence:
    """The betting confidence sequence for mean(y) over the ``n_items`` units, after each step.

    ``lam`` fixes λ (0: people only); None fits it on the labels before each step. ``horizons``:
    the bets' mixture (``horizons_for(budget)``); None is WSR's horizon-free plug-in. Returns arrays of
    shape (draws, T); a value ruled out at any step stays out (running intersection)."""
    y, h = stream.y, stream.h
    draws, steps = y.shape
    if steps > n_items:
        raise ValueError("more labelled units than units")
    alpha = 1.0 - level
    ylo, yhi = y_range
    hlo, hhi = h_range
    grid, exact = grid_for(n_items, ylo, yhi)
    lams = np.full_like(y, float(lam)) if lam is not None else _lambdas(y, h)
    scales = (None,) if not horizons else tuple(horizons)
    log_k_plus = np.zeros((len(scales), draws, grid.shape[0]))
    log_k_minus = np.zeros_like(log_k_plus)
    alive = np.ones((draws, grid.shape[0]), dtype=bool)
    threshold = math.log(1.0 / alpha) + math.log(2.0 * len(scales))  # the mean of the 2·H capitals ≥ 1/α
    log_two_over_alpha = math.log(2.0 / alpha)
    prior = 0.25 * (yhi - ylo) ** 2
    seen = np.zeros(draws)  # Σ y of the units labelled so far
    resid_sum = np.zeros(draws)
    resid_sq = np.zeros(draws)
    est_num = np.zeros(draws)
    est_den = np.zeros(draws)
    estimate = np.empty_like(y)
    lows = np.empty_like(y)
    highs = np.empty_like(y)
    for t in range(steps):
        left = n_items - t
        lam_t = lams[:, t]
        m = (n_items * grid[None, :] - seen[:, None]) / left  # people's mean of the rest, if θ
        feasible = (m >= ylo - 1e-12) & (m <= yhi + 1e-12)
        r = stream.w[:, t] * (y[:, t] - lam_t * h[:, t]) + lam_t * stream.h_rest[:, t]  # E = mean of the rest
        a = ylo - lam_t * hhi
        b = yhi - lam_t * hlo
        low_mul = np.minimum(a * stream.w_high[:, t], a * stream.w_low[:, t])
        high_mul = np.maximum(b * stream.w_high[:, t], b * stream.w_low[:, t])
        shift = lam_t * stream.h_rest[:, t]
        lower = (low_mul + shift)[:, None] - m  # the increment's worst cases under θ
        upper = (high_mul + shift)[:, None] - m
        increment = r[:, None] - m
        mean_before = (resid_sum + 0.5 * (ylo + yhi)) / (t + 1)
        variance = (prior + resid_sq) / (t + 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            cap_plus = TRUNCATION / np.maximum(-lower, 1e-12)
            cap_minus = TRUNCATION / np.maximum(upper, 1e-12)
        for k, horizon in enumerate(scales):
            scale = (t + 1) * math.log(t + 2) if horizon is None else max(horizon, t + 1)
            bet = np.sqrt(2 * log_two_over_alpha / (variance * scale))[:, None]
            log_k_plus[k] += np.log1p(np.where(feasible, np.minimum(bet, cap_plus) * increment, 0.0))
            log_k_minus[k] += np.log1p(np.where(feasible, -np.minimum(bet, cap_minus) * increment, 0.0))
        wealth = np.logaddexp.reduce(np.concatenate([log_k_plus, log_k_minus]), axis=0)
        alive &= feasible & (wealth < threshold)
        resid_sq += (r - mean_before) ** 2
        resid_sum += r
        theta_t = (seen + left * r) / n_items  # unbiased for θ at each step
        weight = 1.0 / left**2  # its variance grows with the rest's share: weight by the inverse
        est_num += weight * theta_t
        est_den += weight
        seen += y[:, t]
        first = np.where(alive.any(axis=1), alive.argmax(axis=1), 0)
        last = np.where(alive.any(axis=1), grid.shape[0] - 1 - alive[:, ::-1].argmax(axis=1), grid.shape[0] - 1)
        if exact:
            lows[:, t], highs[:, t] = grid[first], grid[last]
        else:
            lows[:, t] = grid[np.maximum(first - 1, 0)]
            highs[:, t] = grid[np.minimum(last + 1, grid.shape[0] - 1)]
        empty = ~alive.any(axis=1)
        value = est_num / est_den
        lows[empty, t] = highs[empty, t] = np.clip(value[empty], ylo, yhi)
        estimate[:, t] = np.clip(value, lows[:, t], highs[:, t])
    return ConfidenceSequence(estimate, lows, highs)


def uniform_stream(y: Floats, h: Floats, h_all: Floats, order: npt.NDArray[np.int64]) -> Stream:
    """The stream of a uniform order (``order``: (draws, T) indices into the N units)."""
    return weighted_stream(y, h, h_all, order, np.ones(h_all.shape[0]))


def weighted_stream(
    y_all: Floats, h_all_units: Floats, h_all: Floats, order: npt.NDArray[np.int64], a: Floats
) -> Stream:
    """The stream of an order drawn without replacement with chances ∝ ``a`` among the units left
    (``a`` > 0 everywhere). ``y_all``/``h_all_units`` are per unit; ``order`` (draws, T)."""
    n = a.shape[0]
    ys, hs, aa = y_all[order], h_all_units[order], a[order]
    total_a, total_h = a.sum(), h_all.sum()
    zero = np.zeros((order.shape[0], 1))
    before = lambda x: np.concatenate([zero, np.cumsum(x, axis=1)[:, :-1]], axis=1)  # noqa: E731
    left = n - np.arange(order.shape[1], dtype=np.float64)[None, :]
    rest_a = total_a - before(aa)
    mean_a = rest_a / left
    h_rest = (total_h - before(hs)) / left
    # the smallest and largest a among the units left: over the whole set when some are unlabelled
    # at every step (T < N would need per-step extremes; the whole set's bound is conservative)
    w_low = mean_a / a.max()
    w_high = mean_a / a.min()
    return Stream(ys, hs, mean_a / aa, w_low, w_high, h_rest)


def active_weights(uncertainty: Floats, floor_share: float = 0.5) -> Floats:
    """Chances ∝ ``floor + uncertainty`` (e.g. sqrt(p(1 − p)), the residual's spread): the floor is
    ``floor_share`` of the mixture on average, so no item's weight exceeds 1/floor_share × mean."""
    s = np.clip(np.asarray(uncertainty, dtype=np.float64), 0.0, None)
    if s.sum() <= 0:
        return np.ones_like(s)
    return floor_share / (1 - floor_share) * s.mean() + s


def draw_orders(a: Floats, draws: int, steps: int, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """``draws`` orders without replacement, each unit next with chance ∝ ``a`` among those left
    (exponential keys E/a sorted: successive sampling)."""
    keys = rng.exponential(size=(draws, a.shape[0])) / a[None, :]
    return np.argsort(keys, axis=1)[:, :steps]


# -- the decision a person labels for ------------------------------------------------------------

Kind = Literal["rate", "difference", "noninferior", "best"]


@dataclass(frozen=True)
class Decision:
    """``rate >= 0.8``, ``B - A``, ``B >= A - 0.02`` or ``best`` (of N configs: ``evals/stats/sequential_best``)."""

    kind: Kind
    threshold: float
    text: str

    @property
    def paired(self) -> bool:
        """Two configs, one unit a question answered by both."""
        return self.kind in ("difference", "noninferior")


_RATE = re.compile(r"^\s*rate\s*>=\s*(\d*\.?\d+)\s*(%?)\s*$")
_DIFF = re.compile(r"^\s*B\s*-\s*A\s*$")
_NONINF = re.compile(r"^\s*B\s*>=\s*A\s*-\s*(\d*\.?\d+)\s*$")
_BEST = re.compile(r"^\s*best\s*$")


def parse_decision(text: str) -> Decision:
    """The decision from ``--until`` words; ValueError with the forms accepted."""
    if match := _RATE.match(text):
        value = float(match.group(1)) / (100 if match.group(2) else 1)
        if 0 < value < 1:
            return Decision("rate", value, text.strip())
    elif _DIFF.match(text):
        return Decision("difference", NO_DIFFERENCE, text.strip())
    elif match := _NONINF.match(text):
        margin = float(match.group(1))
        if 0 <= margin < 1:
            return Decision("noninferior", margin, text.strip())
    elif _BEST.match(text):
        return Decision("best", NO_DIFFERENCE, "best")
    raise ValueError(f'{text!r}: expected "rate >= 0.8", "B - A", "B >= A - 0.02" or "best"')


Verdict = Literal["above", "below", "b_better", "a_better", "no_difference", "noninferior", "inferior"]


def verdict_of(decision: Decision, low: float, high: float) -> Verdict | None:
    """What the interval [low, high] settles for the decision, or None."""
    c = decision.threshold
    if decision.kind == "rate":
        return "above" if low >= c else "below" if high < c else None
    if decision.kind == "difference":
        if low > 0:
            return "b_better"
        if high < 0:
            return "a_better"
        return "no_difference" if -c < low and high < c else None
    return "noninferior" if low > -c else "inferior" if high <= -c else None


def verdicts_of(decision: Decision, low: Floats, high: Floats) -> npt.NDArray[np.int8]:
    """Vectorised ``verdict_of``: +1 settles "above / B better / B not worse", −1 the opposite,
    2 "no difference", 0 not settled."""
    c = decision.threshold
    if decision.kind == "rate":
        return np.where(low >= c, 1, np.where(high < c, -1, 0)).astype(np.int8)
    if decision.kind == "difference":
        out = np.where(low > 0, 1, np.where(high < 0, -1, 0))
        return np.where((out == 0) & (-c < low) & (high < c), 2, out).astype(np.int8)
    return np.where(low > -c, 1, np.where(high <= -c, -1, 0)).astype(np.int8)


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}".replace("-", "−")


@dataclass(frozen=True)
class Status:
    """The live answer: an aggregate only (never an item's verdict), and the words for it."""

    decision: Decision
    estimate: float | None
    low: float | None
    high: float | None
    n_labels: int
    n_units: int
    verdict: Verdict | None
    budget_reached: bool
    level: float
    per_unit: int = 1
    """Labels per unit: 2 where a unit is a question labelled for both A and B."""

    def with_labels_per_unit(self, per_unit: int) -> Status:
        return replace(self, per_unit=per_unit)

    @property
    def labels(self) -> int:
        return self.n_labels * self.per_unit

    @property
    def settled(self) -> bool:
        return self.verdict is not None

    @property
    def state(self) -> str:
        return "settled" if self.settled else "budget reached" if self.budget_reached else "not settled"

    def figures(self) -> str:
        if self.estimate is None:
            return "no labels yet"
        if self.decision.kind == "rate":
            return f"rate {_pct(self.estimate)}, sequence [{100 * self.low:.1f}, {100 * self.high:.1f}]"
        return f"B − A {_pts(self.estimate)} points, sequence [{_pts(self.low)}, {_pts(self.high)}]"

    @property
    def words(self) -> str:
        labels = f"{self.labels} label{'s' if self.labels != 1 else ''}"
        c = self.decision.threshold
        if self.verdict is not None:
            said = {
                "above": f"the rate is at least {_pct(c)}",
                "below": f"the rate is below {_pct(c)}",
                "b_better": "B is better",
                "a_better": "A is better",
                "no_difference": f"no difference larger than {100 * c:g} points",
                "noninferior": f"B is not worse than A by {100 * c:g} points or more",
                "inferior": f"B is worse than A by {100 * c:g} points or more",
            }[self.verdict]
            return f"settled: {said} ({self.figures()}) after {labels} — you can stop"
        if self.budget_reached:
            return f"budget reached: not settled ({self.figures()}, {labels})"
        return f"not settled yet ({self.figures()}, {labels})"

    def as_dict(self) -> dict[str, object]:
        rnd = lambda x: None if x is None else round(x, 6)  # noqa: E731
        return {
            "until": self.decision.text,
            "state": self.state,
            "verdict": self.verdict,
            "estimate": rnd(self.estimate),
            "sequence": None if self.low is None else [rnd(self.low), rnd(self.high)],
            "level": self.level,
            "n_labels": self.labels,
            "n_units_labelled": self.n_labels,
            "n_units": self.n_units,
            "words": self.words,
            "interval_kind": "confidence sequence (betting, Waudby-Smith & Ramdas 2024; valid at any stop)",
        }


def status_of(
    decision: Decision,
    labels: Floats,
    judged_labelled: Floats,
    judge_all: Floats,
    *,
    level: float = 0.95,
    max_labels: int | None = None,
    lam: float | None = None,
    chances: Floats | None = None,
    entered: npt.NDArray[np.int64] | None = None,
) -> Status:
    """The status after ``labels`` (people's values, in the order they were given), with
    ``judged_labelled`` the judge on those units. The order is uniform over the ``judge_all``
    units, or (``chances``, one per unit, and ``entered``, the labelled units' indices in label
    order) drawn without replacement with chances ∝ ``chances`` among the units left (``--active``):
    each label then weighs 1/(|R|·q), as ``weighted_stream``.

    For ``B - A`` each unit is a question: label = y_B − y_A, judge = h_B − h_A."""
    y = np.asarray(labels, dtype=np.float64).reshape(1, -1)
    h = np.asarray(judged_labelled, dtype=np.float64).reshape(1, -1)
    h_all = np.asarray(judge_all, dtype=np.float64).reshape(-1)
    n = int(y.shape[1])
    reached = max_labels is not None and n >= max_labels
    if n == 0:
        return Status(decision, None, None, None, 0, h_all.shape[0], None, reached, level)
    span = (-1.0, 1.0) if decision.paired else (0.0, 1.0)
    big_n = h_all.shape[0]
    left = big_n - np.arange(n, dtype=np.float64)
    before = np.concatenate([[0.0], np.cumsum(h[0])[:-1]])
    ones = np.ones((1, n))
    w, w_low, w_high = ones, ones, ones
    if chances is not None and entered is not None:
        a = np.asarray(chances, dtype=np.float64)
        taken = a[np.asarray(entered)]
        mean_a = ((a.sum() - np.concatenate([[0.0], np.cumsum(taken)[:-1]])) / left)[None, :]
        w, w_low, w_high = mean_a / taken[None, :], mean_a / a.max(), mean_a / a.min()
    stream = Stream(y, h, w, w_low, w_high, ((h_all.sum() - before) / left)[None, :])
    horizons = horizons_for(min(max_labels or big_n, big_n))
    seq = confidence_sequence(stream, big_n, y_range=span, h_range=span, level=level, lam=lam, horizons=horizons)
    est, low, high = float(seq.estimate[0, -1]), float(seq.low[0, -1]), float(seq.high[0, -1])
    return Status(decision, est, low, high, n, big_n, verdict_of(decision, low, high), reached, level)


__all__ = [
    "Decision",
    "NO_DIFFERENCE",
    "ConfidenceSequence",
    "Status",
    "Stream",
    "active_weights",
    "confidence_sequence",
    "draw_orders",
    "grid_for",
    "horizons_for",
    "parse_decision",
    "status_of",
    "uniform_stream",
    "verdict_of",
    "verdicts_of",
    "weighted_stream",
]
