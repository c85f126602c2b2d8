"""N runs compared at once (a sweep of configs): ``Sweep.of(runs, baseline=0)``, what
``report RUN1 ... RUNn`` and ``compare_runs`` show.

Which config is best, is it clearly best, and did anything get worse than the baseline? Each
config is measured on the questions *every* run scored (a question one run lacks, left unscored or
asked differently is out of every column, counted and named, never dropped from one column only),
and every rate and paired difference carries an interval that holds for all of them at once
(``evals.stats.simultaneous``: a max-t simultaneous paired bootstrap over questions), so reading
off "worse than the best" for many configs does not walk into the multiple-comparisons trap that
running ``report A B`` on every pair does.

Verdict words per config: ``best`` (the highest rate), ``worse than the best`` (the simultaneous
interval of config - best lies below 0), ``not shown different from the best`` (it does not), and,
with a margin (``--fail-if-worse M``), ``worse than the baseline by more than M points`` (the upper
end of config - baseline below -M): the gate, which fails for that config. A pair is N = 2 (``pair``
gives the two-run ``Comparison`` of ``report A B``). Measured here, below every view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragjury.evals.io.predictions import ItemRecord, PredictionRun
from ragjury.evals.results.comparison import FIRST_IDS, IdList, check_margin, judge_of
from ragjury.evals.stats.simultaneous import (
    CONFIDENCE,
    METHOD,
    RESAMPLES,
    Simultaneous,
    prediction_powered,
    simultaneous,
)

BEST = "best"
NOT_SHOWN = "not shown different from the best"
WORSE_THAN_BEST = "worse than the best"


def worse_than_baseline(margin: float, binary: bool = True) -> str:
    """The gate's verdict word for a margin (a share: 0.02 -> "2 points")."""
    amount = f"{margin * 100:g} points" if binary else f"{margin:g}"
    return f"worse than the baseline by more than {amount}"


@dataclass(frozen=True)
class LeftOut:
    """Questions not in the comparison because not every run scored them, by reason, with the
    number each run is short of."""

    missing: IdList
    """Ids some run lacks."""
    unscored: IdList
    """Ids every run has but some run left unscored (a failed judgment is no verdict)."""
    different_question: IdList
    """Ids whose question text differs between runs."""
    lacking: dict[str, int] = field(default_factory=dict)
    """Run name -> how many of the other runs' ids it lacks."""
    unscored_by_run: dict[str, int] = field(default_factory=dict)
    """Run name -> its unscored items among ids every run has."""

    @property
    def count(self) -> int:
        return self.missing.count + self.unscored.count + self.different_question.count

    def lines(self) -> list[str]:
        out = []
        if self.missing.count:
            who = ", ".join(f"{name} lacks {n:,}" for name, n in self.lacking.items() if n)
            out.append(f"questions not in every run, left out of every column: {self.missing.text()} ({who})")
        if self.unscored.count:
            who = ", ".join(f"{name} {n:,}" for name, n in self.unscored_by_run.items() if n)
            out.append(f"questions some run left unscored, left out of every column: {self.unscored.text()} "
                       f"(unscored: {who})")
        if self.different_question.count:
            out.append(f"ids whose question differs between runs, left out of every column: "
                       f"{self.different_question.text()}")
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"count": self.count, "missing": self.missing.as_dict(), "unscored": self.unscored.as_dict(),
                "different_question": self.different_question.as_dict(), "lacking": dict(self.lacking),
                "unscored_by_run": dict(self.unscored_by_run)}


