"""Two runs compared: one type, ``Comparison.of(a, b)``, for every door — ``report A B`` (the
terminal, ``--json``, the HTML, the gate, the step summary) and ``compare_predictions`` in Python.

It holds what is measured of the pair once: which kind of comparison it is and which rows pair
(``comparison_kind``, ``match_rows``), each run's result, the paired difference B - A on the
questions both runs scored, the paired differences of agreement with people on the labelled items
both have, how each verdict moved from A to B, and the regression gate (``gate``: ``--fail-if-worse``
and ``--fail-unless-within``, the rule of ``regression_gate``). Apart from the page (``run_report``)
because it is a measurement, not a view.

Why the kind matters: the same answers judged by two judges say which judge agrees more with
people (``Comparison`` measures that against the gold labels); two configs' answers judged by
one judge say which config is better, and need no labels. Which one it is follows from the files:
answers that differ under a shared id make it a run comparison.

Why rows are named: an id only one file has, or an id whose question differs between the files,
is not a pair; it is left out of the paired figures and listed (count and first ids), never
silently dropped or set beside another question's verdict. How rows pair is part of the one
comparison (``report`` checks two files with ``check_comparable`` and splits one combined file with
``split_by_system`` before it measures them), so it lives here with it.

The regression gate of ``report BASELINE NEW --fail-if-worse MARGIN`` (stop a merge on evidence)
is a question asked of the one comparison: ``Comparison.gate`` is its rule's only caller in
``evals``, and the rule reads nothing but the pair's paired difference and matched rows, so it lives
here with them (``regression_gate``, ``people_gate``, ``step_summary``; ``bench/bench_regression_gate.py``
measures it). The rule (a one-sided test of "NEW is worse by more than MARGIN"): the gate fails when
the upper end of the 95 % paired bootstrap interval of NEW - BASELINE, over the questions both runs
scored, is below -MARGIN; that is, when the data say with about 97.5 % confidence that NEW's rate
(or mean score) is lower by more than MARGIN. A drop inside the noise passes; a run that cannot
show its answers are no worse is not failed for it (that would be a non-inferiority gate, which
fails small golden sets for lack of evidence: ``rule="within"``, ``--fail-unless-within``, asks for
it). What it never lets through: NEW items the judge could not score (a failed judgment is no
verdict, and no pass), BASELINE's questions NEW lacks (an id whose question differs counts as
missing), and the same file twice (unless ``allow_same``); a comparison with too few shared questions
is said to be undecided, not passed silently, and under ``within`` it fails (no evidence, no pass).
Ids and questions pair in Unicode NFC (``keyed``, ``joined_runs.nfc``), as ``label-plan A B`` and
``estimate A B`` pair their questions.

Measure first, then draw: ``Comparison.of`` measures both runs (``FinishedRun.measure``), then the
pair, then what the views show of it (the lines, the tables, the notes, the breakdowns, the JSON),
all before any view runs; ``measure_runs`` does it for the one or two runs of ``report``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ragjury.evals.io.joined_runs import nfc
from ragjury.evals.io.predictions import ItemRecord, PredictionRun, differences
from ragjury.evals.results.breakdowns import Table, cost_table, system_table
from ragjury.evals.results.finished_run import FinishedRun
from ragjury.evals.results.formatting import fmt
from ragjury.evals.results.headline import unmeasured_kind
from ragjury.evals.stats.agreement import label_agreement
from ragjury.evals.stats.intervals import RESAMPLES, bootstrap_paired_difference
from ragjury.evals.stats.paired_runs import PairedDifference, paired_difference
from ragjury.evals.stats.run_result import MIN_BOOTSTRAP_N, RunResult
from ragjury.evals.stats.system_estimates import RARE_CLASS, WARN_BELOW


# -- which rows pair, and what kind of comparison it is ----------------------------------------------------

FIRST_IDS = 5
"""Ids named per kind of unmatched row (the count says how many more)."""

ComparisonKind = Literal["runs", "judges", "unknown"]

KIND_TEXT: dict[str, str] = {
    "runs": "run comparison: two runs' answers to the same questions, judged by the same judge",
    "judges": "judge comparison: the same answers, judged twice",
    "unknown": "comparison of two files on the same ids: they carry no answer text, so whether the answers "
    "differ is unknown",
}

CAVEAT = (
    "caveat: a judge's bias can differ between configs, so B - A is the judge's difference; for the "
    "people's: 'ragjury label-plan A.jsonl B.jsonl --budget 100 --out plan.jsonl', 'ragjury label plan.jsonl "
    "--out labels.jsonl', then 'ragjury report A.jsonl B.jsonl --labels labels.jsonl'"
)


def as_note(line: str) -> str:
    """A terminal line as a sentence of the report's notes (so a terminal showing both prints it once)."""
    return line[:1].upper() + line[1:] + "."


