"""The Evret evaluator: IR metrics for datasets whose ground truth is answer *texts*, not doc IDs.

Many RAG test sets list answer texts, not doc IDs. As in the ``evret`` package, a judge's matches
become IDs for ``evals.stats.metrics``; each expected text is taken once, best-ranked item first,
so duplicates cannot inflate recall. A query whose mapping depends on an unscored judgment is
left out of every mean (``EvretResult.unscored_queries``), never read as "no match".
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from ragjury.evals.io.retrieval_results import RetrievalRow
from ragjury.evals.stats.metrics import MEASURES, RunEvaluation, evaluate_run
from ragjury.rag_agent.core.items import RelevanceItem
from ragjury.rag_agent.core.labels import label_of
from ragjury.rag_agent.core.protocol import ResultCallback
from ragjury.rag_agent.core.results import Judgment, Usage
from ragjury.rag_agent.core.sync import run_sync


class Retrieved(BaseModel):
    """One retrieved item: its ID, its text (what the judge reads), its score."""

    doc_id: str
    text: str
    score: float = 0.0


@runtime_checkable
class Retriever(Protocol):
    """Anything that retrieves the top ``k`` items for each query, in query order.

    ``batch_retrieve`` may be sync or async (a coroutine is awaited).
    """

    def batch_retrieve(
        self, queries: Sequence[str], k: int
    ) -> list[list[Retrieved]] | Awaitable[list[list[Retrieved]]]: ...


class EvretItem(BaseModel):
    """A dataset row: a query and the answer texts a relevant retrieved item must match."""

    id: str
    query: str
    expected: list[str] = Field(min_length=1, description="Expected answer texts (any order of importance)")


class BatchJudge(Protocol):
    """The part of the judge protocol Evret needs: batch judging of relevance contexts."""

    async def ajudge_batch(
        self, items: Sequence[RelevanceItem], *, on_result: ResultCallback | None = None
    ) -> Sequence[Judgment[Any]]: ...


@dataclass(frozen=True)
class QueryMapping:
    """How one query's retrieved items were mapped: doc IDs in rank order, or why it is unscored."""

    qid: str
    retrieved: list[str]
    matched: list[int | None]
    """For each retrieved item, the index of the expected text it took (None: not relevant)."""
    unscored_reason: str | None = None


@dataclass(frozen=True)
class EvretResult:
    """Metrics over the scored queries plus everything needed to trust (or distrust) them."""

    metrics: RunEvaluation
    mappings: dict[str, QueryMapping]
    n_queries: int
    n_judgments: int
    n_unscored_judgments: int
    usage: Usage
    unscored_queries: dict[str, str] = field(default_factory=dict)

    @property
    def n_scored_queries(self) -> int:
        return self.n_queries - len(self.unscored_queries)

    @property
    def mean(self) -> dict[str, float]:
        return self.metrics.mean


def judgment_bool(judgment: Judgment[Any], *, min_grade: int | None = None) -> bool | None:
    """A judgment's verdict as bool (``None`` when unscored). A graded (0-3) judge's grade counts
    as a match from ``min_grade`` (give it for a graded judge: ``GRADE_CUT``, 2, as ``agreement``
    cuts), so grade 1, "related", is no match; without it, only a bool or 0/1 is a verdict and
    anything else is an error rather than a silent cut."""
    if judgment.unscored or judgment.value is None:
        return None
    value = label_of(judgment.value)
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and min_grade is not None:
        return value >= min_grade
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise TypeError(f"Evret needs binary judgments (bool), got {type(value).__name__}: {value!r}")


def expected_docid(qid: str, index: int) -> str:
    """The synthetic ID of expected text ``index`` of query ``qid``."""
    return f"{qid}#{index}"


def is_empty(result: Retrieved) -> bool:
    """An empty (or blank) retrieved text: nothing a judge can read, so no match, never judged."""
    return not result.text.strip()


