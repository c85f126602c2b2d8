"""``ragjury estimate``: per-system rates from a predictions file and a few human labels."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ragjury.evals.io.human_labels import load_human_labels
from ragjury.evals.io.predictions import load_predictions
from ragjury.evals.stats.prediction_powered import DEFAULT_FINITE_INTERVAL, FiniteIntervalKind
from ragjury.evals.stats.run_card import run_card
from ragjury.evals.stats.run_estimates import EstimatesResult, estimate_run
from ragjury.rag_agent.core.input_files import InputError


def estimate_predictions(
    predictions: str | Path,
    *,
    labels: str | Path | None = None,
    by_system: bool = True,
    compare: Sequence[str] | None = None,
    level: float = 0.95,
    interval: FiniteIntervalKind = DEFAULT_FINITE_INTERVAL,
    fit: bool = False,
) -> EstimatesResult:
    """Read, check and estimate, with the judge card of the labelled items (of the judge's own
    scores, with ``fit`` too); every user mistake is an ``InputError`` naming the file. ``fit``
    replaces the judge's scores by a head cross-fitted on the labels (``fitted_estimates``)."""
    run = load_predictions(predictions)
    human = load_human_labels(labels) if labels is not None else None
    if human is not None:
        known = {record.id for record in run.records}
        if not known & set(human):
            raise InputError(str(labels), f"no id in this file matches a prediction in {predictions}")
    rescore = None
    if fit:
        from ragjury.evals.pipelines.fitted_estimates import cross_fitted

        fields = {record.id: record.item for record in run.records}

        def rescore(items):  # type: ignore[no-untyped-def]
            try:
                return cross_fitted(run.task, items, fields)
            except ValueError as error:
                raise InputError(str(labels) if labels is not None else str(predictions), str(error)) from None

    result = estimate_run(
        run,
        human,
        source=str(labels) if labels is not None else str(predictions),
        by_system=by_system,
        compare=compare,
        level=level,
        interval=interval,
        rescore=rescore,
    )
    result.card = run_card(run, human, by_system=by_system)
    return result


__all__ = ["estimate_predictions"]