@dataclass(frozen=True)
class IdList:
    """How many ids, and the first few of them."""

    ids: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.ids)

    def text(self) -> str:
        shown = ", ".join(self.ids[:FIRST_IDS])
        more = f" and {self.count - FIRST_IDS:,} more" if self.count > FIRST_IDS else ""
        return f"{self.count:,} ({shown}{more})"

    def as_dict(self) -> dict[str, Any]:
        return {"count": self.count, "ids": list(self.ids[:FIRST_IDS])}


@dataclass(frozen=True)
class Matching:
    """The ids both files have with the same question (the pairs), and the rows that do not match."""

    pairs: tuple[str, ...]
    only_a: IdList
    only_b: IdList
    different_question: IdList

    def lines(self) -> list[str]:
        """One line per kind of unmatched row; none when every row matches."""
        out = []
        if self.only_a.count:
            out.append(f"ids only in A, left out of the pairs: {self.only_a.text()}")
        if self.only_b.count:
            out.append(f"ids only in B, left out of the pairs: {self.only_b.text()}")
        if self.different_question.count:
            out.append(
                f"ids with a different question in A and B, left out of the pairs: {self.different_question.text()}"
            )
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "only_a": self.only_a.as_dict(),
            "only_b": self.only_b.as_dict(),
            "different_question": self.different_question.as_dict(),
        }


def keyed(run: PredictionRun) -> dict[str, ItemRecord]:
    """A run's records by id in Unicode NFC (``joined_runs.nfc``): the index every pairing of two
    runs reads, so an id typed precomposed in one file and decomposed in the other still pairs."""
    return {nfc(ident): record for ident, record in run.by_id().items()}


def match_rows(a: PredictionRun, b: PredictionRun) -> Matching:
    """Join on the id (NFC); a shared id whose question text differs (both files have one, compared in
    NFC) is no pair."""
    index_a, index_b = keyed(a), keyed(b)
    pairs, different = [], []
    for ident, record in index_a.items():
        other = index_b.get(ident)
        if other is None:
            continue
        if record.question is not None and other.question is not None and nfc(record.question) != nfc(other.question):
            different.append(ident)
        else:
            pairs.append(ident)
    return Matching(
        tuple(pairs),
        IdList(tuple(i for i in index_a if i not in index_b)),
        IdList(tuple(i for i in index_b if i not in index_a)),
        IdList(tuple(different)),
    )


def comparison_kind(a: PredictionRun, b: PredictionRun, pairs: Sequence[str]) -> ComparisonKind:
    """``runs`` when any pair's answer differs between the files, ``judges`` when the answers
    are the same, ``unknown`` when no pair carries both answers' text (an older predictions file)."""
    index_a, index_b = keyed(a), keyed(b)
    compared = False
    for ident in pairs:
        answer_a, answer_b = index_a[ident].answer, index_b[ident].answer
        if answer_a is not None and answer_b is not None:
            compared = True
            if answer_a.strip() != answer_b.strip():
                return "runs"
    return "judges" if compared else "unknown"


def judge_of(run: PredictionRun) -> str:
    """Who judged a run: the judge as asked for, with its model and prompt version (several, joined)."""
    seen = set()
    for r in run.records:
        name = r.judge_name or r.judge
        if name is None:
            continue
        details = ", ".join(part for part in (r.model, r.prompt_version) if part)
        seen.add(f"{name} ({details})" if details else name)
    return " + ".join(sorted(seen)) if seen else "unknown judge"


def split_by_system(run: PredictionRun, a: str, b: str) -> tuple[PredictionRun, PredictionRun]:
    """Two systems of one combined predictions file as two runs joined on the question (the rows'
    ids differ between systems): what ``report FILE --compare A B`` compares. ``ValueError`` names
    a system the file does not have, or a row without question text."""
    from dataclasses import replace

    systems = sorted({r.system for r in run.records if r.system is not None})
    for name in (a, b):
        if name not in systems:
            raise ValueError(f"{run.path} has no system {name!r} (systems: {', '.join(systems) or 'none'})")
    runs = []
    for name in (a, b):
        records = []
        for record in run.records:
            if record.system != name:
                continue
            if not record.question:
                raise ValueError(f"{run.path}:{record.line}: --compare pairs the systems' rows on their question, "
                                 "and this row has none")
            records.append(replace(record, id=nfc(record.question)))
        runs.append(replace(run, name=name, records=records))
    return runs[0], runs[1]


def check_comparable(a: PredictionRun, b: PredictionRun) -> None:
    """Refuse what cannot be compared: two tasks, no id in common, an id with two different rows
    in one file (which one would be compared?). ``ValueError`` with the files named."""
    if a.task is not None and b.task is not None and a.task != b.task:
        raise ValueError(f"{a.path} is a {a.task} run and {b.path} a {b.task} run: report compares two runs of one task")
    if a.kind != b.kind:
        raise ValueError(f"{a.path} holds {a.kind} verdicts and {b.path} {b.kind} ones: they cannot be paired")
    for run in (a, b):
        if run.conflicting is not None:
            ident, line = run.conflicting
            raise ValueError(f"{run.path}:{line}: id {ident!r} appears twice with different verdicts or answers; "
                             "make ids unique (one row per id) before comparing")
    for run in (a, b):
        seen: dict[str, str] = {}
        for ident in run.by_id():
            other = seen.setdefault(nfc(ident), ident)
            if other != ident:
                raise ValueError(f"{run.path}: ids {other!r} and {ident!r} are the same text in two Unicode forms "
                                 "(NFC and NFD): make ids unique before comparing")
    ids_b = {nfc(r.id) for r in b.records}
    if not any(nfc(r.id) in ids_b for r in a.records):
        raise ValueError(f"no id in common between {a.path} and {b.path}: nothing to pair")


