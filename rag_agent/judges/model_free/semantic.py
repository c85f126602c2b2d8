"""SemanticJudge: cosine similarity of embeddings against a threshold.

Token overlap misses paraphrases; embeddings catch them at the cost of a model. Without an
``expected_text`` the query is compared, and being short it scores lower: use a lower
``threshold``. An unavailable embedder leaves the batch unscored with its message, never 0.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.items import RelevanceItem
from ragjury.rag_agent.core.needs import Needs
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity, JudgmentUnscored, ResultCallback
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.sync import run_sync
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.judges.model_free.batch_envelopes import batch_envelopes
from ragjury.rag_agent.judges.model_free.embedders import (
    CachingEmbedder,
    Embedder,
    EmbedderUnavailable,
    default_embedder,
    normalise_rows,
)


@dataclass(frozen=True)
class Similarities:
    """Per pair: the cosine similarity (NaN where unscored) and the reason or ``None``."""

    values: np.ndarray
    reasons: list[str | None]


async def pair_similarities(embedder: Embedder, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
    """Cosine of ``left[i]`` and ``right[i]`` for every ``i``: each distinct text embedded once,
    all similarities from one row-wise product of unit vectors."""
    index: dict[str, int] = {}
    li = [index.setdefault(text, len(index)) for text in left]
    ri = [index.setdefault(text, len(index)) for text in right]
    if not index:
        return np.zeros(0, dtype=np.float32)
    unit = normalise_rows(np.asarray(await embedder.aembed(list(index)), dtype=np.float32))
    return np.einsum("ij,ij->i", unit[li], unit[ri])


@judge_entry("relevance", "semantic", "embedding similarity", uses_embeddings=True)
@judge_entry(
    "correctness", "semantic", "embedding similarity of answer and a reference", adapt="correctness",
    uses_embeddings=True,
)
class SemanticJudge(BaseJudge[RelevanceItem, bool]):
    """Match when cos(expected or query, retrieved) >= ``threshold`` (Evret's default 0.75).

    Example::

        judge = SemanticJudge()  # local all-MiniLM-L6-v2 when installed, else Ollama all-minilm
        judge.judge(RelevanceItem(query="q", expected_text="Paris is France's capital",
                                    retrieved_text="The capital of France is Paris."))  # True
    """

    name = "semantic"

    def __init__(
        self,
        embedder: Embedder | None = None,
        *,
        threshold: float = 0.75,
        cache_size: int = 100_000,
        settings: RagjurySettings | None = None,
    ) -> None:
        """``embedder``: default the local MiniLM if installed, else Ollama ``all-minilm`` at
        ``settings.ollama_host``."""
        if not -1.0 <= threshold <= 1.0:
            raise ValueError("threshold must be in [-1, 1]")
        inner = embedder or default_embedder(settings)
        self.embedder: Embedder = (
            inner if isinstance(inner, CachingEmbedder) else CachingEmbedder(inner, max_items=cache_size)
        )
        self.threshold = float(threshold)

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(
            name=self.name,
            model=self.embedder.model,
            prompt_version="cosine@1.0",
            params=f"threshold={self.threshold}",
        )

    def needs(self) -> Needs:
        return Needs(embedders=(self.embedder,))

    async def asimilarities(self, ctxs: Sequence[RelevanceItem]) -> Similarities:
        """Similarities of every pair; unscored pairs get NaN and a reason."""
        n = len(ctxs)
        reasons: list[str | None] = [None] * n
        left = [ctx.query if ctx.expected_text is None else ctx.expected_text for ctx in ctxs]
        right = [ctx.retrieved_text for ctx in ctxs]
        for i in range(n):
            if not right[i].strip():
                reasons[i] = "empty retrieved text: nothing to compare"
            elif not left[i].strip():
                reasons[i] = "empty expected text (or query): nothing to compare"
        values = np.full(n, np.nan, dtype=np.float64)
        live = [i for i in range(n) if reasons[i] is None]
        if live:
            try:
                sims = await pair_similarities(
                    self.embedder, [left[i] for i in live], [right[i] for i in live]
                )
            except EmbedderUnavailable as error:
                return Similarities(values, [r or f"embedder unavailable: {error}" for r in reasons])
            values[live] = sims
        return Similarities(values, reasons)

    def similarities(self, ctxs: Sequence[RelevanceItem]) -> Similarities:
        return run_sync(self.asimilarities(ctxs))

    def batch_judge(self, ctxs: Sequence[RelevanceItem]) -> list[bool]:
        """Verdicts for many pairs; raises ``JudgmentUnscored`` if any pair cannot be judged."""
        result = self.similarities(ctxs)
        for reason in result.reasons:
            if reason is not None:
                raise JudgmentUnscored(reason)
        return (result.values >= self.threshold).tolist()

    def judge(self, ctx: RelevanceItem) -> bool:
        return self.batch_judge([ctx])[0]

    async def _judge(self, item: RelevanceItem) -> Judgment[bool]:
        started = time.perf_counter()
        result = await self.asimilarities([item])
        if result.reasons[0] is not None:
            return self.unscored(result.reasons[0], started=started)
        return self.scored(bool(result.values[0] >= self.threshold), started=started)

    async def ajudge_batch(
        self, items: Sequence[RelevanceItem], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[bool]]:
        """One embedding pass for the whole batch; latency is each pair's share."""
        started = time.perf_counter()
        result = await self.asimilarities(items)
        verdicts = (result.values >= self.threshold).tolist()
        return batch_envelopes(
            self, verdicts, result.reasons, elapsed_s=time.perf_counter() - started, on_result=on_result
        )


__all__ = ["SemanticJudge", "Similarities", "pair_similarities"]
