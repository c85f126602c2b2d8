"""``ragjury estimate``: per-system rates from a predictions file and a few human labels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ragjury.evals.io.human_labels import HumanLabel, load_human_labels
from ragjury.evals.io.predictions import load_predictions
from ragjury.evals.stats.prediction_powered import DEFAULT_FINITE_INTERVAL, FiniteIntervalKind
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
) -> EstimatesResult:
    """Read, check and estimate; every user mistake is an ``InputError`` naming the file."""
    run = load_predictions(predictions)
    human = load_human_labels(labels, run.kind) if labels is not None else None
    notes: list[str] = []
    if human is not None:
        known = {record.id for record in run.records}
        if not known & set(human):
            raise InputError(str(labels), f"no id in this file matches a prediction in {predictions}")
        notes = label_notes(human, known, str(labels))
    result = estimate_run(
        run,
        human,
        source=str(labels) if labels is not None else str(predictions),
        by_system=by_system,
        compare=compare,
        level=level,
        interval=interval,
    )
    result.notes.extend(notes)
    return result


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


__all__ = ["estimate_predictions", "label_notes"]
