"""Relevance-style judges answering other tasks (the ``adapt=`` of a catalogue entry).

Why: a judge of ``RelevanceItem`` items (token overlap, embeddings) already compares a text
with an expected one. For correctness the answer is the "retrieved" text and each reference the
"expected" text (correct when it matches any reference); for faithfulness the answer is the
"expected" text, looked for in its joined contexts. Adapted judges keep vectorised batches
vectorised: all contexts of a batch go to the inner judge in one call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic

from ragjury.rag_agent.core.call_memo import inside
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem, RelevanceItem
from ragjury.rag_agent.core.labels import label_of
from ragjury.rag_agent.core.needs import Needs, needs_of
from ragjury.rag_agent.core.protocol import BaseJudge, ItemT, Judge, JudgeIdentity, ResultCallback, ValueT
from ragjury.rag_agent.core.results import Judgment


class AdaptedJudge(BaseJudge[ItemT, ValueT], Generic[ItemT, ValueT]):
    """Judge ``ItemT`` items with a judge of ``RelevanceItem`` items.

    ``to_contexts(item)`` gives one or more contexts; the first scored judgment with the highest
    label wins ("matches any reference"), and the item is unscored only when all are.
    """

    def __init__(
        self,
        inner: Judge[RelevanceItem, ValueT],
        to_contexts: Callable[[ItemT], Sequence[RelevanceItem]],
        *,
        adapter: str,
    ) -> None:
        self.inner = inner
        self.to_contexts = to_contexts
        self.adapter = adapter
        self.name = f"{inner.identity.name}[{adapter}]"
        self.concurrency = getattr(inner, "concurrency", 4)

    @property
    def identity(self) -> JudgeIdentity:
        inner = self.inner.identity
        return JudgeIdentity(
            name=self.name, model=inner.model, prompt_version=inner.prompt_version, params=inner.params
        )

    def needs(self) -> Needs:
        return needs_of(self.inner)

    def _combine(self, judgments: Sequence[Judgment[ValueT]]) -> Judgment[ValueT]:
        """The best-labelled scored judgment (costs summed), or unscored when none scored."""
        usage = sum((j.usage for j in judgments[1:]), judgments[0].usage) if judgments else None
        scored = [j for j in judgments if j.scored]
        if not scored:
            reason = judgments[0].unscored_reason if judgments else "no context to judge"
            return self.unscored(reason or "unscored", usage=usage)
        best = max(scored, key=lambda j: _rank(label_of(j.value)))
        return best.model_copy(update={"judge": self.name, "usage": usage or best.usage})

    async def _judge(self, item: ItemT) -> Judgment[ValueT]:
        return self._combine([await self.inner.ajudge(context) for context in self.to_contexts(item)])

    async def ajudge_batch(
        self, items: Sequence[ItemT], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[ValueT]]:
        """All contexts of all items in one inner batch (keeps a vectorised judge vectorised)."""
        spans: list[tuple[int, int]] = []
        flat: list[RelevanceItem] = []
        for item in items:
            contexts = list(self.to_contexts(item))
            spans.append((len(flat), len(flat) + len(contexts)))
            flat.extend(contexts)
        with inside(self.identity):  # the inner judge takes the model calls the run's cache holds
            inner = await self.inner.ajudge_batch(flat)
        results = []
        for index, (start, stop) in enumerate(spans):
            judgment = self._combine(inner[start:stop])
            results.append(judgment)
            if on_result is not None:
                on_result(index, judgment)  # type: ignore[arg-type]
        return results


def _rank(label: bool | float | None) -> float:
    return float(label) if label is not None else float("-inf")


def correctness_contexts(item: CorrectnessItem) -> list[RelevanceItem]:
    """The answer against each reference: correct when it matches any."""
    return [
        RelevanceItem(query=item.question, retrieved_text=item.answer, expected_text=reference)
        for reference in item.references
    ]


def faithfulness_contexts(item: FaithfulnessItem) -> list[RelevanceItem]:
    """The answer is the text that must be found (``expected_text``) in its joined contexts."""
    return [
        RelevanceItem(
            query=item.question or "", retrieved_text="\n\n".join(item.contexts), expected_text=item.answer
        )
    ]


ADAPTERS: dict[str, Callable[[Any], Sequence[RelevanceItem]]] = {
    "correctness": correctness_contexts,
    "faithfulness": faithfulness_contexts,
}


def adapted(inner: Judge[RelevanceItem, Any], adapter: str) -> AdaptedJudge[Any, Any]:
    """``inner`` answering the task ``adapter`` names (``correctness`` or ``faithfulness``)."""
    return AdaptedJudge(inner, ADAPTERS[adapter], adapter=adapter)


__all__ = ["ADAPTERS", "AdaptedJudge", "adapted", "correctness_contexts", "faithfulness_contexts"]
