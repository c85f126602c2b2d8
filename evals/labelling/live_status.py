"""The live answer of a sequential labelling session (``label --until``): acts so far in, an aggregate status out.

Why apart from the page: the page, the terminal that serves it and ``estimate --labels`` read the
same acts and must say the same thing. What it returns is an aggregate (an estimate, a confidence
sequence, a count, words): the judge's P of the items enters only as a mean over the items not yet
labelled and through the items already labelled, so no unlabelled item's verdict can be read from it.

Units: for ``rate >= c`` each item is one unit; for ``B - A`` / ``B >= A - m`` the file holds two
systems (A the first in the file, B the second) and a unit is a question both answered, complete
once both answers are labelled (B's label minus A's, the judge's P for B minus A's); the page then
shows a question's two answers one after the other (``paired_order``). The page's order is a seeded
shuffle, independent of labels, so the order in which units complete is a uniform draw without
replacement: the sequence of ``evals/stats/sequential`` applies.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ragjury.evals.io.label_acts import LabelAct, replay
from ragjury.evals.labelling.items import LabelItem
from ragjury.evals.stats.sequential import Decision, Status, status_of

Key = tuple[str | None, str]


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

    @classmethod
    def of(cls, items: list[LabelItem], decision: Decision, *, level: float = 0.95,
           max_labels: int | None = None) -> LiveStatus:
        """The units of ``items`` for ``decision``; ValueError in one line where they do not fit."""
        if not decision.paired:
            return cls(decision, [(item.key,) for item in items], np.array([_judge_value(i) for i in items]),
                       level, max_labels, tuple(dict.fromkeys(i.system for i in items)))
        systems = tuple(dict.fromkeys(item.system for item in items))
        if len(systems) != 2:
            raise ValueError(f'--until "{decision.text}" compares two systems; the file holds {len(systems)}')
        by_question: dict[str, dict[str | None, LabelItem]] = {}
        for item in items:
            question = item.fields[0][1] if item.fields else item.id
            by_question.setdefault(question, {})[item.system] = item
        pairs = [(q[systems[0]], q[systems[1]]) for q in by_question.values() if len(q) == 2]
        if not pairs:
            raise ValueError("no question was answered by both systems: nothing to compare")
        judge = np.array([_judge_value(b) - _judge_value(a) for a, b in pairs])
        return cls(decision, [(a.key, b.key) for a, b in pairs], judge, level, max_labels, systems)

    def paired_order(self, order: list[Key]) -> list[Key]:
        """``order`` with each question's second answer moved right after its first: a pair then
        completes after 2 labels, not after ~√(2N) as in a plain shuffle, and the questions still
        come in a uniform random order (that of their first answer), whatever the labels."""
        partner = {}
        for unit in self.units:
            if len(unit) == 2:
                partner[unit[0]], partner[unit[1]] = unit[1], unit[0]
        placed: set[Key] = set()
        out: list[Key] = []
        for key in order:
            if key in placed:
                continue
            out.append(key)
            placed.add(key)
            other = partner.get(key)
            if other is not None and other not in placed and other in order:
                out.append(other)
                placed.add(other)
        return out

    @property
    def mark(self) -> str:
        """What each act of the session records (``sequential``)."""
        return session_mark(self.decision, self.level, self.max_labels)

    def status(self, acts: Iterable[LabelAct]) -> Status:
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
                y = people[-1] - people[0] if len(unit) == 2 else people[0]
                entered.append((max(first[key] for key in unit), y, self.judge[index]))
        entered.sort(key=lambda row: row[0])
        per_unit = 2 if self.decision.paired else 1
        budget = None if self.max_labels is None else max(1, self.max_labels // per_unit)
        status = status_of(self.decision, np.array([e[1] for e in entered]), np.array([e[2] for e in entered]),
                           self.judge, level=self.level, max_labels=budget)
        return status.with_labels_per_unit(per_unit)


def session_mark(decision: Decision, level: float, max_labels: int | None) -> str:
    """What each act of a sequential session records (``sequential``): enough to rebuild its sequence."""
    mark = f"{decision.text}; confidence={level:g}"
    return mark if max_labels is None else f"{mark}; max-labels={max_labels}"


def parse_mark(mark: str) -> tuple[Decision, float, int | None]:
    """The decision, confidence and budget of a ``session_mark``; ValueError where it is not one."""
    from ragjury.evals.stats.sequential import parse_decision

    text, *options = (part.strip() for part in mark.split(";"))
    values = dict(option.split("=", 1) for option in options if "=" in option)
    level = float(values.get("confidence", 0.95))
    budget = int(values["max-labels"]) if "max-labels" in values else None
    return parse_decision(text), level, budget


def sequence_of(items: list[LabelItem], acts: list[LabelAct]) -> Status | None:
    """The confidence sequence of labels gathered by ``label --until`` (None where no act says so)."""
    marks = [act.sequential for act in acts if act.sequential]
    if not marks:
        return None
    decision, level, budget = parse_mark(max(set(marks), key=marks.count))
    return LiveStatus.of(items, decision, level=level, max_labels=budget).status(acts)


__all__ = ["LiveStatus", "parse_mark", "sequence_of", "session_mark"]
