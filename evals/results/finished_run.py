"""A finished run: its records, what was measured of them (each once), and where it came from.

Why one type: a run just judged (``evaluate``, ``evaluate_dataset``) and a run read back from its
predictions file (``report``, ``estimate``) are the same thing to every view — the terminal, the
``--json`` document, the HTML page, JUnit, the gates, A/B — so one class holds both. A run just
judged also has its predictions in memory (the judgments, for the predictions file and pandas),
its run statistics and the judge's identity; its records are made from those predictions directly,
never written and parsed back. Each figure (the result with its interval, agreement, intervals,
ranking, estimates, the judge card, who judged) is measured once and kept: ``measure()`` measures
them all, top-down, into one frozen ``RunFigures`` before any view runs, and the views read its
fields (measure first, then draw: the walk goes down once instead of zig-zagging between views and
measurements).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

from ragjury.rag_agent.core.judge_spec import JudgeSpec, parse
from ragjury.evals.io.predictions import Prediction, PredictionRun, run_of_predictions
from ragjury.evals.io.tasks import task_spec
from ragjury.evals.results.breakdowns import Table, cost_table, labelled_probabilities, system_table
from ragjury.evals.results.headline import PeopleRate, headline, people_rates, trust_block, trust_note
from ragjury.evals.results.sources import VerdictSources, fallback_note
from ragjury.evals.stats.intervals import RESAMPLES, Interval, bootstrap_agreement, bootstrap_system_tau
from ragjury.evals.stats.run_estimates import partial_labels_estimates, run_card
from ragjury.evals.stats.run_result import RUBRIC, RunResult, run_result
from ragjury.evals.stats.system_statistics import (
    SystemRanking,
    binary_agreement,
    flat_figures,
    per_system,
    score_correlation,
    system_ranking,
)

if TYPE_CHECKING:
    from ragjury.evals.results.gates import Gates
    from ragjury.evals.results.unscored_share import UnscoredShare
    from ragjury.evals.runs.runner import RunStats
    from ragjury.rag_agent.core.protocol import JudgeIdentity

HEADLINE_FIGURES: dict[str, str] = {
    "accuracy": "accuracy",
    "cohen_kappa": "kappa",
    "kendall_tau": "tau",
    "pearson": "pearson",
    "spearman": "spearman",
    "mean_label": "mean label",
}
"""Figures ``repr(run)`` shows when the run has them (name in the figures: shown as)."""


@dataclass(frozen=True)
class RunFigures:
    """Everything the views of one finished run read, measured once and before any of them runs
    (``FinishedRun.measure``): the figures as the run measured them, and the plain values made of
    them that the terminal, the page, ``--json``, the step summary and JUnit show. A view reads these
    fields; it measures nothing and calls nothing back in ``results`` or ``stats`` for a figure."""

    task: str
    verdict_task: str
    """What a yes means in the result line (``FinishedRun.verdict_task``)."""
    counts: dict[str, int]
    """Items, scored, unscored, fallback, labelled, tokens, requests (``FinishedRun.counts``)."""
    judges: str
    """The judges that gave the verdicts, joined ("" when nothing was scored)."""
    verdicts_by: str
    """Which judges gave the verdicts, in words (``VerdictSources.describe``)."""
    fallback_share: float | None
    result: RunResult
    agreement: Any
    correlation: dict[str, Any] | None
    ranking: SystemRanking | None
    intervals: dict[str, Interval | None]
    estimates: Any
    card: Any
    per_system: dict[str, dict[str, Any]]
    figures: dict[str, float | None]
    """Flat figures (``FinishedRun.figures``): the terminal's table, the gates, the JSON."""
    people: list[PeopleRate]
    """Each system's rate as people would judge it, where they labelled items (else [])."""
    headline: list[str]
    """The terminal's first lines (``headline``): people's rate first where there are labels."""
    injection_flags: list[tuple[Any, list[Any]]]
    notes: tuple[str, ...]
    """The run's notes (a fallback answered, no item text, repeated ids, whose rate it is, text
    addressed to the judge), each without the section's prefix the page and terminal put before it."""
    systems: Table
    """The per-system breakdown of this run alone (``breakdowns.system_table``)."""
    costs: Table
    """Latency, tokens and cost per judge of this run alone (``breakdowns.cost_table``)."""
    probabilities: tuple[list[float], list[bool]]
    """P(yes) and people's label of the scored, labelled items that carry one."""
    document: dict[str, Any]
    """The run in ``--json`` (``FinishedRun.as_dict``)."""

    @classmethod
    def of(cls, run: FinishedRun) -> RunFigures:
        """Measure ``run`` top-down: who judged and the counts, the result, agreement with people
        and its intervals, the estimates and the card, then what is made of them (the headline,
        the notes, the breakdowns, the JSON document)."""
        sources = run.sources  # who judged, and the counts
        judges, verdicts_by, share = ", ".join(sources.judges), sources.describe(), sources.share
        fallback = fallback_note(sources, run.records)
        counts = run.counts()
        result = run.result  # the figures, each once
        agreement, correlation, ranking = run.agreement, run.correlation, run.ranking
        intervals, estimates, card, per_system = run.intervals, run.estimates, run.card, run.per_system
        figures = run.figures()
        verdict_task, people, lines = run.verdict_task, people_rates(run), headline(run)  # what is made of them
        trust = trust_note(run.task, run.judge_spec or run.judge, run.labelled, run.run.path)
        flagged = run.injection_flags
        notes = _notes(run.run, fallback, trust, flagged)
        return cls(
            task=run.task, verdict_task=verdict_task, counts=counts, judges=judges, verdicts_by=verdicts_by,
            fallback_share=share, result=result, agreement=agreement, correlation=correlation, ranking=ranking,
            intervals=intervals, estimates=estimates, card=card, per_system=per_system, figures=figures,
            people=people, headline=lines, injection_flags=flagged, notes=notes,
            systems=system_table([run]), costs=cost_table([run.run]), probabilities=labelled_probabilities(run.run),
            document=run.as_dict(),
        )


