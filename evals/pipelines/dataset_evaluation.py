"""Dataset evaluation: judge every row of a labelled (or unlabelled) dataset, and hand back the
finished run (``DatasetEvaluation``, the one finished-run type ``evals.results.finished_run``).

Why a finished run: ``ragjury evaluate`` and a Python user want the same things from a run —
its figures, its gates, its predictions file, its JSON and its HTML report — and each must mean
the same wherever it is produced, and the same as ``ragjury report PRED.jsonl`` reading the
file back. So the run holds them, measured once; the views (``evals.report.run_outputs``) read
it; the command only parses options, calls ``evaluate_dataset`` and prints.

Every judgment goes through ``run_judgments`` and the cache, so each is stored the moment it
completes and a re-run resumes instead of starting over. Each prediction keeps the ``--judge``
name its verdict answers to, so no report maps judge names back.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragjury.evals.io.predictions import Prediction
from ragjury.evals.io.tasks import DataSource, TaskRow, as_task_rows, task_spec
from ragjury.evals.results.finished_run import HEADLINE_FIGURES, FinishedRun, flat_row
from ragjury.evals.report.run_outputs import DatasetFiles, html_report, run_payload, run_summary, write_outputs
from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.runner import run_judgments
from ragjury.rag_agent.core.judge_spec import JudgeSpec
from ragjury.rag_agent.core.labels import label_of
from ragjury.rag_agent.core.protocol import Judge
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.sync import run_sync

if TYPE_CHECKING:
    from rich.progress import Progress

    from ragjury.evals.report.page import HtmlReport

class DatasetEvaluation(FinishedRun):
    """What ``evaluate_dataset`` returns: the finished run (``FinishedRun``, every figure its own),
    with its views at hand for Python callers: each method is the view function of
    ``evals.report.run_outputs`` applied to the run."""

    def summary(self) -> dict[str, Any]:
        """Everything ``evaluate --json`` says of the run (``run_outputs.run_summary``)."""
        return run_summary(self)

    def html_report(self, data: Path, *, gate_failures: Sequence[str] = ()) -> HtmlReport:
        """The HTML report of ``data``'s run, as ``ragjury report PRED.jsonl`` builds it."""
        return html_report(self, data, gate_failures=gate_failures)

    def write(self, files: DatasetFiles, *, gate_failures: Sequence[str] = (), labels: Any = None) -> None:
        """Write the predictions JSONL, then the HTML report (with ``gate_failures``, so the page
        and the exit code agree), each where ``files`` names a path; both atomically."""
        write_outputs(self, files, gate_failures=gate_failures, labels=labels)

    def payload(self, files: DatasetFiles, *, input_mapping: Any = None, gate_failures: Sequence[str] = ()) -> dict[str, Any]:
        """The ``evaluate --json`` document (before ``schema_version`` and ``command``)."""
        return run_payload(self, files, input_mapping=input_mapping, gate_failures=gate_failures)


async def evaluate_dataset(
    task: str,
    rows: Sequence[TaskRow] | DataSource,
    judge: Judge[Any, Any],
    *,
    cache: JudgmentCache | None = None,
    concurrency: int | None = None,
    progress: bool | Progress = True,
    judge_name: JudgeSpec | str | None = None,
    limit: int | None = None,
    verdict_names: tuple[str | None, str | None] | None = None,
) -> DatasetEvaluation:
    """Judge every row's item and compare with the rows' gold labels when they have them.

    ``rows`` are ``TaskRow``s (``evals.tasks.load_dataset``), or anything that loads into them:
    a path, a pandas DataFrame, a ``datasets.Dataset`` or a list of dicts (Ragas and DeepEval
    column names recognised). ``limit``: only the first N rows (as ``--limit``). ``judge_name``:
    the ``--judge`` name ``judge`` was built from; each verdict is shown under it (for ``auto``,
    under the default judge's name or its fallback's). A command gives the ``JudgeSpec`` it parsed,
    which the finished run carries (its headline reads it, not the words), and the verdict names
    the catalogue gave when it resolved the judge (``Resolved.verdict_names``): not asked again.
    """
    words = judge_name.value if isinstance(judge_name, JudgeSpec) else judge_name
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    task_spec(task)  # an unknown task fails here, before anything is judged
    rows = as_task_rows(task, rows)
    if limit is not None:
        rows = rows[:limit]
    judged_by = judge
    if task == "correctness":  # an empty answer is a wrong answer, whoever judges (not a judge failure)
        from ragjury.rag_agent.judges.combined.empty_answer import empty_answers_wrong

        judged_by = empty_answers_wrong(judge)
    judgments, stats = await run_judgments(
        judged_by,
        [row.item for row in rows],
        cache=cache,
        concurrency=concurrency,
        progress=progress,
        description=f"{task}: {words or judge.identity.name}",
    )
    named = verdict_namer(task, words, judgments, verdict_names)
    predictions = [
        Prediction(row.id, row.system, row.gold, judgment, label_of(judgment.value), task=task, item=row.item,
                   judge_name=named(judgment), inclusion_probability=getattr(row, "inclusion_probability", None))
        for row, judgment in zip(rows, judgments, strict=True)
    ]
    return DatasetEvaluation.of_predictions(task, predictions, judge=judge_name or judge.identity.name, stats=stats,
                                      identity=judge.identity)


def evaluate_dataset_sync(
    task: str,
    rows: Sequence[TaskRow] | DataSource,
    judge: Judge[Any, Any],
    *,
    cache: JudgmentCache | None = None,
    concurrency: int | None = None,
    progress: bool | Progress = True,
    judge_name: str | None = None,
    limit: int | None = None,
) -> DatasetEvaluation:
    """``evaluate_dataset`` from synchronous code, a script or a notebook cell: where an event
    loop is already running (Jupyter), the run goes to a worker thread with a loop of its own,
    so it neither fails with "asyncio.run() cannot be called from a running event loop" nor
    blocks that loop's other tasks forever."""
    return run_sync(
        evaluate_dataset(
            task, rows, judge, cache=cache, concurrency=concurrency, progress=progress,
            judge_name=judge_name, limit=limit,
        )
    )


def verdict_namer(task: str, judge_name: str | None, judgments: Sequence[Judgment[Any]],
                  known: tuple[str | None, str | None] | None = None) -> Any:
    """Each judgment's ``--judge`` name: read forward from ``judge_name`` (``auto``: the default
    judge, or its fallback for the verdicts the fallback gave; None where the judgment's own name
    says it: a plug-in, a panel); a judge passed without its name (the Python API) has its
    judgments' own names looked up once, here, never in a report."""
    from ragjury.rag_agent.judges import catalogue

    if judge_name is not None:
        primary, fallback = known if known is not None else catalogue.verdict_names(task, judge_name)
        return lambda judgment: fallback if judgment.fallback_used else primary  # None: as stored
    names = catalogue.typed_names(task, (judgment.judge for judgment in judgments))
    return lambda judgment: names.get(judgment.judge, judgment.judge)


__all__ = [
    "DatasetFiles",
    "DatasetEvaluation",
    "FinishedRun",
    "HEADLINE_FIGURES",
    "Prediction",
    "evaluate_dataset",
    "evaluate_dataset_sync",
    "flat_row",
]
