"""Cross-fitted judge scores: a labelled item's score never depends on its own label."""

from __future__ import annotations

import numpy as np
import pytest

from ragjury.evals.stats.cross_fit import cross_fit_scores
from ragjury.evals.stats.logistic import fit_logistic, fold_ids


def _data(n: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 2))
    y = rng.random(n) < 1 / (1 + np.exp(-2 * x[:, 0]))
    labelled = np.zeros(n, dtype=bool)
    labelled[rng.choice(n, 100, replace=False)] = True
    return x, y, labelled


def test_a_labelled_items_score_does_not_see_its_own_label() -> None:
    x, y, labelled = _data()
    gold = y[labelled].copy()
    before = cross_fit_scores(x, labelled, gold, seed=1)
    flipped = gold.copy()
    flipped[0] = not flipped[0]
    after = cross_fit_scores(x, labelled, flipped, seed=1)
    first = np.flatnonzero(labelled)[0]
    assert after[first] == pytest.approx(before[first])  # out of fold: its own label is not used
    in_sample_before = fit_logistic(x[labelled], gold).probability(x[first:first + 1])[0]
    in_sample_after = fit_logistic(x[labelled], flipped).probability(x[first:first + 1])[0]
    assert abs(in_sample_after - in_sample_before) > 1e-3  # whereas an in-sample head moves with it


def test_unlabelled_items_get_the_mean_of_the_fold_heads() -> None:
    x, y, labelled = _data()
    gold = y[labelled]
    scores = cross_fit_scores(x, labelled, gold, folds=5, seed=2)
    ids = fold_ids(int(labelled.sum()), 5, 2)
    index = np.flatnonzero(labelled)
    rest = ~labelled
    expected = np.mean([fit_logistic(x[index[ids != k]], gold[ids != k]).probability(x[rest]) for k in range(5)], axis=0)
    assert scores[rest] == pytest.approx(expected)


def test_too_few_labels_for_the_folds_is_an_error() -> None:
    x, y, _ = _data()
    labelled = np.zeros(len(y), dtype=bool)
    labelled[:3] = True
    with pytest.raises(ValueError, match="fewer than 5 folds"):
        cross_fit_scores(x, labelled, y[:3])
