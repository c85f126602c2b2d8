"""The report's breakdowns of a run: per system, per judge's cost, and a probability judge's P(yes).

Why per system: a run's kappa can hide a judge that is fair on one system and wrong on another,
and "which system does the judge favour?" is the question a leaderboard asks of it. Why per
judge's latency and tokens: a judge is chosen on trust *and* cost, and a fallback that answered
half the items has its own (zero) cost. Both are plain tables (system or judge -> column -> value)
that the HTML page (the view ``page`` in the report package) renders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import median
from typing import Any, Protocol

from ragjury.evals.io.predictions import ItemRecord, PredictionRun
from ragjury.evals.stats.system_statistics import statistics_of

Table = dict[str, dict[str, Any]]


class MeasuredRun(Protocol):
    """What ``system_table`` reads of a measured run (``finished_run.FinishedRun``), said here so
    that ``finished_run``, which imports this module, is not imported back (no circle)."""

    @property
    def run(self) -> PredictionRun: ...

    @property
    def per_system(self) -> Mapping[str, Mapping[str, Any]]: ...


def system_table(finished: Sequence[MeasuredRun]) -> Table:
    """System -> the declared per-system statistics (``evals.stats.system_statistics``), as each
    run measured them (``FinishedRun.per_system``): those of the items once (n, labelled, people's
    rate or mean), those of the judge per run (binary: the share judged yes, accuracy and Cohen's
    kappa where people labelled; score: the judge's mean and its mean distance from people).
    Empty when no item names its system."""
    if not finished or not any(f.per_system for f in finished):
        return {}
    kind = finished[0].run.kind
    two = len(finished) > 1
    systems = list(dict.fromkeys(name for f in finished for name in f.per_system))
    table: Table = {}
    for system in sorted(systems):
        first = next(f.per_system[system] for f in finished if system in f.per_system)
        row: dict[str, Any] = {s.title: first[s.name] for s in statistics_of(kind, "items")}
        for k, f in enumerate(finished):
            values = f.per_system.get(system)
            prefix = f"{chr(65 + k)}: " if two else ""
            row.update({f"{prefix}{s.title}": values[s.name] if values is not None else s.function([])
                        for s in statistics_of(kind, "judge")})
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


__all__ = ["MeasuredRun", "cost_table", "duration", "labelled_probabilities", "system_table"]