# -- the gate's rule ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GateOutcome:
    """Whether the gate failed, whether the data could decide, and the one-line reason."""

    failed: bool
    decided: bool
    reason: str
    margin: float
    rule: str = "worse"
    """``worse`` (``--fail-if-worse``) or ``within`` (``--fail-unless-within``): the outcome names its own rule."""

    @property
    def option(self) -> str:
        """The command-line option of this gate's rule (JUnit names its case for it)."""
        return "--fail-unless-within" if self.rule == "within" else "--fail-if-worse"

    @property
    def word(self) -> str:
        """FAILED, undecided or passed: how the gate's line and the step summary say the outcome."""
        return "FAILED" if self.failed else ("undecided" if not self.decided else "passed")

    def as_dict(self) -> dict[str, Any]:
        if self.rule == "within":
            rule = ("fail unless the lower end of the 95 % paired interval of NEW - BASELINE is above -margin "
                    "(too few questions to show it fails too)")
        else:
            rule = "fail when the upper end of the 95 % paired interval of NEW - BASELINE is below -margin"
        return {"failed": self.failed, "decided": self.decided, "margin": self.margin, "reason": self.reason,
                "option": self.option,
                "rule": rule + ", or when NEW has unscored items among the shared ones or lacks BASELINE's questions"}


def _amount(value: float, binary: bool) -> str:
    scaled = round(value * 100, 1) if binary else round(value, 3)
    scaled = scaled + 0.0  # -0.0 -> 0.0: a margin of 0 is "0.0 points", never "-0.0"
    return f"{scaled:+.1f} points" if binary else f"{scaled:+.3f}"


def _limit(margin: float, binary: bool) -> str:
    """-MARGIN as the gate's line says it: ``-2.0 points``; a margin of 0 is ``0.0 points``."""
    if margin == 0:
        return "0.0 points" if binary else "0.000"
    return _amount(-margin, binary)


RULES = ("worse", "within")
"""``worse`` (``--fail-if-worse``): fail when NEW is *shown* worse by more than the margin (the upper
end of the paired interval of NEW - BASELINE below -margin). ``within`` (``--fail-unless-within``,
non-inferiority): fail unless NEW is shown no worse than the margin (the lower end above -margin):
a measured drop inside the noise fails it, and a small golden set fails it for lack of evidence."""


def check_margin(margin: float) -> float:
    """A margin is a finite share in [0, 1]: NaN would compare false with everything and pass."""
    if isinstance(margin, bool) or not isinstance(margin, int | float) or not math.isfinite(margin) or not 0 <= margin <= 1:
        raise ValueError(f"margin must be a share in [0, 1] (0.02 = 2 points), got {margin!r}")
    return float(margin)


def regression_gate(
    paired: PairedDifference,
    margin: float,
    *,
    unscored_new: int,
    missing_new: int = 0,
    baseline_n: int = 0,
    allow_missing: bool = False,
    same_file: bool = False,
    unmeasured: str | None = None,
    require_measured: bool = False,
    rule: str = "worse",
    allow_same: bool = False,
    different_question: int = 0,
    measured_gap: str | None = None,
) -> GateOutcome:
    """Apply the rule to the paired difference of BASELINE (A) and NEW (B).

    Questions of BASELINE that NEW lacks fail the gate unless ``allow_missing``: a NEW run that
    dropped the questions it got wrong must not pass on the rest (``different_question``: how many
    of ``missing_new`` are ids whose question text differs in NEW, so they did not pair). The same
    file twice fails unless ``allow_same``: nothing was compared. ``measured_gap``: what a run's
    judge lacks to count as measured against people (``require_measured`` fails the gate on it)."""
    margin = check_margin(margin)
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
    outcome = _decide(paired, margin, unscored_new, missing_new, baseline_n, allow_missing, same_file, rule,
                      allow_same=allow_same, different_question=different_question)
    if unmeasured is None and not (require_measured and measured_gap):
        return outcome
    said = outcome.reason
    if unmeasured is not None:
        said += f"; the judge ({unmeasured}) is not measured against your labels"
    if require_measured and measured_gap:
        return GateOutcome(True, True, f"not measured against people (--require-measured): {measured_gap}; "
                           f"the runs: {said}", margin, rule)
    return GateOutcome(outcome.failed, outcome.decided, said, margin, rule)


