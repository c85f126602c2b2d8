"""``ragjury estimate``: per-system rates from a predictions file and a few human labels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragjury.evals.io.human_labels import HumanLabel, _rows, load_human_labels, system_key
from ragjury.evals.io.joined_runs import joined_run, shared_questions
from ragjury.evals.io.label_acts import is_labels_file
from ragjury.evals.io.predictions import PredictionRun, load_predictions, run_of_rows
from ragjury.evals.stats.prediction_powered import DEFAULT_FINITE_INTERVAL, FiniteIntervalKind
from ragjury.evals.stats.run_card import run_card
from ragjury.evals.stats.run_estimates import EstimatesResult, estimate_run
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
    if isinstance(predictions, list | tuple):  # config A's and config B's runs: joined on the question
        if len(predictions) != 2:
            raise ValueError(f"predictions: give one run, or a list of two (config A's and B's), not {len(predictions)}")
        run, joined = joined_run([run_in_memory(source) or source for source in predictions])
        compare = compare or joined
        predictions = run.path
    else:
        run = run_in_memory(predictions)
        predictions = run.path if run is not None else predictions
        run = run or load_predictions(predictions)
    human = None
    if labels is not None:
        human = (as_labels(labels) if not isinstance(labels, str | Path)
                 else load_human_labels(labels, run.kind, allow_shown_judge=allow_shown_judge, by_system=bool(joined)))
    notes: list[str] = []
    if human is not None:
        known = {record.id for record in run.records}
        if not known & set(human):
            hint = (f" (the labels of two configs are keyed {joined[0]}/ID and {joined[1]}/ID, as 'label-plan A B' "
                    "writes them, or carry a 'system' column naming the config)" if joined else "")
            raise InputError(str(labels if isinstance(labels, str | Path) else "labels"),
                             f"no id in this file matches a prediction in {predictions}{hint}")
        notes = label_notes(human, known, str(labels) if isinstance(labels, str | Path) else "labels")
        if isinstance(labels, str | Path):
            notes += unlabelled_note(labels)
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
        human,
        source=str(labels) if isinstance(labels, str | Path) else str(predictions),
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


def as_labels(labels: object) -> dict[str, HumanLabel]:
    """People's labels given in Python: ``{id: label}`` or a list of ``{"id", "label"}`` dicts (with
    ``system`` and ``inclusion_probability`` where known); a ``ValueError`` names the argument."""
    rows = ([{"id": key, "label": value} for key, value in labels.items()] if isinstance(labels, Mapping)
            else list(labels) if isinstance(labels, Sequence) and not isinstance(labels, str) else None)
    if rows is None:
        raise ValueError(f"labels: expected a path, a dict of id -> label or a list of {{'id', 'label'}} dicts, "
                         f"not {type(labels).__name__}")
    out: dict[str, HumanLabel] = {}
    for number, row in enumerate(rows):
        if not isinstance(row, Mapping) or "id" not in row or "label" not in row:
            raise ValueError(f"labels[{number}]: expected a dict with 'id' and 'label', got {row!r}"[:200])
        value = row["label"]
        if value is None:
            continue
        if isinstance(value, bool) or value in (0, 1):
            label = float(value)
        else:
            raise ValueError(f"labels[{number}]: 'label' must be 0/1 or True/False, got {value!r}")
        ident = system_key(row.get("system"), str(row["id"]))
        probability = row.get("inclusion_probability")
        if probability is not None and not (isinstance(probability, int | float) and 0 < probability <= 1):
            raise ValueError(f"labels[{number}]: 'inclusion_probability' must be in (0, 1], got {probability!r}")
        out[ident] = HumanLabel(ident, label, None if probability is None else float(probability))
    if not out:
        raise ValueError("labels: no labelled item (every label is None)")
    return out


def unlabelled_note(labels: str | Path) -> list[str]:
    """"79 of 100 rows of plan.jsonl still unlabelled" for a half-filled plan (rows with ``label: null``)."""
    if is_labels_file(labels):
        return []
    rows = [row for _, row in _rows(labels) if isinstance(row, dict) and "label" in row and "judge" not in row]
    empty = sum(row.get("label") is None for row in rows)
    return [f"{empty:,} of {len(rows):,} rows of {labels} still unlabelled: the estimate uses the "
            f"{len(rows) - empty:,} labelled"] if empty else []


def joined_notes(run: PredictionRun, names: Sequence[str]) -> list[str]:
    """How the two configs were joined: on how many questions, and the rows with no partner."""
    both, alone = shared_questions(run, names)
    shown = [name if name == letter else f"{name} ({letter})" for name, letter in zip(names, "AB")]
    note = f"{shown[0]} and {shown[1]} joined on the question: {len(both):,} questions answered by both"
    extra = [f"{count:,} of {name} only" for name, count in alone.items() if count]
    return [note + (f"; {', '.join(extra)} (estimated, not paired)" if extra else "")]


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
