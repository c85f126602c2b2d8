"""How far a judge agrees with people: label agreement, rank correlation (Kendall, Spearman and
Pearson in plain Python), qrels agreement.

Accuracy flatters a judge on skewed labels, so kappa corrects for chance, weighted kappa and
Krippendorff's alpha respect grade order, and Kendall's tau compares system rankings. Unscored
predictions (``None``) only lower ``coverage``; a figure that cannot be computed is ``None``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

Label = int | bool
AlphaMetric = Literal["nominal", "ordinal", "interval"]


class AgreementFigures(BaseModel):
    """Agreement between gold labels and predictions on the items both label.

    ``confusion[i][j]`` counts items with gold ``labels[i]`` predicted as ``labels[j]``.
    """

    n_total: int = Field(description="Gold items, scored or not")
    n_scored: int = Field(description="Items with a prediction (the rest were unscored)")
    coverage: float | None = Field(description="n_scored / n_total")
    accuracy: float | None
    cohen_kappa: float | None
    quadratic_kappa: float | None = Field(
        default=None, description="Quadratic-weighted kappa (ordinal labels)"
    )
    krippendorff_alpha: float | None = None
    alpha_metric: AlphaMetric | None = None
    ordinal: bool = Field(default=False, description="Labels are ordered grades (quadratic kappa applies)")
    labels: list[Label]
    confusion: list[list[int]]
    precision: float | None = Field(
        default=None, description="Binary labels: precision of the positive label"
    )
    recall: float | None = Field(default=None, description="Binary labels: recall of the positive label")
    f1: float | None = None

    @property
    def n_unscored(self) -> int:
        return self.n_total - self.n_scored

    @property
    def binary(self) -> bool:
        """Two unordered labels (pass/fail): its alpha is the nominal alpha of binary labels."""
        return len(self.labels) == 2 and not self.ordinal

    def figures(self, prefix: str = "") -> dict[str, float | None]:
        """Flat ``name -> value`` for gates and JSON (``None`` where a figure is undefined)."""
        names = ("coverage", "accuracy", "cohen_kappa", "krippendorff_alpha")
        if self.ordinal:
            names += ("quadratic_kappa",)
        flat: dict[str, float | None] = {prefix + name: getattr(self, name) for name in names}
        if self.binary:  # says which alpha it is: 'krippendorff_alpha' is the graded one (agreement)
            flat[prefix + BINARY_ALPHA] = flat.pop(prefix + "krippendorff_alpha")
        if len(self.labels) == 2:
            flat.update({prefix + name: getattr(self, name) for name in ("precision", "recall", "f1")})
        return flat


BINARY_ALPHA = "binary_krippendorff_alpha"
"""The flat-figures name of Krippendorff's alpha on pass/fail labels (``evaluate``, the binary
side of ``agreement``); ``krippendorff_alpha`` is the alpha on graded labels."""


MIN_RANKED = 3
"""Fewest systems a rank correlation is computed over."""


class RankCorrelation(BaseModel):
    """Correlation of two system rankings over the systems both score."""

    n: int
    kendall_tau: float | None
    spearman: float | None
    kendall_p: float | None = None
    spearman_p: float | None = None


def _finite(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def cohen_kappa(
    confusion: npt.NDArray[np.float64], weights: npt.NDArray[np.float64] | None = None
) -> float | None:
    """Cohen's kappa from a confusion matrix, optionally weighted (``weights[i, j]`` = cost of i vs j).

    ``None`` when expected disagreement is 0 (both raters used one single label): kappa is 0/0 there.
    """
    total = confusion.sum()
    if total == 0:
        return None
    k = confusion.shape[0]
    w = weights if weights is not None else 1.0 - np.eye(k)
    expected = np.outer(confusion.sum(axis=1), confusion.sum(axis=0)) / total
    observed_cost = float((w * confusion).sum())
    expected_cost = float((w * expected).sum())
    if expected_cost == 0:
        return None
    return 1.0 - observed_cost / expected_cost


def quadratic_weights(k: int) -> npt.NDArray[np.float64]:
    """``(i - j)^2 / (k - 1)^2`` over label positions, as scikit-learn's ``weights="quadratic"``."""
    positions = np.arange(k, dtype=np.float64)
    return (positions[:, None] - positions[None, :]) ** 2 / max(k - 1, 1) ** 2