def _notes(run: PredictionRun, fallback: str | None, trust: str | None,
           flagged: list[tuple[Any, list[Any]]]) -> tuple[str, ...]:
    """A run's notes in the order the page and the terminal list them: a fallback answered, no
    item text, repeated ids, whose rate it is, text addressed to the judge."""
    notes = [fallback]
    if not run.has_text:
        notes.append(f"{run.path} carries no item text (written by an older ragjury): the items table shows "
                     "ids and verdicts only; re-run 'ragjury evaluate --out' to include the text.")
    if run.duplicates:
        notes.append(f"{run.duplicates:,} row(s) repeat an earlier id; the later row is kept.")
    notes.append(trust)
    if flagged:
        shown = "; ".join(f"{record.id} ({flags[0].field}: {flags[0].text[:60]!r})" for record, flags in flagged[:5])
        more = f" and {len(flagged) - 5:,} more" if len(flagged) > 5 else ""
        notes.append(f"{len(flagged):,} item(s) hold text addressed to the judge (a prompt injection?): {shown}{more}. "
                     "They were judged as usual; 'evaluate --fail-on-injection' fails a run on them.")
    return tuple(note for note in notes if note)


class FinishedRun:
    """One run, finished: records (read from a file, or made from a run's predictions), and what
    is measured of them, each on first use and once.

    ``FinishedRun(run)`` is a run read back (``report PRED.jsonl``); ``FinishedRun.of_predictions``
    is a run just judged, with its ``predictions``, ``stats`` (``RunStats``), the ``--judge`` name
    asked for (``judge``, e.g. "auto": ``sources`` says which judges gave the verdicts) and the
    judge's ``identity``.
    """

    def __init__(
        self,
        run: PredictionRun,
        *,
        judge: JudgeSpec | str | None = None,
        stats: RunStats | None = None,
        identity: JudgeIdentity | None = None,
        predictions: Sequence[Prediction] | None = None,
        resamples: int = RESAMPLES,
        seed: int = 0,
    ) -> None:
        self.run = run
        self.judge_spec = judge if isinstance(judge, JudgeSpec) else None
        """The ``--judge`` its command parsed, carried as it is (None for a run read back)."""
        self.judge = (judge.value if isinstance(judge, JudgeSpec) else judge) or ", ".join(self.sources.judges) or "?"
        self.stats = stats
        self.identity = identity
        self.predictions = list(predictions) if predictions is not None else None
        self.resamples = resamples
        self.seed = seed
        self.comparisons: dict[tuple[int, int], Any] = {}
        """``Comparison.of(self, other)``, made once per other run (and resamples)."""

    @classmethod
    def of_predictions(
        cls,
        task: str,
        predictions: Sequence[Prediction],
        *,
        judge: JudgeSpec | str,
        stats: RunStats | None = None,
        identity: JudgeIdentity | None = None,
    ) -> FinishedRun:
        """A run just judged: its records made from ``predictions`` directly (no row written and
        parsed back), named after the task as ``report`` would name an in-memory run."""
        output_key = task_spec(task).output_key
        run = run_of_predictions(predictions, output_key=output_key, path="<run>", name=task)
        if run.task is None:
            run.task = task
        return cls(run, judge=judge, stats=stats, identity=identity, predictions=predictions)

    # -- the records -------------------------------------------------------------------------

    @property
    def task(self) -> str:
        return self.run.task or self.run.kind

    @property
    def records(self) -> list[Any]:
        return self.run.records

    @property
    def output_key(self) -> str:
        """The rows' name for the judge's label: ``label``, or ``score`` for the score task."""
        return self.run.output_key or ("score" if self.run.kind == "score" else "label")

    @cached_property
    def scored(self) -> int:
        return sum(not r.unscored for r in self.records)

    @cached_property
    def labelled(self) -> int:
        return sum(r.gold is not None for r in self.records)

    @cached_property
    def sources(self) -> VerdictSources:
        """Which judges produced the scored verdicts, by the ``--judge`` name each record carries."""
        return VerdictSources.of(self.records)

    @property
    def verdict_task(self) -> str:
        """The word of a "yes" in the result line: the task's (``judged correct``), or ``rubric``
        where every verdict came from a rubric or a Python check (``judged to meet the criterion``):
        a check that answers are short does not judge them faithful."""
        judges = self.sources.judges or [self.judge]
        spec = self.judge_spec
        if spec is not None and list(judges) == [spec.value]:  # the judge its command parsed: not parsed again
            return RUBRIC if spec.own_criterion else self.task
        # a rubric's or a Python check's yes: its own criterion's
        return RUBRIC if all(parse(str(name)).own_criterion for name in judges) else self.task

    @property
    def verdict_judges(self) -> str:
        """The judges that produced the verdicts, for titles ("judged by contains"); the judge
        asked for when nothing was scored."""
        return ", ".join(self.sources.judges) or self.judge

    # -- what is measured of them, each once --------------------------------------------------

    @cached_property
    def result(self) -> RunResult:
        """What the run scored: the judged rate (binary tasks, Wilson interval) or the mean score
        (bootstrap interval), overall and per system, unscored items left out and counted."""
        records = self.records
        return run_result([r.label for r in records], [r.system for r in records], binary=self.run.kind == "binary")

    @cached_property
    def agreement(self) -> Any:
        """Binary tasks with labels: ``evals.stats.agreement.AgreementFigures`` against people."""
        if not self.labelled or self.run.kind != "binary":
            return None
        return binary_agreement(cast(Any, self.records))

    @cached_property
    def correlation(self) -> dict[str, Any] | None:
        """Score tasks with labels: Pearson / Spearman / MAE of the judge's scores against people's."""
        if not self.labelled or self.run.kind == "binary":
            return None
        return score_correlation(cast(Any, self.records))

    @cached_property
    def ranking(self) -> SystemRanking | None:
        """Per-system scores under people and the judge, and the rank correlation between them."""
        return system_ranking(cast(Any, self.records)) if self.labelled else None

    @cached_property
    def intervals(self) -> dict[str, Interval | None]:
        """Bootstrap 95 % intervals of the figures (``cohen_kappa``, ``accuracy``, ``kendall_tau``,
        ...); empty without labels. Each is an ``Interval`` (``low``, ``high``)."""
        if not self.labelled:
            return {}
        return figure_intervals(self.run, ranked=self.ranking is not None, resamples=self.resamples, seed=self.seed)

    @cached_property
    def estimates(self) -> Any:
        """Each system's prediction-powered rate when people labelled some items but not all
        (``evals.stats.run_estimates``), else None."""
        return partial_labels_estimates(self.run)

    @cached_property
    def card(self) -> Any:
        """The judge card of the labelled items of a binary task (``run_estimates.run_card``), else None."""
        return run_card(self.run) if self.labelled else None

    @cached_property
    def per_system(self) -> dict[str, dict[str, Any]]:
        """System -> every declared per-system statistic (``evals.stats.system_statistics``)."""
        return per_system(self.records, self.run.kind)

    @cached_property
    def measured(self) -> RunFigures:
        """Every figure the views read, measured once (``measure``): read it after ``measure()``."""
        return RunFigures.of(self)

    def measure(self) -> RunFigures:
        """Measure the run now, before any view: every figure, top-down, into one frozen record the
        views read (``measured``); a second call returns the same record."""
        return self.measured

    def renamed(self, path: str, name: str) -> FinishedRun:
        """The same run shown under another file name (``evaluate --html`` names the data file):
        every figure measured first, so the copy shares them instead of measuring again (only
        its notes, which name the file, are made again)."""
        import copy

        self.measure()
        shown = copy.copy(self)  # its own __dict__: the figures measured, shared
        shown.run = dataclasses.replace(self.run, path=path, name=name)
        shown.__dict__.pop("measured")
        shown.measure()
        return shown

    def system_estimates(self) -> Any:
        """``estimates`` (the name ``evaluate_dataset``'s users know)."""
        return self.estimates

    @property
    def judge_card(self) -> Any:
        """``card`` (the name the JSON and ``evaluate_dataset``'s users know)."""
        return self.card

    def figures(self) -> dict[str, float | None]:
        """Flat figures for ``--fail-under`` gates and the JSON: coverage, agreement, correlations,
        mean label, the ranking's correlations."""
        return flat_figures(
            scored=self.scored,
            total=len(self.records),
            labels=[r.label for r in self.records],
            agreement=self.agreement,
            correlation=self.correlation,
            ranking=self.ranking,
        )

    def interval_dict(self) -> dict[str, list[float] | None]:
        """Intervals for JSON: figure -> [low, high] (None where no draw defined the figure)."""
        return {name: None if value is None else value.as_list() for name, value in self.intervals.items()}

    @property
    def empty_answers(self) -> int:
        """Answers that were empty: judged wrong with no model call (in the rate, not unscored)."""
        from ragjury.rag_agent.judges.combined.empty_answer import EMPTY_REASON

        return sum(r.value.get("reason") == EMPTY_REASON and not r.unscored for r in self.records)

    @property
    def why_unscored(self) -> str | None:
        """One item's reason for being unscored ("nothing was scored" says why); None when every
        item is scored."""
        reasons = [r.unscored_reason for r in self.records if r.unscored and r.unscored_reason]
        if not reasons:
            return None
        from ragjury.rag_agent.model.unreachable import unreachable_cause

        causes = (unreachable_cause(reason) for reason in reasons)  # a dead server: where, and the fix
        return next((cause for cause in causes if cause), None) or f"every judgment is unscored, e.g.: {reasons[0]}"

    @cached_property
    def injection_flags(self) -> list[tuple[Any, list[Any]]]:
        """(record, flags) of each item whose text addresses its judge ("Note to the evaluator: ..."),
        by the model-free rules of ``judges.model_free.injection``; counted, shown with the span,
        and gated by ``--fail-on-injection``. A flagged item is still judged and scored."""
        from ragjury.rag_agent.judges.model_free.injection import flags_in_item

        flagged = []
        for record in self.records:
            flags = flags_in_item(dict(record.item)) if record.item else []
            if flags:
                flagged.append((record, flags))
        return flagged

    def injection_dict(self) -> dict[str, Any]:
        """The flags in ``--json``: how many items, and each with its rule, field and words."""
        return {
            "flagged": len(self.injection_flags),
            "items": [
                {"id": record.id, "system": record.system, "flags": [flag.as_dict() for flag in flags]}
                for record, flags in self.injection_flags
            ],
        }

    def sampled_share(self) -> tuple[int, int]:
        """(judgments whose P(yes) could not be read, so the verdict is the sampled answer's, scored
        model judgments read either way): ``method`` "sampled" against "sampled" + "logprobs"
        (#54 item 6; gated by ``--max-sampled``)."""
        methods = [r.method for r in self.records if not r.unscored]
        sampled = sum(m == "sampled" for m in methods)
        return sampled, sampled + sum(m == "logprobs" for m in methods)

    def unscored_share(self) -> UnscoredShare:
        """The items left unscored, with their commonest reasons (gated by ``--max-unscored``)."""
        from ragjury.evals.results.unscored_share import UnscoredShare

        return UnscoredShare.of(self.records)

    def counts(self) -> dict[str, int]:
        """Items, scored, unscored, fallback, labelled, tokens and requests of the run."""
        records = self.records
        out = {
            "n": len(records),
            "scored": self.scored,
            "unscored": len(records) - self.scored,
            "fallback_used": sum(r.fallback_used for r in records),
            "labelled": self.labelled,
            "tokens": sum(r.tokens for r in records),
            "requests": sum(r.requests for r in records),
        }
        if self.run.duplicates:
            out["duplicate_ids"] = self.run.duplicates
        return out

    def gate(self, gates: Gates) -> list[str]:
        """Failed ``--fail-under`` thresholds on ``figures()``, then the ``--max-unscored`` and
        ``--max-fallback`` limits; empty when the run passes."""
        flagged = len(self.injection_flags) if gates.fail_on_injection else 0
        return gates.failures(self.figures(), {"": self.sources}, {"": self.unscored_share()}, flagged=flagged,
                              sampled=self.sampled_share())

    # -- the rows of a run just judged ---------------------------------------------------------

    @cached_property
    def rows(self) -> list[dict[str, object]]:
        """The predictions JSONL rows, in dataset order: each prediction serialised once (for the
        file and pandas); only a run just judged has them."""
        if self.predictions is None:
            raise ValueError("a run read back from its predictions file has no predictions in memory to write")
        key = self.output_key
        by_line = {record.line: record for record in self.records}  # a repeated id's earlier rows have none
        return [p.as_dict(key, dumped=by_line.get(line)) for line, p in enumerate(self.predictions, start=1)]

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

    # -- views of it are functions (the report package's ``run_outputs``, ``run_report``) ------

    def as_dict(self) -> dict[str, Any]:
        """The run in ``--json``, one shape wherever it is shown: ``evaluate --json`` is this plus the
        files, the mode and the gates; each run of ``report --json`` is this under its file's name.

        Every figure is a function of the records, so a run read back from its predictions file
        gives each figure the live run gave. The run statistics are the optional block: a run just
        judged has them (``RunStats.as_dict``: cached, judged, wall_s, ... and this run's counts and
        spend), a run read back has its records' counts in their place (``counts``)."""
        out: dict[str, Any] = {"task": self.run.task, "judge": self.judge}  # a run just judged always has its task
        out.update(self.stats.as_dict() if self.stats is not None else self.counts())
        out.update(self.sources.as_dict())
        out["labelled"] = self.labelled
        if self.task == "correctness":
            out["empty_answers"] = self.empty_answers
        out["injection_flags"] = self.injection_dict()
        sampled, read = self.sampled_share()
        out["sampled"] = {"judgments": sampled, "of": read} if read else None
        out["trust"] = trust_block(self)
        out["result"] = self.result.as_dict()
        out["figures"] = self.figures()
        out["intervals"] = self.interval_dict()  # {} without labels
        if self.agreement is not None:
            out["agreement"] = plain_dict(self.agreement)
        if self.correlation:
            out["score_correlation"] = self.correlation
        if self.ranking is not None:
            out["ranking"] = self.ranking.as_dict()
        out["per_system"] = self.per_system
        if self.card is not None:
            out["judge_card"] = self.card.as_dict()
        if self.estimates is not None:
            out["system_estimates"] = {
                key: value for key, value in self.estimates.as_dict().items() if key not in ("predictions", "task", "judge")
            }
        return out

    def __repr__(self) -> str:
        """A few lines a notebook can show: task, judge, counts, the headline figures with their
        intervals (not every record)."""
        counts = self.counts()
        lines = [
            f"{type(self).__name__}(task={self.task!r}, judge={self.judge!r}, verdicts by {self.sources.describe()})",
            f"  {counts['n']:,} rows: {counts['scored']:,} scored, {counts['unscored']:,} unscored, "
            f"{self.sources.fallback:,} by a fallback, {self.labelled:,} labelled",
            "  " + self.result.lines(self.verdict_task)[0],
        ]
        figures = self.figures()
        headline = [name for name in HEADLINE_FIGURES if figures.get(name) is not None]
        if headline:
            lines.append("  " + ", ".join(self._figure_text(name, figures[name]) for name in headline))
        return "\n".join(lines)

    def _figure_text(self, name: str, value: Any) -> str:
        interval = self.intervals.get(name)
        return f"{HEADLINE_FIGURES[name]} {value:.3f}" + (f" {interval.text()}" if interval is not None else "")


