"""The report's breakdowns of a run: per system, per judge's cost, and a probability judge's P(yes).

Why per system: a run's kappa can hide a judge that is fair on one system and wrong on another,
and "which system does the judge favour?" is the question a leaderboard asks of it. Why per
judge's latency and tokens: a judge is chosen on trust *and* cost, and a fallback that answered
half the items has its own (zero) cost. Both are plain tables (system or judge -> column -> value)
that ``evals.report.page`` renders.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median
from typing import Any

from ragjury.evals.io.predictions import ItemRecord, PredictionRun
from ragjury.evals.stats.agreement import label_agreement

Table = dict[str, dict[str, Any]]


def _share(values: Sequence[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def _binary_columns(records: Sequence[ItemRecord]) -> dict[str, Any]:
    scored = [r for r in records if not r.unscored and r.label is not None]
    both = [r for r in scored if r.gold is not None]
    columns: dict[str, Any] = {"judged yes": _share([bool(r.label) for r in scored])}
    if both:
        figures = label_agreement([bool(r.gold) for r in both], [bool(r.label) for r in both], labels=[False, True])
        columns["agreement"] = figures.accuracy
        columns["Cohen's kappa"] = figures.cohen_kappa
    else:
        columns["agreement"] = None
        columns["Cohen's kappa"] = None
    return columns


def _score_columns(records: Sequence[ItemRecord]) -> dict[str, Any]:
    scored = [r for r in records if not r.unscored and r.label is not None]
    both = [r for r in scored if r.gold is not None]
    return {
        "judge mean": sum(float(r.label) for r in scored) / len(scored) if scored else None,  # type: ignore[arg-type]
        "mean |judge − people|": (
            sum(abs(float(r.label) - float(r.gold)) for r in both) / len(both) if both else None  # type: ignore[arg-type]
        ),
    }


def system_table(runs: Sequence[PredictionRun]) -> Table:
    """System -> n, people's rate where labelled, and per run the judged rate and the agreement.

    Binary runs: the share judged yes, the share people said yes, and accuracy and Cohen's kappa
    on the items both labelled. Score runs: the mean judge score, the mean people's score and
    the mean absolute difference. Empty when no item names its system.
    """
    if not runs or not any(r.system for run in runs for r in run.records):
        return {}
    binary = runs[0].kind == "binary"
    two = len(runs) > 1
    by_system: list[dict[str, list[ItemRecord]]] = []
    for run in runs:
        groups: dict[str, list[ItemRecord]] = {}
        for record in run.records:
            groups.setdefault(record.system or "(no system)", []).append(record)
        by_system.append(groups)
    systems = list(dict.fromkeys(name for groups in by_system for name in groups))
    table: Table = {}
    for system in sorted(systems):
        first = next(groups[system] for groups in by_system if system in groups)
        labelled = [r.gold for r in first if r.gold is not None]
        row: dict[str, Any] = {"n": len(first), "labelled": len(labelled)}
        if binary:
            row["people yes"] = _share([bool(g) for g in labelled])
        else:
            row["people mean"] = sum(float(g) for g in labelled) / len(labelled) if labelled else None  # type: ignore[arg-type]
        for k, groups in enumerate(by_system):
            records = groups.get(system, [])
            columns = _binary_columns(records) if binary else _score_columns(records)
            prefix = f"{chr(65 + k)}: " if two else ""
            row.update({f"{prefix}{name}": value for name, value in columns.items()})
        table[system] = row
    return table


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def duration(seconds: float) -> str:
    """Seconds for people: ``42 µs``, ``3.5 ms``, ``550 ms``, ``1.20 s`` (a model-free judge's
    latency would read 0.0000 in seconds)."""
    if seconds < 0.001:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 0.01:
        return f"{seconds * 1000:.1f} ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s"


def cost_table(runs: Sequence[PredictionRun]) -> Table:
    """Judge -> judgments, latency (median, 90th percentile, max), tokens per judgment, requests
    and, where the rows carry a price, the cost. Empty when no judgment recorded time or tokens."""
    records = [r for run in runs for r in run.records]
    if not any(r.latency_s is not None or r.tokens for r in records):
        return {}
    has_cost = any(r.cost_usd is not None for r in records)
    two = len(runs) > 1
    table: Table = {}
    for k, run in enumerate(runs):
        groups: dict[str, list[ItemRecord]] = {}
        for record in run.records:
            groups.setdefault(record.judge or "?", []).append(record)
        for judge, group in groups.items():
            latencies = [r.latency_s for r in group if r.latency_s is not None]
            row: dict[str, Any] = {
                "judgments": len(group),
                "median latency": duration(median(latencies)) if latencies else None,
                "90th percentile latency": duration(_percentile(latencies, 0.9)) if latencies else None,
                "max latency": duration(max(latencies)) if latencies else None,
                "input tokens per judgment": f"{sum(r.input_tokens for r in group) / len(group):,.1f}",
                "output tokens per judgment": f"{sum(r.output_tokens for r in group) / len(group):,.1f}",
                "tokens": sum(r.tokens for r in group),
                "requests": sum(r.requests for r in group),
            }
            if has_cost:
                costs = [r.cost_usd for r in group if r.cost_usd is not None]
                row["cost (USD)"] = f"{sum(costs):.4f}" if costs else None
            table[f"{chr(65 + k)}: {judge}" if two else judge] = row
    return table


def labelled_probabilities(run: PredictionRun) -> tuple[list[float], list[bool]]:
    """P(yes) and people's label of a binary run's scored, labelled items that carry a P(yes)."""
    if run.kind != "binary":
        return [], []
    pairs = [
        (r.probability, bool(r.gold))
        for r in run.records
        if r.probability is not None and r.gold is not None and not r.unscored
    ]
    return [p for p, _ in pairs], [g for _, g in pairs]  # type: ignore[misc]


__all__ = ["cost_table", "duration", "labelled_probabilities", "system_table"]
