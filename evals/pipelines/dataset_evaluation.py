"""Dataset evaluation: judge every row of a labelled (or unlabelled) dataset, and hand back a
finished ``EvaluationResult``.

Why a finished result: ``ragjury evaluate`` and a Python user want the same things from a run —
its figures, its gates, its predictions file, its JSON and its HTML report — and each must mean
the same wherever it is produced. So the result owns them (report-level analyses kept apart from
the per-item judges, as pydantic-evals' ``ReportEvaluator``); the command only parses options,
calls ``evaluate_dataset`` and prints.

Every judgment goes through ``run_judgments`` and the cache, so each is stored the moment it
completes and a re-run resumes instead of starting over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import Progress

from ragjury.evals.io.tasks import DataSource, TaskRow, as_task_rows, task_spec
from ragjury.evals.report.sources import VerdictSources
from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.runner import RunStats, run_judgments
from ragjury.evals.stats.intervals import Interval
from ragjury.evals.stats.run_result import RunResult, run_result
from ragjury.evals.stats.run_figures import (
    SystemRanking,
    binary_agreement,
    flat_figures,
    score_correlation,
    system_ranking,
)
from ragjury.rag_agent.core.labels import Label, label_of
from ragjury.rag_agent.core.protocol import Judge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment

if TYPE_CHECKING:
    from ragjury.evals.report.gates import Gates
    from ragjury.evals.report.unscored_share import UnscoredShare
    from ragjury.evals.report.page import HtmlReport


@dataclass
class Prediction:
    """One dataset row's judgment and the label taken from it (None when unscored)."""

    id: str
    system: str | None
    gold: bool | float | None
    judgment: Judgment[Any]
    label: Label | None
    task: str | None = None
    item: Any = None
    """The judged item (``rag_agent.items``), written to the row so that a report can be
    rebuilt from the predictions file alone (``ragjury report``)."""

    def as_dict(self, output_key: str = "label") -> dict[str, object]:
        """The predictions-JSONL row: id, system, task, label (or score), gold, the value's
        details, the envelope, and last the item that was judged (its text)."""
        row: dict[str, object] = {"id": self.id}
        if self.system is not None:
            row["system"] = self.system
        if self.task is not None:
            row["task"] = self.task
        row[output_key] = self.label
        if self.gold is not None:
            row["gold"] = self.gold
        value = self.judgment.value
        if value is not None and hasattr(value, "model_dump"):
            row["value"] = value.model_dump(mode="json")
        row.update(self.judgment.envelope())
        if self.item is not None:
            row["item"] = self.item.model_dump(mode="json") if hasattr(self.item, "model_dump") else self.item
        return row


@dataclass(frozen=True)
class DatasetFiles:
    """The files of one dataset run: the data read, the predictions and report written (None:
    not written). The JSON payload names them; ``EvaluationResult.write`` writes the outputs."""

    data: Path
    predictions: Path | None = None
    html: Path | None = None


HEADLINE_FIGURES: dict[str, str] = {
    "accuracy": "accuracy",
    "cohen_kappa": "kappa",
    "kendall_tau": "tau",
    "pearson": "pearson",
    "spearman": "spearman",
    "mean_label": "mean label",
}
"""Figures ``repr(result)`` shows when the run has them (name in the figures: shown as)."""


def flat_row(row: dict[str, Any]) -> dict[str, Any]:
    """A predictions row for a table: the judged item's question and answer (what a reader looks
    at beside the verdict) as columns of their own, the rest of the item left out."""
    item = row.get("item") or {}
    flat = {k: v for k, v in row.items() if k != "item"}
    for key in ("question", "answer"):
        if key in item and key not in flat:
            flat[key] = item[key]
    return flat


