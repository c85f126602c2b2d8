"""Automatic qrels, UMBRELA-style: pool (query, passage) pairs, judge their relevance, write TREC qrels.

The whole ``ragjury relevance`` pipeline lives here so the command only parses options; it is
split into ``plan_relevance`` and ``run_relevance`` because ``--dry-run`` needs the plan alone.
A pair the judge could not score is never written as grade 0: it goes to ``OUT.unscored.tsv``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragjury.evals.io.atomic_io import check_output_paths, open_atomic
from ragjury.evals.io.json_contract import paths
from ragjury.evals.io.loaders import (
    Qrels,
    Run,
    find_run_files,
    load_passages,
    load_qrels,
    load_run,
    load_topics,
)

if TYPE_CHECKING:  # annotations only: the runner and the judges load when a run starts
    from rich.console import Console
    from rich.progress import Progress

    from ragjury.evals.runs.cache import JudgmentCache
    from ragjury.evals.runs.runner import RunStats
    from ragjury.rag_agent.core.items import RelevanceItem
    from ragjury.rag_agent.core.protocol import Judge

Pair = tuple[str, str]
"""A (qid, docid) pair."""


class NothingToJudge(ValueError):
    """No pooled pair has both its query and its passage text: there is nothing to judge."""


def unscored_path_of(out: Path) -> Path:
    """Where the pairs the judge could not score are listed, beside the qrels."""
    return Path(f"{out}.unscored.tsv")


def pool_pairs(
    runs: Sequence[Mapping[str, Sequence[tuple[str, float]]]], depth: int, pairs: Qrels | None = None
) -> list[Pair]:
    """The (qid, docid) pairs to judge: each run's top ``depth`` per query, then the ``pairs``
    file's pairs, de-duplicated in first-seen order."""
    pooled: dict[Pair, None] = {}
    for run in runs:
        for qid, ranking in run.items():
            for docid, _score in ranking[:depth]:
                pooled[(qid, docid)] = None
    for qid, docs in (pairs or {}).items():
        for docid in docs:
            pooled[(qid, docid)] = None
    return list(pooled)


def write_qrels(path: Path, grades: Mapping[Pair, int], order: Sequence[Pair]) -> None:
    """TREC qrels ``qid 0 docid grade``, grouped by query in pooling order, written atomically."""
    by_qid: dict[str, list[str]] = {}
    for qid, docid in order:
        if (qid, docid) in grades:
            by_qid.setdefault(qid, []).append(docid)
    with open_atomic(path) as handle:
        for qid, docids in by_qid.items():
            for docid in docids:
                handle.write(f"{qid} 0 {docid} {grades[(qid, docid)]}\n")


def write_unscored(path: Path, unscored: Mapping[Pair, str]) -> None:
    """The pairs the judge could not score, with the reason: ``qid<TAB>docid<TAB>reason``
    (white space in a reason folded to single spaces, so every row stays one line)."""
    with open_atomic(path) as handle:
        handle.write("qid\tdocid\treason\n")
        for (qid, docid), reason in unscored.items():
            handle.write(f"{qid}\t{docid}\t{' '.join(reason.split())}\n")


def relevance_items(
    pairs: Sequence[Pair], topics: Mapping[str, str], passages: Mapping[str, str]
) -> list[RelevanceItem]:
    """The items ``judge_pairs`` judges (``--dry-run`` counts the same ones, so the same cache keys)."""
    from ragjury.rag_agent.core.items import RelevanceItem

    return [RelevanceItem(query=topics[qid], retrieved_text=passages[docid]) for qid, docid in pairs]


@dataclass
class PairJudgments:
    """Judged (qid, docid) pairs: grades of the scored ones, reasons of the unscored ones."""

    grades: dict[Pair, int]
    unscored: dict[Pair, str]
    stats: RunStats


async def judge_pairs(
    pairs: Sequence[Pair],
    topics: Mapping[str, str],
    passages: Mapping[str, str],
    judge: Judge[RelevanceItem, Any],
    *,
    cache: JudgmentCache | None = None,
    concurrency: int | None = None,
    progress: bool | Progress = True,
) -> PairJudgments:
    """Judge the relevance of each (qid, docid) pair; every pair must have its query and text.

    Labels become integer grades: graded judges give 0-3, binary ones 1 (relevant) or 0.
    """
    from ragjury.evals.runs.runner import run_judgments
    from ragjury.rag_agent.core.labels import label_of

    items = relevance_items(pairs, topics, passages)
    judgments, stats = await run_judgments(
        judge, items, cache=cache, concurrency=concurrency, progress=progress, description="relevance"
    )
    grades: dict[Pair, int] = {}
    unscored: dict[Pair, str] = {}
    for pair, judgment in zip(pairs, judgments, strict=True):
        if judgment.unscored:
            unscored[pair] = judgment.unscored_reason or "unscored"
        else:
            grades[pair] = int(label_of(judgment.value))  # type: ignore[arg-type]
    return PairJudgments(grades, unscored, stats)


