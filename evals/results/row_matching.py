"""Two predictions files side by side: which kind of comparison it is and which rows match (what
``comparison.Comparison``, the one comparison of two runs, measures its pairs on).

Why the kind matters: the same answers judged by two judges say which judge agrees more with
people (``Comparison`` measures that against the gold labels); two configs' answers judged by
one judge say which config is better, and need no labels. Which one it is follows from the files:
answers that differ under a shared id make it a run comparison.

Why rows are named: an id only one file has, or an id whose question differs between the files,
is not a pair; it is left out of the paired figures and listed (count and first ids), never
silently dropped or set beside another question's verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ragjury.evals.io.predictions import PredictionRun

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


def match_rows(a: PredictionRun, b: PredictionRun) -> Matching:
    """Join on the id; a shared id whose question text differs (both files have one) is no pair."""
    index_a, index_b = a.by_id(), b.by_id()
    pairs, different = [], []
    for ident, record in index_a.items():
        other = index_b.get(ident)
        if other is None:
            continue
        if record.question is not None and other.question is not None and record.question.strip() != other.question.strip():
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
    index_a, index_b = a.by_id(), b.by_id()
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
            records.append(replace(record, id=record.question.strip()))
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
    ids_b = {r.id for r in b.records}
    if not any(r.id in ids_b for r in a.records):
        raise ValueError(f"no id in common between {a.path} and {b.path}: nothing to pair")


__all__ = [
    "CAVEAT",
    "as_note",
    "ComparisonKind",
    "IdList",
    "KIND_TEXT",
    "Matching",
    "check_comparable",
    "split_by_system",
    "comparison_kind",
    "judge_of",
    "match_rows",
]
