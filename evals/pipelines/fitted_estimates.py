"""``estimate --fit``: the judge's scores replaced by a head cross-fitted on the estimate's labels.

The labels a user gives ``estimate`` can fit a better judge (``ragjury fit``), but a head fitted
on the very labels the estimate reads would make its interval too narrow. Here each labelled
item is scored by a head fitted without its fold and every other item by the mean of the fold
heads (``evals.stats.cross_fit``); the estimate then runs as with any judge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ragjury.evals.pipelines.fit_run import MIN_PER_CLASS
from ragjury.evals.stats.cross_fit import cross_fit_scores
from ragjury.evals.stats.system_estimates import EstimateItem
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem
from ragjury.rag_agent.judges.model_free.fitted import FEATURES, feature_values

FOLDS = 5


def _item_of(task: str, fields: Mapping[str, Any]) -> Any:
    model = CorrectnessItem if task == "correctness" else FaithfulnessItem
    return model.model_validate(dict(fields))


def cross_fitted(
    task: str | None, items: Sequence[EstimateItem], fields: Mapping[str, Mapping[str, Any]], *, seed: int = 0
) -> tuple[list[EstimateItem], int]:
    """``items`` with cross-fitted head scores, and how many were left out for want of signals.
    ``ValueError`` (said to the user) for a task without heads or too few labels of a class."""
    if task not in FEATURES:
        raise ValueError(f"--fit fits a head on model-free signals of correctness or faithfulness, not {task}")
    kept: list[EstimateItem] = []
    rows: list[list[float]] = []
    for item in items:
        try:
            values, reason = feature_values(task, _item_of(task, fields.get(item.id, {})))
        except ValueError:
            values, reason = [], "no item fields"
        if reason is None:
            kept.append(item)
            rows.append(values)
    if not kept:  # the predictions carry no item text: the labels are not what is missing
        raise ValueError("--fit reads each item's text (question, answer, references or contexts), and these "
                         "predictions carry none: use predictions written by 'ragjury evaluate --out'")
    labelled = np.array([item.label is not None for item in kept], dtype=bool)
    gold = np.array([bool(item.label) for item in kept if item.label is not None], dtype=bool)
    if min(int(gold.sum()), int((~gold).sum())) < MIN_PER_CLASS:
        raise ValueError(f"--fit needs at least {MIN_PER_CLASS} labels of each class to fit a head "
                         f"({int(gold.sum())} yes, {int((~gold).sum())} no)")
    scores = cross_fit_scores(np.array(rows, dtype=np.float64), labelled, gold, folds=FOLDS, seed=seed)
    return [replace(item, score=float(s)) for item, s in zip(kept, scores, strict=True)], len(items) - len(kept)


__all__ = ["FOLDS", "cross_fitted"]
