"""``ragjury estimate``: per-system rates from a predictions file and a few human labels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragjury.evals.io.human_labels import HumanLabel, as_human_labels
from ragjury.evals.io.joined_runs import joined_notes, joined_run
from ragjury.evals.io.people import People, certain_note, join_people, people_of_python, read_people, unmatched_note
from ragjury.evals.io.predictions import PredictionRun, differences, load_predictions, run_of_rows
from ragjury.evals.pipelines.sequential_estimates import with_sequence
from ragjury.evals.stats.prediction_powered import DEFAULT_FINITE_INTERVAL, FiniteIntervalKind
from ragjury.evals.stats.run_estimates import EstimatesResult, estimate_run, run_card
from ragjury.rag_agent.core.input_files import InputError


def estimate_predictions(
    predictions: str | Path | PredictionRun | Sequence[str | Path] | Any,
    *,
    labels: str | Path | Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
    by_system: bool = True,
    compare: Sequence[str] | None = None,
    level: float = 0.95,
    interval: FiniteIntervalKind = DEFAULT_FINITE_INTERVAL,
    fit: bool = False,
    train: bool = False,
    train_base: str | Path | None = None,
    say: Any = None,
    allow_shown_judge: bool = False,
) -> EstimatesResult:
    """Read, check and estimate, with the judge card of the labelled items (of the judge's own
    scores, with ``fit`` too); every user mistake is an ``InputError`` naming the file. ``fit``
    replaces the judge's scores by a head cross-fitted on the labels (``fitted_estimates``); ``train`` by
    cross-encoders cross-trained on them, from ``train_base`` or MiniLM (``trained_estimates``; ``say``
    hears the cost and each fold).
    ``labels`` may be a labels file of ``ragjury label`` (its several-annotator rule applies; labels
    given with the judge shown are refused unless ``allow_shown_judge``).

    ``predictions`` is a predictions file, or a run already in memory: the ``DatasetEvaluation``
    of ``evaluate_dataset`` / ``evaluate_dataset_sync`` (no file written first) or a ``PredictionRun``;
    or a list of two files, config A's and config B's, joined on the question (``joined_runs``),
    with B − A estimated. ``labels`` may also be ``{id: label}`` or a list of ``{"id", "label"}`` dicts."""
    joined = None
    apart: list[str] = []
    if isinstance(predictions, list | tuple):  # config A's and config B's runs: joined on the question
        if len(predictions) != 2:
            raise ValueError(f"predictions: give one run, or a list of two (config A's and B's), not {len(predictions)}")
        sources = [run_in_memory(source) or load_predictions(source) for source in predictions]
        apart = differences(sources[0].header, sources[1].header)  # their run headers: judged alike?
        run, joined = joined_run(sources)
        compare = compare or joined
        predictions = run.path
    else:
        run = run_in_memory(predictions)
        predictions = run.path if run is not None else predictions
        run = run or load_predictions(predictions)
    people = None
    if labels is not None:  # read once, joined once (people.join_people): the weights travel with each label
        people = read_people(labels, run.kind, allow_shown_judge=allow_shown_judge) if isinstance(labels, str | Path) \
            else labels if isinstance(labels, People) else people_of_python(labels, run.kind)
        run = join_people(run, people, configs=joined)
    notes: list[str] = []
    if people is not None:
        notes = people.notes() + unmatched_note(people, run) + certain_note(run, people.source)
    if joined:
        notes += joined_notes(run, joined)
    rescore = None
    if fit and train:
        raise ValueError("--fit and --train each replace the judge's scores: give one")
    if train:
        from ragjury.evals.pipelines.trained_estimates import cross_trained

        train_fields = {record.id: record.item for record in run.records}

        def rescore(items):  # type: ignore[no-untyped-def]
            try:
                return cross_trained(run.task, items, train_fields,
                                     base=Path(train_base) if train_base is not None else None, say=say)
            except ValueError as error:
                blamed = predictions if "predictions carry none" in str(error) or labels is None else labels
                raise InputError(str(blamed), str(error)) from None
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
        None,
        source=people.source if people is not None else str(predictions),
        by_system=by_system,
        compare=compare,
        level=level,
        interval=interval,
        rescore=rescore,
    )
    result.notes.extend(notes)
    result.card = run_card(run, None, by_system=by_system)
    result.people = people
    result.judged_differently = apart
    return with_sequence(result, run, people)  # labels gathered until settled: the sequence is the valid interval


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


def as_labels(labels: object) -> dict[str, HumanLabel]:
    """People's labels given in Python (``{id: label}`` or a list of ``{"id", "label"}`` dicts) by id
    (``people.people_of_python``); a ``ValueError`` names the argument."""
    return as_human_labels(people_of_python(labels), by_system=True)


__all__ = ["estimate_predictions", "run_in_memory"]
