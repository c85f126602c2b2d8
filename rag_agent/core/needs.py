"""What a judge needs from outside itself: the circuit breakers of the model servers it calls and
the embedders it embeds with, declared by the judge (``BaseJudge.needs``).

Why declared, not found: the runner, the preflight and the fallback used to crawl a judge's
attributes by name (``caller``, ``inner``, ``members``, ...) to find them, so a composite that
named its parts otherwise was silently skipped. Now a judge says what it needs, beside the code
that holds it, and a composite adds up its parts' needs (the way Inspect's tasks declare what they
use, and Ragas passes the model in).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


def _unique(things: Iterable[Any]) -> tuple[Any, ...]:
    """``things`` without repeats (by identity), in order: two judges may share one breaker."""
    seen: dict[int, Any] = {}
    for thing in things:
        seen.setdefault(id(thing), thing)
    return tuple(seen.values())


@dataclass(frozen=True)
class Needs:
    """The breakers (``rag_agent.model.breaker.CircuitBreaker``) and embedders
    (``judges.model_free.embedders.Embedder``) a judge's calls go through; ``+`` joins two."""

    breakers: tuple[Any, ...] = ()
    embedders: tuple[Any, ...] = ()

    def __add__(self, other: Needs) -> Needs:
        return Needs(_unique((*self.breakers, *other.breakers)), _unique((*self.embedders, *other.embedders)))

    async def ready(self) -> None:
        """Before a batch: each embedder that can tell it will not work at all (``ready``) says so
        now, as an ``InputError`` with the fix, rather than in every judgment."""
        for embedder in self.embedders:
            ready = getattr(embedder, "ready", None)
            if ready is not None:
                await ready()


NOTHING = Needs()
"""What a judge without a model server or an embedder needs."""


def needs_of(judge: object) -> Needs:
    """What ``judge`` declares it needs (``needs()``); nothing for a judge that declares nothing
    (a plug-in that does not derive from ``BaseJudge``)."""
    ask = getattr(judge, "needs", None)
    return ask() if callable(ask) else NOTHING


def needs_of_all(judges: Iterable[object]) -> Needs:
    """What a composite needs: the sum of its parts' needs."""
    total = NOTHING
    for judge in judges:
        total = total + needs_of(judge)
    return total


__all__ = ["NOTHING", "Needs", "needs_of", "needs_of_all"]
