"""The answer of a sequential labelling session (``label --until``): acts so far in, an aggregate status out.

Why here, below the page and the pipelines: the page, the terminal that serves it, and ``estimate``
/ ``report`` / ``compare_predictions`` with the labels read the same acts and must say the same thing. What it returns is an aggregate (an estimate, a confidence
sequence, a count, words): the judge's P of the items enters only as a mean over the items not yet
labelled and through the items already labelled, so no unlabelled item's verdict can be read from it.

Units: for ``rate >= c`` each item is one unit; for ``B - A`` / ``B >= A - m`` the items hold two
systems (A the first, B the second) and a unit is a question both answered, complete once both
answers are labelled (B's label minus A's, the judge's P for B minus A's); for ``best`` a unit is a
question every config answered, complete once all N answers are labelled
(``evals/stats/sequential_best``); the page then shows a question's answers one after the other
(``paired_order``). The page's order is a seeded
shuffle, independent of labels, so the order in which units complete is a uniform draw without
replacement: the sequence of ``evals/stats/sequential`` applies.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ragjury.evals.io.label_acts import LabelAct, replay
from ragjury.evals.stats.sequential import Decision, Status, active_weights, draw_orders, parse_decision, status_of
from ragjury.evals.stats.sequential_best import BestStatus, best_status

Key = tuple[str | None, str]

ACTIVE = "active"
"""What a ``--active`` session adds to its mark: the order favoured the judge's unsure items."""

ACTIVE_RATES_ONLY = ("--active works with \"rate >= c\" only: on B − A it cost labels (EVOUNA-NQ chatgpt − gpt35: "
                     "median 98 → 111 questions; bench/bench_sequential.py), so pairs keep the uniform order")


class Verdict(Protocol):
    label: bool | int | float | None
    probability: float | None


class LabelItem(Protocol):
    """What a unit needs of an item: its key, its question (the first field) and the judge's verdict
    (``evals.labelling.items.LabelItem``, or ``items_of_records`` of a joined run)."""

    @property
    def key(self) -> Key: ...

    @property
    def id(self) -> str: ...

    @property
    def system(self) -> str | None: ...

    @property
    def fields(self) -> tuple[tuple[str, str], ...]: ...

    @property
    def judge(self) -> Verdict | None: ...


@dataclass(frozen=True)
class RecordItem:
    """A predictions record as a unit's item: keyed as the acts of ``label`` on that file key it."""

    id: str
    system: str | None
    fields: tuple[tuple[str, str], ...]
    judge: Verdict | None

    @property
    def key(self) -> Key:
        return (self.system, self.id)


@dataclass(frozen=True)
class _Verdict:
    label: bool | int | float | None
    probability: float | None


def items_of_records(records: Iterable[Any]) -> list[RecordItem]:
    """A run's records (``ItemRecord``) as items: grouped by what pairs them (``pair``), else the question."""
    out = []
    for record in records:
        probability = (record.value or {}).get("probability")
        question = record.pair or record.question or record.id
        out.append(RecordItem(record.id, record.system, (("question", str(question)),),
                              _Verdict(record.label, float(probability) if isinstance(probability, int | float)
                                       and not isinstance(probability, bool) else None)))
    return out


def _judge_value(item: LabelItem) -> float:
    judge = item.judge
    if judge is None or (judge.probability is None and not isinstance(judge.label, bool | int | float)):
        raise ValueError(f"item {item.id!r} has no judge verdict: --until needs a predictions file ('evaluate --out')")
    if judge.probability is not None:
        return float(judge.probability)
    return float(bool(judge.label))


