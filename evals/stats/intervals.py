"""Bootstrap 95 % intervals on agreement figures: accuracy, Cohen's kappa, Kendall's tau.

A point figure alone invites reading noise as a difference between judges. The percentile
bootstrap resamples *items* (the unit people labelled) with a fixed seed, so reports can be diffed.
Unscored predictions are handled as in ``evals.stats.agreement``; a draw on which a figure is
undefined is skipped, and the interval is ``None`` when no draw defines it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ragjury.evals.stats.agreement import BINARY_ALPHA, cohen_kappa, krippendorff_alpha, quadratic_weights

RESAMPLES = 1000
"""Draws per interval: enough for stable 2.5 / 97.5 percentiles, cheap on 15k items (< 1 s)."""

_CHUNK_CELLS = 2_000_000
"""Index cells drawn at once (draws x items): bounds memory on large datasets (~16 MB)."""


@dataclass(frozen=True)
class Interval:
    """A two-sided percentile interval and how many draws defined the figure."""

    low: float
    high: float
    draws: int
    level: float = 0.95

    def as_list(self) -> list[float]:
        return [round(self.low, 6), round(self.high, 6)]

    def text(self, digits: int = 3) -> str:
        """``[0.645, 0.668]`` for people."""
        return f"[{self.low:.{digits}f}, {self.high:.{digits}f}]"


def percentile_interval(values: Sequence[float | None], level: float = 0.95) -> Interval | None:
    """The central ``level`` interval of the defined draws (None and NaN are skipped)."""
    defined = sorted(float(v) for v in values if v is not None and not math.isnan(v))
    if not defined:
        return None
    tail = (1.0 - level) / 2.0 * 100.0
    if len({math.copysign(1.0, v) for v in defined if v == 0}) == 2:  # 0.0 and -0.0: numpy's order of the two
        low, high = np.percentile(np.array(defined, dtype=np.float64), [tail, 100.0 - tail])
        return Interval(float(low), float(high), len(defined), level)
    return Interval(percentile(defined, tail), percentile(defined, 100.0 - tail), len(defined), level)


def percentile(ordered: Sequence[float], q: float) -> float:
    """``np.percentile(ordered, q)`` (its default, linear method) by the same float operations in the
    same order, so the same bits (tests/unit/evals/stats/test_percentile.py). Why not numpy's: it loads
    ``numpy.ma`` for one ``np.unique`` of two indices, 6 ms of a run's start. ``ordered``: sorted, no NaN,
    and not both zeros (numpy's partition orders 0.0 and -0.0 its own way: ``percentile_interval``)."""
    n = len(ordered)
    virtual = (n - 1) * (q / 100)
    if virtual >= n - 1:  # numpy takes the last value there, its gamma measured from index -1
        previous = following = -1
    else:
        previous = math.floor(virtual)
        following = previous + 1
    gamma = virtual - previous
    low, high = ordered[previous], ordered[following]
    diff = high - low
    return high - diff * (1 - gamma) if gamma >= 0.5 else low + diff * gamma


def _draw_chunks(n: int, resamples: int, seed: int) -> Iterator[npt.NDArray[np.int64]]:
    """Index arrays of shape (draws, n), ``resamples`` draws in all, in memory-bounded chunks."""
    rng = np.random.default_rng(seed)
    per_chunk = max(1, _CHUNK_CELLS // max(n, 1))
    done = 0
    while done < resamples:
        size = min(per_chunk, resamples - done)
        yield rng.integers(0, n, size=(size, n))
        done += size


def _kendall_tau(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float | None:
    """Kendall's tau-b of two short score vectors (systems), None when either is constant."""
    if x.size < 2:
        return None
    dx = np.sign(x[:, None] - x[None, :])
    dy = np.sign(y[:, None] - y[None, :])
    upper = np.triu_indices(x.size, k=1)
    sx, sy = dx[upper], dy[upper]
    concordance = float((sx * sy).sum())
    ties_free = math.sqrt(float((sx != 0).sum()) * float((sy != 0).sum()))
    if ties_free == 0:
        return None
    return concordance / ties_free


def _kendall_taus(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> list[float | None]:
    """``_kendall_tau`` of each row of ``x`` and ``y`` (draws x systems), in one pass: the counts
    of concordant pairs and of untied pairs are whole numbers, so each tau is the one-row figure
    exactly."""
    upper = np.triu_indices(x.shape[1], k=1)
    sx = np.sign(x[:, :, None] - x[:, None, :])[:, upper[0], upper[1]]
    sy = np.sign(y[:, :, None] - y[:, None, :])[:, upper[0], upper[1]]
    concordance = (sx * sy).sum(axis=1)
    ties_free = np.sqrt((sx != 0).sum(axis=1).astype(np.float64) * (sy != 0).sum(axis=1).astype(np.float64))
    return [None if t == 0 else float(c / t) for c, t in zip(concordance.tolist(), ties_free.tolist(), strict=True)]


class _SystemMeans:
    """Per-draw mean gold and mean judge value of each system, for Kendall's tau of a draw."""

    def __init__(
        self, gold: Sequence[float], predicted: Sequence[float | None], systems: Sequence[str | None]
    ) -> None:
        self.names = sorted({s for s in systems if s is not None})
        index = {name: i for i, name in enumerate(self.names)}
        self.system = np.array([-1 if s is None else index[s] for s in systems], dtype=np.int64)
        self.gold = np.array([float(g) for g in gold], dtype=np.float64)
        self.judged = np.array([0.0 if p is None else float(p) for p in predicted], dtype=np.float64)
        self.scored = np.array([p is not None for p in predicted], dtype=np.float64)
        self.keep = (self.system >= 0).astype(np.float64)

    def taus(self, draws: npt.NDArray[np.int64]) -> list[float | None]:
        rows, s = draws.shape[0], len(self.names)
        if s < 2:
            return [None] * rows
        offsets = np.arange(rows, dtype=np.int64)[:, None] * s
        keep = self.keep[draws]
        slot = (np.maximum(self.system[draws], 0) + offsets).ravel()
        size = rows * s
        gold_sum = np.bincount(slot, weights=(self.gold[draws] * keep).ravel(), minlength=size)
        gold_n = np.bincount(slot, weights=keep.ravel(), minlength=size)
        judged_w = (self.scored[draws] * keep).ravel()
        judged_sum = np.bincount(slot, weights=self.judged[draws].ravel() * judged_w, minlength=size)
        judged_n = np.bincount(slot, weights=judged_w, minlength=size)
        present_all = ((gold_n > 0) & (judged_n > 0)).reshape(rows, s).all(axis=1)
        whole = _kendall_taus(
            (gold_sum / np.where(gold_n > 0, gold_n, 1.0)).reshape(rows, s),
            (judged_sum / np.where(judged_n > 0, judged_n, 1.0)).reshape(rows, s),
        )
        out: list[float | None] = []
        for row in range(rows):
            if present_all[row]:  # every system drawn: the tau of all draws at once (the same sums)
                out.append(whole[row])
                continue
            part = slice(row * s, (row + 1) * s)
            present = (gold_n[part] > 0) & (judged_n[part] > 0)
            if present.sum() < 2:
                out.append(None)
                continue
            x = gold_sum[part][present] / gold_n[part][present]
            y = judged_sum[part][present] / judged_n[part][present]
            out.append(_kendall_tau(x, y))
        return out


def bootstrap_system_tau(
    gold: Sequence[float],
    predicted: Sequence[float | None],
    systems: Sequence[str | None],
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> Interval | None:
    """Interval of Kendall's tau between the systems ranked by mean gold value and by mean judge
    value (scores or labels), items resampled; None with fewer than two systems."""
    if not (len(gold) == len(predicted) == len(systems)):
        raise ValueError("gold, predicted and systems must have one entry per item")
    means = _SystemMeans(gold, predicted, systems)
    if len(means.names) < 3:  # two systems: tau is +1 or -1, nothing to put an interval on
        return None
    taus: list[float | None] = []
    for draws in _draw_chunks(len(gold), resamples, seed):
        taus.extend(means.taus(draws))
    return percentile_interval(taus)


def bootstrap_agreement(
    gold: Sequence[bool | int],
    predicted: Sequence[bool | int | None],
    *,
    labels: Sequence[bool | int] | None = None,
    systems: Sequence[str | None] | None = None,
    ordinal: bool = False,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> dict[str, Interval | None]:
    """Intervals of ``accuracy``, ``cohen_kappa`` (and ``quadratic_kappa`` when ``ordinal``) of
    ``predicted`` against ``gold``, and of ``kendall_tau`` between the system rankings when
    ``systems`` (one name per item, None for none) is given. Two unordered labels add
    ``precision``, ``recall``, ``f1`` and ``binary_krippendorff_alpha``: every agreement figure
    a summary prints gets its interval; ``ordinal`` adds the ordinal ``krippendorff_alpha``.

    Items are the positions of ``gold``; ``labels`` fixes the label set (default: those seen).
    """
    if len(gold) != len(predicted) or (systems is not None and len(systems) != len(gold)):
        raise ValueError("gold, predicted and systems must have one entry per item")
    n = len(gold)
    out: dict[str, Interval | None] = {"accuracy": None, "cohen_kappa": None}
    if ordinal:
        out["quadratic_kappa"] = None
    if systems is not None:
        out["kendall_tau"] = None
    if n == 0:
        return out
    label_list = list(labels) if labels is not None else sorted({*gold, *(p for p in predicted if p is not None)})
    position = {label: i for i, label in enumerate(label_list)}
    k = len(label_list)
    unscored_code = k * k
    codes = np.array(
        [unscored_code if p is None else position[g] * k + position[p] for g, p in zip(gold, predicted, strict=True)],
        dtype=np.int64,
    )
    weights = quadratic_weights(k) if ordinal else None
    binary = k == 2 and not ordinal
    extra: dict[str, list[float | None]] = (
        {"precision": [], "recall": [], "f1": [], BINARY_ALPHA: []} if binary else {}
    )
    ordinal_alpha: list[float | None] = []
    values = [float(label) for label in label_list]
    accuracy: list[float | None] = []
    kappa: list[float | None] = []
    quadratic: list[float | None] = []
    tau: list[float | None] = []

    means = _SystemMeans([float(g) for g in gold], predicted, systems) if systems is not None else None
    cells = k * k + 1
    for draws in _draw_chunks(n, resamples, seed):
        rows = draws.shape[0]
        offsets = np.arange(rows, dtype=np.int64)[:, None]
        counts = np.bincount((codes[draws] + offsets * cells).ravel(), minlength=rows * cells)
        matrices = counts.reshape(rows, cells)[:, : k * k].reshape(rows, k, k).astype(np.float64)
        if weights is None:  # every draw's figures at once: 1,000 draws in a few ms, not a loop of numpy calls
            _nominal_draws(matrices, accuracy, kappa, extra if binary else None)
            if means is not None:
                tau.extend(means.taus(draws))
            continue
        for matrix in matrices:
            total = matrix.sum()
            accuracy.append(float(np.trace(matrix) / total) if total else None)
            kappa.append(cohen_kappa(matrix))
            if weights is not None:
                quadratic.append(cohen_kappa(matrix, weights))
                ordinal_alpha.append(krippendorff_alpha(matrix, values, "ordinal"))
            if binary:
                _binary_draw(matrix, extra)
        if means is not None:
            tau.extend(means.taus(draws))
    out["accuracy"] = percentile_interval(accuracy)
    out["cohen_kappa"] = percentile_interval(kappa)
    if ordinal:
        out["quadratic_kappa"] = percentile_interval(quadratic)
        out["krippendorff_alpha"] = percentile_interval(ordinal_alpha)
    if systems is not None:
        out["kendall_tau"] = percentile_interval(tau)
    out.update({name: percentile_interval(values) for name, values in extra.items()})
    return out


def _defined(values: npt.NDArray[np.float64], defined: npt.NDArray[np.bool_]) -> list[float | None]:
    return [float(v) if ok else None for v, ok in zip(values.tolist(), defined.tolist(), strict=True)]


def _nominal_draws(
    matrices: npt.NDArray[np.float64],
    accuracy: list[float | None],
    kappa: list[float | None],
    binary: dict[str, list[float | None]] | None,
) -> None:
    """Accuracy, Cohen's kappa and (two labels) precision, recall, F1 and the nominal alpha of
    each (k, k) draw of ``matrices``, appended to the lists: the same arithmetic as
    ``cohen_kappa`` / ``krippendorff_alpha`` / ``_binary_draw`` on one matrix (a test holds them
    equal), over all draws at once."""
    k = matrices.shape[1]
    total = matrices.sum(axis=(1, 2))
    trace = np.trace(matrices, axis1=1, axis2=2)
    safe = np.where(total > 0, total, 1.0)
    accuracy.extend(_defined(trace / safe, total > 0))
    off = 1.0 - np.eye(k)
    expected = matrices.sum(axis=2)[:, :, None] * matrices.sum(axis=1)[:, None, :] / safe[:, None, None]
    observed_cost = (off * matrices).sum(axis=(1, 2))
    expected_cost = (off * expected).sum(axis=(1, 2))
    kappa.extend(_defined(1.0 - observed_cost / np.where(expected_cost != 0, expected_cost, 1.0),
                          (total > 0) & (expected_cost != 0)))
    if binary is None:
        return
    tp, fp, fn = matrices[:, 1, 1], matrices[:, 0, 1], matrices[:, 1, 0]
    for name, num, den in (("precision", tp, tp + fp), ("recall", tp, tp + fn), ("f1", 2 * tp, 2 * tp + fp + fn)):
        binary[name].extend(_defined(num / np.where(den != 0, den, 1.0), den != 0))
    coincidence = matrices + matrices.transpose(0, 2, 1)
    n_c = coincidence.sum(axis=2)
    n = n_c.sum(axis=1)
    observed = (coincidence * off).sum(axis=(1, 2)) / np.where(n > 0, n, 1.0)
    expected_alpha = (n_c[:, :, None] * n_c[:, None, :] * off).sum(axis=(1, 2)) / np.where(n >= 4, n * (n - 1.0), 1.0)
    binary[BINARY_ALPHA].extend(_defined(1.0 - observed / np.where(expected_alpha != 0, expected_alpha, 1.0),
                                         (n >= 4) & (expected_alpha != 0)))


def _binary_draw(matrix: npt.NDArray[np.float64], into: dict[str, list[float | None]]) -> None:
    """Precision, recall and F1 of the positive label and the nominal alpha of one 2x2 draw."""
    tp, fp, fn = matrix[1, 1], matrix[0, 1], matrix[1, 0]
    into["precision"].append(float(tp / (tp + fp)) if tp + fp else None)
    into["recall"].append(float(tp / (tp + fn)) if tp + fn else None)
    into["f1"].append(float(2 * tp / (2 * tp + fp + fn)) if 2 * tp + fp + fn else None)
    into[BINARY_ALPHA].append(krippendorff_alpha(matrix, [0.0, 1.0]))


def bootstrap_ranking_tau(
    per_query_a: Mapping[str, Mapping[str, float]],
    per_query_b: Mapping[str, Mapping[str, float]],
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> Interval | None:
    """Interval of Kendall's tau between two system rankings built from per-query scores.

    ``per_query_a[system][query]`` (e.g. nDCG@10 under gold qrels) and ``per_query_b`` (under the
    judged qrels); queries are resampled, each system's score is its mean over the drawn queries.
    A query missing for a system counts 0, as ``trec_eval`` does for a run without it.
    """
    systems = sorted(set(per_query_a) & set(per_query_b))
    queries = sorted({q for s in systems for q in per_query_a[s]} | {q for s in systems for q in per_query_b[s]})
    if len(systems) < 3 or not queries:  # two systems: tau is +1 or -1, nothing to put an interval on
        return None
    a = np.array([[per_query_a[s].get(q, 0.0) for q in queries] for s in systems], dtype=np.float64)
    b = np.array([[per_query_b[s].get(q, 0.0) for q in queries] for s in systems], dtype=np.float64)
    taus: list[float | None] = []
    for draws in _draw_chunks(len(queries), resamples, seed):
        for draw in draws:
            taus.append(_kendall_tau(a[:, draw].mean(axis=1), b[:, draw].mean(axis=1)))
    return percentile_interval(taus)


def bootstrap_kappa_gain(
    gold: Sequence[bool], head: Sequence[bool], base: Sequence[bool], *, resamples: int = RESAMPLES, seed: int = 0
) -> Interval | None:
    """Percentile interval of kappa(head) - kappa(base) over the same resampled items (paired):
    the gain of one judge over another on one labelled set, with its uncertainty."""
    g = np.asarray(gold, dtype=bool)
    a = np.asarray(head, dtype=bool)
    b = np.asarray(base, dtype=bool)
    if g.size == 0:
        return None

    def kappas(rows: npt.NDArray[np.int64], p: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        gs, ps = g[rows], p[rows]
        n = rows.shape[1]
        agree = (gs == ps).mean(axis=1)
        chance = gs.mean(axis=1) * ps.mean(axis=1) + (1 - gs.mean(axis=1)) * (1 - ps.mean(axis=1))
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (agree - chance) / (1 - chance)
        del n
        return np.where(chance < 1 - 1e-12, out, np.nan)

    draws: list[float | None] = []
    for rows in _draw_chunks(g.size, resamples, seed):
        draws.extend((kappas(rows, a) - kappas(rows, b)).tolist())
    return percentile_interval(draws)


def bootstrap_paired_difference(
    gold: Sequence[bool | int],
    predicted_a: Sequence[bool | int | None],
    predicted_b: Sequence[bool | int | None],
    *,
    labels: Sequence[bool | int] | None = None,
    resamples: int = RESAMPLES,
    seed: int = 0,
    gold_b: Sequence[bool | int] | None = None,
) -> dict[str, Interval | None]:
    """Intervals of B minus A for ``accuracy`` and ``cohen_kappa`` over the same drawn items.

    ``gold_b``: B's own labels where the two runs answered differently (two systems' answers to one
    question have a label each); by default both are scored against ``gold``.

    Why paired: two judges scored the same items, so their errors are correlated; comparing two
    separate intervals overstates the uncertainty of the difference. An interval that excludes 0
    says B differs from A on this data beyond resampling noise.
    """
    gold_of_b = list(gold) if gold_b is None else list(gold_b)
    if not (len(gold) == len(predicted_a) == len(predicted_b) == len(gold_of_b)):
        raise ValueError("gold and both predictions must have one entry per item")
    n = len(gold)
    if n == 0:
        return {"accuracy": None, "cohen_kappa": None}
    label_list = list(labels) if labels is not None else sorted(
        {*gold, *gold_of_b, *(p for p in predicted_a if p is not None), *(p for p in predicted_b if p is not None)}
    )
    position = {label: i for i, label in enumerate(label_list)}
    k = len(label_list)
    cells = k * k + 1

    def codes_of(predicted: Sequence[bool | int | None], labels_of: Sequence[bool | int]) -> npt.NDArray[np.int64]:
        return np.array(
            [k * k if p is None else position[g] * k + position[p] for g, p in zip(labels_of, predicted, strict=True)],
            dtype=np.int64,
        )

    codes = (codes_of(predicted_a, gold), codes_of(predicted_b, gold_of_b))
    accuracy: list[float | None] = []
    kappa: list[float | None] = []
    for draws in _draw_chunks(n, resamples, seed):
        rows = draws.shape[0]
        offsets = np.arange(rows, dtype=np.int64)[:, None] * cells
        matrices = [
            np.bincount((c[draws] + offsets).ravel(), minlength=rows * cells)
            .reshape(rows, cells)[:, : k * k]
            .reshape(rows, k, k)
            .astype(np.float64)
            for c in codes
        ]
        for m_a, m_b in zip(*matrices, strict=True):
            t_a, t_b = m_a.sum(), m_b.sum()
            accuracy.append(float(np.trace(m_b) / t_b - np.trace(m_a) / t_a) if t_a and t_b else None)
            k_a, k_b = cohen_kappa(m_a), cohen_kappa(m_b)
            kappa.append(None if k_a is None or k_b is None else k_b - k_a)
    return {"accuracy": percentile_interval(accuracy), "cohen_kappa": percentile_interval(kappa)}


__all__ = [
    "RESAMPLES",
    "Interval",
    "bootstrap_agreement",
    "bootstrap_paired_difference",
    "bootstrap_ranking_tau",
    "bootstrap_system_tau",
    "percentile",
    "percentile_interval",
]
