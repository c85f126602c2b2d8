"""``estimate --train``: the judge's scores replaced by cross-encoders cross-trained on the estimate's labels.

As with ``estimate --fit`` (``fitted_estimates``), a model trained on the very labels the estimate reads
would make its interval too narrow; so each labelled item is scored by a model trained without its fold
and every other item by the mean of the fold models (cross-prediction-powered inference). Each fold is a
full training, so the cost (K trainings) is said before the first one starts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ragjury.evals.pipelines.train_run import MIN_PER_CLASS, item_of
from ragjury.evals.stats.logistic import fold_ids
from ragjury.evals.stats.system_estimates import EstimateItem
from ragjury.evals.training.cross_encoder import Example, Recipe, fit, load, predict
from ragjury.rag_agent.judges.model_free.cross_encoder import PAIR_FIELDS, pair_texts

FOLDS = 5


def cross_trained(
    task: str | None, items: Sequence[EstimateItem], fields: Mapping[str, Mapping[str, Any]], *,
    base: Path | None = None, recipe: Recipe | None = None, folds: int = FOLDS,
    say: Callable[[str], None] | None = None,
) -> tuple[list[EstimateItem], int]:
    """``items`` with cross-trained P(yes), and how many were left out for want of item text.
    ``ValueError`` (said to the user) for a task without a text pair or too few labels of a class."""
    if task not in PAIR_FIELDS:
        raise ValueError(f"--train trains a cross-encoder for {', '.join(PAIR_FIELDS)}, not {task}")
    recipe = recipe or Recipe()
    kept: list[EstimateItem] = []
    pairs: list[tuple[str, str]] = []
    for item in items:
        try:
            pair = pair_texts(task, item_of(task, fields.get(item.id, {})))
        except ValueError:
            continue
        kept.append(item)
        pairs.append(pair)
    if not kept:
        raise ValueError("--train reads each item's text, and these predictions carry none: use predictions "
                         "written by 'ragjury evaluate --out'")
    labelled = np.flatnonzero([item.label is not None for item in kept])
    gold = np.array([bool(kept[i].label) for i in labelled], dtype=bool)
    if min(int(gold.sum()), int((~gold).sum())) < MIN_PER_CLASS:
        raise ValueError(f"--train needs at least {MIN_PER_CLASS} labels of each class "
                         f"({int(gold.sum())} yes, {int((~gold).sum())} no)")
    rest = np.setdiff1d(np.arange(len(kept)), labelled)
    if say is not None:
        say(f"--train: {folds} trainings of a cross-encoder on about {len(labelled) * (folds - 1) // folds} labels each, "
            f"then {len(kept)} items judged by each")
    ids = fold_ids(len(labelled), folds, recipe.seed)
    scores = np.zeros(len(kept))
    for fold in range(folds):
        train = labelled[ids != fold]
        test = labelled[ids == fold]
        model, tokenizer = load(base, seed=recipe.seed)
        fit(model, tokenizer, [Example(*pairs[i], float(kept[i].label)) for i in train], recipe)  # type: ignore[arg-type]
        judged = predict(model, tokenizer, [pairs[i] for i in np.concatenate([test, rest])], max_length=recipe.max_length)
        scores[test] = judged[: len(test)]
        scores[rest] += judged[len(test):] / folds
        if say is not None:
            say(f"--train: fold {fold + 1} of {folds} trained")
    return [replace(item, score=float(s)) for item, s in zip(kept, scores, strict=True)], len(items) - len(kept)


__all__ = ["FOLDS", "cross_trained"]
