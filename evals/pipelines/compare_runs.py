"""``compare_runs([a, b, c, ...], baseline=a)``: many configs in Python, as ``report RUN1 ... RUNn``
answers it.

Finished runs (predictions files, ``PredictionRun``s, or what ``evaluate_dataset`` returned) give
the ``Sweep`` the command measures and prints (``Sweep.of``): the ranking, each config's rate and
its paired differences to the baseline and to the best with intervals that hold for all of them
at once, and ``.gate(margin)``, ``--fail-if-worse``. Two runs are a sweep too (``.pair()`` gives
``report A B``'s ``Comparison``). Bad input raises ``ValueError`` naming the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragjury.evals.io.predictions import load_predictions, run_names
from ragjury.evals.results.sweep import Sweep


def compare_runs(runs: Sequence[Any], *, baseline: Any = None, margin: float | None = None,
                 labels: Any = None, seed: int = 0) -> Sweep:
    """Compare two runs or more on the questions every run scored; ``baseline`` is one of ``runs``
    (the object itself, or its index; by default the first). ``margin`` adds the verdict "worse than
    the baseline by more than M points" (``.gate(margin)`` decides either way). ``labels`` (a labels
    file, or ``People``; ids ``CONFIG/ID`` with CONFIG a run's name, or a ``system`` column): also each
    config's rate as people would judge it (``.people``, prediction-powered, simultaneous), which
    then decides the verdicts' gate."""
    from ragjury.evals.pipelines.system_estimates_run import run_in_memory

    runs = list(runs)
    sources = []
    for position, run in enumerate(runs):
        try:
            sources.append(run_in_memory(run))
        except TypeError:
            raise TypeError(f"runs[{position}]: expected a predictions file, a PredictionRun or what "
                            f"evaluate_dataset returned, not {type(run).__name__}") from None
    paths = [source.path if source is not None else str(run) for source, run in zip(sources, runs, strict=True)]
    names = run_names(paths)
    read = [source if source is not None else load_predictions(run, name=name)
            for source, run, name in zip(sources, runs, names, strict=True)]
    people = None
    if labels is not None:
        from ragjury.evals.io.people import People, read_people
        from ragjury.evals.results.sweep import with_sweep_labels

        people = labels if isinstance(labels, People) else read_people(labels, read[0].kind)
        read = with_sweep_labels(read, people)
    sweep = Sweep.of(read, baseline=_index(runs, baseline), margin=margin, seed=seed, people=labels is not None)
    if people is not None:
        from ragjury.evals.pipelines.sequential_estimates import sweep_sequence

        sweep.sequential = sweep_sequence(read, people)  # labels gathered by label --until best: valid at any stop
    return sweep


def _index(runs: list[Any], baseline: Any) -> int:
    if baseline is None:
        return 0
    if isinstance(baseline, int) and not isinstance(baseline, bool):
        if not 0 <= baseline < len(runs):
            raise ValueError(f"baseline index {baseline} is not one of the {len(runs)} runs")
        return baseline
    for position, run in enumerate(runs):
        if run is baseline:
            return position
    if isinstance(baseline, str | Path):  # a path, equal to one given as a path
        for position, run in enumerate(runs):
            if isinstance(run, str | Path) and Path(run) == Path(baseline):
                return position
    raise ValueError("baseline must be one of runs (the same object or path), or its index")


__all__ = ["compare_runs"]
