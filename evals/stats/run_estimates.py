"""Per-system estimates of a loaded predictions run: what ``estimate``, ``evaluate`` and the report show.

The judge's score on an item is its probability where it reported one (the logprob path, a
panel's mean, a calibrated probability) and its 0/1 label otherwise; people's label is the
predictions' ``gold`` or, with a labels file, that file's. Unscored judgments have no score and
are left out of all three estimates (counted, and said), since no judge value can be imputed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragjury.evals.io.human_labels import HumanLabel
from ragjury.evals.io.predictions import ItemRecord, PredictionRun
from ragjury.evals.stats.judge_card import CardItem, JudgeCard, judge_card, people_block
from ragjury.evals.stats.prediction_powered import DEFAULT_FINITE_INTERVAL, FiniteIntervalKind
from ragjury.evals.stats.system_estimates import (
    MIN_LABELS,
    Difference,
    EstimateItem,
    SystemEstimate,
    compare_systems,
    estimate_systems,
)
from ragjury.rag_agent.core.input_files import InputError


@dataclass
class EstimatesResult:
    """What ``estimate`` found: one ``SystemEstimate`` per system and, if asked, a comparison."""

    predictions: str
    task: str | None
    judge: str | None
    n_items: int
    n_unscored: int
    n_labels: int
    level: float
    interval: FiniteIntervalKind
    systems: list[SystemEstimate]
    comparison: Difference | None = None
    notes: list[str] = field(default_factory=list)
    card: JudgeCard | None = None
    """The judge card of the labelled items (``run_card``), where one was made."""
    people: Any = None
    """The labels read (``evals.io.people.People``), where a labels file or Python labels were given."""
    judged_differently: list[str] = field(default_factory=list)
    """Two configs: how their run headers say they were judged differently (``predictions.differences``)."""
    sequential: Any = None
    """The confidence sequence (``stats.live_status``) where the labels were gathered by ``label
    --until``: then it, not the fixed-n interval, is valid (``pipelines.sequential_estimates``)."""

    def __repr__(self) -> str:
        lines = [f"EstimatesResult({self.task or 'task?'}, judge {self.judge}, {self.n_labels} labels on {self.n_items} items)"]
        for system in self.systems:
            best = system.prediction_powered or system.human_only
            if best is not None:
                lines.append(f"  {system.system}: {best.value:.3f} [{best.low:.3f}, {best.high:.3f}] (judge {system.judge.value:.3f})")
        if self.comparison is not None:
            diff = self.comparison
            lines.append(f"  {difference_text(diff)}, {p_text(diff.p_value)} ({diff.method})")
        if self.sequential is not None:
            lines.append(f"  label --until: {self.sequential.words}")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, object]:
        return {
            "predictions": self.predictions,
            "task": self.task,
            "judge": self.judge,
            "n_items": self.n_items,
            "n_unscored": self.n_unscored,
            "n_labels": self.n_labels,
            "level": self.level,
            "interval": self.interval,
            "systems": [system.as_dict() for system in self.systems],
            "comparison": {**self.comparison.as_dict(), "judged_differently": self.judged_differently}
            if self.comparison else None,
            "notes": self.notes,
            **({"judge_card": self.card.as_dict()} if self.card is not None else {}),
            **({"people_labels": people_block(self.people)} if self.people is not None else {}),
            **({"sequential": sequential_block(self.sequential)} if self.sequential is not None else {}),
        }


def sequential_block(status: Any) -> dict[str, object]:
    """The sequence of labels gathered until settled, saying it is the valid one."""
    return {**status.as_dict(), "valid": "sequence", "fixed_n_valid": False,
            "why": "the labels were gathered until the answer was settled: a fixed-n interval is valid only for a "
                   "number of labels fixed in advance"}


def p_text(p: float) -> str:
    """``p = 0.012``; a sequence's difference has no fixed-n p-value (NaN): said so."""
    return "no fixed-n p (a confidence sequence)" if p != p else f"p = {p:.3g}"