def contexts_for(item: EvretItem, retrieved: Sequence[Retrieved]) -> list[RelevanceItem]:
    """Every (retrieved item, expected text) pair of a query, item-major, expected texts in order;
    an empty retrieved text has none (it matches nothing, and an unscored judgment of it would
    take its whole query out of the means)."""
    return [
        RelevanceItem(query=item.query, expected_text=expected, retrieved_text=result.text)
        for result in retrieved
        if not is_empty(result)
        for expected in item.expected
    ]


def map_query(
    item: EvretItem,
    retrieved: Sequence[Retrieved],
    judgments: Sequence[Judgment[Any]],
    *,
    min_grade: int | None = None,
) -> QueryMapping:
    """Map one query's retrieved items to expected-text IDs.

    Items are visited best first; each takes the first expected text (in dataset order) it
    matches that no better-ranked item took. Expected text ``j`` of query ``q`` is the relevant
    doc ``q#j``; an item matching nothing new is not relevant. An unscored judgment before an
    item's first scored match makes the whole query unscored.
    """
    n_expected = len(item.expected)
    taken: set[int] = set()
    ids: list[str] = []
    matched: list[int | None] = []
    judged = 0
    for rank, result in enumerate(retrieved):
        verdicts = [] if is_empty(result) else judgments[judged * n_expected : (judged + 1) * n_expected]
        judged += not is_empty(result)
        choice: int | None = None
        for index, judgment in enumerate(verdicts):
            if index in taken:
                continue
            verdict = judgment_bool(judgment, min_grade=min_grade)
            if verdict is None:
                reason = judgment.unscored_reason or "unscored"
                return QueryMapping(
                    item.id,
                    ids,
                    matched,
                    unscored_reason=f"rank {rank + 1} ({result.doc_id}) vs expected #{index}: {reason}",
                )
            if verdict:
                choice = index
                break
        if choice is None:
            ids.append(f"{item.id}@{rank + 1}:{result.doc_id}")
        else:
            taken.add(choice)
            ids.append(expected_docid(item.id, choice))
        matched.append(choice)
    return QueryMapping(item.id, ids, matched)


_TEXT_KEYS = ("text", "content", "page_content", "document", "chunk", "passage")


def as_retrieved(result: object) -> Retrieved:
    """A ``Retrieved`` from ours, or from any object with ``doc_id`` and a text: a ``text``
    attribute or one in ``metadata`` (as the ``evret`` package's ``RetrievalResult`` carries it)."""
    if isinstance(result, Retrieved):
        return result
    doc_id = getattr(result, "doc_id", None)
    text = getattr(result, "text", None)
    metadata = getattr(result, "metadata", None)
    if text is None and isinstance(metadata, dict):
        text = next((metadata[key] for key in _TEXT_KEYS if isinstance(metadata.get(key), str)), None)
    if doc_id is None or not isinstance(text, str):
        raise TypeError(f"retrieved item {result!r} has no doc_id and text")
    return Retrieved(doc_id=str(doc_id), text=text, score=float(getattr(result, "score", 0.0) or 0.0))


async def _retrieve(retriever: Retriever, queries: Sequence[str], k: int) -> list[list[Retrieved]]:
    result = retriever.batch_retrieve(queries, k)
    if inspect.isawaitable(result):
        result = await result
    batches = list(result)
    if len(batches) != len(queries):
        raise ValueError(f"retriever returned {len(batches)} result lists for {len(queries)} queries")
    return [[as_retrieved(result) for result in list(batch)[:k]] for batch in batches]


