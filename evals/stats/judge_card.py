"""The judge card: how a judge is biased, measured on the items people labelled, with intervals.

A judge's agreement figure hides *which way* it errs. The card says three things a reader can act
on: is the judge lenient (or strict) with each system, does it say yes more often to longer
answers when people's label is the same, and does it agree with people on every system or only
some. Each figure has a 95 % interval; a bias is "found" only when its interval excludes 0.
Only binary tasks (people's label 0/1) have a card. numpy only, no scipy. Beside it, people against
people (``people_block``): the agreement a judge is read against.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from ragjury.evals.io.label_acts import replay
from ragjury.evals.stats.agreement import incomplete_beta, label_agreement
from ragjury.evals.stats.intervals import Interval, bootstrap_agreement
from ragjury.evals.stats.prediction_powered import normal_quantile

LEVEL = 0.95
"""Every interval of the card: the κ bootstrap is a 95 % percentile interval, the rest match it."""

MIN_LENGTH_ITEMS = 20
"""Labelled items below which no length slope is fitted (three or more coefficients, robust errors)."""

MIN_QUARTILE_ITEMS = 20
"""Items of one label class below which its quartile gap is not shown (5 a quarter, for its interval)."""

WORDS_UNIT = 100.0
"""The slope is per this many words."""


@dataclass(frozen=True)
class CardItem:
    """One labelled item: the judge's score (P(yes), or its 0/1 verdict), its verdict, people's
    0/1 label and the length in words of the judged text (the answer, or the passage; None where
    the row does not carry it: left out of the length figures only)."""

    system: str
    score: float
    verdict: int
    label: int
    words: int | None = None
    cluster: str | None = None
    """The item's question: answers to one question (by several systems) share it, and their
    scores move together, so the length slope's error is clustered on it."""


@dataclass(frozen=True)
class Span:
    """A figure with its interval; ``found`` when the interval excludes 0."""

    value: float
    low: float
    high: float
    n: int

    @property
    def found(self) -> bool:
        return self.low > 0 or self.high < 0

    def text(self, digits: int = 3) -> str:
        return f"{self.value:+.{digits}f} [{self.low:+.{digits}f}, {self.high:+.{digits}f}]"

    def as_dict(self) -> dict[str, object]:
        return {"value": round(self.value, 6), "interval": [round(self.low, 6), round(self.high, 6)], "n": self.n}


@dataclass(frozen=True)
class SystemCard:
    """One system on its labelled items: the judge's rate, people's, the gap (leniency) and κ."""

    system: str
    n: int
    judge_rate: float
    people_rate: float
    leniency: Span
    kappa: float | None
    kappa_interval: tuple[float, float] | None

    def as_dict(self) -> dict[str, object]:
        return {
            "system": self.system,
            "n_labelled": self.n,
            "judge_rate": round(self.judge_rate, 6),
            "people_rate": round(self.people_rate, 6),
            "leniency": self.leniency.as_dict(),
            "lenient": self.leniency.found and self.leniency.value > 0,
            "strict": self.leniency.found and self.leniency.value < 0,
            "cohen_kappa": None if self.kappa is None else round(self.kappa, 6),
            "cohen_kappa_interval": None if self.kappa_interval is None else [round(v, 6) for v in self.kappa_interval],
        }


@dataclass(frozen=True)
class QuartileGap:
    """Mean judge score of the longest quarter minus the shortest quarter, inside one label class."""

    label: int
    gap: Span
    short_words: float
    long_words: float

    def as_dict(self) -> dict[str, object]:
        return {"label": self.label, **self.gap.as_dict(), "short_mean_words": round(self.short_words, 1),
                "long_mean_words": round(self.long_words, 1)}