def difference_text(diff: Difference) -> str:
    """``fid − chatgpt: +5.1 points [−3.0, +13.2]``: B − A in points, the minuend first."""
    d = diff.estimate
    return f"{diff.a} − {diff.b}: {d.value * 100:+.1f} points [{d.low * 100:+.1f}, {d.high * 100:+.1f}]"


NO_SYSTEM = "(no system)"
"""Where rows without a ``system`` go when other rows name theirs: apart, not into "all", the
name ``--overall`` gives every row."""


def judge_score(record: ItemRecord) -> float | None:
    """The judge's value for an item: P(yes) where it reported one, a panel's mean vote where it
    averaged, its continuous ``value.score`` in [0, 1] where it carries one (``support``), else
    its verdict as 0/1. A continuous value lets the estimate use
    how sure the judge was, not only which side it fell on."""
    if record.unscored or record.label is None:
        return None
    probability = record.probability
    if probability is not None:
        return probability
    mean = record.value.get("mean")
    if record.value.get("combine") == "mean" and _number(mean):
        return float(mean)
    score = record.value.get("score")
    if isinstance(record.label, bool) and _number(score) and 0.0 <= score <= 1.0:  # a binary verdict
        return float(score)  # support's precision, a graded judge's expected grade: finer than 0/1
    return float(record.label)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def estimate_items(
    run: PredictionRun, labels: dict[str, HumanLabel] | None = None, *, by_system: bool = True
) -> tuple[list[EstimateItem], int]:
    """``EstimateItem``s of a run (people's labels from ``labels`` or the gold), and how many
    judgments were unscored and left out."""
    items: list[EstimateItem] = []
    unscored = 0
    named = any(record.system for record in run.records)
    for record in run.records:
        score = judge_score(record)
        if score is None:
            unscored += 1
            continue
        probability = None
        if labels is not None:
            human = labels.get(record.id)
            label = human.label if human else None
            probability = human.inclusion_probability if human else None
        else:
            label = None if record.gold is None else float(record.gold)
            probability = None if record.gold is None else record.inclusion_probability  # the weight travels with it
        items.append(
            EstimateItem(
                id=record.id,
                score=score,
                system=(record.system or (NO_SYSTEM if named else "all")) if by_system else "all",
                label=label,
                pair_key=record.pair or record.question or record.id.rsplit("-", 1)[0],
                inclusion_probability=probability,
            )
        )
    return items, unscored


def estimate_run(
    run: PredictionRun,
    labels: dict[str, HumanLabel] | None = None,
    *,
    source: str,
    by_system: bool = True,
    compare: Sequence[str] | None = None,
    level: float = 0.95,
    interval: FiniteIntervalKind = DEFAULT_FINITE_INTERVAL,
    rescore: Callable[[list[EstimateItem]], tuple[list[EstimateItem], int]] | None = None,
) -> EstimatesResult:
    """Estimates of a loaded run; ``source`` names the file a missing or one-class label set blames.
    ``rescore`` replaces the judge's scores (and says how many items it left out)."""
    items, unscored = estimate_items(run, labels, by_system=by_system)
    if rescore is not None:
        items, dropped = rescore(items)
        unscored += dropped
    labelled = [item for item in items if item.label is not None]
    if not labelled:
        raise InputError(
            source, "no human labels: give --labels FILE ({\"id\", \"label\"} rows) or predictions with 'gold'"
        )
    if len({item.label for item in labelled}) == 1:
        raise InputError(
            source,
            f"all {len(labelled)} human labels are {labelled[0].label:g}: an interval from one class says nothing; label more items",
        )
    systems = estimate_systems(items, level=level, interval=interval)
    notes = []
    if unscored:
        notes.append(f"{unscored} unscored judgments left out: the estimates are for the {len(items)} scored items")
    nameless = sum(item.system == NO_SYSTEM for item in items)
    if nameless:
        notes.append(f"{nameless} rows have no 'system': estimated apart as {NO_SYSTEM!r}")
    few = [s.system for s in systems if 0 < s.n_labels < MIN_LABELS]
    if few:
        notes.append(f"fewer than {MIN_LABELS} labels for {', '.join(few)}: human-only estimate there")
    comparison = None
    if compare:
        a, b = compare
        try:  # B − A, as every comparison in ragjury: positive when B does better
            comparison = compare_systems(items, b, a, level=level, interval=interval)
        except ValueError as error:
            raise InputError(run.path, str(error)) from None
    judges = {record.judge for record in run.records if record.judge}
    if rescore is not None:
        judges = {"cross-fitted head"}
    return EstimatesResult(
        predictions=run.path,
        task=run.task,
        judge=", ".join(sorted(judges)) or None,
        n_items=len(run.records),
        n_unscored=unscored,
        n_labels=len(labelled),
        level=level,
        interval=interval,
        systems=systems,
        comparison=comparison,
        notes=notes,
    )


