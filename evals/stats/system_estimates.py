"""Per-system rates people can act on: the judge's mean, people's own, and the two combined.

A user who labels a few answers per system gets, for each system, three estimates side by side —
what the judge says (biased, and its interval cannot see the bias), what the labels alone say
(unbiased, wide), and the prediction-powered estimate (unbiased, narrower when the judge agrees
with people) — and for two systems, their difference from every label: paired where a question
was labelled for both, independent where not, in one estimate.
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
    clip_estimate,
    effective_labels,
    finite_population_fit,
    folds_of,
    interval_around,
    judge_mean,
    two_sided_p,
    wilson_interval,
    wilson_term,
)

MIN_LABELS = 10
"""Below this many labels a system gets the human-only estimate and a warning, no PPI: λ and
the residual variance cannot be estimated from fewer."""


# How many labels a system needs before its interval can be trusted, as measured:
# ``bench/bench_ppi.py --confirm-only --draws 700`` measured the coverage of the 95 % interval on
# the *confirm* half of the dev sets (30 judge × system populations, rare classes included) at
# 10–200 labels per system. From 50 labels every system without a rare class covered 0.940–0.974;
# below, coverage strays both ways (0.906 at 30 labels, intervals so wide they cover 1.000 at 10),
# so ``estimate`` warns there with the range measured at that n.

MEASURED = {10: (0.941, 1.000), 20: (0.934, 1.000), 30: (0.906, 0.997)}
"""Labels per system → lowest and highest coverage over every system (bench_ppi, confirm half)."""

WARN_BELOW = 50
"""The smallest n measured from which every system's coverage stayed in 0.94–0.97."""


def coverage_note(n_labels: int) -> str | None:
    """The warning for a system with ``n_labels`` labels, or None at ``WARN_BELOW`` or more."""
    if n_labels >= WARN_BELOW:
        return None
    at = max((n for n in MEASURED if n <= n_labels), default=min(MEASURED))
    low, high = MEASURED[at]
    return (
        f"{n_labels} labels: at {at} labels per system the 95 % interval covered {low:.2f}–{high:.2f} "
        f"of the time (bench_ppi, confirm half; 0.94–0.97 from {WARN_BELOW}); label at least {WARN_BELOW}"
    )


