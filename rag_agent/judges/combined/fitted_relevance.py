"""``--judge fitted:HEAD`` for relevance: a head over the ``llm`` judge's own P("1") and a signal
independent of its prompt (the MiniLM cosine of query and passage), fitted on the user's labels.

Why: on a small model the one-token verdict agrees with people only slightly; the probability a
run already pays for, read with a second view of the pair and cut where the user's own labels say,
is the cheapest way to do better on the user's own queries. A pair whose ``llm`` judgment fails is
unscored with that reason, never judged from the other signal alone.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.items import RelevanceItem
from ragjury.rag_agent.core.needs import Needs, needs_of
from ragjury.rag_agent.core.protocol import BaseJudge, Judge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.judges.model_free.fitted import FittedScore, Head, HeadError, file_digest, load_head
from ragjury.rag_agent.judges.model_free.fitted import clipped_logit as llm_logit

LLM_SIGNAL = "llm"
COSINE_SIGNAL = "cosine"
SIGNALS: dict[str, str] = {LLM_SIGNAL: "llm_logit", COSINE_SIGNAL: "cosine"}
"""``--signals`` names and the head feature each one gives, in the head's order."""


def pair_cosines(embedder: Any, items: Sequence[RelevanceItem]) -> list[float]:
    """Cosine of each item's query and passage (unit vectors from the embedder; each distinct text once)."""
    texts = sorted({t for item in items for t in (item.query, item.retrieved_text)})
    vectors = dict(zip(texts, np.asarray(embedder.embed(texts), dtype=np.float64), strict=True))
    return [float(vectors[item.query] @ vectors[item.retrieved_text]) for item in items]


def relevance_llm_judge(settings: RagjurySettings) -> Judge[Any, Any]:
    """The ``llm`` relevance judge on its one-token path: the P("1") a head reads."""
    from ragjury.rag_agent.judges.llm.relevance import RelevanceVerdictJudge

    return RelevanceVerdictJudge(settings=settings, method="logprobs")


def cosine_embedder() -> Any:
    from ragjury.rag_agent.judges.model_free.embedders import OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder()


class FittedRelevanceJudge(BaseJudge[RelevanceItem, FittedScore]):
    """Yes when the head's P(relevant) >= its cut-off. The head must have been fitted with the
    model this judge calls (its P("1") means something else on another model): refused otherwise."""

    name = "fitted"

    def __init__(self, head: str | Path, settings: RagjurySettings, threshold: float | None = None) -> None:
        self.head_path = Path(head)
        self.head: Head = load_head(self.head_path, "relevance")
        self.digest = file_digest(self.head_path)[:12]
        self.threshold = self.head.threshold if threshold is None else float(threshold)
        self.reads_llm = SIGNALS[LLM_SIGNAL] in self.head.features
        self.reads_cosine = SIGNALS[COSINE_SIGNAL] in self.head.features
        self.llm = relevance_llm_judge(settings) if self.reads_llm else None
        if self.llm is not None and self.llm.identity.model != self.head.model:
            raise HeadError(f"{self.head_path}: fitted on P('1') of model {self.head.model}; this run's judge "
                            f"model is {self.llm.identity.model}: refit the head with it, or pass --model {self.head.model}")
        self.embedder = cosine_embedder() if self.reads_cosine else None
        self.concurrency = getattr(self.llm, "concurrency", 4)

    @property
    def identity(self) -> JudgeIdentity:
        inner = self.llm.identity if self.llm is not None else None
        return JudgeIdentity(
            name=self.name, model=inner.model if inner else None,
            prompt_version=f"head@{self.digest}" + (f"+{inner.prompt_version}" if inner else ""),
            params=f"threshold={self.threshold:g}",
        )

    def needs(self) -> Needs:
        return needs_of(self.llm) if self.llm is not None else Needs()

    def __repr__(self) -> str:
        return f"FittedRelevanceJudge(head={str(self.head_path)!r}, features={list(self.head.features)!r})"

    async def _judge(self, item: RelevanceItem) -> Judgment[FittedScore]:
        started = time.perf_counter()
        values: list[float] = []
        usage = None
        if self.llm is not None:
            first = await self.llm.ajudge(item)
            usage = first.usage
            probability = getattr(first.value, "probability", None)
            if first.unscored or probability is None:
                reason = first.unscored_reason or "the llm judge gave no P('1') (the server returned no logprobs)"
                return self.unscored(f"llm: {reason}", started=started, usage=usage)
            values.append(llm_logit(probability))
        if self.embedder is not None:
            values.append((await asyncio.to_thread(pair_cosines, self.embedder, [item]))[0])
        p = self.head.probability(values)
        if not math.isfinite(p):
            return self.unscored("the head's score is not a finite number (its weights overflow on these features): refit it with `ragjury fit`", started=started, usage=usage)
        value = FittedScore(probability=p, label=p >= self.threshold, threshold=self.threshold)
        return self.scored(value, started=started, usage=usage)


__all__ = ["COSINE_SIGNAL", "LLM_SIGNAL", "SIGNALS", "FittedRelevanceJudge", "llm_logit", "pair_cosines",
           "relevance_llm_judge"]
