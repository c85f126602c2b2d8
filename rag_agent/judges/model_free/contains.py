"""ContainsJudge: is any reference answer contained in the answer, after normalisation?

This one rule is the correctness baseline every LLM judge must beat to earn its cost. It follows
SQuAD's and EVOUNA's lexical match: normalised text (accents, punctuation and articles dropped)
and plain substring search, so "1990" is found in "the 1990s", as people accept (matching on
word boundaries was measured to agree less with them). Figures: ``bench/bench_model_free_accuracy.py``.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Sequence

from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity, JudgmentUnscored, ResultCallback
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.judges.model_free.batch_envelopes import batch_envelopes

_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_NOT_WORD = re.compile(r"[^\w\s]|_")


def normalise_answer(text: str) -> str:
    """Lowercase, strip accents, punctuation to spaces, drop articles, collapse whitespace."""
    stripped = text.lower()
    if not stripped.isascii():  # ASCII has no accents to strip: skip the per-character pass
        decomposed = unicodedata.normalize("NFKD", stripped)
        stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_ARTICLES.sub(" ", _NOT_WORD.sub(" ", stripped)).split())


def _wanted(references: Sequence[str]) -> list[str]:
    """The references that have anything left after normalisation, normalised."""
    return [ref for ref in map(normalise_answer, references) if ref]


def _contains_normalised(normalised: str, wanted: Sequence[str]) -> bool | None:
    if not wanted:
        return None
    return any(ref in normalised for ref in wanted)


@judge_entry("correctness", "contains", "a reference occurs in the answer")
class ContainsJudge(BaseJudge[CorrectnessItem, bool]):
    """Correct when the answer contains any reference answer (normalised). Example::

    ContainsJudge().judge(CorrectnessItem(question="Who painted it?", answer="It was Édouard Manet.",
                                          references=["Edouard Manet"]))  # True
    """

    name = "contains"

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(name=self.name, prompt_version="contains@1.0")

    def _decide(
        self, item: CorrectnessItem, memo: dict[tuple[str, ...], list[str]] | None = None
    ) -> tuple[bool | None, str | None]:
        """The verdict or the reason there is none; ``memo`` keeps normalised references across
        a batch (a dataset judges several systems' answers to one question: same references)."""
        if not item.answer.strip():
            return None, "empty answer: nothing to judge"
        if memo is None:
            wanted = _wanted(item.references)
        else:
            references = tuple(item.references)
            wanted = memo.get(references)  # type: ignore[assignment]
            if wanted is None:
                wanted = memo[references] = _wanted(references)
        verdict = _contains_normalised(normalise_answer(item.answer), wanted)
        if verdict is None:
            return None, "every reference is empty after normalisation (only articles or punctuation)"
        return verdict, None

    def decide(self, items: Sequence[CorrectnessItem]) -> tuple[list[bool | None], list[str | None]]:
        """Verdicts and, per item, the reason it is unscored or ``None`` (one pass, references
        normalised once per distinct list)."""
        memo: dict[tuple[str, ...], list[str]] = {}
        decided = [self._decide(item, memo) for item in items]
        return [verdict for verdict, _ in decided], [reason for _, reason in decided]

    def judge(self, item: CorrectnessItem) -> bool:
        """The verdict; raises ``JudgmentUnscored`` for an empty answer or empty references."""
        verdict, reason = self._decide(item)
        if verdict is None:
            raise JudgmentUnscored(reason or "unscored")
        return verdict

    def batch_judge(self, items: Sequence[CorrectnessItem]) -> list[bool]:
        """Verdicts for many items; raises ``JudgmentUnscored`` for the first that has none."""
        verdicts, reasons = self.decide(items)
        for verdict, reason in zip(verdicts, reasons):
            if verdict is None:
                raise JudgmentUnscored(reason or "unscored")
        return verdicts  # type: ignore[return-value]

    async def _judge(self, item: CorrectnessItem) -> Judgment[bool]:
        started = time.perf_counter()
        verdict, reason = self._decide(item)
        return self.scored_or_unscored(verdict, reason, started=started)

    async def ajudge_batch(
        self, items: Sequence[CorrectnessItem], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[bool]]:
        """One pass over the batch (no task per item: the rule costs less than a task); the
        envelopes come from ``batch_envelopes``, latency is each item's share of the pass."""
        started = time.perf_counter()
        try:
            verdicts, reasons = self.decide(items)
        except Exception:  # noqa: BLE001 - one bad item must not end the batch: judge item by item
            return await super().ajudge_batch(items, on_result=on_result)
        return batch_envelopes(
            self, verdicts, reasons, elapsed_s=time.perf_counter() - started, on_result=on_result
        )


__all__ = ["ContainsJudge", "normalise_answer"]