def match_all(runs: Sequence[PredictionRun]) -> tuple[list[str], LeftOut]:
    """The ids every run scored with the same question, in the first run's order, and the rest."""
    indexes = [run.by_id() for run in runs]
    every: dict[str, None] = {}
    for index in indexes:
        every.update(dict.fromkeys(index))
    shared, missing, unscored, different = [], [], [], []
    for ident in every:
        records = [index.get(ident) for index in indexes]
        if any(record is None for record in records):
            missing.append(ident)
            continue
        questions = {r.question.strip() for r in records if r is not None and r.question is not None}
        if len(questions) > 1:
            different.append(ident)
        elif any(r is None or r.unscored or r.label is None for r in records):
            unscored.append(ident)
        else:
            shared.append(ident)
    lacking = {run.name: sum(1 for i in every if i not in index) for run, index in zip(runs, indexes, strict=True)}
    unscored_by_run = {run.name: sum(1 for i in unscored if index[i].unscored or index[i].label is None)
                       for run, index in zip(runs, indexes, strict=True)}
    return shared, LeftOut(IdList(tuple(missing)), IdList(tuple(unscored)), IdList(tuple(different)), lacking,
                           unscored_by_run)


@dataclass(frozen=True)
class ConfigRow:
    """One config of the sweep: its rate with its simultaneous interval, its paired difference to
    the baseline and to the best (each with its simultaneous interval) and its verdict."""

    index: int
    name: str
    path: str
    rate: float
    interval: tuple[float, float] | None
    to_baseline: float
    to_baseline_interval: tuple[float, float] | None
    to_best: float
    to_best_interval: tuple[float, float] | None
    verdict: str
    is_baseline: bool
    differs_from_best: tuple[str, ...]
    """Shared ids where this config's verdict differs from the best's (the page lists them)."""
    regressed: tuple[str, ...]
    """Shared ids the baseline judged yes and this config no (JUnit's info cases)."""

    def as_dict(self) -> dict[str, Any]:
        def pair(value: tuple[float, float] | None) -> list[float] | None:
            return None if value is None else [round(value[0], 6), round(value[1], 6)]

        return {"name": self.name, "path": self.path, "baseline": self.is_baseline, "rate": round(self.rate, 6),
                "interval": pair(self.interval), "to_baseline": round(self.to_baseline, 6),
                "to_baseline_interval": pair(self.to_baseline_interval), "to_best": round(self.to_best, 6),
                "to_best_interval": pair(self.to_best_interval), "verdict": self.verdict,
                "differs_from_best": {"count": len(self.differs_from_best), "ids": list(self.differs_from_best[:FIRST_IDS])},
                "regressed": {"count": len(self.regressed), "ids": list(self.regressed[:FIRST_IDS])}}


@dataclass(frozen=True)
class ConfigGate:
    """The gate for one config: failed, and why (in one line)."""

    name: str
    failed: bool
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "failed": self.failed, "reason": self.reason}


@dataclass(frozen=True)
class SweepGate:
    """``--fail-if-worse M`` over every config: it fails when any config fails."""

    margin: float
    configs: tuple[ConfigGate, ...]
    decided: bool
    binary: bool = True

    @property
    def failed(self) -> bool:
        return any(c.failed for c in self.configs)

    @property
    def reason(self) -> str:
        failed = [c.name for c in self.configs if c.failed]
        if failed:
            return f"{len(failed)} of {len(self.configs)} configs failed: {', '.join(failed)}"
        if not self.decided:
            return "undecided: too few questions every run scored to show a regression"
        return "no config shown " + worse_than_baseline(self.margin, self.binary)

    def as_dict(self) -> dict[str, Any]:
        return {"failed": self.failed, "decided": self.decided, "margin": self.margin, "reason": self.reason,
                "rule": "a config fails when the upper end of its simultaneous interval of CONFIG - BASELINE is "
                "below -margin, or when it lacks the baseline's questions or left some unscored",
                "configs": [c.as_dict() for c in self.configs]}


