"""A finished dataset run: its predictions in memory, and what is measured of them, made once.

Why one shape: the run's figures, estimates, gates, JSON, HTML report and predictions file must
mean the same and cost one pass. Each prediction is serialised once (``rows``), read back once
into the records a report reads (``run``), and measured once (``measured``); everything a run
hands on reads those. Each prediction carries the ``--judge`` name its verdict answers to, so
nothing maps judge names back through the catalogue. Writing the outputs is
``evals.pipelines.run_outputs``'s job.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragjury.evals.io.predictions import Prediction, PredictionRun, run_of_rows
from ragjury.evals.io.tasks import task_spec
from ragjury.evals.report.run_report import RunFigures, figure_intervals
from ragjury.evals.report.sources import VerdictSources
from ragjury.evals.runs.runner import RunStats
from ragjury.evals.stats.intervals import Interval
from ragjury.evals.stats.run_figures import SystemRanking, flat_figures
from ragjury.evals.stats.run_result import RunResult, run_result
from ragjury.rag_agent.core.protocol import JudgeIdentity

if TYPE_CHECKING:
    from ragjury.evals.pipelines.run_outputs import DatasetFiles
    from ragjury.evals.report.gates import Gates
    from ragjury.evals.report.page import HtmlReport
    from ragjury.evals.report.unscored_share import UnscoredShare


HEADLINE_FIGURES: dict[str, str] = {
    "accuracy": "accuracy",
    "cohen_kappa": "kappa",
    "kendall_tau": "tau",
    "pearson": "pearson",
    "spearman": "spearman",
    "mean_label": "mean label",
}
"""Figures ``repr(result)`` shows when the run has them (name in the figures: shown as)."""


def flat_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A predictions row for a table: the judged item's question, answer, references and contexts
    (what a reader looks at beside the verdict) as columns of their own, the rest left out."""
    item = row.get("item") or {}
    flat = {k: v for k, v in row.items() if k != "item"}
    for key in ("question", "answer", "references", "contexts"):
        if key in item and key not in flat:
            flat[key] = item[key]
    return flat