def krippendorff_alpha(
    confusion: npt.NDArray[np.float64], values: Sequence[float], metric: AlphaMetric = "nominal"
) -> float | None:
    """Krippendorff's alpha for two raters who both rated every unit (no missing values).

    From the coincidence matrix ``o = C + C^T``: ``alpha = 1 - D_o / D_e`` with
    ``D_o = sum o_ck d_ck / n`` and ``D_e = sum n_c n_k d_ck / (n (n - 1))``, ``d`` the metric's
    squared difference (nominal: c != k; interval: (c - k)^2; ordinal: the squared count of
    pairable values between c and k, Krippendorff 2011). ``None`` when D_e is 0 or fewer than 2 units.
    """
    coincidence = confusion + confusion.T
    n_c = coincidence.sum(axis=1)
    n = float(n_c.sum())
    if n < 4:  # fewer than 2 units
        return None
    k = len(values)
    if metric == "nominal":
        delta = 1.0 - np.eye(k)
    elif metric == "interval":
        v = np.asarray(values, dtype=np.float64)
        delta = (v[:, None] - v[None, :]) ** 2
    elif metric == "ordinal":
        cumulative = np.concatenate([[0.0], np.cumsum(n_c)])
        delta = np.zeros((k, k))
        for c in range(k):
            for j in range(k):
                low, high = min(c, j), max(c, j)
                between = cumulative[high + 1] - cumulative[low] - (n_c[c] + n_c[j]) / 2.0
                delta[c, j] = between**2
    else:
        raise ValueError(f"unknown alpha metric {metric!r}")
    observed = float((coincidence * delta).sum()) / n
    expected = float((np.outer(n_c, n_c) * delta).sum()) / (n * (n - 1.0))
    if expected == 0:
        return None
    return 1.0 - observed / expected


def _check_label(value: object, where: str) -> Label:
    if isinstance(value, bool | int):
        return value
    if isinstance(value, np.integer | np.bool_):
        return value.item()  # type: ignore[no-any-return]
    raise ValueError(f"{where}: labels must be int or bool, got {value!r}")


def label_agreement(
    gold: Sequence[Label],
    predicted: Sequence[Label | None],
    *,
    labels: Sequence[Label] | None = None,
    ordinal: bool = False,
    alpha_metric: AlphaMetric | None = None,
) -> AgreementFigures:
    """Agreement of ``predicted`` with ``gold``, position by position.

    ``None`` predictions are unscored: they count in ``n_total`` and lower ``coverage``, and are
    excluded from accuracy, kappa and alpha. ``labels`` fixes the label set and its order (default:
    the sorted labels seen). With ``ordinal=True`` (graded labels) the quadratic-weighted kappa is
    reported and alpha uses the ordinal metric; otherwise alpha is nominal. For two labels the
    positive one is the larger (``True`` / 1) for precision, recall and F1.
    """
    if len(gold) != len(predicted):
        raise ValueError(f"gold has {len(gold)} labels but predicted has {len(predicted)}")
    gold_labels = [_check_label(g, f"gold[{i}]") for i, g in enumerate(gold)]
    pairs = [
        (g, _check_label(p, f"predicted[{i}]"))
        for i, (g, p) in enumerate(zip(gold_labels, predicted, strict=True))
        if p is not None
    ]
    if labels is None:
        seen = {g for g in gold_labels} | {p for _, p in pairs}
        label_list: list[Label] = sorted(seen)
    else:
        label_list = list(labels)
    # bools and ints share positions (True == 1), so a bool gold matches an int prediction of 1
    position = {label: index for index, label in enumerate(label_list)}
    for label in {g for g in gold_labels} | {p for _, p in pairs}:
        if label not in position:
            raise ValueError(f"label {label!r} is not in labels {label_list}")
    k = len(label_list)
    confusion = np.zeros((k, k))
    for g, p in pairs:
        confusion[position[g], position[p]] += 1
    n_total, n_scored = len(gold_labels), len(pairs)
    correct = float(np.trace(confusion))
    metric: AlphaMetric = alpha_metric or ("ordinal" if ordinal else "nominal")
    figures: dict[str, object] = {}
    if k == 2:
        tp, fp, fn = confusion[1, 1], confusion[0, 1], confusion[1, 0]
        precision = _ratio(tp, tp + fp)
        recall = _ratio(tp, tp + fn)
        f1 = _ratio(2 * tp, 2 * tp + fp + fn)
        figures = {"precision": precision, "recall": recall, "f1": f1}
    numeric_values = [float(label) for label in label_list]
    return AgreementFigures(
        n_total=n_total,
        n_scored=n_scored,
        coverage=_ratio(n_scored, n_total),
        accuracy=_ratio(correct, n_scored),
        cohen_kappa=cohen_kappa(confusion) if k else None,
        quadratic_kappa=cohen_kappa(confusion, quadratic_weights(k)) if ordinal and k else None,
        krippendorff_alpha=krippendorff_alpha(confusion, numeric_values, metric) if k else None,
        alpha_metric=metric,
        ordinal=ordinal,
        labels=label_list,
        confusion=confusion.astype(int).tolist(),
        **figures,  # type: ignore[arg-type]
    )