RARE_CLASS = 10
"""Labels of the rarer class below which a normal-type interval is not to be trusted (the
n·p ≥ 10 rule): at a rate of 0.05, 100 labels hold about 5 of the rare class, 200 about 10."""


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
    independent_std_error: float | None = None
    """The two systems' own estimates combined as if independent (``hypot`` of their standard
    errors): the difference's standard error is never above it when labels move together."""

    def as_dict(self) -> dict[str, object]:
        return {
            "minuend": self.a,
            "subtrahend": self.b,
            "a": self.a,  # kept one release as aliases (docs/json-contract.md): "a" is the minuend
            "b": self.b,
            "difference": self.estimate.as_dict(),
            "independent_std_error": round(self.independent_std_error, 6) if self.independent_std_error else None,
            "p_value": None if self.p_value != self.p_value else round(self.p_value, 6),  # NaN: a sequence
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


def _label_folds(labelled: Sequence[EstimateItem]) -> np.ndarray:
    """Cross-fitting folds by a seeded hash of each label's question (else its id), not its row:
    the same labels in another order give the same estimate. A config's name before the id
    (``CONFIG/ID`` in a run of two configs, from the file's name) is left out: renaming the files
    changes no fold."""
    return folds_of([f"{item.pair_key or ''}\x00{_own_id(item)}" for item in labelled])


def _own_id(item: EstimateItem) -> str:
    prefix = f"{item.system}/"
    return item.id[len(prefix):] if item.id.startswith(prefix) else item.id


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
    folds = _label_folds(labelled)
    human, _ = finite_population_fit(y, yhat, scores, inclusion=inclusion, lam=0.0, level=level, interval=interval,
                                     folds=folds)
    rare = min(y.count(0.0), y.count(1.0)) if set(y) <= {0.0, 1.0} else None
    if rare == 0:
        notes.append(
            f"all {len(y)} labels are {y[0]:g}: the interval is widened to the labels' Wilson interval "
            "(one class says little about the rate)"
        )
    elif rare is not None and rare < RARE_CLASS:
        notes.append(
            f"only {rare} labels of one class: intervals under-cover with fewer than {RARE_CLASS} of each; "
            "label more of this system"
        )
    few = coverage_note(len(labelled))
    if few:
        notes.append(few)
    human = _valid(human, y, level)
    if len(labelled) < MIN_LABELS:
        notes.append(f"{len(labelled)} labels (fewer than {MIN_LABELS}): human-only estimate, no prediction-powered one")
        return SystemEstimate(system, len(items), len(labelled), judge, human, None, tuple(notes))
    powered, _ = finite_population_fit(y, yhat, scores, inclusion=inclusion, level=level, interval=interval,
                                       folds=folds)
    powered = _valid(powered, y, level)
    if powered.lam is not None and powered.lam < 0.05:
        if len(set(y)) == 1:  # nothing for the scores to track: the labels' fault, not the judge's
            notes.append(
                f"λ = {powered.lam:.2f}: every label here is {'yes' if y[0] else 'no'}, so there is no variation for "
                "the judge's scores to track; the estimate is the labels' own (label more of this system)"
            )
        else:
            notes.append(
                f"λ = {powered.lam:.2f}: the judge's scores do not track the labels here, so the estimate is the "
                "labels' own"
            )
    return SystemEstimate(system, len(items), len(labelled), judge, human, powered, tuple(notes))


def _valid(estimate: Estimate, y: Sequence[float], level: float) -> Estimate:
    """An interval that can cover: where the labels are one class (or the residuals have no
    spread) a t-interval has zero width, so it is widened to the labels' Wilson interval, and
    its standard error to the half-width over z (what a difference of two systems adds)."""
    if estimate.width > 0 and len(set(y)) > 1:
        return estimate
    low, high, z = wilson_interval(sum(y), len(y), level)
    low, high = min(low, estimate.low), max(high, estimate.high)
    std_error = max(estimate.std_error, (high - low) / (2 * z))
    return clip_estimate(Estimate(estimate.value, low, high, std_error, estimate.n_labels, estimate.n_items, estimate.lam))


def by_system(items: Iterable[EstimateItem]) -> dict[str, list[EstimateItem]]:
    groups: dict[str, list[EstimateItem]] = defaultdict(list)
    for item in items:
        groups[item.system].append(item)
    return dict(sorted(groups.items()))


def estimate_systems(
    items: Iterable[EstimateItem], *, level: float = 0.95, interval: FiniteIntervalKind = DEFAULT_FINITE_INTERVAL
) -> list[SystemEstimate]:
    return [estimate_system(name, group, level=level, interval=interval) for name, group in by_system(items).items()]


def _influence(
    items: Sequence[EstimateItem], best: Estimate, *, level: float, interval: FiniteIntervalKind
) -> tuple[dict[str, float], float, float]:
    """Each labelled question's influence on a system's estimate (keyed by ``pair_key``), the
    variance not carried by it (a one-class Wilson widening), and its Wilson term: the
    covariance of two systems lives in the influences."""
    labelled = [item for item in items if item.label is not None]
    scores = [item.score for item in items]
    lam = None if len(labelled) >= MIN_LABELS else 0.0
    _, influence = finite_population_fit(
        [float(item.label) for item in labelled],  # type: ignore[arg-type]
        [item.score for item in labelled],
        scores,
        inclusion=_inclusion(labelled, len(items)),
        lam=lam,
        level=level,
        interval=interval,
        folds=_label_folds(labelled),
    )
    keyed = {item.pair_key: float(psi) for item, psi in zip(labelled, influence) if item.pair_key is not None}
    wilson = wilson_term(len(labelled), len(items), level)
    return keyed, max(0.0, best.std_error**2 - float((influence**2).sum()) - wilson), wilson


def compare_systems(
    items: Iterable[EstimateItem],
    a: str,
    b: str,
    *,
    level: float = 0.95,
    interval: FiniteIntervalKind = DEFAULT_FINITE_INTERVAL,
    paired: bool | None = None,
) -> Difference:
    """``a − b`` from every label of both systems: each system's own estimate, their variances
    added, less — where the design pairs the labels — twice their covariance over the questions
    (``pair_key``) labelled for both: ``v_a + v_b − 2·Σ ψ_a·ψ_b`` with ψ each label's jackknife
    influence. No label is left out.

    The covariance belongs to a design that draws the same questions for both systems; two
    independent draws share questions by chance, and their estimates are independent, so
    subtracting it there makes the interval too narrow. ``paired``: True when the labels were
    drawn for the same questions (``label-plan --compare``), False for independent draws; None
    (default) pairs only when both systems' labelled questions are the same set."""
    groups = by_system(items)
    for name in (a, b):
        if name not in groups:
            raise ValueError(f"no items of system {name!r} (systems: {', '.join(groups)})")
    estimates = [estimate_system(name, groups[name], level=level, interval=interval) for name in (a, b)]
    best = [est.prediction_powered or est.human_only for est in estimates]
    if best[0] is None or best[1] is None:
        raise ValueError(f"system {a if best[0] is None else b!r} has no human labels to compare on")
    (left, extra_a, wilson_a), (right, extra_b, wilson_b) = (
        _influence(groups[name], est, level=level, interval=interval) for name, est in zip((a, b), best)
    )
    overlap = sorted(set(left) & set(right))
    if paired is None:
        paired = bool(left) and set(left) == set(right)
    shared = overlap if paired else []
    covariance = sum(left[key] * right[key] for key in shared)
    variance = sum(v**2 for v in left.values()) + sum(v**2 for v in right.values()) + extra_a + extra_b
    variance += (wilson_a + wilson_b) / 2  # one estimate, one Wilson term (two over-covered: 0.97–0.99)
    independent = float(np.hypot(best[0].std_error, best[1].std_error))
    variance = max(variance - 2 * covariance, 0.0)
    value = best[0].value - best[1].value
    std_error = float(np.sqrt(variance))
    n = min(best[0].n_labels, best[1].n_labels)
    kind = _p_kind(interval)
    p = two_sided_p(value, std_error, n, kind)  # type: ignore[arg-type]
    low, high = interval_around(value, std_error, level, n, kind)  # type: ignore[arg-type]
    both = [est.prediction_powered is not None for est in estimates]
    method = "prediction-powered" if all(both) else "human-only" if not any(both) else "prediction-powered and human-only"
    method += f", paired on {len(shared)} questions" if shared else ", independent label sets"
    estimate = clip_estimate(
        Estimate(value, low, high, std_error, best[0].n_labels + best[1].n_labels, estimates[0].n_items + estimates[1].n_items),
        -1.0,
        1.0,
    )
    notes = (f"every label used: {best[0].n_labels} of {a}, {best[1].n_labels} of {b}; {len(overlap)} questions labelled for both"
             + ("" if shared or not overlap else " (by chance: independent draws, not paired)"),)
    return Difference(a, b, estimate, p, bool(shared), method, notes, independent)


__all__ = [
    "MEASURED",
    "MIN_LABELS",
    "RARE_CLASS",
    "WARN_BELOW",
    "Difference",
    "EstimateItem",
    "SystemEstimate",
    "by_system",
    "compare_systems",
    "coverage_note",
    "estimate_system",
    "estimate_systems",
]