def partial_labels_estimates(run: PredictionRun) -> EstimatesResult | None:
    """What ``evaluate`` adds when people labelled some rows but not all (a binary task), or None:
    with every row labelled, people's own rate needs no estimate."""
    labelled = sum(record.gold is not None for record in run.records)
    if run.kind != "binary" or labelled == 0 or labelled == len(run.records):
        return None
    try:
        return estimate_run(run, source=run.path)
    except InputError:
        return None  # labels of one class only: evaluate's agreement table already shows it


# -- the judge card of the run: which items it reads and how long each one is. People's label is the
# predictions' ``gold`` or, with a labels file, that file's (as ``estimate`` reads them); the judge's
# score is the one the estimates use (``judge_score``: P(yes) where reported, else the 0/1 verdict).
# Unscored judgments have no score and are left out, and the card says how many.

PASSAGE_KEYS = ("passage", "text", "content")
"""Where a row without an answer (a relevance pair) keeps the passage that was judged."""


def judged_text(record: ItemRecord) -> tuple[str, str] | None:
    """(what, text): the answer, or for a relevance pair its passage; None when the row has neither."""
    if record.answer is not None:
        return "answer", record.answer
    for key in PASSAGE_KEYS:
        value = record.item.get(key)
        if isinstance(value, str):
            return "passage", value
    return None


def run_card(
    run: PredictionRun, labels: Mapping[str, HumanLabel] | None = None, *, by_system: bool = True
) -> JudgeCard | None:
    """The card of ``run``, or None: a score task, no item with both a label and a score, or
    labels other than 0/1."""
    if run.kind != "binary":
        return None
    items: list[CardItem] = []
    unscored = 0
    chances: set[float] = set()
    kinds: set[str] = set()
    for record in run.records:
        if labels is not None:
            human = labels.get(record.id)
            label = None if human is None else human.label
            if human is not None and human.inclusion_probability is not None:
                chances.add(human.inclusion_probability)
        else:
            label = None if record.gold is None else float(record.gold)
            if record.gold is not None and record.inclusion_probability is not None:
                chances.add(record.inclusion_probability)
        if label is None:
            continue
        score = judge_score(record)
        if score is None:
            unscored += 1
            continue
        if label not in (0.0, 1.0):
            return None
        text = judged_text(record)
        if text is not None:
            kinds.add(text[0])
        items.append(
            CardItem(
                system=(record.system or "all") if by_system else "all",
                score=score,
                verdict=int(bool(record.label)),
                label=int(label),
                words=len(text[1].split()) if text is not None else None,
                cluster=record.question or None,
            )
        )
    if not items:
        return None
    card = judge_card(items, length_of="passage" if kinds == {"passage"} else "answer")
    extra = []
    if unscored:
        extra.append(f"{unscored} labelled items unscored by the judge: left out of the card")
    if len(chances) > 1:  # unequal chances of being labelled
        extra.append("labels picked by label-plan: the card describes the labelled items, which favour those "
                     "the judge was unsure of, not each system as a whole")
    if extra:
        card = JudgeCard(card.n_labelled, card.length_of, card.systems, card.length, (*card.notes, *extra))
    return card


__all__ = [
    "difference_text",
    "EstimatesResult",
    "NO_SYSTEM",
    "estimate_items",
    "estimate_run",
    "judge_score",
    "judged_text",
    "partial_labels_estimates",
    "run_card",
]
