"""People's figures from labels gathered until settled (``label --until``): the confidence sequence, not the fixed-n interval.

Why here, below every view: ``estimate``, ``report``, its gates and ``compare_predictions`` read one
``EstimatesResult``; where the acts say the labels were gathered sequentially, the number of labels
was chosen by looking, so a fixed-n interval covers less than it says (``bench/bench_sequential.py``
measures by how much). The sequence is valid at any stop, so B − A's interval is replaced by it
once, here, and every view and gate reads the valid one; the fixed-n interval stays in a note.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ragjury.evals.io.predictions import PredictionRun
from ragjury.evals.stats.live_status import items_of_records, sequence_of
from ragjury.evals.stats.prediction_powered import Estimate
from ragjury.evals.stats.run_estimates import EstimatesResult
from ragjury.evals.stats.sequential import Status
from ragjury.rag_agent.core.input_files import InputError

WHY = ("the labels were gathered until the answer was settled: a fixed-n interval is valid only for a number of "
       "labels fixed in advance")


def sequence_of_run(run: PredictionRun, people: Any) -> Any:
    """The status of labels gathered by ``label --until`` over ``run``'s items, or None where the
    acts do not say so (any other labels form: None). A decision that does not fit the run
    (``B - A`` on one system) is the labels file's mistake: an ``InputError`` naming it."""
    if people is None or getattr(people, "form", None) != "acts":
        return None
    acts = people.acts
    if not any(act.sequential for act in acts):
        return None
    try:
        return sequence_of(items_of_records(run.records), acts)
    except ValueError as error:
        raise InputError(str(people.source), f"gathered sequentially, but {error}") from None


def with_sequence(result: EstimatesResult, run: PredictionRun, people: Any) -> EstimatesResult:
    """``result`` with the sequence of sequentially gathered labels; for ``B - A`` / ``B >= A - m``
    its comparison's interval is the sequence's (the fixed-n one kept in a note)."""
    status = sequence_of_run(run, people)
    if status is None:
        return result
    result.sequential = status
    diff = result.comparison
    if not isinstance(status, Status) or not status.decision.paired or diff is None or status.low is None:
        return result
    a_name, b_name = (str(s) for s in _systems(run))
    if {diff.a, diff.b} != {a_name, b_name}:
        return result
    sign = 1.0 if diff.a == b_name else -1.0  # the sequence is of B − A; the difference's minuend first
    low, high = (status.low, status.high) if sign > 0 else (-status.high, -status.low)
    old = diff.estimate
    estimate = Estimate(sign * float(status.estimate), float(low), float(high), float("nan"), status.labels,
                        old.n_items)
    fixed = f"the fixed-n interval [{100 * old.low:+.1f}, {100 * old.high:+.1f}] points is not valid here: {WHY}"
    result.comparison = replace(diff, estimate=estimate, notes=(*diff.notes, fixed), p_value=float("nan"),
                                method=f"confidence sequence of label --until \"{status.decision.text}\" "
                                       f"({status.labels} labels; valid at any stop)")
    return result


def sweep_sequence(runs: list[PredictionRun], people: Any) -> Any:
    """The status of labels gathered by ``label RUN1 ... RUNn --until best`` over N configs' runs
    (each record keyed ``NAME/ID`` under system NAME, as ``label`` keys the same files), or None."""
    from ragjury.evals.io.joined_runs import SEPARATOR, question_key

    records = [replace(record, id=f"{run.name}{SEPARATOR}{record.id}", system=run.name, pair=question_key(record))
               for run in runs for record in run.records]
    return sequence_of_run(replace(runs[0], records=records), people)


def _systems(run: PredictionRun) -> list[str | None]:
    return list(dict.fromkeys(record.system for record in run.records))


__all__ = ["WHY", "sequence_of_run", "sweep_sequence", "with_sequence"]
