"""``ragjury estimate``: per-system rates from a predictions file and a few human labels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragjury.evals.io.human_labels import HumanLabel, load_human_labels
from ragjury.evals.io.predictions import PredictionRun, load_predictions, run_of_rows
from ragjury.evals.stats.prediction_powered import DEFAULT_FINITE_INTERVAL, FiniteIntervalKind
from ragjury.evals.stats.run_card import run_card
from ragjury.evals.stats.run_estimates import EstimatesResult, estimate_run
from ragjury.rag_agent.core.input_files import InputError


def estimate_predictions(
    predictions: str | Path | PredictionRun | Any,
    *,
    labels: str | Path | None = None,
    by_system: bool = True,
    compare: Sequence[str] | None = None,
    level: float = 0.95,
    interval: FiniteIntervalKind = DEFAULT_FINITE_INTERVAL,
    fit: bool = False,
    allow_shown_judge: bool = False,
) -> EstimatesResult:
    """Read, check and estimate, with the judge card of the labelled items (of the judge's own
    scores, with ``fit`` too); every user mistake is an ``InputError`` naming the file. ``fit``
    replaces the judge's scores by a head cross-fitted on the labels (``fitted_estimates``).
    ``labels`` may be a labels file of ``ragjury label`` (its several-annotator rule applies; labels
    given with the judge shown are refused unless ``allow_shown_judge``).

    ``predictions`` is a predictions file, or a run already in memory: the ``DatasetEvaluation``
    of ``evaluate_dataset`` / ``evaluate_dataset_sync`` (no file written first) or a ``PredictionRun``."""
    run = run_in_memory(predictions)
    predictions = run.path if run is not None else predictions
    run = run or load_predictions(predictions)
    human = load_human_labels(labels, run.kind, allow_shown_judge=allow_shown_judge) if labels is not None else None
    notes: list[str] = []
    if human is not None:
        known = {record.id for record in run.records}
        if not known & set(human):
            raise InputError(str(labels), f"no id in this file matches a prediction in {predictions}")
        notes = label_notes(human, known, str(labels))
    rescore = None
    if fit:
        from ragjury.evals.pipelines.fitted_estimates import cross_fitted

        fields = {record.id: record.item for record in run.records}

        def rescore(items):  # type: ignore[no-untyped-def]
            try:
                return cross_fitted(run.task, items, fields)
            except ValueError as error:
                # no item text is the predictions file's doing; too few labels of a class, the labels'
                blamed = predictions if "predictions carry none" in str(error) or labels is None else labels
                raise InputError(str(blamed), str(error)) from None

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
    result.notes.extend(notes)
    result.card = run_card(run, human, by_system=by_system)
    return result


def run_in_memory(predictions: object) -> PredictionRun | None:
    """The ``PredictionRun`` of an in-memory result (its ``run``, read once as its predictions
    file would be; or anything with ``prediction_rows()``), the run itself, or None for a path."""
    if isinstance(predictions, PredictionRun):
        return predictions
    task = getattr(predictions, "task", None) or "run"
    run = getattr(predictions, "run", None)
    if isinstance(run, PredictionRun):  # a DatasetEvaluation: its records, made once
        return replace(run, path=f"<{task} result>", name=task)
    rows = getattr(predictions, "prediction_rows", None)
    if not callable(rows):
        if isinstance(predictions, str | Path):
            return None
        raise TypeError(
            f"estimate_predictions takes a predictions file, a DatasetEvaluation or a PredictionRun, "
            f"not {type(predictions).__name__}"
        )
    return run_of_rows(enumerate(rows(), start=1), path=f"<{task} result>", name=task)


def label_notes(human: Mapping[str, HumanLabel], known: set[str], source: str) -> list[str]:
    """What a labels file says that the estimate would otherwise hide: labels of ids no prediction
    has (left out), and inclusion probabilities of 1 on every labelled row (picked for certain:
    the interval then has no sampling error, which is right only if they are all the items)."""
    notes = []
    unmatched = len(set(human) - known)
    if unmatched:
        notes.append(f"{unmatched:,} of {len(human):,} labels in {source} match no prediction's id: left out")
    matched = [label for ident, label in human.items() if ident in known]
    if matched and all(label.inclusion_probability == 1 for label in matched) and len(matched) < len(known):
        notes.append(
            f"every labelled row in {source} has inclusion_probability 1 (picked for certain): the interval counts "
            "no sampling error, which holds only if people labelled every item; give the chances the rows had"
        )
    return notes


__all__ = ["estimate_predictions", "label_notes", "run_in_memory"]