def _decide(
    paired: PairedDifference, margin: float, unscored_new: int, missing_new: int, baseline_n: int,
    allow_missing: bool, same_file: bool, rule: str = "worse", *, allow_same: bool = False,
    different_question: int = 0,
) -> GateOutcome:
    binary = paired.binary
    if same_file:
        if allow_same:
            return GateOutcome(False, False, "BASELINE and NEW are the same file: the same run compared with itself, "
                               "nothing was compared (accepted: --allow-same)", margin, rule)
        return GateOutcome(True, False, "BASELINE and NEW are the same file: the same run compared with itself shows "
                           "nothing (give the baseline run's predictions and the new run's, or --allow-same to "
                           "accept it)", margin, rule)
    if missing_new and not allow_missing:
        which = (f" ({different_question:,} of them under ids whose question differs in NEW, so they could not pair)"
                 if different_question else "")
        return GateOutcome(True, True, f"NEW lacks {missing_new:,} of BASELINE's {baseline_n:,} questions{which}: a "
                           "run that leaves questions out is not compared on the rest (--allow-missing to accept)",
                           margin, rule)
    if unscored_new:
        return GateOutcome(True, True, f"NEW has {unscored_new:,} unscored items among the shared questions: "
                           "a failed judgment never passes a gate (fix the judge or server, then re-run)", margin, rule)
    limit = _limit(margin, binary)
    if paired.difference is None or paired.interval is None:
        few = f"{paired.n_pairs:,} questions scored in both runs, fewer than {MIN_BOOTSTRAP_N}"
        if rule == "within":  # non-inferiority: no evidence is no pass
            return GateOutcome(True, False, f"too few questions to show NEW within {limit}: {few}; "
                               "--fail-unless-within fails for lack of evidence (add golden questions)", margin, rule)
        return GateOutcome(False, False, f"{few}; too few to show a regression (add golden questions)", margin, rule)
    low, high = paired.interval.low, paired.interval.high
    figure = (f"NEW - BASELINE {_amount(paired.difference, binary)} [{_amount(low, binary)}, {_amount(high, binary)}] "
              f"over {paired.n_pairs:,} questions, p = {paired.p_value:.3g} ({paired.test})")
    missing = f"; {missing_new:,} of BASELINE's questions missing from NEW (allowed)" if missing_new else ""
    if rule == "within":  # non-inferiority: NEW must show it is no worse than -margin
        if low > -margin:
            return GateOutcome(False, True, f"shown within {limit}: {figure}{missing}", margin, rule)
        return GateOutcome(True, True, f"not shown within {limit} (the interval's lower end is not above it): "
                           f"{figure}{missing}", margin, rule)
    if high < -margin:
        return GateOutcome(True, True, f"worse: {figure}; the whole interval is below {limit}{missing}", margin, rule)
    return GateOutcome(False, True, f"not shown worse than {limit}: {figure}{missing}", margin, rule)


def step_summary(outcome: GateOutcome, names: tuple[str, str], rates: tuple[str, str]) -> str:
    """The gate as Markdown for a GitHub Actions step summary ($GITHUB_STEP_SUMMARY)."""
    if outcome.failed:  # a regression shown by the data, or a failure for another reason (missing, unscored, ...)
        status = "❌ regression" if outcome.reason.startswith(("worse", "not shown within")) else "❌ failed"
    else:
        status = "⚠️ undecided" if not outcome.decided else "✅ no regression"
    return "\n".join([
        f"### ragjury regression gate ({outcome.option} {outcome.margin:g}): {status}", "",
        "| run | result |", "|---|---|",
        f"| BASELINE ({names[0]}) | {rates[0]} |",
        f"| NEW ({names[1]}) | {rates[1]} |", "",
        outcome.reason, "",
    ])


def people_gate(difference: Any, margin: float, *, rule: str = "worse", judge_gate: GateOutcome | None = None) -> GateOutcome:
    """The gate on B − A as people would judge it (``estimate A B --labels``: prediction-powered,
    joined on the question) under the same two rules. The judge's own gate still decides where NEW
    lacks questions or has unscored items, or is the same file: a failed judgment never passes."""
    margin = check_margin(margin)
    if judge_gate is not None and judge_gate.failed and judge_gate.reason.startswith((
            "NEW lacks", "NEW has", "BASELINE and NEW are", "not measured against people")):
        return judge_gate
    d = difference.estimate
    figure = (f"as people would judge it, NEW - BASELINE {_amount(d.value, True)} [{_amount(d.low, True)}, "
              f"{_amount(d.high, True)}] ({difference.method}; {d.n_labels:,} labels)")
    limit = _limit(margin, True)
    if rule == "within":
        if d.low > -margin:
            return GateOutcome(False, True, f"shown within {limit}: {figure}", margin, rule)
        return GateOutcome(True, True, f"not shown within {limit} (the interval's lower end is not above it): {figure}",
                           margin, rule)
    if d.high < -margin:
        return GateOutcome(True, True, f"worse: {figure}; the whole interval is below {limit}", margin, rule)
    return GateOutcome(False, True, f"not shown worse than {limit}: {figure}", margin, rule)