@dataclass(frozen=True)
class LengthBias:
    """The judge's score against length at a fixed label (and system): slope per 100 words."""

    slope: Span
    quartile_gaps: tuple[QuartileGap, ...]
    held_fixed: tuple[str, ...]

    @property
    def found(self) -> bool:
        return self.slope.found

    def as_dict(self) -> dict[str, object]:
        return {
            "slope_per_100_words": self.slope.as_dict(),
            "found": self.found,
            "held_fixed": list(self.held_fixed),
            "quartile_gaps": [gap.as_dict() for gap in self.quartile_gaps],
        }


@dataclass(frozen=True)
class JudgeCard:
    """The card of one judge run: per-system leniency and κ, and the length bias overall."""

    n_labelled: int
    length_of: str
    systems: tuple[SystemCard, ...]
    length: LengthBias | None
    notes: tuple[str, ...] = field(default=())

    def findings(self) -> list[str]:
        """Each significant bias as a phrase; empty when none is."""
        out = []
        for system in self.systems:
            if system.leniency.found:
                word = "lenient" if system.leniency.value > 0 else "strict"
                out.append(f"{word} with {system.system} ({system.leniency.text()})")
        if self.length is not None and self.length.found:
            way = "more" if self.length.slope.value > 0 else "fewer"
            out.append(
                f"{way} yes to longer {self.length_of}s at the same label "
                f"({self.length.slope.text()} per {WORDS_UNIT:.0f} words)"
            )
        return out

    def summary_line(self) -> str | None:
        """The one terminal line when a bias is significant, else None."""
        found = self.findings()
        return f"judge card: {'; '.join(found)}" if found else None

    def as_dict(self) -> dict[str, object]:
        return {
            "level": LEVEL,
            "n_labelled": self.n_labelled,
            "length_of": self.length_of,
            "systems": [system.as_dict() for system in self.systems],
            "length_bias": None if self.length is None else self.length.as_dict(),
            "findings": self.findings(),
            "notes": list(self.notes),
        }


def _z() -> float:
    return normal_quantile(0.5 + LEVEL / 2)


