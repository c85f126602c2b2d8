"""People against people: Cohen's kappa, with its interval, of each two annotators on the items
both labelled, and the items they disagree on.

Why here, measured with the other figures: the agreement two people reach is the ceiling a judge
is read against (a judge's kappa of 0.5 reads differently beside people's 0.55 than beside 0.9), so
every trust command carries it in ``--json`` beside the judge's, not the terminal of one command only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from ragjury.evals.io.label_acts import replay
from ragjury.evals.stats.agreement import label_agreement
from ragjury.evals.stats.intervals import Interval, bootstrap_agreement

Key = tuple[str | None, str]


@dataclass
class PairAgreement:
    """Two annotators on the items both labelled."""

    a: str
    b: str
    n: int
    kappa: float | None
    interval: Interval | None
    agree: float | None
    disagreements: list[Key] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"annotators": [self.a, self.b], "n": self.n, "cohen_kappa": self.kappa,
                "kappa_interval": None if self.interval is None else [round(self.interval.low, 4),
                                                                      round(self.interval.high, 4)],
                "agreement": self.agree, "disagreements": [{"system": k[0], "id": k[1]} for k in self.disagreements]}


def _binary(value: object) -> object:
    return bool(value) if isinstance(value, bool) else value


def kappa_with_interval(gold: list, predicted: list) -> tuple[float | None, Interval | None, float | None, list, list]:
    """Cohen's kappa, its bootstrap interval (from 5 items), accuracy, the confusion and its labels."""
    figures = label_agreement(gold, predicted)
    interval = None
    if len(gold) >= 5:
        intervals = bootstrap_agreement(gold, predicted, resamples=1000, seed=0)
        interval = intervals.get("cohen_kappa")
    return figures.cohen_kappa, interval, figures.accuracy, figures.confusion, list(figures.labels)


def pair_agreements(acts: list[Any]) -> list[PairAgreement]:
    """Each two annotators of ``acts`` (label acts, replayed) on the items both labelled."""
    states = replay(acts)
    pairs: list[PairAgreement] = []
    for a, b in combinations(sorted(states), 2):
        shared = sorted((k for k in states[a] if states[a][k].label is not None
                         and k in states[b] and states[b][k].label is not None), key=str)
        if not shared:
            continue
        gold = [_binary(states[a][k].label) for k in shared]
        other = [_binary(states[b][k].label) for k in shared]
        kappa, interval, agree, _, _ = kappa_with_interval(gold, other)
        pairs.append(PairAgreement(a, b, len(shared), kappa, interval, agree,
                                   [k for k, x, y in zip(shared, gold, other, strict=True) if x != y]))
    return pairs


def people_block(people: Any) -> dict[str, object]:
    """What a labels file gave (``People.counts``) and, with several annotators, people against people."""
    block = dict(people.counts())
    block["people_vs_people"] = [pair.as_dict() for pair in pair_agreements(people.acts)] if people.acts else []
    return block


__all__ = ["PairAgreement", "kappa_with_interval", "pair_agreements", "people_block"]
