"""A regularised logistic head and the cross-validation that picks its strength and cut-off.

Why here and in numpy: a head over a handful of standardised signals needs a few Newton steps,
not a learning library. Cross-validation mirrors how the head will be used: random folds when it
judges the rest of the same labelled pool, folds by group (question, query, dialogue turn) when
it judges new questions; both are reported because they differ a lot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ragjury.evals.stats.agreement import cohen_kappa

L2_GRID: tuple[float, ...] = (0.1, 1.0, 10.0)
"""Penalty strengths tried (on standardised signals, summed loss): weak, moderate, strong."""

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class LogisticFit:
    """Standardisation, weights and bias of a fitted head (the bias is not penalised)."""

    mean: Array
    scale: Array
    weights: Array
    bias: float

    def probability(self, x: Array) -> Array:
        z = self.bias + ((x - self.mean) / self.scale) @ self.weights
        return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))


def fit_logistic(x: Array, y: Sequence[bool] | Array, l2: float = 1.0, steps: int = 50) -> LogisticFit:
    """Newton's method on the L2-penalised log-loss; constant signals get scale 1 and weight ~0."""
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 1e-12, scale, 1.0)
    weights, bias = newton_logistic((x - mean) / scale, y, l2, steps)
    return LogisticFit(mean=mean, scale=scale, weights=weights, bias=bias)


def newton_logistic(z: Array, y: Sequence[bool] | Array, l2: float = 1.0, steps: int = 50) -> tuple[Array, float]:
    """Weights and bias of the L2-penalised logistic regression on ``z`` as given (standardised
    by the caller; the bias is not penalised): the one Newton solver, for a caller that
    standardises once and fits many subsets (``bench/fit_stack.py``'s folds)."""
    z = np.asarray(z, dtype=np.float64)
    target = np.asarray(y, dtype=np.float64)
    design = np.hstack([np.ones((z.shape[0], 1)), z])
    penalty = np.eye(design.shape[1]) * l2
    penalty[0, 0] = 0.0
    beta = np.zeros(design.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ beta, -40.0, 40.0)))
        gradient = design.T @ (p - target) + penalty @ beta
        hessian = design.T @ (design * (p * (1.0 - p))[:, None]) + penalty + np.eye(design.shape[1]) * 1e-9
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    return beta[1:], float(beta[0])


def kappa_of(gold: Array, predicted: Array) -> float | None:
    """Cohen's kappa of two 0/1 vectors (None when it is 0/0)."""
    g = np.asarray(gold, dtype=bool)
    p = np.asarray(predicted, dtype=bool)
    matrix = np.array([[np.sum(~g & ~p), np.sum(~g & p)], [np.sum(g & ~p), np.sum(g & p)]], dtype=np.float64)
    return cohen_kappa(matrix)


def best_threshold(probability: Array, gold: Array) -> float:
    """The cut-off with the best kappa on these items (ties: the one nearest 0.5)."""
    candidates = np.unique(np.concatenate([np.round(probability, 4), [0.5]]))
    best, best_k = 0.5, -np.inf
    for cut in candidates:
        k = kappa_of(gold, probability >= cut)
        if k is not None and (k > best_k + 1e-12 or (abs(k - best_k) <= 1e-12 and abs(cut - 0.5) < abs(best - 0.5))):
            best, best_k = float(cut), k
    return best


def fold_ids(n: int, folds: int, seed: int, groups: Sequence[str] | None = None) -> npt.NDArray[np.int64]:
    """A fold per item: at random, or whole groups to one fold (so no group straddles train and test)."""
    rng = np.random.default_rng(seed)
    if groups is None:
        return rng.permutation(np.arange(n) % folds)
    names = sorted(set(groups))
    order = rng.permutation(len(names))
    fold_of = {names[i]: rank % folds for rank, i in enumerate(order)}
    return np.array([fold_of[g] for g in groups], dtype=np.int64)


@dataclass(frozen=True)
class CrossValidated:
    """Out-of-fold probabilities and verdicts (each item judged by a head fitted without its fold)."""

    probability: Array
    verdict: npt.NDArray[np.bool_]
    l2: float