def _t_quantile(p: float, df: float) -> float:
    """Student's t quantile for any df > 0 (the slope's Bell–McCaffrey df is fractional): the
    Cornish-Fisher expansion (Abramowitz & Stegun 26.7.5, error below 1e-4) from 10 degrees of
    freedom, below that the t distribution's tail (an incomplete beta) inverted by bisection; no
    scipy, so a run with labels needs none."""
    if df < 10:
        return _t_quantile_exact(p, df)
    z = normal_quantile(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def _t_quantile_exact(p: float, df: float) -> float:
    """t with P(T > t) = 1 − p, for p > 1/2: P(T > t) = I_{df/(df + t²)}(df/2, 1/2) / 2, solved
    for x = df/(df + t²) by bisection (the tail grows with x)."""
    tail = 2.0 * (1.0 - p)
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        if incomplete_beta(df / 2, 0.5, middle) < tail:
            low = middle
        else:
            high = middle
        if high - low < 1e-15:
            break
    x = (low + high) / 2
    return math.sqrt(df * (1.0 - x) / x)


def _wilson(values: npt.NDArray[np.float64]) -> tuple[float, float, float]:
    """Mean of values in [0, 1] and its Wilson interval, on ``n / φ`` items where φ ≤ 1 is the
    variance over ``m(1 − m)`` (φ = 1 for 0/1 values: the plain Wilson interval). A mean of 0 or 1
    keeps the plain Wilson width: a bound, never a point."""
    n, m = values.size, float(values.mean())
    phi = 1.0
    if 0.0 < m < 1.0 and n > 1:
        phi = min(1.0, max(float(values.var(ddof=1)) / (m * (1.0 - m)), 1.0 / n))
    size, z = n / phi, _z()
    centre = (m + z * z / (2 * size)) / (1 + z * z / size)
    half = z * math.sqrt(m * (1 - m) / size + z * z / (4 * size * size)) / (1 + z * z / size)
    return m, centre - half, centre + half


def judge_excess(judge: Sequence[float], people: Sequence[float]) -> Span:
    """Mean of ``judge − people`` over the same items: the judge's excess (its positive part) minus
    its shortfall, each with a Wilson interval, joined by Newcombe's square-and-add with their
    correlation. Unlike a normal interval it keeps its coverage where the two rarely disagree
    (0.95–1.0 at 20–100 items in a simulation) and never has zero width."""
    d = np.asarray(judge, dtype=np.float64) - np.asarray(people, dtype=np.float64)
    if d.size == 0:
        raise ValueError("no labelled items")
    excess, shortfall = np.clip(d, 0.0, None), np.clip(-d, 0.0, None)
    m1, l1, u1 = _wilson(excess)
    m2, l2, u2 = _wilson(shortfall)
    r = float(np.corrcoef(excess, shortfall)[0, 1]) if excess.std() > 0 and shortfall.std() > 0 else 0.0
    value = m1 - m2
    down = math.sqrt(max((m1 - l1) ** 2 + (u2 - m2) ** 2 - 2 * r * (m1 - l1) * (u2 - m2), 0.0))
    up = math.sqrt(max((u1 - m1) ** 2 + (m2 - l2) ** 2 - 2 * r * (u1 - m1) * (m2 - l2), 0.0))
    return Span(value, max(-1.0, value - down), min(1.0, value + up), int(d.size))


def _robust_slope(
    y: npt.NDArray[np.float64], x: npt.NDArray[np.float64], column: int, clusters: Sequence[str] | None = None
) -> tuple[float, float, float] | None:
    """OLS coefficient ``column``, its standard error and that error's degrees of freedom; None
    when the design is singular or the covariates fit the score exactly (round-off would then pass
    for a slope with no error).

    The error is HC3's (a 0/1 score's variance depends on x), or the cluster jackknife's when
    larger, where items share ``clusters``, plus ``_score_floor``; its degrees of freedom are
    Bell and McCaffrey's (``_bell_mccaffrey_df``)."""
    xtx = x.T @ x
    if np.linalg.matrix_rank(xtx) < x.shape[1]:
        return None
    inverse = np.linalg.inv(xtx)
    beta = inverse @ x.T @ y
    residual = y - x @ beta
    if float(np.abs(residual).max()) < 1e-9:  # the score is fixed by the covariates: nothing to test
        return None
    leverage = np.einsum("ij,jk,ik->i", x, inverse, x)
    scale = (residual / np.clip(1.0 - leverage, 1e-12, None)) ** 2
    covariance = inverse @ (x.T * scale) @ x @ inverse
    variance = covariance[column, column]
    groups: list[list[int]] | None = None
    if clusters is not None:
        names = sorted(set(clusters))
        if 1 < len(names) < len(clusters):  # some question answered more than once
            groups = _cluster_rows(clusters, names)
            variance = max(variance, _cluster_jackknife(x, residual, inverse, groups)[column, column])
    df = _bell_mccaffrey_df(x, inverse, leverage, groups, column)
    variance += _score_floor(len(y) if groups is None else len(groups)) * inverse[column, column]
    return float(beta[column]), float(math.sqrt(max(variance, 0.0))), df


def _score_floor(n: int) -> float:
    """Each score's variance is taken to be at least (z/2)²/n, Wilson's small-sample term for a
    rate, n the questions (the items where each has its own). A 0/1 judge's score is mostly fixed
    by people's label, so the slope can rest on a few rare residuals (a wrong one-word answer that
    contains the reference); HC3 or the cluster jackknife, like Wald's interval for a rare rate,
    then under-covers on one side."""
    return _z() ** 2 / (4 * n)


def _cluster_rows(clusters: Sequence[str], names: Sequence[str]) -> list[list[int]]:
    rows: dict[str, list[int]] = {name: [] for name in names}
    for i, name in enumerate(clusters):
        rows[name].append(i)
    return list(rows.values())


def _cluster_jackknife(
    x: npt.NDArray[np.float64], residual: npt.NDArray[np.float64], inverse: npt.NDArray[np.float64],
    groups: Sequence[Sequence[int]],
) -> npt.NDArray[np.float64]:
    """The cluster jackknife (CR3) covariance: each question's residuals inflated by its own
    leverage, as if the fit had left that question out. Plain cluster-robust errors (CR1) still
    under-cover with tens of questions of five answers each."""
    meat = np.zeros((x.shape[1], x.shape[1]))
    for members in groups:
        rows = list(members)
        xg = x[rows]
        leverage = np.eye(len(rows)) - xg @ inverse @ xg.T
        try:
            u = np.linalg.solve(leverage, residual[rows])
        except np.linalg.LinAlgError:  # a question that alone fixes a coefficient: its residuals as they are
            u = residual[rows]
        score = xg.T @ u
        meat += np.outer(score, score)
    g = len(groups)
    return (g - 1) / g * (inverse @ meat @ inverse)


def _bell_mccaffrey_df(
    x: npt.NDArray[np.float64], inverse: npt.NDArray[np.float64], leverage: npt.NDArray[np.float64],
    groups: Sequence[Sequence[int]] | None, column: int,
) -> float:
    """Bell & McCaffrey's (2002) degrees of freedom of the jackknife error of coefficient
    ``column`` (per item, or per cluster in ``groups``): that error is a quadratic form in the
    residuals, and this is Satterthwaite's df of it where the scores' errors are independent with
    one variance (as Imbens & Kolesár 2016 recommend). Near n − k when the leverage is spread out,
    a handful when a few long answers carry the slope. Computed in O(n·k²), no n × n matrix."""
    direction = inverse[:, column]
    if groups is None:  # one item per cluster: (I − H_gg)⁻¹ is 1 / (1 − h_i)
        u = (x @ direction) / np.clip(1.0 - leverage, 1e-12, None)
        weights = x.T * u  # (k, n): each item's X_g' u_g
        squares = u * u
    else:
        weights = np.zeros((x.shape[1], len(groups)))
        squares = np.zeros(len(groups))
        for j, members in enumerate(groups):
            xg = x[list(members)]
            target = xg @ direction
            try:
                ug = np.linalg.solve(np.eye(len(members)) - xg @ inverse @ xg.T, target)
            except np.linalg.LinAlgError:  # as in the jackknife: the question's weights as they are
                ug = target
            weights[:, j] = xg.T @ ug
            squares[j] = ug @ ug
    # The error is e'(Σ q_g q_g')e with e = (I − H)ε; the Gram matrix of the q_g is
    # diag(squares) − W'(X'X)⁻¹W, and df = tr² / tr of its square.
    quadratic = np.einsum("ig,ij,jg->g", weights, inverse, weights)
    product = inverse @ (weights @ weights.T)
    trace = float(squares.sum() - quadratic.sum())
    trace_sq = float((squares**2).sum() - 2 * (squares * quadratic).sum() + np.trace(product @ product))
    if trace <= 0 or trace_sq <= 0:
        return 1.0
    return max(1.0, trace * trace / trace_sq)


def length_slope(items: Sequence[CardItem]) -> tuple[Span, tuple[str, ...]] | None:
    """Slope of the judge's score per 100 words, people's label (and the system, when there are
    several) held fixed; a t-interval on the HC3 error, or on the error clustered by question
    where answers share one, with a Wilson-type floor, on Bell and McCaffrey's degrees of freedom
    (at most n − k, or questions − 1). None when it cannot be fitted."""
    systems = sorted({item.system for item in items})
    columns = [np.ones(len(items)), np.array([item.label for item in items], dtype=np.float64)]
    held = ["label"]
    if len(systems) > 1:
        held.append("system")
        columns += [np.array([item.system == name for item in items], dtype=np.float64) for name in systems[1:]]
    kept: list[npt.NDArray[np.float64]] = []
    for column in columns:  # a system whose labels are all one class repeats the label column: drop it
        if np.linalg.matrix_rank(np.column_stack([*kept, column])) > len(kept):
            kept.append(column)
    x = np.column_stack([*kept, np.array([item.words for item in items], dtype=np.float64) / WORDS_UNIT])
    df = len(items) - x.shape[1]
    if df < 2:
        return None
    clusters = [item.cluster for item in items]
    clustered = None if any(c is None for c in clusters) else [str(c) for c in clusters]
    fit = _robust_slope(np.array([item.score for item in items], dtype=np.float64), x, x.shape[1] - 1, clustered)
    if fit is None:
        return None
    slope, error, effective = fit
    if clustered is not None and len(set(clustered)) < len(clustered):  # t on the clusters' degrees of freedom
        df = min(df, max(len(set(clustered)) - 1, 1))
    half = _t_quantile(0.5 + LEVEL / 2, min(df, effective)) * error
    return Span(slope, slope - half, slope + half, len(items)), tuple(held)


def quartile_gap(items: Sequence[CardItem], label: int) -> QuartileGap | None:
    """Longest quarter minus shortest quarter of one label class (by words; ties keep input order),
    with the Agresti–Caffo interval on two independent means (each quarter plus a 0 and a 1), which
    keeps a width where every score of both quarters is the same."""
    group = sorted((item for item in items if item.label == label), key=lambda item: item.words or 0)
    quarter = len(group) // 4
    if len(group) < MIN_QUARTILE_ITEMS:
        return None
    short, long = group[:quarter], group[-quarter:]
    a = np.array([item.score for item in short])
    b = np.array([item.score for item in long])
    gap = float(b.mean() - a.mean())
    a, b = np.append(a, [0.0, 1.0]), np.append(b, [0.0, 1.0])
    centre = float(b.mean() - a.mean())
    half = _z() * math.sqrt(a.var() / a.size + b.var() / b.size)
    return QuartileGap(
        label,
        Span(gap, max(-1.0, centre - half), min(1.0, centre + half), len(group)),
        float(np.mean([item.words for item in short])),
        float(np.mean([item.words for item in long])),
    )


def length_bias(items: Sequence[CardItem]) -> LengthBias | None:
    """The slope and the quartile gaps of the items whose length is known; None with too few of
    them, one label class, or one length."""
    items = [item for item in items if item.words is not None]
    if len(items) < MIN_LENGTH_ITEMS or len({item.label for item in items}) < 2:
        return None
    if len({item.words for item in items}) < 2:
        return None
    fitted = length_slope(items)
    if fitted is None:
        return None
    slope, held = fitted
    gaps = tuple(gap for gap in (quartile_gap(items, 0), quartile_gap(items, 1)) if gap is not None)
    return LengthBias(slope, gaps, held)


def system_card(system: str, items: Sequence[CardItem]) -> SystemCard:
    """Leniency (judge rate − people rate, paired on the items) and κ with its bootstrap interval."""
    scores = [item.score for item in items]
    labels = [item.label for item in items]
    verdicts = [item.verdict for item in items]
    # people's labels of one class make κ 0 by construction (and its bootstrap [0, 0]): none instead
    kappa = label_agreement(labels, verdicts, labels=[0, 1]).cohen_kappa if len(set(labels)) == 2 else None
    interval = bootstrap_agreement(labels, verdicts, labels=[0, 1])["cohen_kappa"] if kappa is not None else None
    return SystemCard(
        system,
        len(items),
        float(np.mean(scores)),
        float(np.mean(labels)),
        judge_excess(scores, labels),
        kappa,
        None if interval is None else (interval.low, interval.high),
    )


def judge_card(items: Sequence[CardItem], *, length_of: str = "answer") -> JudgeCard:
    """The card of ``items`` (labelled, scored ones only: the caller leaves out unscored judgments)."""
    if not items:
        raise ValueError("a judge card needs labelled, scored items")
    groups: dict[str, list[CardItem]] = {}
    for item in items:
        groups.setdefault(item.system, []).append(item)
    systems = tuple(system_card(name, group) for name, group in sorted(groups.items()))
    length = length_bias(items)
    notes = [f"no κ for {s.system}: people's labels there are all one class" for s in systems if s.kappa is None]
    measured = sum(item.words is not None for item in items)
    if length is None and not measured:
        notes.append(f"no length slope: the items carry no {length_of} text (predictions from evaluate --out do)")
    elif length is None:
        notes.append(
            f"no length slope: it needs {MIN_LENGTH_ITEMS} labelled items of both classes, {length_of}s of "
            f"more than one length and scores not fixed by the label ({measured} labelled with a length)"
        )
    return JudgeCard(len(items), length_of, systems, length, tuple(notes))


# -- people against people: Cohen's kappa, with its interval, of each two annotators on the items both
# labelled, and the items they disagree on. Why beside the card, measured with the other figures: the
# agreement two people reach is the ceiling a judge is read against (a judge's kappa of 0.5 reads
# differently beside people's 0.55 than beside 0.9), so every trust command carries it in ``--json``
# beside the judge's, not the terminal of one command only.

Key = tuple[str | None, str]


@dataclass
class PairAgreement:
    """Two annotators on the items both labelled."""

    a: str
    b: str
    n: int
    kappa: float | None
    interval: Interval | None
    agree: float | None
    disagreements: list[Key] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"annotators": [self.a, self.b], "n": self.n, "cohen_kappa": self.kappa,
                "kappa_interval": None if self.interval is None else [round(self.interval.low, 4),
                                                                      round(self.interval.high, 4)],
                "agreement": self.agree, "disagreements": [{"system": k[0], "id": k[1]} for k in self.disagreements]}