def ranking_correlation(a: Mapping[str, float], b: Mapping[str, float]) -> RankCorrelation:
    """Kendall's tau-b and Spearman's rho between two system scorings, over the systems both have.

    ``None`` figures when fewer than ``MIN_RANKED`` systems are shared or a scoring is constant:
    two systems can only be in the same order or not (tau is +1 or -1, its interval [-1, 1]).
    """
    shared = sorted(set(a) & set(b))
    if len(shared) < MIN_RANKED:
        return RankCorrelation(n=len(shared), kendall_tau=None, spearman=None)
    x = [float(a[name]) for name in shared]
    y = [float(b[name]) for name in shared]
    if len(set(x)) < 2 or len(set(y)) < 2:
        return RankCorrelation(n=len(shared), kendall_tau=None, spearman=None)
    tau, tau_p = kendall_tau_b(x, y)
    rho, rho_p = spearman(x, y)
    return RankCorrelation(
        n=len(shared),
        kendall_tau=_finite(tau),
        spearman=_finite(rho),
        kendall_p=_finite(tau_p),
        spearman_p=_finite(rho_p),
    )


class QrelsAgreement(BaseModel):
    """Judged qrels against gold qrels: binary (grade >= rel) and graded figures.

    Every gold pair is an item; a gold pair the judge did not label is unscored (coverage).
    """

    rel: int
    judged_rel: int | None = Field(default=None, description="the judged side's cut (rel unless a binary judge)")
    n_gold: int
    n_judged: int
    n_shared: int
    n_judged_only: int = Field(description="Judged pairs without a gold label (ignored)")
    binary: AgreementFigures
    graded: AgreementFigures

    def figures(self) -> dict[str, float | None]:
        """Flat figures for gates and JSON.

        ``accuracy``, ``cohen_kappa``, precision/recall/F1 are binary (grade >= rel);
        ``quadratic_kappa`` and ``krippendorff_alpha`` (ordinal) are on the grades, where they mean
        most; ``graded_accuracy`` and ``graded_cohen_kappa`` are the exact-grade figures and
        ``binary_krippendorff_alpha`` is the nominal alpha of the binary labels.
        """
        flat = self.binary.figures()  # its alpha is already binary_krippendorff_alpha
        flat["graded_accuracy"] = self.graded.accuracy
        flat["graded_cohen_kappa"] = self.graded.cohen_kappa
        flat["quadratic_kappa"] = self.graded.quadratic_kappa
        flat["krippendorff_alpha"] = self.graded.krippendorff_alpha
        return flat


def qrels_agreement(
    gold_qrels: Mapping[str, Mapping[str, int]],
    judged_qrels: Mapping[str, Mapping[str, int]],
    rel: int = 2,
    judged_rel: int | None = None,
) -> QrelsAgreement:
    """Agreement of judged qrels with gold qrels on the (qid, docid) pairs of the gold.

    Binary figures use relevant = gold grade >= ``rel`` (2 for TREC DL passages) and judged grade
    >= ``judged_rel`` (``rel`` unless given: a binary judge's 0/1 qrels are cut at 1); graded
    figures use the grades themselves (ordinal: quadratic kappa and ordinal alpha).
    """
    judged_cut = rel if judged_rel is None else judged_rel
    gold: list[int] = []
    judged: list[int | None] = []
    n_shared = 0
    for qid, docs in gold_qrels.items():
        labelled = judged_qrels.get(qid, {})
        for docid, grade in docs.items():
            gold.append(int(grade))
            value = labelled.get(docid)
            judged.append(None if value is None else int(value))
            n_shared += value is not None
    n_judged = sum(len(docs) for docs in judged_qrels.values())
    grades = sorted({g for g in gold} | {j for j in judged if j is not None})
    binary = label_agreement(
        [g >= rel for g in gold], [None if j is None else j >= judged_cut for j in judged], labels=[False, True]
    )
    graded = label_agreement(gold, judged, labels=grades, ordinal=True)
    return QrelsAgreement(
        rel=rel,
        judged_rel=judged_cut,
        n_gold=len(gold),
        n_judged=n_judged,
        n_shared=n_shared,
        n_judged_only=n_judged - n_shared,
        binary=binary,
        graded=graded,
    )