def measured_gap(letter: str, run: FinishedRun) -> str | None:
    """What run ``letter``'s judge lacks to count as measured against people (``--require-measured``),
    or None: a built-in judge (measured on public data), or one with the labels ``estimate`` asks for
    (``system_estimates.WARN_BELOW`` people labels on scored items, ``RARE_CLASS`` of each class for
    yes/no verdicts). One gold label of 16 rows measures nothing."""
    kind = unmeasured_kind(run.judge)
    if kind is None:
        return None
    gold = [record.gold for record in run.records if record.gold is not None and not record.unscored]
    asked = f"'ragjury estimate' asks for {WARN_BELOW} people labels"
    if run.run.kind == "binary":
        yes = sum(bool(label) for label in gold)
        no = len(gold) - yes
        if len(gold) >= WARN_BELOW and min(yes, no) >= RARE_CLASS:
            return None
        return (f"run {letter}'s judge ({kind}) has {len(gold):,} people labels on scored items ({yes:,} yes, "
                f"{no:,} no): {asked}, at least {RARE_CLASS} of each class")
    if len(gold) >= WARN_BELOW:
        return None
    return f"run {letter}'s judge ({kind}) has {len(gold):,} people labels on scored items: {asked}"


# -- the comparison ----------------------------------------------------------------------------------------


