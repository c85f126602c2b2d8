"""An empty answer is a wrong answer: judged so for every correctness judge, with no model call.

Why: a config that answers "" on 6 of 50 questions had those left out as unscored, so its rate
was over the 44 it tried and the comparison flattered the config that gives up. An empty answer
to a question with a reference is not a judge failure: it is "no", with P(yes) = 0, counted as
an empty answer wherever a run's counts are shown. Applied by the dataset pipeline to the judge
it runs (the judge object a user built is left as it is).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, computed_field

from ragjury.rag_agent.core.needs import Needs, needs_of
from ragjury.rag_agent.core.protocol import BaseJudge, Judge, JudgeIdentity, ResultCallback
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.value_tags import value_tag

EMPTY_REASON = "empty answer: judged wrong with no model call"


@value_tag("empty_answer")
class EmptyAnswer(BaseModel):
    """The verdict on an empty answer: wrong, for certain."""

    model_config = ConfigDict(frozen=True)

    verdict: Literal[False] = False
    probability: float = 0.0
    reason: str = EMPTY_REASON

    @computed_field  # type: ignore[prop-decorator]
    @property
    def label(self) -> bool:
        return False


def is_empty_answer(item: Any) -> bool:
    """An item whose ``answer`` is blank (an item without an answer field is not)."""
    answer = getattr(item, "answer", None)
    return isinstance(answer, str) and not answer.strip()


class EmptyAnswerIsWrong(BaseJudge[Any, Any]):
    """``judge`` for every item but an empty answer, which is "no" without asking it. The identity
    is the judge's own, so its cached judgments keep their keys."""

    def __init__(self, judge: Judge[Any, Any]) -> None:
        self.inner = judge
        self.name = judge.identity.name

    @property  # type: ignore[override]
    def concurrency(self) -> int:
        return int(getattr(self.inner, "concurrency", 4) or 4)

    @concurrency.setter
    def concurrency(self, value: int) -> None:  # the runner sets it for a run: the wrapped judge's
        if hasattr(self.inner, "concurrency"):
            self.inner.concurrency = value  # type: ignore[attr-defined]

    @property
    def identity(self) -> JudgeIdentity:
        return self.inner.identity

    def needs(self) -> Needs:
        return needs_of(self.inner)

    def from_cache(self, judgment: Judgment[Any]) -> Judgment[Any]:
        """The wrapped judge's reading of its cached judgment (one identity, one cut-off)."""
        inner = getattr(self.inner, "from_cache", None)
        return inner(judgment) if callable(inner) else judgment

    def __getattr__(self, name: str) -> Any:  # the wrapped judge's own attributes (executor, ...)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def _empty(self) -> Judgment[Any]:
        return self.scored(EmptyAnswer(), started=time.perf_counter())

    async def _judge(self, item: Any) -> Judgment[Any]:
        return self._empty() if is_empty_answer(item) else await self.inner.ajudge(item)

    async def ajudge_batch(self, items: Sequence[Any], *, on_result: ResultCallback | None = None) -> list[Judgment[Any]]:
        """The empty answers at once, the rest through the wrapped judge's own batching."""
        out: list[Judgment[Any] | None] = [None] * len(items)
        rest: list[int] = []
        for index, item in enumerate(items):
            if is_empty_answer(item):
                out[index] = judgment = self._empty()
                if on_result is not None:
                    on_result(index, judgment)
            else:
                rest.append(index)
        if rest:
            def forward(position: int, judgment: Judgment[Any]) -> None:
                if on_result is not None:
                    on_result(rest[position], judgment)

            judged = await self.inner.ajudge_batch([items[i] for i in rest], on_result=forward)
            for position, judgment in zip(rest, judged, strict=True):
                out[position] = judgment
        return [judgment for judgment in out if judgment is not None]


def empty_answers_wrong(judge: Judge[Any, Any]) -> Judge[Any, Any]:
    """``judge`` with empty answers judged wrong (a wrapped judge is not wrapped again)."""
    return judge if isinstance(judge, EmptyAnswerIsWrong) else EmptyAnswerIsWrong(judge)


__all__ = ["EMPTY_REASON", "EmptyAnswer", "EmptyAnswerIsWrong", "empty_answers_wrong",
           "is_empty_answer"]