@dataclass
class LiveStatus:
    """The units of a session and how to score the acts so far."""

    decision: Decision
    units: list[tuple[Key, ...]]
    judge: np.ndarray
    level: float = 0.95
    max_labels: int | None = None
    systems: tuple[str | None, ...] = ()
    chances: np.ndarray | None = None
    """``--active``: each unit's chance weight (the judge's spread, ``active_weights``); None: uniform."""

    @classmethod
    def of(cls, items: list[LabelItem], decision: Decision, *, level: float = 0.95,
           max_labels: int | None = None, active: bool = False) -> LiveStatus:
        """The units of ``items`` for ``decision``; ValueError in one line where they do not fit.
        ``active`` (rates only): the order favours the items the judge is unsure of."""
        if active and decision.kind != "rate":
            raise ValueError(ACTIVE_RATES_ONLY)
        if decision.kind == "rate":
            judge = np.array([_judge_value(i) for i in items])
            chances = active_weights(np.sqrt(judge * (1 - judge))) if active else None
            return cls(decision, [(item.key,) for item in items], judge, level, max_labels,
                       tuple(dict.fromkeys(i.system for i in items)), chances)
        systems = tuple(dict.fromkeys(item.system for item in items))
        if decision.paired and len(systems) != 2:
            raise ValueError(f'--until "{decision.text}" compares two systems; the file holds {len(systems)}')
        if not decision.paired and len(systems) < 2:
            raise ValueError(f'--until best compares several configs; {len(systems)} found (give two or more '
                             "predictions files, or one file whose rows name several systems)")
        by_question: dict[str, dict[str | None, LabelItem]] = {}
        for item in items:
            question = item.fields[0][1] if item.fields else item.id
            by_question.setdefault(question, {})[item.system] = item
        groups = [tuple(q[s] for s in systems) for q in by_question.values() if len(q) == len(systems)]
        if not groups:
            raise ValueError("no question was answered by every system: nothing to compare")
        if decision.paired:
            judge = np.array([_judge_value(b) - _judge_value(a) for a, b in groups])
        else:
            judge = np.array([[_judge_value(item) for item in group] for group in groups])
        return cls(decision, [tuple(item.key for item in group) for group in groups], judge, level, max_labels,
                   systems)

    def paired_order(self, order: list[Key]) -> list[Key]:
        """``order`` with each question's other answers moved right after its first: a unit then
        completes after its N labels, not after many in a plain shuffle, and the questions still
        come in a uniform random order (that of their first answer), whatever the labels."""
        group_of = {key: unit for unit in self.units if len(unit) > 1 for key in unit}
        placed: set[Key] = set()
        out: list[Key] = []
        present = set(order)
        for key in order:
            if key in placed:
                continue
            for member in (key, *group_of.get(key, ())):
                if member not in placed and member in present:
                    out.append(member)
                    placed.add(member)
        return out

    @property
    def mark(self) -> str:
        """What each act of the session records (``sequential``)."""
        mark = session_mark(self.decision, self.level, self.max_labels)
        return mark if self.chances is None else f"{mark}; {ACTIVE}"

    def active_order(self, seed: str) -> list[Key]:
        """``--active``: the units in an order drawn once, without replacement, each next with a
        chance ∝ its weight among those left (successive sampling: exponential keys over the
        weights, seeded by ``seed``), so the order never depends on the labels."""
        assert self.chances is not None
        rng = np.random.default_rng(int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big"))
        order = draw_orders(self.chances, 1, len(self.units), rng)[0]
        return [self.units[i][0] for i in order]

    def status(self, acts: Iterable[LabelAct]) -> Status | BestStatus:
        """The status after ``acts``: people's label of an item is the mean of its annotators'
        standing labels; a unit enters when its last item got its first standing label."""
        acts = list(acts)
        states = replay(acts)
        value: dict[Key, list[float]] = {}
        for table in states.values():
            for key, state in table.items():
                if isinstance(state.label, bool):
                    value.setdefault(key, []).append(float(state.label))
        first: dict[Key, int] = {}
        for index, act in enumerate(acts):
            if act.act == "label" and not act.recheck and act.key in value and act.key not in first:
                first[act.key] = index
        entered = []
        for index, unit in enumerate(self.units):
            if all(key in first for key in unit):
                people = [float(np.mean(value[key])) for key in unit]
                y = people if self.decision.kind == "best" else people[-1] - people[0] if len(unit) == 2 else people[0]
                entered.append((max(first[key] for key in unit), y, self.judge[index], index))
        entered.sort(key=lambda row: row[0])
        where = [row[3] for row in entered]
        per_unit = len(self.units[0]) if self.units else 1
        budget = None if self.max_labels is None else max(1, self.max_labels // per_unit)
        if self.decision.kind == "best":
            names = tuple(str(s) for s in self.systems)
            width = len(names)
            return best_status(names, np.array([e[1] for e in entered]).reshape(-1, width),
                               np.array([e[2] for e in entered]).reshape(-1, width), self.judge, level=self.level,
                               max_units=budget)
        status = status_of(self.decision, np.array([e[1] for e in entered]), np.array([e[2] for e in entered]),
                           self.judge, level=self.level, max_labels=budget, chances=self.chances,
                           entered=np.array(where, dtype=np.int64))
        return status.with_labels_per_unit(per_unit)


def session_mark(decision: Decision, level: float, max_labels: int | None) -> str:
    """What each act of a sequential session records (``sequential``): enough to rebuild its sequence."""
    mark = f"{decision.text}; confidence={level:g}"
    return mark if max_labels is None else f"{mark}; max-labels={max_labels}"


def parse_mark(mark: str) -> tuple[Decision, float, int | None]:
    """The decision, confidence and budget of a ``session_mark``; ValueError where it is not one."""
    text, *options = (part.strip() for part in mark.split(";"))
    values = dict(option.split("=", 1) for option in options if "=" in option)
    level = float(values.get("confidence", 0.95))
    budget = int(values["max-labels"]) if "max-labels" in values else None
    return parse_decision(text), level, budget


def sequence_of(items: list[LabelItem], acts: list[LabelAct]) -> Status | BestStatus | None:
    """The confidence sequence of labels gathered by ``label --until`` (None where no act says so)."""
    marks = [act.sequential for act in acts if act.sequential]
    if not marks:
        return None
    mark = max(set(marks), key=marks.count)
    decision, level, budget = parse_mark(mark)
    active = ACTIVE in (part.strip() for part in mark.split(";"))
    return LiveStatus.of(items, decision, level=level, max_labels=budget, active=active).status(acts)


__all__ = ["LiveStatus", "RecordItem", "items_of_records", "parse_mark", "sequence_of", "session_mark"]