def finished_run(run: PredictionRun, *, resamples: int = RESAMPLES, seed: int = 0) -> FinishedRun:
    """A run read back from its records, measured with bootstrap 95 % intervals."""
    return FinishedRun(run, resamples=resamples, seed=seed)


def figure_intervals(
    run: PredictionRun, *, ranked: bool, resamples: int = RESAMPLES, seed: int = 0
) -> dict[str, Interval | None]:
    """Bootstrap 95 % intervals of a run's figures over its labelled records: agreement figures
    (binary runs) and Kendall's tau of the system ranking (``ranked``: the run has one)."""
    labelled = [r for r in run.records if r.gold is not None]
    if not labelled:
        return {}
    systems = [r.system for r in labelled]
    with_systems = systems if any(s is not None for s in systems) else None
    intervals: dict[str, Interval | None] = {}
    if run.kind == "binary":
        intervals = bootstrap_agreement(
            [bool(r.gold) for r in labelled],
            [None if r.label is None else bool(r.label) for r in labelled],
            labels=[False, True],
            systems=with_systems,
            resamples=resamples,
            seed=seed,
        )
    elif with_systems is not None:
        intervals = {
            "kendall_tau": bootstrap_system_tau(
                [float(r.gold) for r in labelled],  # type: ignore[arg-type]
                [None if r.label is None else float(r.label) for r in labelled],
                with_systems,
                resamples=resamples,
                seed=seed,
            )
        }
    if not ranked:
        intervals.pop("kendall_tau", None)
    return intervals


def plain_dict(figures: Any) -> dict[str, Any]:
    """Agreement results may be pydantic models, dataclasses or dicts; the JSON wants dicts."""
    if isinstance(figures, Mapping):
        return dict(figures)
    if hasattr(figures, "model_dump"):
        return figures.model_dump(mode="json")
    if dataclasses.is_dataclass(figures):
        return dataclasses.asdict(figures)  # type: ignore[arg-type]
    return {"value": figures}


def flat_row(row: Any) -> dict[str, Any]:
    """A predictions row for a table: the judged item's question, answer, references and contexts
    (what a reader looks at beside the verdict) as columns of their own, the rest left out."""
    item = row.get("item") or {}
    flat = {k: v for k, v in row.items() if k != "item"}
    for key in ("question", "answer", "references", "contexts"):
        if key in item and key not in flat:
            flat[key] = item[key]
    return flat


__all__ = ["FinishedRun", "HEADLINE_FIGURES", "RunFigures", "figure_intervals", "finished_run", "flat_row",
           "plain_dict"]
