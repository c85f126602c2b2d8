"""Judgment envelopes for a whole vectorised batch, cheaply.

For the model-free judges, validating a ``Judgment`` per item costs more than judging it, so
each distinct value is validated once and every item gets an unvalidated copy
(``rag_agent.core.results.replicas``). Copies share ``Usage`` and value objects, which is safe
because ragjury never changes those in place.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, TypeVar

from ragjury.rag_agent.core.protocol import BaseJudge, ResultCallback
from ragjury.rag_agent.core.results import Judgment, replicas

__all__ = ["batch_envelopes"]

ValueT = TypeVar("ValueT", bound=Hashable)


def batch_envelopes(
    judge: BaseJudge[Any, ValueT],
    values: Sequence[ValueT | None],
    reasons: Sequence[str | None],
    *,
    elapsed_s: float,
    on_result: ResultCallback | None = None,
) -> list[Judgment[ValueT]]:
    """One envelope per item: ``values[i]`` when ``reasons[i]`` is None, else unscored with the reason."""
    share = elapsed_s / max(1, len(values))
    # One template per (type, value) when scored (True and 1 are different values) and per
    # reason when unscored: a handful, each validated once.
    if reasons.count(None) == len(reasons) and None not in values and len(set(map(type, values))) == 1:
        # Every item scored, with values of one type (the usual batch): keyed by value alone.
        by_value = {value: judge.scored(value) for value in dict.fromkeys(values)}
        chosen = list(map(by_value.__getitem__, values))
    else:
        templates: dict[tuple[type | None, Hashable], Judgment[ValueT]] = {}
        chosen = []
        for value, reason in zip(values, reasons):
            key = (None, reason or "no value") if reason is not None or value is None else (type(value), value)
            template = templates.get(key)
            if template is None:
                template = templates[key] = judge.scored(value) if key[0] is not None else judge.unscored(key[1])  # type: ignore[arg-type]
            chosen.append(template)
    out = replicas(chosen, latency_s=share)
    if on_result is not None:
        for index, judgment in enumerate(out):
            on_result(index, judgment)  # type: ignore[arg-type]
    return out
