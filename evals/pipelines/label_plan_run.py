"""``ragjury label-plan``: which judged items people should label, with each item's chance of being picked.

The plan file is what people fill in: one row per picked item with its text, the judge's verdict
and probability, ``label: null`` to replace, and ``inclusion_probability`` for ``estimate``.
Items are drawn within each system, so every system gets its share of the budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ragjury.evals.io.people import fingerprint
from ragjury.evals.io.predictions import ItemRecord, load_predictions
from ragjury.evals.stats.run_estimates import judge_score
from ragjury.evals.stats.label_plan import (
    UNIFORM_SHARE,
    draw,
    effective_sample_size,
    guarded_probabilities,
    paired_scores,
)
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
    paired: int = 0
    """A paired plan over two configs (``plan_paired_labels``): the questions both answered; 0 otherwise."""
    unpaired: dict[str, int] | None = None
    """config → its rows with no partner question (left out of a paired plan)."""


def plan_labels(
    predictions: Any, budget: int, *, seed: int = 0, uniform_share: float = UNIFORM_SHARE
) -> LabelPlan:
    """About ``budget`` items in all (split across systems by their size), unscored ones left out.

    ``predictions``: a predictions file or what ``evaluate_dataset`` returned; a list of two (config
    A's and B's) gives the paired plan (``plan_paired_labels``). ``LabelPlan.rows`` are the rows
    to label (``label: None``), as ``label-plan --out`` writes them."""
    from ragjury.evals.pipelines.system_estimates_run import run_in_memory

    if isinstance(predictions, list | tuple):
        if len(predictions) != 2:
            raise ValueError(f"predictions: give one run, or a list of two (config A's and B's), not {len(predictions)}")
        return plan_paired_labels((predictions[0], predictions[1]), budget, seed=seed, uniform_share=uniform_share)
    run = run_in_memory(predictions) or load_predictions(predictions)
    predictions = run.path
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
                        "fingerprint": fingerprint(record.item),
                        **({"predictions": run.path} if "<" not in run.path else {}),
                        **dict(record.item),
                    }
                )
    return LabelPlan(rows, systems, uniform, expected, effective, shares)


def plan_paired_labels(
    paths: tuple[Any, Any], budget: int, *, seed: int = 0, uniform_share: float = UNIFORM_SHARE
) -> LabelPlan:
    """About ``budget`` labels over two configs' runs, on the same questions for both (the paired
    A/B design): a question's chance grows with the two judges' uncertainty together
    (``paired_scores``), and each picked question gives one row per config with that chance. Rows
    carry ids ``CONFIG/ID`` (``joined_runs``), so the labels never meet the other config's answer;
    questions only one config answered (or one left unscored) are left out, and counted."""
    from ragjury.evals.io.joined_runs import joined_run
    from ragjury.evals.pipelines.system_estimates_run import run_in_memory

    sources = [run_in_memory(source) or source for source in paths]
    run, names = joined_run(sources)
    files = {name: str(getattr(source, "path", source)) for name, source in zip(names, sources)}
    by_config: dict[str, dict[str, ItemRecord]] = {name: {} for name in names}
    for record in run.records:
        if judge_score(record) is not None and record.pair is not None:
            by_config[str(record.system)][record.pair] = record
    shared = sorted(set(by_config[names[0]]) & set(by_config[names[1]]))
    if not shared:
        raise InputError(run.path, f"no question scored in both {names[0]} and {names[1]}: the paired plan needs "
                         "questions both configs answered (joined on the question text)")
    if budget < 2:
        raise InputError(run.path, f"--budget must be at least 2 (one question, both configs), got {budget}")
    a = np.array([judge_score(by_config[names[0]][key]) for key in shared], dtype=float)
    b = np.array([judge_score(by_config[names[1]][key]) for key in shared], dtype=float)
    pi, share = guarded_probabilities(paired_scores(a, b), budget / 2, uniform_share=uniform_share)
    picked = draw(pi, seed * 1_000_003)
    rows: list[dict[str, object]] = []
    for key, chosen, chance in zip(shared, picked, pi):
        if not chosen:
            continue
        for name in names:
            record = by_config[name][key]
            rows.append({"id": record.id, "system": name, "label": None, "inclusion_probability": round(float(chance), 9),
                         "judge_label": record.label, "judge_probability": record.probability,
                         "fingerprint": fingerprint(record.item),
                         **({"predictions": files[name]} if "<" not in files[name] else {}), **dict(record.item)})
    left = {name: sum(1 for r in run.records if r.system == name) - len(shared) for name in names}
    systems = {name: (len(shared) + left[name], int(picked.sum())) for name in names}
    return LabelPlan(rows, systems, bool(np.allclose(pi, pi[0])), 2 * float(pi.sum()), 2 * effective_sample_size(pi),
                     {name: share for name in names}, paired=len(shared), unpaired=left)


__all__ = ["LabelPlan", "plan_labels", "plan_paired_labels"]