def _out_of_fold(
    x: Array, gold: npt.NDArray[np.bool_], ids: npt.NDArray[np.int64], folds: int,
    fit_on: Callable[[npt.NDArray[np.bool_]], tuple[LogisticFit, float] | None],
) -> tuple[Array, npt.NDArray[np.bool_]]:
    """Each fold's items judged by ``fit_on(train)`` — a head and its cut-off, chosen on the other
    folds only — or, where it gives none (too few of a class to fit), by the training base rate."""
    probability = np.zeros(len(gold))
    verdict = np.zeros(len(gold), dtype=bool)
    for fold in range(folds):
        test = ids == fold
        train = ~test
        if not test.any():
            continue
        fitted = fit_on(train)
        if fitted is None:
            probability[test] = float(gold[train].mean())
            verdict[test] = bool(gold[train].mean() >= 0.5)
            continue
        head, cut = fitted
        probability[test] = head.probability(x[test])
        verdict[test] = probability[test] >= cut
    return probability, verdict


def cross_validate(
    x: Array, y: Sequence[bool] | Array, *, folds: int = 5, seed: int = 0, groups: Sequence[str] | None = None,
    l2_grid: Sequence[float] = L2_GRID,
) -> CrossValidated:
    """Each item's P and verdict from a head fitted on the other folds; inside each, the cut-off is
    the one best on the training folds. The strength is the grid value with the best pooled kappa."""
    x = np.asarray(x, dtype=np.float64)
    gold = np.asarray(y, dtype=bool)
    ids = fold_ids(len(gold), folds, seed, groups)
    best: CrossValidated | None = None
    best_k = -np.inf
    for l2 in l2_grid:

        def fit_on(train: npt.NDArray[np.bool_], l2: float = l2) -> tuple[LogisticFit, float] | None:
            if gold[train].all() or not gold[train].any():
                return None
            head = fit_logistic(x[train], gold[train], l2)
            return head, best_threshold(head.probability(x[train]), gold[train])

        probability, verdict = _out_of_fold(x, gold, ids, folds, fit_on)
        k = kappa_of(gold, verdict)
        k = -np.inf if k is None else k
        if best is None or k > best_k:
            best, best_k = CrossValidated(probability, verdict, float(l2)), k
    assert best is not None
    return best


def nested_cross_validate(
    x: Array, y: Sequence[bool] | Array, *, folds: int = 5, seed: int = 0, groups: Sequence[str] | None = None,
    l2_grid: Sequence[float] = L2_GRID,
) -> CrossValidated:
    """Out-of-fold P and verdicts where *everything* chosen is chosen inside the training folds:
    the strength and the cut-off come from a cross-validation of the training part alone, so the
    figures are what the head gains on items it was not tuned on (``cross_validate`` picks the
    strength on the same folds it reports, which flatters small labelled sets). ``l2`` is the
    strength the whole set would get (what the written head uses)."""
    x = np.asarray(x, dtype=np.float64)
    gold = np.asarray(y, dtype=bool)
    ids = fold_ids(len(gold), folds, seed, groups)

    def fit_on(train: npt.NDArray[np.bool_]) -> tuple[LogisticFit, float] | None:
        inner_folds = min(folds, int(min(gold[train].sum(), (~gold[train]).sum())))
        if inner_folds < 2:
            return None
        inner_groups = None if groups is None else [g for g, t in zip(groups, train, strict=True) if t]
        if inner_groups is not None and len(set(inner_groups)) < inner_folds:
            inner_groups = None
        fold = int(ids[~train][0])  # the held-out fold: the inner folds' seed, as before
        inner = cross_validate(x[train], gold[train], folds=inner_folds, seed=seed + 1 + fold, groups=inner_groups,
                               l2_grid=l2_grid)
        return fit_logistic(x[train], gold[train], inner.l2), best_threshold(inner.probability, gold[train])

    probability, verdict = _out_of_fold(x, gold, ids, folds, fit_on)
    chosen = cross_validate(x, gold, folds=folds, seed=seed, groups=groups, l2_grid=l2_grid).l2
    return CrossValidated(probability, verdict, chosen)


def auc(probability: Array, gold: Array) -> float | None:
    """Area under the ROC curve (Mann-Whitney, ties counted half); None with one class."""
    p = np.asarray(probability, dtype=np.float64)
    g = np.asarray(gold, dtype=bool)
    pos, neg = p[g], p[~g]
    if len(pos) == 0 or len(neg) == 0:
        return None
    order = np.argsort(np.concatenate([pos, neg]), kind="mergesort")
    ranks = np.empty(len(order))
    values = np.concatenate([pos, neg])[order]
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2.0) / (len(pos) * len(neg)))


__all__ = [
    "L2_GRID",
    "CrossValidated",
    "LogisticFit",
    "auc",
    "best_threshold",
    "cross_validate",
    "fit_logistic",
    "fold_ids",
    "kappa_of",
    "nested_cross_validate",
    "newton_logistic",
]
