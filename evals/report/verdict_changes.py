"""Two runs' verdicts item by item: the paired B - A differences on the labelled items both have,
and how each verdict moved from A to B.

Apart from the page (``run_report``) because it is a measurement, not a view: ``report A B --json``
and the HTML read the same ``Comparison``; ``run_comparison`` decides first which kind of
comparison it is and which rows pair.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ragjury.evals.io.predictions import ItemRecord
from ragjury.evals.report.formatting import fmt
from ragjury.evals.report.run_comparison import RunComparison, compare_two_runs
from ragjury.evals.stats.intervals import RESAMPLES, bootstrap_paired_difference

if TYPE_CHECKING:
    from ragjury.evals.report.finished_run import FinishedRun


@dataclass
class Comparison:
    """Two runs on the items both have: paired B - A differences with intervals (binary runs),
    how many verdicts changed, and the matrix of verdicts A (rows) vs B (columns)."""

    shared: int
    changed: int
    labelled: int
    differences: dict[str, dict[str, Any]]
    transitions: dict[str, dict[str, int]]
    runs: RunComparison
    """The kind, each run's result, B - A without labels, and the rows that do not match."""
    labels_differ: int = 0
    """Paired items whose people labels differ between A and B (each run is scored against its own)."""

    @classmethod
    def of(cls, first: FinishedRun, second: FinishedRun, *, resamples: int = RESAMPLES) -> Comparison:
        """The comparison of two finished runs, measured once: every view of ``report A B`` (the
        terminal, ``--json``, the HTML, the gate, the step summary) asks for it and gets the same
        object, so its paired bootstrap runs once per command."""
        key = (id(second), resamples)
        made = first.comparisons.get(key)
        if made is None or made[0] is not second:
            made = (second, _measure(first, second, resamples))
            first.comparisons[key] = made
        return made[1]

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.runs.as_dict(),
            "items_shared": self.shared,
            "verdicts_changed": self.changed,
            # agreement with people's labels: null, not 0 and {}, when no shared item has a label
            "paired_items": self.labelled or None,
            "paired_items_labels_differ": self.labels_differ if self.labelled else None,
            "paired_difference": self.differences or None,
            "transitions": self.transitions,
        }


def compare_runs(first: FinishedRun, second: FinishedRun, *, resamples: int = RESAMPLES) -> Comparison:
    """What changed from run A to run B (``Comparison.of``: measured once per pair of runs)."""
    return Comparison.of(first, second, resamples=resamples)


def _measure(first: FinishedRun, second: FinishedRun, resamples: int) -> Comparison:
    """What changed from run A to run B, joined on the item id (an id whose question differs is
    no pair: ``run_comparison.match_rows`` names it)."""
    a, b = first.run.by_id(), second.run.by_id()
    runs = compare_two_runs(first.run, second.run, (first.result, second.result))
    if first.verdict_task == second.verdict_task != runs.task:  # two rubric runs: "judged to meet the criterion"
        runs = replace(runs, task=first.verdict_task)
    shared = list(runs.matching.pairs)
    mismatched = set(runs.matching.different_question.ids)
    changed = sum(
        1 for k in shared if a[k].unscored != b[k].unscored or (not a[k].unscored and a[k].label != b[k].label)
    )
    binary = first.run.kind == "binary"
    differences: dict[str, dict[str, Any]] = {}
    # each run is scored against its own people labels: two systems' answers to one question differ,
    # and so may their labels (scoring B against A's labels made a good B look bad)
    paired = [k for k in shared if a[k].gold is not None and b[k].gold is not None] if binary else []
    labels_differ = sum(1 for k in paired if bool(a[k].gold) != bool(b[k].gold))
    if paired:
        from ragjury.evals.stats.agreement import label_agreement

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
    for k in dict.fromkeys([r.id for r in first.records] + [r.id for r in second.records]):
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
    return Comparison(len(shared), changed, len(paired), differences, transitions, runs, labels_differ)


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
    if comparison.runs.binary:
        tables["Verdicts, A (rows) vs B (columns)"] = {row: dict(cols) for row, cols in comparison.transitions.items()}
    else:  # a score has no verdict to change: which run scored each shared question higher
        counts = comparison.runs.paired.counts
        tables["Scores on the questions both runs scored"] = {
            "questions": {"A higher": counts["a_higher"], "B higher": counts["b_higher"], "tied": counts["tied"]}}
    return tables


__all__ = ["Comparison", "compare_runs", "comparison_tables"]
