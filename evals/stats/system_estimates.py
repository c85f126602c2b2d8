"""Per-system rates people can act on: the judge's mean, people's own, and the two combined.

A user who labels a few answers per system gets, for each system, three estimates side by side —
what the judge says (biased, and its interval cannot see the bias), what the labels alone say
(unbiased, wide), and the prediction-powered estimate (unbiased, narrower when the judge agrees
with people) — and for two systems, their difference, paired on the questions both answered.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ragjury.evals.stats.prediction_powered import (
    DEFAULT_FINITE_INTERVAL,
    Estimate,
    FiniteIntervalKind,
    effective_labels,
    finite_population_mean,
    interval_around,
    judge_mean,
    two_sided_p,
)

MIN_LABELS = 10
"""Below this many labels a system gets the human-only estimate and a warning, no PPI: λ and
the residual variance cannot be estimated from fewer."""


RARE_CLASS = 5
"""Labels of the rarer class below which no normal-type interval keeps its coverage (bench_ppi)."""


@dataclass(frozen=True)
class EstimateItem:
    """One judged item: the judge's score (a probability or 0/1), people's label where there is one."""

    id: str
    score: float
    system: str = "all"
    label: float | None = None
    pair_key: str | None = None
    """What makes two systems' items comparable (the question): pairs the difference."""
    inclusion_probability: float | None = None
    """Chance this item was picked for labelling (``label-plan``); None = uniform."""


