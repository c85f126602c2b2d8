"""The figures of a run per system and against people: the per-system statistics, and the run's
agreement, score correlation and ranking of the systems.

Why declared: a per-system figure is shown by the JSON (``per_system``), the HTML page's "Per
system" table and ``report A B`` (a column per run); each view lists every declared statistic,
so a new one (a median score, a refusal rate) is one function here and nothing else.
``@system_statistic(name, title, of=..., kinds=...)``: ``of="items"`` describes the items (shown
once, from the first run), ``of="judge"`` the judge's verdicts (shown per run); ``kinds`` are the
runs it applies to (``binary``, ``score``). A function returns a number, or None where it has
nothing to count.

Why the run's figures are here too: the systems' ranking (mean gold and mean judge label per
system, and how the two rankings correlate) is a per-system figure, and the flat figures
``--fail-under`` gates read (agreement, correlations, the ranking's tau) are made beside it. One
definition for a fresh run and for a report rebuilt from its predictions file (both through
``evals.results.finished_run``), so a gate means the same in both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ragjury.evals.stats.agreement import label_agreement, pearson, ranking_correlation, spearman

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


# -- the run's figures against people ----------------------------------------------------------------------


class Labelled(Protocol):
    """What these figures read of a judged row: its system, its gold label and the judge's."""

    system: str | None
    gold: bool | float | None
    label: Any


@dataclass
class SystemRanking:
    """Mean gold label and mean judge label per system, and how the two rankings correlate."""

    human: dict[str, float]
    judge: dict[str, float]
    correlation: Any
    """``evals.stats.agreement.RankCorrelation`` (Kendall's tau, Spearman)."""

    def as_dict(self) -> dict[str, Any]:
        """The ``ranking`` object every ``--json`` shares (``rag_agent.json_contract.ranking``)."""
        from ragjury.evals.io.json_contract import ranking

        return ranking("mean label", self.human, self.judge, self.correlation)


def flat_figures(
    *,
    scored: int,
    total: int,
    labels: Sequence[float | bool | None],
    agreement: Any,
    correlation: Mapping[str, Any] | None,
    ranking: SystemRanking | None,
) -> dict[str, float | None]:
    """The flat figures ``--fail-under`` gates and every JSON read: coverage (of the labelled
    items when there is agreement), mean label, agreement, score correlations and the system
    ranking's correlation. One definition for a fresh run and for a report rebuilt from
    predictions, so a gate means the same in both."""
    known = [float(label) for label in labels if label is not None]
    flat: dict[str, float | None] = {
        "coverage": scored / total if total else None,
        "mean_label": sum(known) / len(known) if known else None,
    }
    if agreement is not None:
        flat.update(agreement.figures())
        flat["coverage"] = agreement.coverage
    if correlation:
        flat.update({k: v for k, v in correlation.items() if k in ("pearson", "spearman", "mae")})
    if ranking is not None:
        flat["kendall_tau"] = ranking.correlation.kendall_tau
        flat["system_spearman"] = ranking.correlation.spearman
    return flat


def binary_agreement(predictions: Sequence[Labelled]) -> Any:
    """``evals.agreement.label_agreement`` of the judge's labels with the gold labels, over the
    labelled rows; unscored rows are passed as None, so they lower coverage, never count as wrong."""
    # looked up on its module when called, as before: tests count the run's agreement by patching it there
    from ragjury.evals.stats.agreement import label_agreement

    labelled = [p for p in predictions if p.gold is not None]
    gold = [bool(p.gold) for p in labelled]
    predicted = [None if p.label is None else bool(p.label) for p in labelled]
    return label_agreement(gold, predicted, labels=[False, True])


def score_correlation(predictions: Sequence[Labelled]) -> dict[str, Any]:
    """Pearson, Spearman and mean absolute error of judge scores against gold scores (rows both scored)."""
    labelled = [p for p in predictions if p.gold is not None]
    pairs = [(float(p.gold), float(p.label)) for p in labelled if p.label is not None]  # type: ignore[arg-type]
    figures: dict[str, Any] = {"n_total": len(labelled), "n_scored": len(pairs)}
    if len(pairs) >= 2:
        xs, ys = zip(*pairs, strict=True)
        if len(set(xs)) > 1 and len(set(ys)) > 1:
            figures["pearson"] = pearson(xs, ys)[0]
            figures["spearman"] = spearman(xs, ys)[0]
        figures["mae"] = sum(abs(x - y) for x, y in pairs) / len(pairs)
    return figures


def system_ranking(predictions: Sequence[Labelled]) -> SystemRanking | None:
    """Mean gold label and mean judge label per system, and Kendall's tau between the rankings
    (``evals.agreement.ranking_correlation``); None with fewer than two systems."""
    human: dict[str, list[float]] = defaultdict(list)
    judged: dict[str, list[float]] = defaultdict(list)
    for p in predictions:
        if p.system is None or p.gold is None:
            continue
        human[p.system].append(float(p.gold))
        if p.label is not None:
            judged[p.system].append(float(p.label))
    systems = sorted(s for s in human if judged.get(s))
    if len(systems) < 2:
        return None
    human_scores = {s: sum(human[s]) / len(human[s]) for s in systems}
    judge_scores = {s: sum(judged[s]) / len(judged[s]) for s in systems}
    return SystemRanking(human_scores, judge_scores, ranking_correlation(human_scores, judge_scores))


__all__ = ["STATISTICS", "Labelled", "SystemRanking", "SystemStatistic", "binary_agreement", "flat_figures",
           "per_system", "score_correlation", "statistics_of", "system_ranking", "system_statistic"]