@dataclass(repr=False)
class DatasetEvaluation:
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

    # -- the one shape: rows, records and figures, each made once -------------------------------

    @cached_property
    def rows(self) -> list[dict[str, object]]:
        """The predictions JSONL rows, in dataset order: each prediction serialised once, for the
        file, the records and pandas alike."""
        key = self.output_key
        return [p.as_dict(key) for p in self.predictions]

    @cached_property
    def run(self) -> PredictionRun:
        """The rows read back once, as ``ragjury report`` reads a predictions file: what the
        intervals, the estimates, the judge card and the HTML report are made from."""
        return run_of_rows(enumerate(self.rows, start=1), path="<run>", name=self.task)

    @cached_property
    def measured(self) -> RunFigures:
        """The run's figures as a report holds them: the agreement (or correlation) and ranking
        measured by ``evaluate_dataset``, who gave the verdicts, the bootstrap intervals, and
        (made on first use) the estimates and the judge card."""
        intervals = figure_intervals(self.run, ranked=self.ranking is not None) if self.labelled else {}
        return RunFigures(
            self.run,
            agreement=self.agreement,
            correlation=self.correlation,
            ranking=self.ranking,
            intervals=intervals,
            sources=self.sources,
        )

    # -- what the run measured ------------------------------------------------------------------

    @property
    def labelled(self) -> int:
        return sum(p.gold is not None for p in self.predictions)

    @property
    def output_key(self) -> str:
        """The predictions rows' name for the judge's label: ``label``, or ``score`` for the score task."""
        return task_spec(self.task).output_key

    @cached_property
    def result(self) -> RunResult:
        """What the run scored: the judged rate (binary tasks, Wilson interval) or the mean score
        (bootstrap interval), overall and per system, unscored items left out and counted."""
        return run_result(
            [p.label for p in self.predictions],
            [p.system for p in self.predictions],
            binary=task_spec(self.task).gold_kind == "binary",
        )

    @property
    def intervals(self) -> dict[str, Interval | None]:
        """Bootstrap 95 % intervals of the figures (``cohen_kappa``, ``accuracy``, ``kendall_tau``,
        ...), computed from the predictions as ``ragjury report`` computes them: a figure without
        its interval says more than it knows. Each is an ``Interval`` (``low``, ``high``)."""
        return self.measured.intervals if self.labelled else {}

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
        """Which judges produced the scored verdicts, by the ``--judge`` names each prediction
        carries (``judge`` names the requested one, e.g. "auto"). Counted once: the gate, the
        summary, the titles and the report all ask."""
        return VerdictSources.of(self.predictions)

    @property
    def verdict_judges(self) -> str:
        """The judges that produced the verdicts, for titles ("judged by contains"); the judge
        asked for when nothing was scored."""
        return ", ".join(self.sources.judges) or self.judge

    @property
    def empty_answers(self) -> int:
        """Answers that were empty: judged wrong with no model call (in the rate, not unscored)."""
        from ragjury.rag_agent.judges.combined.empty_answer import count_empty

        return count_empty([p.judgment for p in self.predictions])

    @property
    def why_unscored(self) -> str | None:
        """One judgment's reason for being unscored ("nothing was scored" says why); None when
        every judgment is scored."""
        reasons = [p.judgment.unscored_reason for p in self.predictions if p.judgment.unscored]
        if not reasons:
            return None
        from ragjury.rag_agent.model.unreachable import unreachable_cause

        causes = (unreachable_cause(reason) for reason in reasons)  # a dead server: where, and the fix
        return next((cause for cause in causes if cause), None) or f"every judgment is unscored, e.g.: {reasons[0]}"

    def system_estimates(self) -> Any:
        """Per-system prediction-powered estimates when people labelled some rows but not all
        (``evals.stats.run_estimates``), else None."""
        labelled = self.labelled
        if labelled == 0 or labelled == len(self.predictions):
            return None
        return self.measured.estimates

    @property
    def judge_card(self) -> Any:
        """The judge card (``evals.stats.judge_card``) of the labelled rows of a binary task, else
        None; made once, since the JSON, the terminal and the page all show it."""
        return self.measured.card if self.labelled else None

    def unscored_share(self) -> UnscoredShare:
        """The rows left unscored, with their commonest reasons (gated by ``--max-unscored``)."""
        from ragjury.evals.report.unscored_share import UnscoredShare

        return UnscoredShare.of(p.judgment for p in self.predictions)

    def gate(self, gates: Gates) -> list[str]:
        """Failed ``--fail-under`` thresholds on ``figures()``, then the ``--max-unscored`` and
        ``--max-fallback`` limits; empty when the run passes."""
        return gates.failures(self.figures(), {"": self.sources}, {"": self.unscored_share()})

    # -- views of it ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        """A few lines a notebook can show: task, judge, counts, the headline figures with their
        intervals (the dataclass repr printed every prediction: tens of thousands of characters)."""
        stats = self.stats
        lines = [
            f"DatasetEvaluation(task={self.task!r}, judge={self.judge!r}, verdicts by {self.sources.describe()})",
            f"  {stats.total:,} rows: {stats.scored:,} scored, {stats.unscored:,} unscored, "
            f"{self.sources.fallback:,} by a fallback, {self.labelled:,} labelled",
            "  " + self.result.lines(self.task)[0],
        ]
        figures = self.figures()
        headline = [name for name in HEADLINE_FIGURES if figures.get(name) is not None]
        if headline:
            lines.append("  " + ", ".join(self._figure_text(name, figures[name]) for name in headline))
        return "\n".join(lines)

    def _figure_text(self, name: str, value: Any) -> str:
        interval = self.intervals.get(name)
        return f"{HEADLINE_FIGURES[name]} {value:.3f}" + (f" {interval.text()}" if interval is not None else "")

    def summary(self) -> dict[str, Any]:
        """Everything for ``--json``: run stats, the judges that produced the verdicts (and the
        fallback's share), figures, agreement details and the ranking."""
        out: dict[str, Any] = {"task": self.task, "judge": self.judge, **self.stats.as_dict()}
        out.update(self.sources.as_dict())
        out["labelled"] = self.labelled
        if self.task == "correctness":
            out["empty_answers"] = self.empty_answers
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

    def prediction_rows(self) -> list[dict[str, object]]:
        """The predictions JSONL rows, in dataset order (``Prediction.as_dict``, made once)."""
        return list(self.rows)

    def to_pandas(self) -> Any:
        """The predictions as a pandas DataFrame, one row per dataset row (the predictions-JSONL
        columns). pandas is imported here, so ragjury does not need it until this is called."""
        try:
            import pandas
        except ImportError:
            raise ImportError(
                "DatasetEvaluation.to_pandas needs pandas: pip install pandas (or the extra: pip install \"ragjury[pandas]\")"
            ) from None
        return pandas.DataFrame([flat_row(row) for row in self.rows])

    # -- its outputs (``evals.pipelines.run_outputs``) ------------------------------------------

    def html_report(self, data: Path, *, gate_failures: Sequence[str] = ()) -> HtmlReport:
        """The HTML report of ``data``'s run, built from its records exactly as ``ragjury report
        PRED.jsonl`` builds it (so the two pages agree), plus what only the run knows."""
        from ragjury.evals.pipelines.run_outputs import html_report

        return html_report(self, data, gate_failures=gate_failures)

    def write(self, files: DatasetFiles, *, gate_failures: Sequence[str] = ()) -> None:
        """Write the predictions JSONL, then the HTML report (with ``gate_failures``, so the page
        and the exit code agree), each where ``files`` names a path; both atomically."""
        from ragjury.evals.pipelines.run_outputs import write_outputs

        write_outputs(self, files, gate_failures=gate_failures)

    def payload(
        self,
        files: DatasetFiles,
        *,
        input_mapping: Mapping[str, Any] | None = None,
        gate_failures: Sequence[str] = (),
    ) -> dict[str, Any]:
        """The ``evaluate --json`` document (before ``schema_version`` and ``command``)."""
        from ragjury.evals.pipelines.run_outputs import run_payload

        return run_payload(self, files, input_mapping=input_mapping, gate_failures=gate_failures)


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


__all__ = ["DatasetEvaluation", "HEADLINE_FIGURES", "Prediction", "flat_row"]
