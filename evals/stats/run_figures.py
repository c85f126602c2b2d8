"""The figures of one run against people: agreement, score correlation, the systems' ranking.

One definition for a fresh run (``evals.pipelines.dataset_evaluation``) and for a report rebuilt
from its predictions file (``evals.report.run_report``), so a gate means the same in both.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


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
        from ragjury.evals.stats.rank_correlation import pearson, spearman

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
    from ragjury.evals.stats.agreement import ranking_correlation

    human_scores = {s: sum(human[s]) / len(human[s]) for s in systems}
    judge_scores = {s: sum(judged[s]) / len(judged[s]) for s in systems}
    return SystemRanking(human_scores, judge_scores, ranking_correlation(human_scores, judge_scores))


__all__ = ["Labelled", "SystemRanking", "binary_agreement", "flat_figures", "score_correlation", "system_ranking"]
