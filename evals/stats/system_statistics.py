"""Per-system statistics, each a small declared function of one system's records.

Why declared: a per-system figure is shown by the JSON (``per_system``), the HTML page's "Per
system" table and ``report A B`` (a column per run); each view lists every declared statistic,
so a new one (a median score, a refusal rate) is one function here and nothing else.
``@system_statistic(name, title, of=..., kinds=...)``: ``of="items"`` describes the items (shown
once, from the first run), ``of="judge"`` the judge's verdicts (shown per run); ``kinds`` are the
runs it applies to (``binary``, ``score``). A function returns a number, or None where it has
nothing to count.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ragjury.evals.stats.agreement import label_agreement

Records = Sequence[Any]
"""One system's ``ItemRecord``s (id, label, gold, unscored, ...)."""


@dataclass(frozen=True)
class SystemStatistic:
    name: str
    """Its key in the JSON."""
    title: str
    """Its column in the page's tables."""
    function: Callable[[Records], float | int | None]
    of: Literal["items", "judge"]
    kinds: tuple[str, ...]


STATISTICS: dict[str, SystemStatistic] = {}
"""Every declared statistic, in declaration order (the order of the columns)."""


def system_statistic(
    name: str, title: str, *, of: Literal["items", "judge"] = "judge", kinds: tuple[str, ...] = ("binary", "score")
) -> Callable[[Callable[[Records], Any]], Callable[[Records], Any]]:
    """Declare a per-system statistic (see the module's docstring)."""

    def declare(function: Callable[[Records], Any]) -> Callable[[Records], Any]:
        if name in STATISTICS:
            raise ValueError(f"a per-system statistic named {name!r} is declared twice")
        STATISTICS[name] = SystemStatistic(name, title, function, of, kinds)
        return function

    return declare


def statistics_of(kind: str, of: Literal["items", "judge"] | None = None) -> list[SystemStatistic]:
    """The declared statistics of a run kind (``binary``, ``score``), of the items or the judge."""
    return [s for s in STATISTICS.values() if kind in s.kinds and (of is None or s.of == of)]


def per_system(records: Records, kind: str) -> dict[str, dict[str, Any]]:
    """System -> statistic name -> value, for every declared statistic of the run's kind; empty
    when no record names its system."""
    if not any(r.system for r in records):
        return {}
    groups: dict[str, list[Any]] = {}
    for record in records:
        groups.setdefault(record.system or "(no system)", []).append(record)
    return {system: {s.name: s.function(group) for s in statistics_of(kind)} for system, group in sorted(groups.items())}


def _scored(records: Records) -> list[Any]:
    return [r for r in records if not r.unscored and r.label is not None]


def _share(values: Sequence[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def _both(records: Records) -> list[Any]:
    return [r for r in _scored(records) if r.gold is not None]


@system_statistic("n", "n", of="items")
def count(records: Records) -> int:
    return len(records)


@system_statistic("labelled", "labelled", of="items")
def labelled(records: Records) -> int:
    return sum(r.gold is not None for r in records)


@system_statistic("people_yes", "people yes", of="items", kinds=("binary",))
def people_yes(records: Records) -> float | None:
    return _share([bool(r.gold) for r in records if r.gold is not None])


@system_statistic("people_mean", "people mean", of="items", kinds=("score",))
def people_mean(records: Records) -> float | None:
    golds = [float(r.gold) for r in records if r.gold is not None]
    return sum(golds) / len(golds) if golds else None


@system_statistic("judged_yes", "judged yes", kinds=("binary",))
def judged_yes(records: Records) -> float | None:
    return _share([bool(r.label) for r in _scored(records)])


def _agreement(records: Records) -> Any:
    """The judge against people on the items both labelled (``AgreementFigures``), or None."""
    both = _both(records)
    if not both:
        return None
    return label_agreement([bool(r.gold) for r in both], [bool(r.label) for r in both], labels=[False, True])


@system_statistic("agreement", "agreement", kinds=("binary",))
def agreement(records: Records) -> float | None:
    figures = _agreement(records)
    return None if figures is None else figures.accuracy


@system_statistic("cohen_kappa", "Cohen's kappa", kinds=("binary",))
def cohen_kappa(records: Records) -> float | None:
    figures = _agreement(records)
    return None if figures is None else figures.cohen_kappa


@system_statistic("judge_mean", "judge mean", kinds=("score",))
def judge_mean(records: Records) -> float | None:
    scored = _scored(records)
    return sum(float(r.label) for r in scored) / len(scored) if scored else None


@system_statistic("mean_abs_difference", "mean |judge − people|", kinds=("score",))
def mean_abs_difference(records: Records) -> float | None:
    both = _both(records)
    return sum(abs(float(r.label) - float(r.gold)) for r in both) / len(both) if both else None


__all__ = ["STATISTICS", "SystemStatistic", "per_system", "statistics_of", "system_statistic"]
