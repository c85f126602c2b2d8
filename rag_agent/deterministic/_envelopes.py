"""Judgment envelopes for a whole vectorised batch, cheaply.

Why: validating a new ``Judgment`` per item costs more than judging it for the deterministic
judges. Each distinct value is validated once (through ``BaseJudge.scored``) and shallow-copied
with the item's own latency share; unscored items get their own reason. The copies share one
all-zero ``Usage``: ragjury combines usages with ``+`` (a new object), never in place.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, TypeVar

from ragjury.rag_agent.protocol import BaseJudge, ResultCallback
from ragjury.rag_agent.results import Judgment

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
    templates: dict[tuple[type, Hashable], Judgment[ValueT]] = {}
    out: list[Judgment[ValueT]] = []
    for index, (value, reason) in enumerate(zip(values, reasons)):
        if reason is not None or value is None:
            judgment = judge.unscored(reason or "no value")
            judgment.latency_s = share
        else:
            key = (type(value), value)
            template = templates.get(key)
            if template is None:
                template = templates[key] = judge.scored(value)
            judgment = template.model_copy(update={"latency_s": share})
        out.append(judgment)
        if on_result is not None:
            on_result(index, judgment)  # type: ignore[arg-type]
    return out