@dataclass(repr=False)
class EvaluationResult:
    """What ``evaluate_dataset`` returns: predictions, run stats and agreement when labelled, and
    everything a run hands on — gates, the predictions file, the JSON payload, the HTML report."""

    task: str
    judge: str
    """The judge asked for (e.g. "auto"); ``sources`` says which judges produced the verdicts."""
    predictions: list[Prediction]
    stats: RunStats
    agreement: Any = None
    """Binary tasks: ``evals.agreement.AgreementFigures`` against the gold labels."""
    correlation: dict[str, Any] | None = None
    """Score tasks: Pearson / Spearman / MAE of judge scores against gold scores."""
    ranking: SystemRanking | None = None
    """Per-system scores under people and the judge, and the rank correlation between them."""
    identity: JudgeIdentity | None = None
    """The judge's identity (model, prompt version, parameters), shown in the HTML report."""

    @property
    def labelled(self) -> int:
        return sum(p.gold is not None for p in self.predictions)

    def __repr__(self) -> str:
        """A few lines a notebook can show: task, judge, counts, the headline figures with their
        intervals (the dataclass repr printed every prediction: tens of thousands of characters)."""
        stats = self.stats
        lines = [
            f"EvaluationResult(task={self.task!r}, judge={self.judge!r}, verdicts by {self.sources.describe()})",
            f"  {stats.total:,} rows: {stats.scored:,} scored, {stats.unscored:,} unscored, "
            f"{self.sources.fallback:,} by a fallback, {self.labelled:,} labelled",
            "  " + self.result.lines(self.task)[0],
        ]
        headline = [name for name in HEADLINE_FIGURES if self.figures().get(name) is not None]
        if headline:
            lines.append("  " + ", ".join(self._figure_text(name) for name in headline))
        return "\n".join(lines)

    def _figure_text(self, name: str) -> str:
        value = self.figures()[name]
        interval = self.intervals.get(name)
        shown = HEADLINE_FIGURES[name]
        return f"{shown} {value:.3f}" + (f" {interval.text()}" if interval is not None else "")

    @cached_property
    def result(self) -> RunResult:
        """What the run scored: the judged rate (binary tasks, Wilson interval) or the mean score
        (bootstrap interval), overall and per system, unscored items left out and counted."""
        return run_result(
            [p.label for p in self.predictions],
            [p.system for p in self.predictions],
            binary=task_spec(self.task).gold_kind == "binary",
        )

    @cached_property
    def intervals(self) -> dict[str, Interval | None]:
        """Bootstrap 95 % intervals of the figures (``cohen_kappa``, ``accuracy``, ``kendall_tau``,
        ...), computed from the predictions as ``ragjury report`` computes them: a figure without
        its interval says more than it knows. Each is an ``Interval`` (``low``, ``high``)."""
        from ragjury.evals.io.predictions import run_of_rows
        from ragjury.evals.report.run_report import run_figures

        rows = list(enumerate(self.prediction_rows(), start=1))
        if not rows or not self.labelled:
            return {}
        return dict(run_figures(run_of_rows(rows, path="<python>", name=self.task)).intervals)

    def to_pandas(self) -> Any:
        """The predictions as a pandas DataFrame, one row per dataset row (the predictions-JSONL
        columns). pandas is imported here, so ragjury does not need it until this is called."""
        try:
            import pandas
        except ImportError:
            raise ImportError(
                "EvaluationResult.to_pandas needs pandas: pip install pandas (or the extra: pip install \"ragjury[pandas]\")"
            ) from None
        return pandas.DataFrame([flat_row(row) for row in self.prediction_rows()])

    @property
    def output_key(self) -> str:
        """The predictions rows' name for the judge's label: ``label``, or ``score`` for the score task."""
        return task_spec(self.task).output_key

    def figures(self) -> dict[str, float | None]:
        """Flat figures for ``--fail-under`` gates: coverage, agreement, correlations, mean label."""
        return flat_figures(
            scored=self.stats.scored,
            total=self.stats.total,
            labels=[p.label for p in self.predictions],
            agreement=self.agreement,
            correlation=self.correlation,
            ranking=self.ranking,
        )

    @cached_property
    def sources(self) -> VerdictSources:
        """Which judges produced the scored verdicts (``judge`` names the requested one, e.g. "auto").

        Counted once: the gate, the summary, the titles and the report all ask, and on a
        15,000-row run each count walks every prediction."""
        return VerdictSources.of([p.judgment for p in self.predictions], task=self.task)

    @property
    def verdict_judges(self) -> str:
        """The judges that produced the verdicts, for titles ("judged by contains"); the judge
        asked for when nothing was scored."""
        return ", ".join(self.sources.judges) or self.judge

    @property
    def why_unscored(self) -> str | None:
        """One judgment's reason for being unscored ("nothing was scored" says why); None when
        every judgment is scored."""
        reasons = [p.judgment.unscored_reason for p in self.predictions if p.judgment.unscored]
        if not reasons:
            return None
        from ragjury.rag_agent.model.breaker import unreachable_cause

        causes = (unreachable_cause(reason) for reason in reasons)  # a dead server: where, and the fix
        return next((cause for cause in causes if cause), None) or f"every judgment is unscored, e.g.: {reasons[0]}"

    def system_estimates(self) -> Any:
        """Per-system prediction-powered estimates when people labelled some rows but not all
        (``evals.pipelines.system_estimates_run``), else None."""
        from ragjury.evals.io.predictions import run_of_rows
        from ragjury.evals.stats.run_estimates import partial_labels_estimates

        labelled = self.labelled
        if labelled == 0 or labelled == len(self.predictions):
            return None
        run = run_of_rows(list(enumerate(self.prediction_rows(), start=1)), path="<run>")
        return partial_labels_estimates(run)

    @cached_property
    def judge_card(self) -> Any:
        """The judge card (``evals.stats.judge_card``) of the labelled rows of a binary task, else
        None; made once, since the JSON and the terminal both show it."""
        if not self.labelled:
            return None
        from ragjury.evals.io.predictions import run_of_rows
        from ragjury.evals.stats.run_card import run_card

        return run_card(run_of_rows(list(enumerate(self.prediction_rows(), start=1)), path="<run>"))

    def summary(self) -> dict[str, Any]:
        """Everything for ``--json``: run stats, the judges that produced the verdicts (and the
        fallback's share), figures, agreement details and the ranking."""
        out: dict[str, Any] = {"task": self.task, "judge": self.judge, **self.stats.as_dict()}
        out.update(self.sources.as_dict())
        out["labelled"] = self.labelled
        out["result"] = self.result.as_dict()
        out["figures"] = self.figures()
        if self.labelled:
            out["intervals"] = {k: None if v is None else v.as_list() for k, v in self.intervals.items()}
        if self.agreement is not None:
            out["agreement"] = _as_dict(self.agreement)
        if self.correlation:
            out["score_correlation"] = self.correlation
        if self.ranking is not None:
            out["ranking"] = self.ranking.as_dict()
        if self.judge_card is not None:
            out["judge_card"] = self.judge_card.as_dict()
        estimates = self.system_estimates()
        if estimates is not None:
            out["system_estimates"] = {
                key: value for key, value in estimates.as_dict().items() if key not in ("predictions", "task", "judge")
            }
        return out

    def gate(self, gates: Gates) -> list[str]:
        """Failed ``--fail-under`` thresholds on ``figures()``, then the ``--max-unscored`` and
        ``--max-fallback`` limits; empty when the run passes."""
        return gates.failures(self.figures(), {"": self.sources}, {"": self.unscored_share()})

    def unscored_share(self) -> UnscoredShare:
        """The rows left unscored, with their commonest reasons (gated by ``--max-unscored``)."""
        from ragjury.evals.report.unscored_share import UnscoredShare

        return UnscoredShare.of(p.judgment for p in self.predictions)

    def prediction_rows(self) -> list[dict[str, object]]:
        """The predictions JSONL rows, in dataset order (``Prediction.as_dict``)."""
        return [p.as_dict(self.output_key) for p in self.predictions]

    def html_report(self, data: Path, *, gate_failures: Sequence[str] = ()) -> HtmlReport:
        """The HTML report of ``data``'s run, built from the predictions rows exactly as ``ragjury
        report PRED.jsonl`` builds it (so the two pages agree), plus what only the run knows: the
        data file, the judge asked for, its identity, the run's statistics and its gate failures."""
        return self._html_report(data, self.prediction_rows(), gate_failures)

    def _html_report(
        self, data: Path, prediction_rows: list[dict[str, object]], gate_failures: Sequence[str]
    ) -> HtmlReport:
        from ragjury.evals.io.predictions import run_of_rows
        from ragjury.evals.report.run_report import build_report
        from ragjury.evals.report.sources import describe_identity

        rows = list(enumerate(prediction_rows, start=1))
        run = run_of_rows(rows, path=str(data), name=data.stem)
        report, _figures = build_report([run], run_stats=self.stats.as_dict())
        report.title = f"ragjury evaluate: {self.task} judged by {self.verdict_judges}"
        report.meta = {
            "data": str(data),
            "task": self.task,
            "judge": self.judge,
            "verdicts by": self.sources.describe(),
            "identity": describe_identity(self.identity if self.identity is not None else self.judge),
            "rows": f"{len(self.predictions):,}",
        }
        report.gate_failures = list(gate_failures)
        return report

    def write(self, files: DatasetFiles, *, gate_failures: Sequence[str] = ()) -> None:
        """Write the predictions JSONL, then the HTML report (with ``gate_failures``, so the page
        and the exit code agree), each where ``files`` names a path; both atomically. The rows are
        built once for both."""
        if files.predictions is None and files.html is None:
            return
        rows = self.prediction_rows()
        if files.predictions is not None:
            from ragjury.evals.io.predictions import write_jsonl

            write_jsonl(files.predictions, rows)
        if files.html is not None:
            from ragjury.evals.report.page import write_html

            write_html(files.html, self._html_report(files.data, rows, gate_failures))

    def payload(
        self,
        files: DatasetFiles,
        *,
        input_mapping: Mapping[str, Any] | None = None,
        gate_failures: Sequence[str] = (),
    ) -> dict[str, Any]:
        """The ``evaluate --json`` document (before ``schema_version`` and ``command``): the
        ``summary``, then the mode, the files read and written, how the data's columns were read
        (``evals.tasks.InputMapping.as_dict``) and the failed gates."""
        from ragjury.evals.io.json_contract import paths

        out = self.summary()
        out["mode"] = "dataset"
        out["inputs"] = paths(data=files.data)
        out["input_mapping"] = dict(input_mapping) if input_mapping is not None else None
        out["outputs"] = paths(predictions=files.predictions, html=files.html)
        out["gate_failures"] = list(gate_failures)
        return out


