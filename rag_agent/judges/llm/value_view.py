"""A model-free judge seen with an LLM judge's value type, so it can be that judge's fallback.

``auto`` puts a model-free judge behind an LLM one (``FallbackJudge``), and a run, a cache and a
report expect one value type per judge: the fallback's value is converted, its identity, usage
and unscored judgments pass through unchanged.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from ragjury.rag_agent.core.needs import Needs, needs_of
from ragjury.rag_agent.core.protocol import BaseJudge, ItemT, Judge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment

ViewT = TypeVar("ViewT")


class ValueView(BaseJudge[ItemT, ViewT], Generic[ItemT, ViewT]):
    """``inner``'s judgments with each scored value passed through ``view``."""

    def __init__(self, inner: Judge[ItemT, Any]) -> None:
        self.inner = inner
        self.name = inner.identity.name
        self.concurrency = getattr(inner, "concurrency", 4)

    @property
    def identity(self) -> JudgeIdentity:
        return self.inner.identity

    def needs(self) -> Needs:
        return needs_of(self.inner)

    def view(self, value: Any) -> ViewT:
        raise NotImplementedError

    async def _judge(self, item: ItemT) -> Judgment[ViewT]:
        judgment = await self.inner.ajudge(item)
        if judgment.value is None:
            return judgment  # type: ignore[return-value] - unscored: no value to convert
        return judgment.model_copy(update={"value": self.view(judgment.value)})  # type: ignore[return-value]


__all__ = ["ValueView"]
