"""FallbackJudge: use a second judge when the first could not score.

A model server that is down should not stop an evaluation a model-free judge can finish, but
the result says that the fallback answered and why, so nobody mistakes a heuristic for the model.
With the primary's circuit breaker open (``rag_agent.model.breaker``) it is not even tried.
"""

from __future__ import annotations

from typing import Generic

from ragjury.rag_agent.core.needs import Needs, needs_of_all
from ragjury.rag_agent.core.protocol import BaseJudge, ItemT, Judge, JudgeIdentity, ValueT
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.model.breaker import any_open


class FallbackJudge(BaseJudge[ItemT, ValueT], Generic[ItemT, ValueT]):
    """Judge with ``primary``; where its judgment is unscored, judge again with ``fallback``."""

    def __init__(self, primary: Judge[ItemT, ValueT], fallback: Judge[ItemT, ValueT]) -> None:
        self.primary = primary
        self.fallback = fallback
        self.name = f"{primary.identity.name}|fallback:{fallback.identity.name}"
        self.concurrency = getattr(primary, "concurrency", 4)

    @property
    def identity(self) -> JudgeIdentity:
        p, f = self.primary.identity, self.fallback.identity
        return JudgeIdentity(
            name=self.name, model=p.model, prompt_version=p.prompt_version, params=f"{p.params}|{f.key()}"
        )

    def needs(self) -> Needs:
        return needs_of_all((self.primary, self.fallback))

    def _merge(self, first: Judgment[ValueT], second: Judgment[ValueT]) -> Judgment[ValueT]:
        return second.model_copy(
            update={
                "fallback_used": True,
                "fallback_reason": first.unscored_reason,
                "latency_s": first.latency_s + second.latency_s,
                "usage": first.usage + second.usage,
            }
        )

    async def _judge(self, item: ItemT) -> Judgment[ValueT]:
        breaker = any_open(self.primary)
        if breaker is not None:  # the model server is away: do not try it again, fall back now
            p = self.primary.identity
            skipped: Judgment[ValueT] = Judgment(
                judge=p.name,
                model=p.model,
                prompt_version=p.prompt_version,
                unscored=True,
                unscored_reason=breaker.reason,
            )
            return self._merge(skipped, await self.fallback.ajudge(item))
        first = await self.primary.ajudge(item)
        if first.scored:
            return first
        return self._merge(first, await self.fallback.ajudge(item))


__all__ = [
    "FallbackJudge",
]
