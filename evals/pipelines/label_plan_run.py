"""``ragjury label-plan``: which judged items people should label, with each item's chance of being picked.

The plan file is what people fill in: one row per picked item with its text, the judge's verdict
and probability, ``label: null`` to replace, and ``inclusion_probability`` for ``estimate``.
Items are drawn within each system, so every system gets its share of the budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragjury.evals.io.predictions import load_predictions
from ragjury.evals.stats.run_estimates import judge_score
from ragjury.evals.stats.label_plan import UNIFORM_SHARE, draw, effective_sample_size, guarded_probabilities
from ragjury.rag_agent.core.input_files import InputError


@dataclass
class LabelPlan:
    rows: list[dict[str, object]]
    systems: dict[str, tuple[int, int]]
    """system → (items, picked)."""
    uniform: bool
    """True when the judge gave no probabilities, so every item had the same chance."""
    expected: float = 0.0
    """Labels expected in all (Σπ)."""
    effective: float = 0.0
    """Kish's effective sample size of the plan, summed over systems (``effective_sample_size``)."""
    shares: dict[str, float] | None = None
    """system → the uniform share used (raised above ``UNIFORM_SHARE`` where the guard needed it)."""


def plan_labels(
    predictions: str | Path, budget: int, *, seed: int = 0, uniform_share: float = UNIFORM_SHARE
) -> LabelPlan:
    """About ``budget`` items in all (split across systems by their size), unscored ones left out."""
    run = load_predictions(predictions)
    groups: dict[str, list] = {}
    for record in run.records:
        if judge_score(record) is not None:
            groups.setdefault(record.system or "all", []).append(record)
    total = sum(len(group) for group in groups.values())
    if total == 0:
        raise InputError(str(predictions), "no scored judgments to plan labels for")
    if budget < 1:
        raise InputError(str(predictions), f"--budget must be at least 1, got {budget}")
    rows: list[dict[str, object]] = []
    systems: dict[str, tuple[int, int]] = {}
    uniform = True
    expected = effective = 0.0
    shares: dict[str, float] = {}
    for number, (system, group) in enumerate(sorted(groups.items())):
        scores = np.array([judge_score(record) for record in group], dtype=float)
        share = budget * len(group) / total
        pi, shares[system] = guarded_probabilities(scores, share, uniform_share=uniform_share)
        expected += float(pi.sum())
        effective += effective_sample_size(pi)
        uniform = uniform and bool(np.allclose(pi, pi[0]))
        picked = draw(pi, seed * 1_000_003 + number)
        systems[system] = (len(group), int(picked.sum()))
        for record, chosen, chance in zip(group, picked, pi):
            if chosen:
                rows.append(
                    {
                        "id": record.id,
                        "system": record.system,
                        "label": None,
                        "inclusion_probability": round(float(chance), 9),
                        "judge_label": record.label,
                        "judge_probability": record.probability,
                        **dict(record.item),
                    }
                )
    return LabelPlan(rows, systems, uniform, expected, effective, shares)


__all__ = ["LabelPlan", "plan_labels"]