@dataclass(frozen=True)
class RelevancePlan:
    """What a relevance run reads and judges: the inputs, the pooled pairs and the ones to judge."""

    topics_path: Path
    passages_path: Path
    pairs_path: Path | None
    run_paths: list[Path]
    runs: list[Run]
    depth: int
    topics: dict[str, str]
    passages: dict[str, str]
    pooled: list[Pair]
    missing_query: list[Pair]
    """Pooled pairs whose query is not in the topics (skipped)."""
    missing_passage: list[Pair]
    """Pooled pairs with a query but no passage text (skipped)."""
    todo: list[Pair]
    """The pairs to judge, in pooling order (the first ``limit`` when one was given)."""

    def items(self) -> list[RelevanceItem]:
        """The judge's items for ``todo``, as ``judge_pairs`` builds them."""
        return relevance_items(self.todo, self.topics, self.passages)

    def inputs(self) -> dict[str, Any]:
        """The ``inputs`` of the ``--json`` object: every file read, by role."""
        return paths(
            topics=self.topics_path, passages=self.passages_path, runs=self.run_paths, pairs=self.pairs_path
        )


def plan_relevance(
    topics: Path,
    passages: Path,
    *,
    runs: Sequence[str | Path] = (),
    pairs: Path | None = None,
    depth: int = 10,
    limit: int | None = None,
    out: Path | None = None,
) -> RelevancePlan:
    """Read the inputs and pool the pairs to judge: each run's top ``depth`` (``runs`` are paths,
    globs or folders, see ``find_run_files``) and every pair of the ``pairs`` qrels file.

    With ``out``, checks first that neither the qrels nor ``OUT.unscored.tsv`` would overwrite an
    input. Raises ``InputError`` for a bad file and ``NothingToJudge`` when no pair has both a
    query and a passage text.
    """
    run_paths = find_run_files(runs) if runs else []
    if out is not None:
        inputs = [("--topics", topics), ("--passages", passages), ("--pairs", pairs)]
        inputs += [("--runs", path) for path in run_paths]
        check_output_paths([("--out", out), ("--out (unscored list)", unscored_path_of(out))], inputs)
    topic_texts = load_topics(topics)
    passage_texts = load_passages(passages)
    run_list = [load_run(path) for path in run_paths]
    pair_qrels = load_qrels(pairs) if pairs is not None else None
    pooled = pool_pairs(run_list, depth, pair_qrels)
    missing_query = [p for p in pooled if p[0] not in topic_texts]
    missing_passage = [p for p in pooled if p[0] in topic_texts and p[1] not in passage_texts]
    todo = [p for p in pooled if p[0] in topic_texts and p[1] in passage_texts]
    if limit is not None:
        todo = todo[:limit]
    if not todo:
        raise NothingToJudge(
            f"no pair to judge: {len(missing_query)} lack a query, {len(missing_passage)} lack passage text"
        )
    return RelevancePlan(
        topics_path=topics,
        passages_path=passages,
        pairs_path=pairs,
        run_paths=run_paths,
        runs=run_list,
        depth=depth,
        topics=topic_texts,
        passages=passage_texts,
        pooled=pooled,
        missing_query=missing_query,
        missing_passage=missing_passage,
        todo=todo,
    )