async def evaluate_retriever(
    retriever: Retriever,
    items: Sequence[EvretItem],
    judge: BatchJudge,
    *,
    k: int = 10,
    ks: Sequence[int] | None = None,
    measures: Sequence[str] = MEASURES,
    on_result: ResultCallback | None = None,
    min_grade: int | None = None,
) -> EvretResult:
    """Retrieve top ``k`` per query, judge every (retrieved, expected) pair in one batch, map IDs,
    and compute IR metrics at cutoffs ``ks`` (default ``(k,)``) over the scored queries.

    ``on_result(index, judgment)`` is passed to the judge's batch call (progress bars, caches);
    ``min_grade``: the grade from which a graded judge's verdict is a match (``judgment_bool``).
    """
    if not items:
        raise ValueError("no dataset items to evaluate")
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise ValueError(f"duplicate item id {item.id!r}")
        seen.add(item.id)
    retrieved = await _retrieve(retriever, [item.query for item in items], k)
    per_query = [contexts_for(item, results) for item, results in zip(items, retrieved, strict=True)]
    contexts = [context for contexts in per_query for context in contexts]
    judgments: Sequence[Judgment[Any]] = []
    if contexts:
        if on_result is None:
            judgments = await judge.ajudge_batch(contexts)
        else:
            judgments = await judge.ajudge_batch(contexts, on_result=on_result)
        if len(judgments) != len(contexts):
            raise ValueError(f"judge returned {len(judgments)} judgments for {len(contexts)} contexts")
    mappings: dict[str, QueryMapping] = {}
    start = 0
    for item, results, query_contexts in zip(items, retrieved, per_query, strict=True):
        stop = start + len(query_contexts)
        mappings[item.id] = map_query(item, results, judgments[start:stop], min_grade=min_grade)
        start = stop
    unscored = {qid: m.unscored_reason for qid, m in mappings.items() if m.unscored_reason is not None}
    run = {qid: m.retrieved for qid, m in mappings.items() if qid not in unscored}
    qrels = {
        item.id: {expected_docid(item.id, j): 1 for j in range(len(item.expected))}
        for item in items
        if item.id not in unscored
    }
    metrics = evaluate_run(run, qrels, ks or (k,), rel=1, measures=measures, complete=True)
    usage = sum((j.usage for j in judgments), Usage())
    return EvretResult(
        metrics=metrics,
        mappings=mappings,
        n_queries=len(items),
        n_judgments=len(judgments),
        n_unscored_judgments=sum(1 for j in judgments if j.unscored),
        usage=usage,
        unscored_queries=unscored,  # type: ignore[arg-type]
    )


async def evaluate_retrieval_results(
    rows: Sequence[RetrievalRow],
    judge: BatchJudge,
    *,
    k: int = 10,
    ks: Sequence[int] | None = None,
    on_result: ResultCallback | None = None,
    min_grade: int | None = None,
) -> EvretResult:
    """Evret's metrics for saved retrieval results (``evals.io.retrieval_results``): the door
    for a retriever that is not Python, or whose run is already on disk."""
    items = [EvretItem(id=row.id, query=row.query, expected=row.expected) for row in rows]
    retriever = _RowRetriever(rows)
    return await evaluate_retriever(retriever, items, judge, k=k, ks=ks, on_result=on_result, min_grade=min_grade)


class _RowRetriever:
    """Saved results matched to queries by position (two rows may ask the same query)."""

    def __init__(self, rows: Sequence[RetrievalRow]) -> None:
        self._lists = [
            [Retrieved(doc_id=item.doc_id, text=item.text, score=item.score) for item in row.retrieved]
            for row in rows
        ]

    def batch_retrieve(self, queries: Sequence[str], k: int) -> list[list[Retrieved]]:
        if len(queries) != len(self._lists):
            raise ValueError(f"{len(queries)} queries for {len(self._lists)} saved result lists")
        return [results[:k] for results in self._lists]


def evaluate_retriever_sync(
    retriever: Retriever,
    items: Sequence[EvretItem],
    judge: BatchJudge,
    *,
    k: int = 10,
    ks: Sequence[int] | None = None,
) -> EvretResult:
    """Synchronous wrapper of ``evaluate_retriever`` (scripts, notebooks)."""
    return run_sync(evaluate_retriever(retriever, items, judge, k=k, ks=ks))


__all__ = [
    "BatchJudge",
    "EvretItem",
    "EvretResult",
    "QueryMapping",
    "Retrieved",
    "Retriever",
    "as_retrieved",
    "contexts_for",
    "evaluate_retrieval_results",
    "evaluate_retriever",
    "evaluate_retriever_sync",
    "expected_docid",
    "is_empty",
    "judgment_bool",
    "map_query",
]
