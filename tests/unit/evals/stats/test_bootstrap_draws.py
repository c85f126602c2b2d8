"""The bootstrap's figures of all draws at once equal the per-matrix functions on each draw.

Why: ``bootstrap_agreement`` used to call ``cohen_kappa`` and ``krippendorff_alpha`` once per draw
(6,000 numpy calls for a five-system judge card, most of a 40-row ``evaluate``'s run time); it now
computes them over the draws' stacked matrices, which must not change a single interval.
"""

from __future__ import annotations

import numpy as np

from ragjury.evals.stats.agreement import BINARY_ALPHA, cohen_kappa
from ragjury.evals.stats.intervals import _binary_draw, _nominal_draws, bootstrap_agreement, percentile_interval


def per_draw(matrices: np.ndarray, binary: bool) -> tuple[list, list, dict]:
    accuracy, kappa = [], []
    extra: dict = {"precision": [], "recall": [], "f1": [], BINARY_ALPHA: []} if binary else {}
    for matrix in matrices:
        total = matrix.sum()
        accuracy.append(float(np.trace(matrix) / total) if total else None)
        kappa.append(cohen_kappa(matrix))
        if binary:
            _binary_draw(matrix, extra)
    return accuracy, kappa, extra


def close(a: list, b: list) -> bool:
    return len(a) == len(b) and all((x is None and y is None) or (x is not None and y is not None and abs(x - y) < 1e-12)
                                    for x, y in zip(a, b))


def test_all_draws_at_once_equal_each_draw_alone() -> None:
    rng = np.random.default_rng(3)
    for k in (2, 3):
        matrices = rng.integers(0, 6, size=(400, k, k)).astype(np.float64)
        matrices[0] = 0  # no item: nothing defined
        matrices[1] = 0
        matrices[1, 0, 0] = 5  # one label for both raters: kappa undefined
        matrices[2] = 0
        matrices[2, 1, 1] = 1  # one unit: alpha undefined
        matrices[3] = 0
        matrices[3, 0, 1] = 3  # no true positive, no precision denominator
        accuracy, kappa = [], []
        extra: dict = {"precision": [], "recall": [], "f1": [], BINARY_ALPHA: []} if k == 2 else {}
        _nominal_draws(matrices, accuracy, kappa, extra if k == 2 else None)
        want_accuracy, want_kappa, want_extra = per_draw(matrices, k == 2)
        assert close(accuracy, want_accuracy) and close(kappa, want_kappa)
        for name in want_extra:
            assert close(extra[name], want_extra[name]), name
        assert kappa[1] is None and accuracy[0] is None and (k != 2 or extra[BINARY_ALPHA][2] is None)


def test_the_intervals_are_those_of_the_per_draw_figures() -> None:
    rng = np.random.default_rng(5)
    gold = rng.integers(0, 2, 300).tolist()
    predicted = [None if rng.random() < 0.05 else int(g if rng.random() < 0.8 else 1 - g) for g in gold]
    found = bootstrap_agreement(gold, predicted, labels=[0, 1], resamples=500, seed=2)
    codes = np.array([4 if p is None else g * 2 + p for g, p in zip(gold, predicted)])
    draws = np.random.default_rng(2).integers(0, len(gold), size=(500, len(gold)))
    counts = np.stack([np.bincount(codes[d], minlength=5)[:4].reshape(2, 2) for d in draws]).astype(np.float64)
    accuracy, kappa, extra = per_draw(counts, True)
    for name, values in (("accuracy", accuracy), ("cohen_kappa", kappa), *extra.items()):
        want = percentile_interval(values)
        assert found[name] is not None and want is not None
        assert abs(found[name].low - want.low) < 1e-12 and abs(found[name].high - want.high) < 1e-12, name


def test_taus_of_all_draws_equal_each_draw_alone() -> None:
    from ragjury.evals.stats.intervals import _kendall_tau, _kendall_taus

    rng = np.random.default_rng(7)
    x = rng.integers(0, 4, size=(300, 5)).astype(np.float64) / 4
    y = rng.integers(0, 4, size=(300, 5)).astype(np.float64) / 4
    x[0] = 0.5  # one score for every system: no tau
    assert _kendall_taus(x, y) == [_kendall_tau(a, b) for a, b in zip(x, y)]