@dataclass
class Comparison:
    """Run A (BASELINE) and run B (NEW) on the items both have: the kind, each run's result, B - A
    on the pairs (with its interval and p), the rows that do not match, paired differences of
    agreement with people (binary runs), how many verdicts changed and the matrix of verdicts A
    (rows) vs B (columns); ``gate`` is the regression gate on them."""

    first: FinishedRun = field(repr=False, compare=False)
    second: FinishedRun = field(repr=False, compare=False)
    kind: ComparisonKind
    matching: Matching
    results: tuple[RunResult, RunResult]
    paired: PairedDifference
    task: str | None
    judges: tuple[str, str] | None
    """Who judged A and B (``judge_of``); they differ in a comparison of two judges' runs."""
    shared: int
    changed: int
    labelled: int
    differences: dict[str, dict[str, Any]]
    transitions: dict[str, dict[str, int]]
    labels_differ: int = 0
    """Paired items whose people labels differ between A and B (each run is scored against its own)."""
    people: Any = None
    """B − A as people would judge it (``estimate_predictions`` of both runs with labels), or None:
    where it has a difference, the gate decides on it."""
    # what the views show of the pair, made when it is measured (``_shown``): they read these fields
    first_lines: tuple[str, ...] = ()
    """The lines ``report A B`` prints first (``lines()``)."""
    difference_shown: str = "-"
    """B - A with its interval, in words (``difference_text()``)."""
    tables: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """The paired differences and verdict changes as report tables (``comparison_tables``)."""
    kind_note: str = ""
    """The kind of comparison as the report's first note."""
    pair_notes: tuple[str, ...] = ()
    """The notes of the pair after the runs' own: unmatched rows, the caveat, differing gold labels."""
    systems: Table = field(default_factory=dict)
    """The per-system breakdown of both runs (``breakdowns.system_table``)."""
    costs: Table = field(default_factory=dict)
    """Latency, tokens and cost per judge of both runs (``breakdowns.cost_table``)."""
    document: dict[str, Any] = field(default_factory=dict)
    """``as_dict()`` as measured (without ``people``, which the command adds where it has them)."""

    @classmethod
    def of(cls, first: FinishedRun, second: FinishedRun, *, resamples: int = RESAMPLES) -> Comparison:
        """The comparison of two finished runs, measured once: every view of ``report A B`` (the
        terminal, ``--json``, the HTML, the gate, the step summary) asks for it and gets the same
        object, so its paired bootstrap runs once per command."""
        key = (id(second), resamples)
        made = first.comparisons.get(key)
        if made is None or made[0] is not second:
            first.measure()
            second.measure()
            made = (second, _shown(_measure(first, second, resamples)))
            first.comparisons[key] = made
        return made[1]

    # -- the two runs ------------------------------------------------------------------------

    @property
    def baseline(self) -> PredictionRun:
        """Run A's records (BASELINE of the gate)."""
        return self.first.run

    @property
    def new(self) -> PredictionRun:
        """Run B's records (NEW of the gate)."""
        return self.second.run

    @property
    def binary(self) -> bool:
        return self.paired.binary

    @property
    def same_judge(self) -> bool:
        return self.judges is None or self.judges[0] == self.judges[1]

    @property
    def difference(self) -> float | None:
        """NEW - BASELINE over the questions both runs scored."""
        return self.paired.difference

    # -- the gate ----------------------------------------------------------------------------

    def gate(self, margin: float = 0.0, *, allow_missing: bool = False, rule: str = "worse",
             require_measured: bool = False, same_file: bool | None = None, allow_same: bool = False) -> GateOutcome:
        """The regression gate, ``report A B --fail-if-worse margin`` (``rule="within"``:
        ``--fail-unless-within``): ``.failed`` when NEW is shown worse by more than ``margin``, has
        unscored items among the shared questions, or lacks questions of BASELINE (unless
        ``allow_missing``); ``require_measured`` fails it when a run's judge (a rubric, a Python
        check, a fitted head) was never measured against people's labels. With ``people``, their
        B − A decides. ``same_file``: whether A and B are one file (by default, whether the two
        runs' paths name one existing file); it fails unless ``allow_same``. BASELINE's ids whose
        question differs in NEW did not pair, and count as missing."""
        from ragjury.evals.io.atomic_io import one_existing_file

        by_id = keyed(self.new)
        unscored_new = sum(1 for key in self.matching.pairs if by_id[key].unscored)
        if same_file is None:
            same_file = one_existing_file(self.baseline.path, self.new.path)
        kinds = {unmeasured_kind(figures.judge) for figures in (self.first, self.second) if not figures.labelled}
        unmeasured = next((kind for kind in kinds if kind), None)
        gaps = [gap for letter, figures in zip("AB", (self.first, self.second))
                if (gap := measured_gap(letter, figures)) is not None]
        different = self.matching.different_question.count
        outcome = regression_gate(self.paired, margin, unscored_new=unscored_new,
                                  missing_new=self.matching.only_a.count + different,
                                  baseline_n=len(keyed(self.baseline)), allow_missing=allow_missing,
                                  same_file=same_file, unmeasured=unmeasured, require_measured=require_measured,
                                  rule=rule, allow_same=allow_same, different_question=different,
                                  measured_gap="; ".join(gaps) or None)
        if self.people is not None and self.people.comparison is not None:  # people's B - A decides
            outcome = people_gate(self.people.comparison, margin, rule=rule, judge_gate=outcome)
        return outcome

    def rates(self) -> tuple[str, str]:
        """Each run's result line (what a yes means: the second run's verdict task), for the step summary."""
        task = self.second.verdict_task  # "judged correct", never "judged true"
        return (self.results[0].lines(task)[0], self.results[1].lines(task)[0])

    # -- the lines ---------------------------------------------------------------------------

    @property
    def judged_differently(self) -> list[str]:
        """How the two runs' headers say they were judged differently (``evals.io.predictions.differences``):
        model, prompt versions, options...; empty where they agree or a run has no header."""
        return differences(self.first.run.header, self.second.run.header)

    def headline(self) -> str:
        apart = self.judged_differently
        if apart and self.kind == "runs":
            return (f"run comparison: two runs judged DIFFERENTLY by their run headers ({'; '.join(apart)}), so B - A "
                    "mixes the answers' difference with the judges'")
        if self.kind == "runs" and not self.same_judge:
            assert self.judges is not None
            return (f"run comparison: two runs' answers to the same questions, judged by DIFFERENT judges (A: "
                    f"{self.judges[0]}; B: {self.judges[1]}), so B - A mixes the answers' difference with the judges'")
        return KIND_TEXT[self.kind]

    def difference_text(self) -> str:
        """``+12.5 points [+2.5, +22.5]`` (rates) or ``+0.041 [-0.010, +0.090]`` (mean scores)."""
        p = self.paired
        if p.difference is None:
            return "-"
        scale, digits, unit = (100.0, 1, " points") if self.binary else (1.0, 3, "")

        def signed(value: float) -> str:  # rounded first, so a tiny negative is "+0.0", never "-0.0"
            return f"{round(value * scale, digits) + 0.0:+.{digits}f}"

        text = f"{signed(p.difference)}{unit}"
        if p.interval is not None:
            text += f" [{signed(p.interval.low)}, {signed(p.interval.high)}]"
        else:
            text += f" (no interval: {p.n_pairs} paired, fewer than {MIN_BOOTSTRAP_N})"
        return text

    def lines(self, names: Sequence[str] | None = None) -> list[str]:
        """The lines ``report A B`` prints first: kind, each run's result, B - A with interval and
        p-value, the pair counts, unmatched rows, and (run comparison) the caveat. ``names``: the
        runs' names (by default, as their files name them)."""
        names = [self.baseline.name, self.new.name] if names is None else names
        out = [self.headline()]
        for letter, name, result in zip("AB", names, self.results, strict=True):
            first = result.lines(self.task)[0]
            out.append(f"{letter} ({name}) {first}")
        p = self.paired
        if p.difference is None:
            out.append("B - A: no question scored in both runs")
        else:
            how = (f"95 % paired bootstrap over {p.n_pairs:,} questions" if p.interval is not None
                   else f"over {p.n_pairs:,} questions")
            own = [result.overall.n_scored for result in self.results]
            paired_rates = ""
            if own != [p.n_pairs, p.n_pairs] and p.a_mean is not None and p.b_mean is not None:
                scale, unit = (100.0, " %") if self.binary else (1.0, "")
                digits = 1 if self.binary else 3
                paired_rates = (f"; on those questions A {p.a_mean * scale:.{digits}f}{unit}, "
                                f"B {p.b_mean * scale:.{digits}f}{unit} (the rates above cover "
                                f"{own[0]:,} and {own[1]:,} scored items)")
            out.append(f"B - A: {self.difference_text()} ({how}), p = {p.p_value:.3g} ({p.test}){paired_rates}")
        counts = p.counts
        if self.binary:
            out.append(
                f"questions: A only {counts['a_only']:,}, B only {counts['b_only']:,}, both {counts['both']:,}, "
                f"neither {counts['neither']:,}" + (f"; {p.n_unpaired:,} unscored in A or B" if p.n_unpaired else "")
            )
        else:
            out.append(
                f"questions: A higher {counts['a_higher']:,}, B higher {counts['b_higher']:,}, tied {counts['tied']:,}"
                + (f"; {p.n_unpaired:,} unscored in A or B" if p.n_unpaired else "")
            )
        out.extend(self.matching.lines())
        if self.kind == "runs":
            out.append(CAVEAT)
        return out

    def __str__(self) -> str:
        lines = self.lines()
        if self.people is not None:  # labelled: people's B - A first, the judges' own after it (#53 item 6)
            from ragjury.evals.results.headline import people_difference_lines

            lines = [*people_difference_lines(self.people), "the judges' own rates:", *lines]
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """``report A B --json``'s ``comparison`` (with ``people_estimate`` where ``people`` is set)."""
        return {
            "kind": self.kind,
            "unmatched": self.matching.as_dict(),
            "paired": self.paired.as_dict(),
            "caveat": CAVEAT.removeprefix("caveat: ") if self.kind == "runs" else None,
            "items_shared": self.shared,
            "verdicts_changed": self.changed,
            # agreement with people's labels: null, not 0 and {}, when no shared item has a label
            "paired_items": self.labelled or None,
            "paired_items_labels_differ": self.labels_differ if self.labelled else None,
            "paired_difference": self.differences or None,
            "transitions": self.transitions,
            "judged_differently": self.judged_differently,
            **({"people_estimate": self.people.as_dict()} if self.people is not None else {}),
        }