@dataclass(frozen=True)
class SystemEstimate:
    """One system's three estimates and what they say about the judge."""

    system: str
    n_items: int
    n_labels: int
    judge: Estimate
    human_only: Estimate | None
    prediction_powered: Estimate | None
    notes: tuple[str, ...] = ()

    @property
    def bias(self) -> float | None:
        """The judge's mean minus the best estimate of people's rate (positive = lenient)."""
        if self.prediction_powered is None:
            return None
        return self.judge.value - self.prediction_powered.value

    @property
    def effective_labels(self) -> float | None:
        if self.prediction_powered is None or self.human_only is None:
            return None
        return effective_labels(self.human_only, self.prediction_powered)

    def as_dict(self) -> dict[str, object]:
        eff = self.effective_labels
        bias = self.bias
        return {
            "system": self.system,
            "n_items": self.n_items,
            "n_labels": self.n_labels,
            "judge_mean": self.judge.as_dict(),
            "human_only": self.human_only.as_dict() if self.human_only else None,
            "prediction_powered": self.prediction_powered.as_dict() if self.prediction_powered else None,
            "judge_bias": round(bias, 6) if bias is not None else None,
            "effective_labels": round(eff, 1) if eff is not None else None,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Difference:
    """System ``a`` minus system ``b``, prediction-powered where both have enough labels."""

    a: str
    b: str
    estimate: Estimate
    p_value: float
    paired: bool
    method: str
    notes: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict[str, object]:
        return {
            "a": self.a,
            "b": self.b,
            "difference": self.estimate.as_dict(),
            "p_value": round(self.p_value, 6),
            "paired": self.paired,
            "method": self.method,
            "notes": list(self.notes),
        }


def _inclusion(items: Sequence[EstimateItem], n_items: int) -> list[float] | None:
    """Each labelled item's chance of having been picked; None where all were picked uniformly.
    A label without a recorded chance (added by hand) counts as drawn uniformly."""
    probabilities = [item.inclusion_probability for item in items]
    if all(p is None for p in probabilities):
        return None
    return [p if p is not None else len(items) / n_items for p in probabilities]


def _p_kind(interval: FiniteIntervalKind) -> str:
    return "normal" if interval == "normal" else "t"


def estimate_system(
    system: str,
    items: Sequence[EstimateItem],
    *,
    level: float = 0.95,
    interval: FiniteIntervalKind = DEFAULT_FINITE_INTERVAL,
) -> SystemEstimate:
    """One system's estimates; fewer than ``MIN_LABELS`` labels give human-only with a note."""
    scores = [item.score for item in items]
    labelled = [item for item in items if item.label is not None]
    judge = judge_mean(scores, level=level)
    notes: list[str] = []
    if not labelled:
        return SystemEstimate(system, len(items), 0, judge, None, None, ("no human labels",))
    y = [float(item.label) for item in labelled]  # type: ignore[arg-type]
    yhat = [item.score for item in labelled]
    inclusion = _inclusion(labelled, len(items))
    human = finite_population_mean(y, yhat, scores, inclusion=inclusion, lam=0.0, level=level, interval=interval)
    if len(set(y)) == 1:
        notes.append(f"all {len(y)} labels are {y[0]:g}: the human-only interval has no width to trust")
    elif set(y) <= {0.0, 1.0} and min(y.count(0.0), y.count(1.0)) < RARE_CLASS:
        notes.append(
            f"only {min(y.count(0.0), y.count(1.0))} labels of one class: intervals under-cover with fewer "
            f"than {RARE_CLASS} of each; label more of this system"
        )
    if len(labelled) < MIN_LABELS:
        notes.append(f"{len(labelled)} labels (fewer than {MIN_LABELS}): human-only estimate, no prediction-powered one")
        return SystemEstimate(system, len(items), len(labelled), judge, human, None, tuple(notes))
    powered = finite_population_mean(y, yhat, scores, inclusion=inclusion, level=level, interval=interval)
    if powered.lam is not None and powered.lam < 0.05:
        notes.append(
            f"λ = {powered.lam:.2f}: the judge's scores do not track the labels here, so the estimate is the labels' own"
        )
    return SystemEstimate(system, len(items), len(labelled), judge, human, powered, tuple(notes))


def by_system(items: Iterable[EstimateItem]) -> dict[str, list[EstimateItem]]:
    groups: dict[str, list[EstimateItem]] = defaultdict(list)
    for item in items:
        groups[item.system].append(item)
    return dict(sorted(groups.items()))


def estimate_systems(
    items: Iterable[EstimateItem], *, level: float = 0.95, interval: FiniteIntervalKind = DEFAULT_FINITE_INTERVAL
) -> list[SystemEstimate]:
    return [estimate_system(name, group, level=level, interval=interval) for name, group in by_system(items).items()]


def compare_systems(
    items: Iterable[EstimateItem],
    a: str,
    b: str,
    *,
    level: float = 0.95,
    interval: FiniteIntervalKind = DEFAULT_FINITE_INTERVAL,
) -> Difference:
    """``a − b``. Paired on ``pair_key`` when both systems answered the same questions (each
    question's difference is one item, labelled where people labelled both answers); else the
    two systems' estimates are independent and their variances add."""
    groups = by_system(items)
    for name in (a, b):
        if name not in groups:
            raise ValueError(f"no items of system {name!r} (systems: {', '.join(groups)})")
    left = {item.pair_key: item for item in groups[a] if item.pair_key is not None}
    right = {item.pair_key: item for item in groups[b] if item.pair_key is not None}
    shared = sorted(set(left) & set(right))
    both_labelled = [key for key in shared if left[key].label is not None and right[key].label is not None]
    weighted = any(item.inclusion_probability is not None for item in groups[a] + groups[b])
    if len(both_labelled) >= MIN_LABELS and not weighted:
        scores = [left[key].score - right[key].score for key in shared]
        y = [float(left[key].label) - float(right[key].label) for key in both_labelled]  # type: ignore[arg-type]
        yhat = [left[key].score - right[key].score for key in both_labelled]
        powered = finite_population_mean(y, yhat, scores, level=level, interval=interval)
        p = two_sided_p(powered.value, powered.std_error, powered.n_labels, _p_kind(interval))  # type: ignore[arg-type]
        notes = () if len(shared) == len(groups[a]) == len(groups[b]) else (
            f"paired on the {len(shared)} questions both answered",
        )
        return Difference(a, b, powered, p, True, "prediction-powered, paired", notes)
    first, second = estimate_system(a, groups[a], level=level, interval=interval), estimate_system(
        b, groups[b], level=level, interval=interval
    )
    best = [est.prediction_powered or est.human_only for est in (first, second)]
    if best[0] is None or best[1] is None:
        raise ValueError(f"system {a if best[0] is None else b!r} has no human labels to compare on")
    value = best[0].value - best[1].value
    std_error = float(np.hypot(best[0].std_error, best[1].std_error))
    n = min(best[0].n_labels, best[1].n_labels)
    kind = _p_kind(interval)
    p = two_sided_p(value, std_error, n, kind)  # type: ignore[arg-type]
    low, high = interval_around(value, std_error, level, n, kind)  # type: ignore[arg-type]
    method = "prediction-powered" if first.prediction_powered and second.prediction_powered else "human-only"
    estimate = Estimate(value, low, high, std_error, best[0].n_labels + best[1].n_labels, first.n_items + second.n_items)
    return Difference(a, b, estimate, p, False, f"{method}, independent", ())


__all__ = [
    "MIN_LABELS",
    "RARE_CLASS",
    "Difference",
    "EstimateItem",
    "SystemEstimate",
    "by_system",
    "compare_systems",
    "estimate_system",
    "estimate_systems",
]