# -- rank correlation: Kendall's tau-b, Spearman's rho and Pearson's r with their p-values, in plain
# Python. Ranking a handful of systems should not pay for importing ``scipy.stats``. The definitions and
# p-values are scipy's (tested equal to ``kendalltau``/``spearmanr``/``pearsonr``): tau-b's exact
# p-value for small untied samples (Kendall 1970), else the tie-corrected normal approximation.


def _pearson(x: Sequence[float], y: Sequence[float]) -> float:
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return math.nan
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties given the mean of the ranks they span (as ``scipy.stats.rankdata``)."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            ranks[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), by its continued fraction (also the
    judge card's t quantile, ``judge_card._t_quantile_exact``)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1) / (a + b + 2):  # the continued fraction converges fast on this side only
        return 1.0 - incomplete_beta(b, a, 1.0 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return front * result / a


def _t_two_sided(r: float, n: int) -> float:
    """Two-sided p-value of a correlation ``r`` over ``n`` pairs, from Student's t (n - 2 df)."""
    dof = n - 2
    if dof <= 0:
        return math.nan
    if abs(r) >= 1.0:
        return 0.0
    t_squared = r * r * dof / ((1.0 - r) * (1.0 + r))
    return incomplete_beta(dof / 2, 0.5, dof / (dof + t_squared))


def pearson(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Pearson's r and its two-sided p-value (NaN for a constant side)."""
    r = _pearson(x, y)
    return r, (math.nan if math.isnan(r) else _t_two_sided(r, len(x)))


def spearman(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Spearman's rho (Pearson's r of the average ranks) and its two-sided p-value."""
    return pearson(average_ranks(x), average_ranks(y))


def _inversion_counts(n: int, up_to: int) -> list[int]:
    """How many permutations of n items have k inversions, for k = 0 .. up_to (Mahonian numbers)."""
    counts = [1] + [0] * up_to
    for size in range(2, n + 1):
        running, updated = 0, []
        for k in range(up_to + 1):
            running += counts[k]
            if k - size >= 0:
                running -= counts[k - size]
            updated.append(running)
        counts = updated
    return counts


def _tie_sums(values: Sequence[float]) -> tuple[int, int, int]:
    """Tied pairs, and the two tie terms of the variance of (concordant - discordant)."""
    groups = [t for t in Counter(values).values() if t > 1]
    return (
        sum(t * (t - 1) // 2 for t in groups),
        sum(t * (t - 1) * (t - 2) for t in groups),
        sum(t * (t - 1) * (2 * t + 5) for t in groups),
    )


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Kendall's tau-b and its two-sided p-value (NaN when a side is constant)."""
    n = len(x)
    concordant = discordant = 0
    for i in range(n):
        for j in range(i + 1, n):
            s = (x[i] - x[j]) * (y[i] - y[j])
            if s > 0:
                concordant += 1
            elif s < 0:
                discordant += 1
    total = n * (n - 1) // 2
    x_ties, x0, x1 = _tie_sums(x)
    y_ties, y0, y1 = _tie_sums(y)
    if x_ties == total or y_ties == total:
        return math.nan, math.nan
    difference = concordant - discordant
    tau = max(-1.0, min(1.0, difference / math.sqrt(total - x_ties) / math.sqrt(total - y_ties)))
    if x_ties == 0 and y_ties == 0 and (n <= 33 or min(discordant, total - discordant) <= 1):
        c = min(discordant, total - discordant)
        if 4 * c == n * (n - 1):
            return tau, 1.0
        p = 2 * sum(_inversion_counts(n, c)) / math.factorial(n)
        return tau, min(1.0, p)
    m = n * (n - 1.0)
    variance = (m * (2 * n + 5) - x1 - y1) / 18 + 2 * x_ties * y_ties / m + x0 * y0 / (9 * m * (n - 2))
    z = difference / math.sqrt(variance)
    return tau, math.erfc(abs(z) / math.sqrt(2))


__all__ = [
    "BINARY_ALPHA",
    "AgreementFigures",
    "AlphaMetric",
    "Label",
    "QrelsAgreement",
    "RankCorrelation",
    "average_ranks",
    "cohen_kappa",
    "incomplete_beta",
    "kendall_tau_b",
    "krippendorff_alpha",
    "label_agreement",
    "pearson",
    "qrels_agreement",
    "quadratic_weights",
    "ranking_correlation",
    "spearman",
]
