"""Judge scores for an estimate when the judge is fitted on the very labels the estimate uses.

A head fitted on the labelled items predicts them better than it predicts the rest, so a
prediction-powered estimate that reads its in-sample scores believes the judge too much and its
interval under-covers. Cross-fitting (cross-prediction-powered inference, Zrnic & Candès, PNAS
2024): each labelled item is scored by a head fitted without its fold, every unlabelled item by
the mean of the fold heads. The estimator then treats the scores as any judge's.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ragjury.evals.stats.logistic import fit_logistic, fold_ids

Array = npt.NDArray[np.float64]


def cross_fit_scores(
    x: Array, labelled: npt.NDArray[np.bool_], gold: npt.NDArray[np.bool_], *, folds: int = 5, seed: int = 0,
    l2: float = 1.0,
) -> Array:
    """P(yes) for every row of ``x``: out-of-fold for the ``labelled`` rows (``gold`` gives their
    labels, in row order), the mean of the ``folds`` heads for the others. A fold whose training
    labels are all one class scores with that class's share (no head can be fitted there)."""
    x = np.asarray(x, dtype=np.float64)
    labelled = np.asarray(labelled, dtype=bool)
    y = np.asarray(gold, dtype=bool)
    index = np.flatnonzero(labelled)
    if len(index) != len(y):
        raise ValueError("one people's label per labelled row")
    if len(index) < folds:
        raise ValueError(f"{len(index)} labelled rows, fewer than {folds} folds")
    ids = fold_ids(len(index), folds, seed)
    scores = np.zeros(x.shape[0])
    rest = ~labelled
    for fold in range(folds):
        train = ids != fold
        test = index[ids == fold]
        if y[train].all() or not y[train].any():
            share = float(y[train].mean())
            scores[test] = share
            scores[rest] += share / folds
            continue
        head = fit_logistic(x[index[train]], y[train], l2)
        scores[test] = head.probability(x[test])
        scores[rest] += head.probability(x[rest]) / folds
    return scores


__all__ = ["cross_fit_scores"]