def _measure(first: FinishedRun, second: FinishedRun, resamples: int) -> Comparison:
    """What changed from run A to run B, joined on the item id (an id whose question differs is
    no pair: ``match_rows`` names it)."""
    run_a, run_b = first.run, second.run
    matching = match_rows(run_a, run_b)  # first which rows pair, what kind of comparison, who judged
    kind = comparison_kind(run_a, run_b, matching.pairs)
    judges = (judge_of(run_a), judge_of(run_b))
    a, b = keyed(run_a), keyed(run_b)
    binary = run_a.kind == "binary"
    paired_runs = paired_difference([a[i].label for i in matching.pairs], [b[i].label for i in matching.pairs],
                                    binary=binary)
    task = run_a.task
    if first.verdict_task == second.verdict_task != task:  # two rubric runs: "judged to meet the criterion"
        task = first.verdict_task
    shared = list(matching.pairs)
    mismatched = set(matching.different_question.ids)
    changed = sum(
        1 for k in shared if a[k].unscored != b[k].unscored or (not a[k].unscored and a[k].label != b[k].label)
    )
    differences: dict[str, dict[str, Any]] = {}
    # each run is scored against its own people labels: two systems' answers to one question differ,
    # and so may their labels (scoring B against A's labels made a good B look bad)
    paired = [k for k in shared if a[k].gold is not None and b[k].gold is not None] if binary else []
    labels_differ = sum(1 for k in paired if bool(a[k].gold) != bool(b[k].gold))
    if paired:
        gold_a = [bool(a[k].gold) for k in paired]
        gold_b = [bool(b[k].gold) for k in paired]
        pa = [None if a[k].label is None else bool(a[k].label) for k in paired]
        pb = [None if b[k].label is None else bool(b[k].label) for k in paired]
        fa = label_agreement(gold_a, pa, labels=[False, True])
        fb = label_agreement(gold_b, pb, labels=[False, True])
        intervals = bootstrap_paired_difference(gold_a, pa, pb, labels=[False, True], resamples=resamples,
                                                gold_b=gold_b)
        for name in ("accuracy", "cohen_kappa"):
            va, vb = getattr(fa, name), getattr(fb, name)
            interval = intervals[name]
            differences[name] = {
                "a": va,
                "b": vb,
                "difference": None if va is None or vb is None else vb - va,
                "interval": None if interval is None else interval.as_list(),
            }
    labels = ["false", "true", "unscored", "absent"] if binary else ["scored", "unscored", "absent"]
    matrix: dict[str, dict[str, int]] = {f"A {name}": {f"B {n}": 0 for n in labels} for name in labels}
    for k in dict.fromkeys([nfc(r.id) for r in first.records] + [nfc(r.id) for r in second.records]):
        if k in mismatched:
            continue
        name_a, name_b = _label_name(a.get(k)), _label_name(b.get(k))
        if not binary:
            name_a = name_a if name_a in ("unscored", "absent") else "scored"
            name_b = name_b if name_b in ("unscored", "absent") else "scored"
        matrix[f"A {name_a}"][f"B {name_b}"] += 1
    rows = {row: cols for row, cols in matrix.items() if any(cols.values())}
    keep = [c for c in (f"B {n}" for n in labels) if any(cols[c] for cols in rows.values())]
    transitions = {row: {c: cols[c] for c in keep} for row, cols in rows.items()}
    return Comparison(first, second, kind, matching, (first.result, second.result), paired_runs, task, judges,
                      len(shared), changed, len(paired), differences, transitions, labels_differ)


