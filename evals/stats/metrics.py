"""IR metrics with trec_eval's conventions, vectorised with numpy over all queries at once.

Published figures come from trec_eval 9.x, so a metric that differs in a corner is a different
metric: ``rel`` is its ``-l``, nDCG has linear gain and an ideal ranking over *all* judged
documents, ``P@k`` divides by k. One deliberate default differs: documents keep the run's list
order, not trec_eval's re-sort by score (``trec_order=True``), which matters only on tied scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

RankedDocs = Sequence[str] | Sequence[tuple[str, float]]
RunLike = Mapping[str, RankedDocs]
QrelsLike = Mapping[str, Mapping[str, int]]

MEASURES: tuple[str, ...] = ("P", "recall", "MRR", "nDCG", "hit_rate", "AP")
"""Measure families; each is reported at every cutoff as ``NAME@k``."""

UNCUT: tuple[str, ...] = ("MRR", "nDCG", "AP")
"""Families also reported without a cutoff (``MRR``, ``nDCG``, ``AP``), as trec_eval's
``recip_rank``, ``ndcg`` and ``map``."""


@dataclass(frozen=True)
class MetricScores:
    """One measure: its value for each evaluated query and the mean over them."""

    name: str
    per_query: dict[str, float]
    mean: float


@dataclass(frozen=True)
class RunEvaluation:
    """Every measure of one run: ``per_query[qid][measure]`` and ``mean[measure]``."""

    per_query: dict[str, dict[str, float]]
    mean: dict[str, float]
    queries: tuple[str, ...]

    def scores(self, measure: str) -> MetricScores:
        return MetricScores(
            measure, {q: values[measure] for q, values in self.per_query.items()}, self.mean[measure]
        )


def _docids(ranked: RankedDocs, trec_order: bool = False) -> list[str]:
    if not trec_order:
        return [entry if isinstance(entry, str) else entry[0] for entry in ranked]
    if any(isinstance(entry, str) for entry in ranked):
        raise ValueError("trec_order=True needs (docid, score) pairs, the run has bare docids")
    ordered = sorted(ranked, key=lambda entry: (entry[1], entry[0]), reverse=True)  # type: ignore[index]
    return [entry[0] for entry in ordered]  # type: ignore[misc]


@dataclass(frozen=True)
class _Matrices:
    """Grades of the ranked documents and of the ideal ranking, one padded row per query."""

    queries: tuple[str, ...]
    grades: npt.NDArray[np.float64]  # (n_queries, depth) grade at each rank, 0 past the end
    ideal: npt.NDArray[np.float64]  # (n_queries, n_judged) judged grades, descending
    num_rel: npt.NDArray[np.float64]  # (n_queries,) judged documents with grade >= rel

    @property
    def depth(self) -> int:
        return int(self.grades.shape[1])


def _evaluated_queries(run: RunLike, qrels: QrelsLike, complete: bool) -> tuple[str, ...]:
    if complete:
        return tuple(sorted(qrels))
    return tuple(sorted(q for q in run if q in qrels))


def _matrices(
    run: RunLike, qrels: QrelsLike, *, rel: int, complete: bool, trec_order: bool = False
) -> _Matrices:
    queries = _evaluated_queries(run, qrels, complete)
    ranked = [_docids(run.get(q, ()), trec_order) for q in queries]
    depth = max((len(docs) for docs in ranked), default=0)
    width = max((len(qrels[q]) for q in queries), default=0)
    grades = np.zeros((len(queries), max(depth, 1)))
    ideal = np.zeros((len(queries), max(width, 1)))
    num_rel = np.zeros(len(queries))
    for row, (qid, docs) in enumerate(zip(queries, ranked, strict=True)):
        judged = qrels[qid]
        grades[row, : len(docs)] = [judged.get(doc, 0) for doc in docs]
        values = np.fromiter(judged.values(), dtype=np.float64, count=len(judged))
        ideal[row, : len(values)] = -np.sort(-values)
        num_rel[row] = np.count_nonzero(values >= rel)
    return _Matrices(queries, grades, ideal, num_rel)


def _discounts(length: int) -> npt.NDArray[np.float64]:
    return 1.0 / np.log2(np.arange(2, length + 2, dtype=np.float64))


def _safe_div(num: npt.NDArray[np.float64], den: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    out = np.zeros_like(num, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _cut(m: _Matrices, k: int | None) -> int:
    return m.depth if k is None else min(k, m.depth)


def _precision(m: _Matrices, rel: int, k: int) -> npt.NDArray[np.float64]:
    return (m.grades[:, : _cut(m, k)] >= rel).sum(axis=1) / k


def _recall(m: _Matrices, rel: int, k: int | None) -> npt.NDArray[np.float64]:
    hits = (m.grades[:, : _cut(m, k)] >= rel).sum(axis=1).astype(np.float64)
    return _safe_div(hits, m.num_rel)


def _hit_rate(m: _Matrices, rel: int, k: int | None) -> npt.NDArray[np.float64]:
    return (m.grades[:, : _cut(m, k)] >= rel).any(axis=1).astype(np.float64)


def _mrr(m: _Matrices, rel: int, k: int | None) -> npt.NDArray[np.float64]:
    relevant = m.grades[:, : _cut(m, k)] >= rel
    first = relevant.argmax(axis=1)
    return np.where(relevant.any(axis=1), 1.0 / (first + 1.0), 0.0)


def _average_precision(m: _Matrices, rel: int, k: int | None) -> npt.NDArray[np.float64]:
    relevant = (m.grades[:, : _cut(m, k)] >= rel).astype(np.float64)
    ranks = np.arange(1, relevant.shape[1] + 1, dtype=np.float64)
    precision_at_hits = np.cumsum(relevant, axis=1) / ranks * relevant
    return _safe_div(precision_at_hits.sum(axis=1), m.num_rel)


def _ndcg(m: _Matrices, rel: int, k: int | None) -> npt.NDArray[np.float64]:
    del rel  # graded: trec_eval's ndcg ignores the relevance level
    gains = np.clip(m.grades[:, : _cut(m, k)], 0.0, None)
    dcg = gains @ _discounts(gains.shape[1])
    ideal_cut = m.ideal.shape[1] if k is None else min(k, m.ideal.shape[1])
    ideal = np.clip(m.ideal[:, :ideal_cut], 0.0, None)
    idcg = ideal @ _discounts(ideal.shape[1])
    return _safe_div(dcg, idcg)


_FAMILIES = {
    "P": _precision,
    "recall": _recall,
    "MRR": _mrr,
    "nDCG": _ndcg,
    "hit_rate": _hit_rate,
    "AP": _average_precision,
}


def _scores(name: str, m: _Matrices, values: npt.NDArray[np.float64]) -> MetricScores:
    per_query = {q: float(v) for q, v in zip(m.queries, values, strict=True)}
    return MetricScores(name, per_query, float(values.mean()) if len(values) else 0.0)


def _one(
    family: str, run: RunLike, qrels: QrelsLike, k: int | None, rel: int, complete: bool, trec_order: bool
) -> MetricScores:
    if k is not None and k < 1:
        raise ValueError(f"cutoff k must be >= 1, got {k}")
    m = _matrices(run, qrels, rel=rel, complete=complete, trec_order=trec_order)
    name = family if k is None else f"{family}@{k}"
    return _scores(name, m, _FAMILIES[family](m, rel, k))  # type: ignore[operator]


def precision(
    run: RunLike, qrels: QrelsLike, k: int, *, rel: int = 1, complete: bool = False, trec_order: bool = False
) -> MetricScores:
    """P@k: relevant documents (grade >= rel) in the top k, divided by k."""
    return _one("P", run, qrels, k, rel, complete, trec_order)


def recall(
    run: RunLike,
    qrels: QrelsLike,
    k: int | None,
    *,
    rel: int = 1,
    complete: bool = False,
    trec_order: bool = False,
) -> MetricScores:
    """recall@k: relevant documents in the top k over all relevant documents of the query."""
    return _one("recall", run, qrels, k, rel, complete, trec_order)


def mrr(
    run: RunLike,
    qrels: QrelsLike,
    k: int | None = None,
    *,
    rel: int = 1,
    complete: bool = False,
    trec_order: bool = False,
) -> MetricScores:
    """Reciprocal rank of the first relevant document within the top k (0 if none)."""
    return _one("MRR", run, qrels, k, rel, complete, trec_order)


def ndcg(
    run: RunLike, qrels: QrelsLike, k: int | None, *, complete: bool = False, trec_order: bool = False
) -> MetricScores:
    """nDCG@k with linear gain and the ideal ranking from every judged document of the query."""
    return _one("nDCG", run, qrels, k, 1, complete, trec_order)


def hit_rate(
    run: RunLike, qrels: QrelsLike, k: int, *, rel: int = 1, complete: bool = False, trec_order: bool = False
) -> MetricScores:
    """1 when any relevant document is in the top k, else 0 (trec_eval's ``success@k``)."""
    return _one("hit_rate", run, qrels, k, rel, complete, trec_order)


def average_precision(
    run: RunLike,
    qrels: QrelsLike,
    k: int | None = None,
    *,
    rel: int = 1,
    complete: bool = False,
    trec_order: bool = False,
) -> MetricScores:
    """AP@k (``map_cut``): precision at each relevant rank <= k, summed, over all relevant documents."""
    return _one("AP", run, qrels, k, rel, complete, trec_order)


def evaluate_run(
    run: RunLike,
    qrels: QrelsLike,
    ks: Iterable[int] = (10,),
    *,
    rel: int = 1,
    measures: Iterable[str] = MEASURES,
    complete: bool = False,
    trec_order: bool = False,
) -> RunEvaluation:
    """Every requested measure at every cutoff (plus the uncut MRR, nDCG, AP) for one run.

    The grade matrices are built once and each measure is one numpy expression over all
    queries. ``rel`` is trec_eval's relevance level for the binary measures (default 1, as in
    trec_eval; use 2 for TREC DL passages); ``complete`` is trec_eval's ``-c``; ``trec_order``
    ranks by score as trec_eval does instead of by list order. Measure names: ``P@10``,
    ``recall@10``, ``MRR@10``, ``nDCG@10``, ``hit_rate@10``, ``AP@10``, ``MRR``, ``nDCG``, ``AP``.
    """
    families = list(measures)
    unknown = [f for f in families if f not in _FAMILIES]
    if unknown:
        raise ValueError(f"unknown measure(s) {unknown}; known: {', '.join(MEASURES)}")
    cutoffs = sorted(set(ks))
    if any(k < 1 for k in cutoffs):
        raise ValueError(f"cutoffs must be >= 1, got {cutoffs}")
    m = _matrices(run, qrels, rel=rel, complete=complete, trec_order=trec_order)
    columns: dict[str, npt.NDArray[np.float64]] = {}
    for family in families:
        for k in cutoffs:
            columns[f"{family}@{k}"] = _FAMILIES[family](m, rel, k)  # type: ignore[operator]
        if family in UNCUT:
            columns[family] = _FAMILIES[family](m, rel, None)  # type: ignore[operator]
    names = list(columns)
    table = np.vstack([columns[name] for name in names]) if names else np.zeros((0, len(m.queries)))
    per_query = {
        q: {name: float(table[i, row]) for i, name in enumerate(names)} for row, q in enumerate(m.queries)
    }
    means = table.mean(axis=1) if len(m.queries) else np.zeros(len(names))
    return RunEvaluation(
        per_query=per_query, mean={n: float(v) for n, v in zip(names, means, strict=True)}, queries=m.queries
    )


def evaluate_runs(
    runs: Mapping[str, RunLike],
    qrels: QrelsLike,
    ks: Iterable[int] = (10,),
    *,
    rel: int = 1,
    measures: Iterable[str] = MEASURES,
    complete: bool = False,
    trec_order: bool = False,
) -> dict[str, RunEvaluation]:
    """``evaluate_run`` for each named run."""
    cutoffs = tuple(ks)
    families = tuple(measures)
    return {
        name: evaluate_run(
            run, qrels, cutoffs, rel=rel, measures=families, complete=complete, trec_order=trec_order
        )
        for name, run in runs.items()
    }


__all__ = [
    "MEASURES",
    "MetricScores",
    "QrelsLike",
    "RankedDocs",
    "RunEvaluation",
    "RunLike",
    "UNCUT",
    "average_precision",
    "evaluate_run",
    "evaluate_runs",
    "hit_rate",
    "mrr",
    "ndcg",
    "precision",
    "recall",
]