@dataclass
class RelevanceRunResult:
    """A finished relevance run: the plan, the judgments, and the files written from them."""

    plan: RelevancePlan
    judge: str
    """The judge as asked for (``non-llm``, ``llm-graded``, ``panel:...``)."""
    scale: str
    """``graded`` (0-3) or ``binary`` (1 relevant, 0 not)."""
    judgments: PairJudgments
    qrels_path: Path | None = field(default=None)
    """The qrels file, once ``write`` wrote it (never written when nothing was scored)."""
    unscored_path: Path | None = field(default=None)
    """The unscored pairs' list, once ``write`` wrote it (only when some pair was unscored)."""

    @property
    def grades(self) -> dict[Pair, int]:
        return self.judgments.grades

    @property
    def unscored(self) -> dict[Pair, str]:
        return self.judgments.unscored

    def write(self, out: Path) -> None:
        """Write the qrels to ``out`` and the unscored pairs to ``OUT.unscored.tsv``, atomically.

        With nothing scored an earlier qrels file is kept, not emptied; with nothing unscored a
        stale list from an earlier run is removed (it would mislead).
        """
        if self.grades:
            write_qrels(out, self.grades, self.plan.todo)
            self.qrels_path = out
        unscored_path = unscored_path_of(out)
        if self.unscored:
            write_unscored(unscored_path, self.unscored)
            self.unscored_path = unscored_path
        elif unscored_path.exists():
            unscored_path.unlink()

    def payload(self) -> dict[str, object]:
        """The ``--json`` object (without the contract's ``schema_version`` / ``command``)."""
        distribution = Counter(self.grades.values())
        plan = self.plan
        return {
            "task": "relevance",
            "judge": self.judge,
            "scale": self.scale,
            "pooled_runs": [run.name for run in plan.runs],
            "depth": plan.depth if plan.runs else None,
            "pooled": len(plan.pooled),
            "skipped_missing_query": len(plan.missing_query),
            "skipped_missing_passage": len(plan.missing_passage),
            "written": len(self.grades),
            "grades": {str(grade): distribution[grade] for grade in sorted(distribution)},
            **self.judgments.stats.as_dict(),
            "inputs": plan.inputs(),
            "outputs": paths(qrels=self.qrels_path, unscored=self.unscored_path),
        }

    def rows(self) -> list[tuple[str, str]]:
        """The human summary, figure by figure."""
        summary: dict[str, Any] = self.payload()
        rows = [
            ("pairs pooled", summary["pooled"]),
            ("skipped: no passage text", summary["skipped_missing_passage"]),
            ("skipped: no query", summary["skipped_missing_query"]),
            ("judged (n)", summary["n"]),
            ("written to qrels", summary["written"]),
            ("unscored (not written)", summary["unscored"]),
            ("from cache", summary["cached"]),
            ("judged now", summary["judged"]),
            ("grades", ", ".join(f"{g}: {c}" for g, c in summary["grades"].items())),
            ("tokens", f"{summary['tokens']:,}"),
            ("requests", summary["requests"]),
            ("wall time", f"{summary['wall_s']:.2f}s"),
        ]
        if summary["judged"]:  # an all-cached run judged nothing: no rate to show
            rows.append(("judgments/s", summary["judgments_per_s"]))
        return [(name, str(value)) for name, value in rows]

    def render(self, console: Console) -> None:
        """Print the summary table and where the files went."""
        from rich.table import Table

        table = Table(title=f"relevance judged by {self.judge} ({self.scale})", show_header=False)
        table.add_column("figure")
        table.add_column("value", justify="right")
        for name, value in self.rows():
            table.add_row(name, value)
        console.print(table)
        if self.qrels_path is not None:
            console.print(f"qrels written to {self.qrels_path}", highlight=False)
        if self.unscored_path is not None:
            console.print(f"[yellow]unscored pairs listed in {self.unscored_path}[/]", highlight=False)


async def run_relevance(
    plan: RelevancePlan,
    judge: Judge[RelevanceItem, Any],
    *,
    judge_name: str,
    scale: str,
    out: Path | None = None,
    cache: JudgmentCache | None = None,
    concurrency: int | None = None,
    progress: bool | Progress = True,
) -> RelevanceRunResult:
    """Judge the plan's pairs with ``judge`` (every judgment cached as it completes, so a re-run
    resumes) and, given ``out``, write the qrels and the unscored list (``RelevanceRunResult.write``).

    ``judge_name`` and ``scale`` label the result (``--judge`` as given, ``graded`` / ``binary``).
    """
    judgments = await judge_pairs(
        plan.todo, plan.topics, plan.passages, judge, cache=cache, concurrency=concurrency, progress=progress
    )
    result = RelevanceRunResult(plan=plan, judge=judge_name, scale=scale, judgments=judgments)
    if out is not None:
        result.write(out)
    return result


__all__ = [
    "NothingToJudge",
    "Pair",
    "PairJudgments",
    "RelevancePlan",
    "RelevanceRunResult",
    "judge_pairs",
    "plan_relevance",
    "pool_pairs",
    "relevance_items",
    "run_relevance",
    "unscored_path_of",
    "write_qrels",
    "write_unscored",
]