def _binary(value: object) -> object:
    return bool(value) if isinstance(value, bool) else value


def kappa_with_interval(gold: list, predicted: list) -> tuple[float | None, Interval | None, float | None, list, list]:
    """Cohen's kappa, its bootstrap interval (from 5 items), accuracy, the confusion and its labels."""
    figures = label_agreement(gold, predicted)
    interval = None
    if len(gold) >= 5:
        intervals = bootstrap_agreement(gold, predicted, resamples=1000, seed=0)
        interval = intervals.get("cohen_kappa")
    return figures.cohen_kappa, interval, figures.accuracy, figures.confusion, list(figures.labels)


def pair_agreements(acts: list[Any]) -> list[PairAgreement]:
    """Each two annotators of ``acts`` (label acts, replayed) on the items both labelled."""
    states = replay(acts)
    pairs: list[PairAgreement] = []
    for a, b in combinations(sorted(states), 2):
        shared = sorted((k for k in states[a] if states[a][k].label is not None
                         and k in states[b] and states[b][k].label is not None), key=str)
        if not shared:
            continue
        gold = [_binary(states[a][k].label) for k in shared]
        other = [_binary(states[b][k].label) for k in shared]
        kappa, interval, agree, _, _ = kappa_with_interval(gold, other)
        pairs.append(PairAgreement(a, b, len(shared), kappa, interval, agree,
                                   [k for k, x, y in zip(shared, gold, other, strict=True) if x != y]))
    return pairs


def people_block(people: Any) -> dict[str, object]:
    """What a labels file gave (``People.counts``) and, with several annotators, people against people."""
    block = dict(people.counts())
    block["people_vs_people"] = [pair.as_dict() for pair in pair_agreements(people.acts)] if people.acts else []
    return block


__all__ = [
    "LEVEL",
    "CardItem",
    "JudgeCard",
    "LengthBias",
    "PairAgreement",
    "QuartileGap",
    "Span",
    "SystemCard",
    "judge_card",
    "length_bias",
    "length_slope",
    "judge_excess",
    "kappa_with_interval",
    "pair_agreements",
    "people_block",
    "quartile_gap",
]