@dataclass
class Sweep:
    """N runs of one task on the same questions: the ranking, the simultaneous intervals and
    ``gate(margin)``. ``rows`` are ordered by rate, highest first."""

    runs: list[PredictionRun] = field(repr=False)
    names: list[str]
    baseline: int
    binary: bool
    task: str | None
    shared: list[str] = field(repr=False)
    left_out: LeftOut
    stats: Simultaneous = field(repr=False)
    best: int
    rows: list[ConfigRow]
    margin: float | None = None
    people: Sweep | None = None
    """The same sweep as people would judge it, where they labelled answers of every config on the
    shared questions (prediction-powered, ``simultaneous.prediction_powered``): its verdicts and
    its gate decide."""
    labelled: list[int] = field(default_factory=list)
    """Per config (in the order given), its labelled answers among the shared questions."""
    sequential: Any = None
    """Labels gathered by ``label RUN1 ... RUNn --until best``: the pairs' confidence sequences
    (``stats.sequential_best.BestStatus``), valid at any stop; the fixed-n figures are not."""

    @classmethod
    def of(cls, runs: Sequence[PredictionRun], *, baseline: int = 0, margin: float | None = None,
           confidence: float = CONFIDENCE, resamples: int = RESAMPLES, seed: int = 0, people: bool = False) -> Sweep:
        """Measure the sweep once. ``ValueError`` for fewer than two runs, two tasks or kinds, a
        repeated id with two rows, or no question every run scored. ``people``: also as people
        would judge it, from the labels on the records' ``gold`` (``with_sweep_labels``)."""
        runs = list(runs)
        check_sweep(runs)
        if not 0 <= baseline < len(runs):
            raise ValueError(f"baseline must be one of the {len(runs)} runs")
        if margin is not None:
            margin = check_margin(margin)
        shared, left_out = match_all(runs)
        if not shared:
            raise ValueError("no question is scored in every run: nothing to compare "
                             + "; ".join(left_out.lines()))
        indexes = [run.by_id() for run in runs]
        values = np.array([[float(index[i].label) for index in indexes] for i in shared])  # type: ignore[arg-type]
        made = cls._measured(runs, shared, left_out, values, baseline, margin, confidence, resamples, seed)
        if people:  # people's labels on the shared questions: their rates decide
            z, made.labelled = people_values(runs, shared, values)
            made.people = cls._measured(runs, shared, left_out, z, baseline, margin, confidence, resamples, seed,
                                        people=True)
            made.people.labelled = made.labelled
        return made

    @classmethod
    def _measured(cls, runs: list[PredictionRun], shared: list[str], left_out: LeftOut, values: np.ndarray,
                  baseline: int, margin: float | None, confidence: float, resamples: int, seed: int, *,
                  people: bool = False) -> Sweep:
        stats = simultaneous(values, confidence=confidence, resamples=resamples, seed=seed)
        binary = runs[0].kind == "binary"
        best = int(np.argmax(stats.means))  # the first of tied configs, in the order given
        rows = [_row(k, runs, values, shared, stats, best, baseline, margin, binary, per_item=not people)
                for k in range(len(runs))]
        rows.sort(key=lambda r: (-r.rate, r.index))
        task = next((run.task for run in runs if run.task), None)
        return cls(runs, [run.name for run in runs], baseline, binary, task, shared, left_out, stats, best, rows,
                   margin)

    # -- the answer --------------------------------------------------------------------------

    @property
    def clearly_best(self) -> bool:
        """Every other config is shown worse than the best."""
        return all(r.verdict != NOT_SHOWN for r in self.rows if r.index != self.best)

    def ranking(self) -> list[str]:
        """Config names, highest rate first."""
        return [r.name for r in self.rows]

    def row(self, name: str) -> ConfigRow:
        return next(r for r in self.rows if r.name == name)

    @property
    def measure(self) -> str:
        """What is ranked: the rate of yes verdicts, or the mean score."""
        return "rate" if self.binary else "mean score"

    def amount(self, value: float) -> str:
        return f"{round(value * 100, 1) + 0.0:.1f} %" if self.binary else f"{round(value, 3) + 0.0:.3f}"

    def shift(self, value: float) -> str:
        """A difference, signed; a zero is "+0.0", never "-0.0"."""
        return f"{round(value * 100, 1) + 0.0:+.1f}" if self.binary else f"{round(value, 3) + 0.0:+.3f}"

    def headline(self) -> str:
        """Line 1: which config is best, or that none is clearly best."""
        top = self.rows[0]
        if len(self.rows) == 1:
            return f"{top.name}: {self.amount(top.rate)}"
        if self.stats.critical is None:
            return (f"no config is clearly best: {top.name} has the highest {self.measure} ({self.amount(top.rate)}), "
                    f"but {self.stats.n:,} questions every run scored are too few for intervals")
        close = [r.name for r in self.rows if r.verdict == NOT_SHOWN]
        if not close:
            return (f"{top.name} is best ({self.amount(top.rate)}): every other config is shown worse, "
                    f"on {self.stats.n:,} questions every run scored")
        shown = ", ".join(close[:3]) + (f" and {len(close) - 3} more" if len(close) > 3 else "")
        return (f"no config is clearly best: {top.name} has the highest {self.measure} ({self.amount(top.rate)}), "
                f"but {shown} {'is' if len(close) == 1 else 'are'} not shown different from it")

    def method_line(self) -> str:
        s = self.stats
        return (f"intervals are simultaneous: {s.confidence * 100:g} % for every rate and difference at once "
                f"({METHOD}, {s.resamples:,} draws, seed {s.seed})")

    def lines(self) -> list[str]:
        """The lines before the table: the answer, the method, the baseline, what was left out."""
        base = self.names[self.baseline]
        every = "both runs" if len(self.runs) == 2 else f"all {len(self.runs)} runs"
        out = [self.headline(), self.method_line(), f"baseline: {base}; {self.stats.n:,} questions scored in {every}"]
        if self.people is not None:  # the answer first: as people would judge it
            labels = ", ".join(f"{name} {n:,}" for name, n in zip(self.names, self.labelled, strict=True))
            out = [f"as people would judge it: {self.people.headline()}", self.method_line(),
                   f"people's rates are prediction-powered (the judge's verdicts corrected by people's labels, each "
                   f"weighted by 1 / its inclusion probability); labelled answers: {labels}",
                   f"baseline: {base}; {self.stats.n:,} questions scored in {every}",
                   f"the judge's own ranking: {self.headline()}"]
        if self.sequential is not None:  # labels gathered until settled: only the sequence is valid for them
            out.insert(0, f"label --until {self.sequential.until}: {self.sequential.words}")
            out.insert(1, "the labels were gathered until settled: people's intervals and gate below assume a number "
                          "of labels fixed in advance and cover less than they say; the sequence above is valid")
        out.extend(self.left_out.lines())
        if self.runs and len({judge_of(run) for run in self.runs}) > 1:
            out.append("the runs were judged by different judges, so their differences mix the configs' with the "
                       "judges'")
        return out

    # -- the gate ----------------------------------------------------------------------------

    def gate(self, margin: float = 0.0, *, allow_missing: bool = False) -> SweepGate:
        """``--fail-if-worse margin``: a config fails when it is shown worse than the baseline by
        more than ``margin`` (the upper end of its simultaneous interval of CONFIG - BASELINE below
        -margin), lacks the baseline's questions (unless ``allow_missing``) or left some of them
        unscored (a failed judgment never passes). The baseline itself never fails."""
        margin = check_margin(margin)
        base = self.runs[self.baseline].by_id()
        outcomes = []
        decider = self.people if self.people is not None else self  # people's differences decide where they labelled
        for row in sorted(decider.rows, key=lambda r: r.index):
            if row.is_baseline:
                continue
            index = self.runs[row.index].by_id()
            lacking = sum(1 for i in base if i not in index)
            unscored = sum(1 for i in base if i in index and (index[i].unscored or index[i].label is None))
            interval = row.to_baseline_interval
            figure = ("as people would judge it, " if decider is not self else "") + \
                f"{row.name} - baseline {self.shift(row.to_baseline)}" + (
                "" if interval is None else f" [{self.shift(interval[0])}, {self.shift(interval[1])}]")
            if lacking and not allow_missing:
                outcomes.append(ConfigGate(row.name, True, f"lacks {lacking:,} of the baseline's {len(base):,} "
                                           "questions (--allow-missing to accept)"))
            elif unscored:
                outcomes.append(ConfigGate(row.name, True, f"{unscored:,} unscored items among the baseline's "
                                           "questions: a failed judgment never passes a gate"))
            elif interval is None:
                outcomes.append(ConfigGate(row.name, False, f"undecided: {figure}, too few questions"))
            elif interval[1] < -margin:
                outcomes.append(ConfigGate(row.name, True, f"{worse_than_baseline(margin, self.binary)}: {figure}"))
            else:
                outcomes.append(ConfigGate(row.name, False, f"not shown worse by more than "
                                           f"{self.shift(-margin)}: {figure}"))
        return SweepGate(margin, tuple(outcomes), self.stats.critical is not None, self.binary)

    def step_summary(self, gate: SweepGate) -> str:
        """The gate as Markdown for a GitHub Actions step summary: the verdict table first."""
        status = "❌ regression" if gate.failed else ("⚠️ undecided" if not gate.decided else "✅ no regression")
        failed = {c.name for c in gate.configs if c.failed}
        lines = [f"### ragjury sweep gate: {status}", "", self.headline(), "",
                 f"| config | {self.measure} | - baseline | verdict |", "|---|---|---|---|"]
        for row in self.rows:
            base = "baseline" if row.is_baseline else (
                self.shift(row.to_baseline) + ("" if row.to_baseline_interval is None else
                                               f" [{self.shift(row.to_baseline_interval[0])}, "
                                               f"{self.shift(row.to_baseline_interval[1])}]"))
            mark = " ❌" if row.name in failed else ""
            lines.append(f"| {row.name.replace('|', '/')}{mark} | {self.amount(row.rate)} | {base} | {row.verdict} |")
        return "\n".join([*lines, "", gate.reason, "", self.method_line(), ""])

    # -- N = 2 -------------------------------------------------------------------------------

    def pair(self, other: int = 1) -> Any:
        """The baseline and one other run as ``report A B``'s ``Comparison`` (its McNemar test, its
        per-pair 95 % interval and its transitions)."""
        from ragjury.evals.results.comparison import Comparison
        from ragjury.evals.results.finished_run import finished_run

        return Comparison.of(finished_run(self.runs[self.baseline]), finished_run(self.runs[other]))

    def as_dict(self) -> dict[str, Any]:
        """``report RUN1 ... RUNn --json``'s ``sweep``."""
        return {"configs": len(self.runs), "baseline": self.names[self.baseline], "best": self.names[self.best],
                "clearly_best": self.clearly_best if self.stats.critical is not None else False,
                "headline": self.headline(), "binary": self.binary, "task": self.task,
                "n_questions": self.stats.n, "intervals": self.stats.as_dict(), "left_out": self.left_out.as_dict(),
                "margin": self.margin, "ranking": [r.as_dict() for r in self.rows],
                **({"people": {"labelled": dict(zip(self.names, self.labelled, strict=True)),
                               "method": "prediction-powered: the judge's verdict corrected by people's label, "
                               "weighted by 1 / its inclusion probability",
                               **{key: value for key, value in self.people.as_dict().items()
                                  if key in ("best", "clearly_best", "headline", "intervals", "ranking")}}}
                   if self.people is not None else {}),
                **({"sequential": {**self.sequential.as_dict(), "valid": "sequence", "fixed_n_valid": False}}
                   if self.sequential is not None else {})}


