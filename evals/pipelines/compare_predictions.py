"""``compare_predictions(baseline, new)``: the A/B question in Python, as ``report A B`` answers it.

Two finished runs (predictions files, or ``PredictionRun``s already read) give the ``Comparison``
the command measures and prints (``Comparison.of``): each run's rate, the paired rates, NEW -
BASELINE with its interval, p and the pair counts; ``.gate(margin)`` is ``--fail-if-worse``, the
same method. Bad input raises ``ValueError`` with the file named (never a command-line message).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ragjury.evals.io.predictions import load_predictions, run_names
from ragjury.evals.results.finished_run import finished_run
from ragjury.evals.results.comparison import Comparison, check_comparable


def compare_predictions(baseline: Any, new: Any, *, labels: Any = None) -> Comparison:
    """Compare two finished runs joined on the item id; ``ValueError`` when they cannot be compared
    (two tasks, no id in common, an id with two different rows, an unreadable file).

    ``baseline`` and ``new``: predictions files, ``PredictionRun``s, or what ``evaluate_dataset``
    returned. ``labels`` (a labels file, ``{id: label}`` or a list of ``{"id", "label"}`` dicts, ids
    ``CONFIG/ID`` where both runs share them): also B − A as people would judge it, joined on the
    question (``people``, an ``EstimatesResult`` from ``estimate_predictions``), which the gate
    then decides on."""
    from ragjury.evals.pipelines.system_estimates_run import estimate_predictions, run_in_memory

    sources = []
    for argument, run in (("baseline", baseline), ("new", new)):
        try:
            sources.append(run_in_memory(run))
        except TypeError:
            raise TypeError(f"{argument}: expected a predictions file, a PredictionRun or what evaluate_dataset "
                            f"returned, not {type(run).__name__}") from None
    paths = [source.path if source is not None else str(run) for source, run in zip(sources, (baseline, new))]
    names = run_names(paths)
    runs = [source if source is not None else load_predictions(run, name=name)
            for source, run, name in zip(sources, (baseline, new), names, strict=True)]
    check_comparable(*runs)
    people = estimate_predictions(list(runs), labels=labels) if labels is not None else None
    comparison = Comparison.of(finished_run(runs[0]), finished_run(runs[1]))
    return comparison if people is None else replace(comparison, people=people)


__all__ = ["compare_predictions"]
