"""What a labelling session measured: labels, time, people against people, and the judge against people.

Why people against people: the agreement two people reach on the same items is the ceiling a judge
can be held to; a judge's kappa of 0.5 reads differently beside people's 0.55 than beside 0.9.
The judge is compared only now, after labelling, on the labels given blind (the rule of
``label_acts.people_labels``), so the figure is not inflated by people copying it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from ragjury.evals.io.label_acts import RULE, LabelAct, people_labels, replay
from ragjury.evals.labelling.items import LabelItem
from ragjury.evals.stats.intervals import Interval
from ragjury.evals.stats.judge_card import PairAgreement, kappa_with_interval, pair_agreements

Key = tuple[str | None, str]


@dataclass
class LabelSummary:
    labels: int
    per_annotator: dict[str, int]
    median_seconds: float | None
    unsure: int
    skipped: int
    shown_judge: int
    ties: int
    items: int
    items_labelled: int
    pairs: list[PairAgreement]
    judge_n: int = 0
    judge_kappa: float | None = None
    judge_interval: Interval | None = None
    judge_accuracy: float | None = None
    confusion: list[list[int]] | None = None
    confusion_labels: list[object] | None = None
    recheck_n: int = 0
    recheck_agree: float | None = None
    elsewhere: int = 0
    """People labels of items not in the items file (another plan's labels): counted apart, never as
    items of this file."""

    def as_dict(self) -> dict[str, object]:
        return _finite(self._as_dict())  # never NaN in --json: an undefined figure is null

    def _as_dict(self) -> dict[str, object]:
        def interval(i: Interval | None) -> list[float] | None:
            return None if i is None else [round(i.low, 4), round(i.high, 4)]

        return {
            "labels": self.labels,
            "per_annotator": self.per_annotator,
            "median_seconds_per_label": None if self.median_seconds is None else round(self.median_seconds, 2),
            "unsure": self.unsure,
            "skipped": self.skipped,
            "labels_given_with_judge_shown": self.shown_judge,
            "ties_left_out": self.ties,
            "items": self.items,
            "items_labelled": self.items_labelled,
            "labels_of_other_items": self.elsewhere,
            "rule": RULE,
            "people_vs_people": [p.as_dict() for p in self.pairs],
            "judge_vs_people": {
                "n": self.judge_n, "cohen_kappa": self.judge_kappa, "kappa_interval": interval(self.judge_interval),
                "accuracy": self.judge_accuracy, "labels": self.confusion_labels, "confusion": self.confusion,
            },
            "recheck": {"n": self.recheck_n, "same_label": self.recheck_agree},
        }


def _finite(value: object) -> object:
    """``value`` with every NaN or infinite number replaced by None (JSON has no NaN)."""
    import math

    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def _binary(value: object) -> object:
    return bool(value) if isinstance(value, bool) else value


_kappa_with_interval = kappa_with_interval


def summarize(items: list[LabelItem], acts: list[LabelAct], *, allow_shown_judge: bool = True) -> LabelSummary:
    """The summary of every act so far; the judge is compared on labels given blind unless allowed."""
    states = replay(acts)
    people = people_labels(acts, allow_shown_judge=True)
    seconds = [s.seconds for table in states.values() for s in table.values() if s.label is not None and s.seconds]
    per_annotator = {name: sum(1 for s in table.values() if s.label is not None) for name, table in states.items()}
    pairs = pair_agreements(acts)
    summary = LabelSummary(
        labels=sum(per_annotator.values()), per_annotator=per_annotator,
        median_seconds=statistics.median(seconds) if seconds else None,
        unsure=people.unsure, skipped=people.skipped, shown_judge=people.shown_judge, ties=len(people.ties),
        items=len(items), items_labelled=len(people.labels), pairs=pairs,
    )
    if items:  # only the labels of this file's items count as its items labelled; the rest are said apart
        keys = {item.key for item in items}
        summary.items_labelled = sum(1 for key in people.labels if key in keys)
        summary.elsewhere = len(people.labels) - summary.items_labelled
    blind = people if allow_shown_judge else _blind_only(acts)  # the same labels where shown ones count
    judged = [(blind.labels[item.key], item.judge.label) for item in items
              if item.judge is not None and item.key in blind.labels and item.judge.label is not None]
    if judged:
        gold = [_binary(g) for g, _ in judged]
        predicted = [_binary(p) for _, p in judged]
        try:
            kappa, interval, accuracy, confusion, labels = _kappa_with_interval(gold, predicted)
        except ValueError:  # the judge's values are not labels of this scale (a score): no kappa
            kappa = interval = accuracy = confusion = labels = None  # type: ignore[assignment]
        summary.judge_n, summary.judge_kappa, summary.judge_interval = len(judged), kappa, interval
        summary.judge_accuracy, summary.confusion, summary.confusion_labels = accuracy, confusion, labels
    rechecked = [(s.label, s.recheck_label) for table in states.values() for s in table.values()
                 if s.label is not None and s.recheck_label is not None]
    summary.recheck_n = len(rechecked)
    summary.recheck_agree = sum(a == b for a, b in rechecked) / len(rechecked) if rechecked else None
    return summary


def _blind_only(acts: list[LabelAct]):
    """People labels from blind acts only (changes made after the judge was shown are dropped)."""
    return people_labels([a for a in acts if not a.shown_judge], allow_shown_judge=False)


def _fmt(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _interval(i: Interval | None) -> str:
    return "" if i is None else f" [{i.low:.2f}, {i.high:.2f}]"


def summary_lines(
    summary: LabelSummary, *, items_path: str, labels_path: str, predictions: bool = False,
    sources: list[str] | None = None,
) -> list[str]:
    """The summary as plain lines, result first."""
    lines = [
        f"{summary.labels} label{'s' if summary.labels != 1 else ''} saved to {labels_path} ({summary.items_labelled} of {summary.items} items have a "
        f"people label); median {_fmt(summary.median_seconds, 1)} s per label; {summary.unsure} unsure, "
        f"{summary.skipped} skipped" + (f", {summary.ties} tied between people (left out)" if summary.ties else ""),
    ]
    if summary.elsewhere:
        lines.append(f"{summary.elsewhere} label(s) in {labels_path} are of items not in {items_path} (another plan's "
                     "labels?): left out of these counts")
    if len(summary.per_annotator) > 1:
        lines.append("annotators: " + ", ".join(f"{k} {v}" for k, v in summary.per_annotator.items()))
    for pair in summary.pairs:
        lines.append(
            f"people vs people ({pair.a} · {pair.b}, {pair.n} items both labelled): kappa {_fmt(pair.kappa)}"
            f"{_interval(pair.interval)}, same label {_fmt(None if pair.agree is None else 100 * pair.agree, 0)} % "
            "— the ceiling for the judge"
        )
        if pair.disagreements:
            shown = ", ".join(k[1] for k in pair.disagreements[:10])
            more = f" and {len(pair.disagreements) - 10} more" if len(pair.disagreements) > 10 else ""
            lines.append(f"  people disagree on {len(pair.disagreements)}: {shown}{more}")
    if summary.judge_n:
        lines.append(
            f"judge vs people (now revealed; {summary.judge_n} item{'s' if summary.judge_n != 1 else ''} labelled blind): kappa "
            f"{_fmt(summary.judge_kappa)}{_interval(summary.judge_interval)}, accuracy "
            f"{_fmt(None if summary.judge_accuracy is None else 100 * summary.judge_accuracy, 0)} %"
        )
        if summary.confusion and summary.confusion_labels and len(summary.confusion_labels) == 2:
            (tn, fp), (fn, tp) = summary.confusion
            lines.append(f"  people yes: judge yes {tp}, judge no {fn} · people no: judge yes {fp}, judge no {tn}")
    elif summary.items:
        lines.append("judge vs people: no judge verdicts in the items file (a dataset): nothing to compare")
    if summary.recheck_n:
        lines.append(f"recheck: {summary.recheck_n} items labelled twice by the same person, same label "
                     f"{_fmt(100 * (summary.recheck_agree or 0), 0)} %")
    if summary.shown_judge:
        lines.append(f"{summary.shown_judge} label(s) were given with the judge shown: trust commands refuse them "
                     "unless --allow-shown-judge")
    lines.append(next_command(items_path, labels_path, predictions=predictions, sources=sources))
    return lines


def next_command(items_path: str, labels_path: str, *, predictions: bool = False,
                 sources: list[str] | None = None) -> str:
    """The command that reads these labels: ``estimate`` on the predictions the items came from (the
    plan's ``predictions`` column: one file, or config A's and B's for an A/B plan)."""
    import shlex

    if sources:
        return f"next: ragjury estimate {' '.join(shlex.quote(s) for s in sources)} --labels {shlex.quote(labels_path)}"
    if predictions:
        return f"next: ragjury estimate {shlex.quote(items_path)} --labels {shlex.quote(labels_path)}"
    return (f"next: ragjury estimate PRED.jsonl --labels {shlex.quote(labels_path)} (PRED.jsonl: the predictions "
            "file the items came from)")
    return lines


__all__ = ["LabelSummary", "PairAgreement", "summarize", "summary_lines"]