async def evaluate_dataset(
    task: str,
    rows: Sequence[TaskRow] | DataSource,
    judge: Judge[Any, Any],
    *,
    cache: JudgmentCache | None = None,
    concurrency: int | None = None,
    progress: bool | Progress = True,
    judge_name: str | None = None,
    limit: int | None = None,
) -> EvaluationResult:
    """Judge every row's item and compare with the rows' gold labels when they have them.

    ``rows`` are ``TaskRow``s (``evals.tasks.load_dataset``), or anything that loads into them:
    a path, a pandas DataFrame, a ``datasets.Dataset`` or a list of dicts (Ragas and DeepEval
    column names recognised). ``limit``: only the first N rows (as ``--limit``).
    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    spec = task_spec(task)
    rows = as_task_rows(task, rows)
    if limit is not None:
        rows = rows[:limit]
    judgments, stats = await run_judgments(
        judge,
        [row.item for row in rows],
        cache=cache,
        concurrency=concurrency,
        progress=progress,
        description=f"{task}: {judge_name or judge.identity.name}",
    )
    predictions = [
        Prediction(row.id, row.system, row.gold, judgment, label_of(judgment.value), task=task, item=row.item)
        for row, judgment in zip(rows, judgments, strict=True)
    ]
    result = EvaluationResult(
        task, judge_name or judge.identity.name, predictions, stats, identity=judge.identity
    )
    if any(p.gold is not None for p in predictions):
        if spec.gold_kind == "binary":
            result.agreement = binary_agreement(predictions)
        else:
            result.correlation = score_correlation(predictions)
        result.ranking = system_ranking(predictions)
    return result


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
) -> EvaluationResult:
    """``evaluate_dataset`` from synchronous code, a script or a notebook cell: where an event
    loop is already running (Jupyter), the run goes to a worker thread with a loop of its own,
    so it neither fails with "asyncio.run() cannot be called from a running event loop" nor
    blocks that loop's other tasks forever."""
    from ragjury.rag_agent.core.sync import run_sync

    return run_sync(
        evaluate_dataset(
            task, rows, judge, cache=cache, concurrency=concurrency, progress=progress,
            judge_name=judge_name, limit=limit,
        )
    )


def _as_dict(figures: Any) -> dict[str, Any]:
    """Agreement results may be pydantic models, dataclasses or dicts; summaries want dicts."""
    if isinstance(figures, Mapping):
        return dict(figures)
    if hasattr(figures, "model_dump"):
        return figures.model_dump(mode="json")
    import dataclasses

    if dataclasses.is_dataclass(figures):
        return dataclasses.asdict(figures)  # type: ignore[arg-type]
    return {"value": figures}


__all__ = [
    "DatasetFiles",
    "EvaluationResult",
    "HEADLINE_FIGURES",
    "Prediction",
    "SystemRanking",
    "binary_agreement",
    "evaluate_dataset",
    "evaluate_dataset_sync",
    "flat_figures",
    "score_correlation",
    "system_ranking",
]