def check_sweep(runs: Sequence[PredictionRun]) -> None:
    """Refuse what cannot be compared: fewer than two runs, two tasks or verdict kinds, an id with
    two different rows in one file (``ValueError`` naming the files)."""
    if len(runs) < 2:
        raise ValueError("a sweep compares two runs or more")
    first = runs[0]
    for run in runs[1:]:
        if first.task is not None and run.task is not None and first.task != run.task:
            raise ValueError(f"{first.path} is a {first.task} run and {run.path} a {run.task} run: report compares "
                             "runs of one task")
        if run.kind != first.kind:
            raise ValueError(f"{first.path} holds {first.kind} verdicts and {run.path} {run.kind} ones: they cannot "
                             "be compared")
    for run in runs:
        if run.conflicting is not None:
            ident, line = run.conflicting
            raise ValueError(f"{run.path}:{line}: id {ident!r} appears twice with different verdicts or answers; "
                             "make ids unique (one row per id) before comparing")


def with_sweep_labels(runs: Sequence[PredictionRun], labels: Any, *, allow_shown_judge: bool = False) -> list[PredictionRun]:
    """Each run with people's labels of its own answers on its records' ``gold`` and
    ``inclusion_probability``: a label keyed ``CONFIG/ID`` (CONFIG: the run's name) or with a
    ``system`` column goes to that config only (what ``label-plan A B`` writes, for N configs); a
    bare id that several runs have is refused (whose answer was it?)."""
    from ragjury.evals.io.people import People, join_configs, read_people

    people = labels if isinstance(labels, People) else read_people(labels, runs[0].kind,
                                                                    allow_shown_judge=allow_shown_judge)
    return join_configs(runs, [run.name for run in runs], people, kind=runs[0].kind)