def _shown(comparison: Comparison) -> Comparison:
    """What the views show of a comparison just measured, made now (its lines, tables, notes,
    breakdowns and JSON document), so that no view asks the comparison for anything."""
    first, second = comparison.first, comparison.second
    comparison.first_lines = tuple(comparison.lines())
    comparison.difference_shown = comparison.difference_text()
    comparison.tables = comparison_tables(comparison)
    comparison.kind_note = as_note(comparison.headline())
    notes = [as_note(line) for line in comparison.matching.lines()]
    if notes:
        notes.append("Figures are per run; paired differences and verdict changes count the pairs.")
    if comparison.kind == "runs":
        notes.append(as_note(CAVEAT))
    a, b = keyed(first.run), keyed(second.run)
    differing = sum(
        1 for k in a.keys() & b.keys() if a[k].gold is not None and b[k].gold is not None and a[k].gold != b[k].gold
    )
    if differing:
        notes.append(f"{differing:,} shared item(s) have different gold labels in A and B; A's are shown.")
    comparison.pair_notes = tuple(notes)
    comparison.systems = system_table([first, second])
    comparison.costs = cost_table([first.run, second.run])
    comparison.document = comparison.as_dict()
    return comparison


def measure_runs(
    runs: Sequence[PredictionRun], *, resamples: int = RESAMPLES
) -> tuple[list[FinishedRun], Comparison | None]:
    """One run, or two of one kind, as finished runs measured now, before any view draws them:
    each run's figures (``FinishedRun.measure``) and, for two, their ``Comparison`` (kept on the
    first run). ``ValueError`` for none, more than two, or two of different kinds."""
    if not runs or len(runs) > 2:
        raise ValueError("a report shows one run or compares two")
    if len(runs) == 2 and runs[0].kind != runs[1].kind:
        raise ValueError(
            f"{runs[0].path} holds {runs[0].kind} labels but {runs[1].path} holds {runs[1].kind} ones: "
            "compare runs of the same task"
        )
    finished = [FinishedRun(run, resamples=resamples) for run in runs]
    if len(finished) == 1:
        finished[0].measure()
        return finished, None
    return finished, Comparison.of(finished[0], finished[1], resamples=resamples)


def _label_name(record: ItemRecord | None) -> str:
    if record is None:
        return "absent"
    if record.unscored or record.label is None:
        return "unscored"
    return fmt(record.label)


def comparison_tables(comparison: Comparison) -> dict[str, dict[str, dict[str, Any]]]:
    """The comparison as report tables: paired differences with intervals, verdict transitions."""
    tables: dict[str, dict[str, dict[str, Any]]] = {}
    if comparison.differences:
        differ = (f"; their people labels differ on {comparison.labels_differ:,}, each run scored against its own"
                  if comparison.labels_differ else "")
        tables[f"Paired difference on the {comparison.labelled:,} labelled items both runs have{differ}"] = {
            name: {
                "A": row["a"],
                "B": row["b"],
                "B - A": row["difference"],
                "95 % interval of B - A": "-" if row["interval"] is None else f"[{row['interval'][0]:.3f}, {row['interval'][1]:.3f}]",
            }
            for name, row in comparison.differences.items()
        }
    if comparison.binary:
        tables["Verdicts, A (rows) vs B (columns)"] = {row: dict(cols) for row, cols in comparison.transitions.items()}
    else:  # a score has no verdict to change: which run scored each shared question higher
        counts = comparison.paired.counts
        tables["Scores on the questions both runs scored"] = {
            "questions": {"A higher": counts["a_higher"], "B higher": counts["b_higher"], "tied": counts["tied"]}}
    return tables


__all__ = [
    "CAVEAT",
    "KIND_TEXT",
    "RULES",
    "Comparison",
    "ComparisonKind",
    "GateOutcome",
    "IdList",
    "Matching",
    "as_note",
    "check_comparable",
    "check_margin",
    "comparison_kind",
    "comparison_tables",
    "judge_of",
    "keyed",
    "match_rows",
    "measure_runs",
    "measured_gap",
    "people_gate",
    "regression_gate",
    "split_by_system",
    "step_summary",
]