MIN_LABELS = 10
"""Labelled answers each config needs among the shared questions for people's figures."""


def people_values(runs: Sequence[PredictionRun], shared: list[str],
                  judge: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """Per shared question and config, the prediction-powered value (the judge's verdict corrected by
    people's label, weighted by 1 / its inclusion probability; where a label carries none, the
    config's labelled share), and each config's label count; ``ValueError`` unless every config has
    ``MIN_LABELS`` labels (people's labels joined on the records' ``gold``: ``with_sweep_labels``)."""
    indexes = [run.by_id() for run in runs]
    gold = np.array([[np.nan if index[i].gold is None else float(index[i].gold) for index in indexes]  # type: ignore[arg-type]
                     for i in shared])
    counts = (~np.isnan(gold)).sum(axis=0)
    if (counts < MIN_LABELS).any():
        short = ", ".join(f"{run.name} {c}" for run, c in zip(runs, counts, strict=True) if c < MIN_LABELS)
        raise ValueError(f"people's figures need {MIN_LABELS} labelled answers of every config among the questions "
                         f"every run scored; labelled: {short}")
    share = counts / len(shared)
    pi = np.array([[index[i].inclusion_probability or share[k] for k, index in enumerate(indexes)] for i in shared])
    return prediction_powered(judge, gold, pi), [int(c) for c in counts]


def _row(k: int, runs: Sequence[PredictionRun], values: np.ndarray, shared: list[str], stats: Simultaneous,
         best: int, baseline: int, margin: float | None, binary: bool, per_item: bool = True) -> ConfigRow:
    to_best = stats.interval(k, best) if k != best else None
    to_base = stats.interval(k, baseline) if k != baseline else None
    if margin is not None and to_base is not None and to_base[1] < -margin:
        verdict = worse_than_baseline(margin, binary)
    elif k == best:
        verdict = BEST
    elif to_best is not None and to_best[1] < 0:
        verdict = WORSE_THAN_BEST
    else:
        verdict = NOT_SHOWN
    column, top, base = values[:, k], values[:, best], values[:, baseline]
    differs = tuple(shared[q] for q in np.flatnonzero(column != top)) if per_item else ()
    regressed = (tuple(shared[q] for q in np.flatnonzero((base >= 0.5) & (column < 0.5)))
                 if binary and per_item else ())
    rate_interval = stats.rate_interval(k)
    return ConfigRow(k, runs[k].name, runs[k].path, float(stats.means[k]), rate_interval,
                     float(stats.diff[k, baseline]), to_base, float(stats.diff[k, best]), to_best, verdict,
                     k == baseline, differs, regressed)


def records_of(sweep: Sweep, index: int, ids: Sequence[str]) -> list[ItemRecord]:
    """The records of run ``index`` for ``ids`` (the page's and JUnit's per-config items)."""
    by_id = sweep.runs[index].by_id()
    return [by_id[i] for i in ids if i in by_id]


__all__ = [
    "BEST",
    "NOT_SHOWN",
    "WORSE_THAN_BEST",
    "ConfigGate",
    "ConfigRow",
    "LeftOut",
    "Sweep",
    "SweepGate",
    "check_sweep",
    "match_all",
    "people_values",
    "records_of",
    "with_sweep_labels",
    "worse_than_baseline",
]
