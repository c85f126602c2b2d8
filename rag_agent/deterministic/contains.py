"""ContainsJudge: is any reference answer contained in the answer, after normalisation?

Why it matters: on EVOUNA-NQ (15,094 QA answers judged by people) this one rule agrees with
people at accuracy ~0.84 and Cohen's kappa ~0.66 (``bench/bench_deterministic_accuracy.py``).
Every correctness judge here must beat it to earn its cost.

Normalisation (SQuAD-style, plus accents): lowercase, accents stripped (NFKD), punctuation
turned into spaces, the articles a/an/the dropped, whitespace collapsed. Containment is plain
substring search on the normalised text, as in EVOUNA's and SQuAD's lexical match: "1990" is
found in "the 1990s" (people accept that), and so is "paris" in "in paris, france". Matching
on word boundaries instead was measured and agrees less with people (accuracy 0.822, kappa
0.619 on EVOUNA-NQ against 0.843 and 0.657).
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Sequence

from ragjury.rag_agent.items import CorrectnessItem
from ragjury.rag_agent.protocol import BaseJudge, JudgeIdentity, JudgmentUnscored, ResultCallback
from ragjury.rag_agent.results import Judgment

_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_NOT_WORD = re.compile(r"[^\w\s]|_")


def normalise_answer(text: str) -> str:
    """Lowercase, strip accents, punctuation to spaces, drop articles, collapse whitespace."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_ARTICLES.sub(" ", _NOT_WORD.sub(" ", stripped)).split())


def contains_reference(answer: str, references: Sequence[str]) -> bool | None:
    """True when a normalised reference occurs in the normalised answer; ``None`` when no
    reference has anything left after normalisation (nothing to look for)."""
    normalised = normalise_answer(answer)
    wanted = [ref for ref in (normalise_answer(r) for r in references) if ref]
    if not wanted:
        return None
    return any(ref in normalised for ref in wanted)


class ContainsJudge(BaseJudge[CorrectnessItem, bool]):
    """Correct when the answer contains any reference answer (normalised). Example::

    ContainsJudge().judge(CorrectnessItem(question="Who painted it?", answer="It was Édouard Manet.",
                                          references=["Edouard Manet"]))  # True
    """

    name = "contains"

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(name=self.name, prompt_version="contains@1.0")

    def _decide(self, item: CorrectnessItem) -> tuple[bool | None, str | None]:
        if not item.answer.strip():
            return None, "empty answer: nothing to judge"
        verdict = contains_reference(item.answer, item.references)
        if verdict is None:
            return None, "every reference is empty after normalisation (only articles or punctuation)"
        return verdict, None

    def judge(self, item: CorrectnessItem) -> bool:
        """The verdict; raises ``JudgmentUnscored`` for an empty answer or empty references."""
        verdict, reason = self._decide(item)
        if verdict is None:
            raise JudgmentUnscored(reason or "unscored")
        return verdict

    def batch_judge(self, items: Sequence[CorrectnessItem]) -> list[bool]:
        return [self.judge(item) for item in items]

    async def _judge(self, item: CorrectnessItem) -> Judgment[bool]:
        started = time.perf_counter()
        verdict, reason = self._decide(item)
        if verdict is None:
            return self.unscored(reason or "unscored", started=started)
        return self.scored(verdict, started=started)

    async def ajudge_batch(
        self, items: Sequence[CorrectnessItem], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[bool]]:
        """A plain loop: the rule is cheap, a task per item would cost more than the judging."""
        results: list[Judgment[bool]] = []
        for index, item in enumerate(items):
            judgment = await self.ajudge(item)
            results.append(judgment)
            if on_result is not None:
                on_result(index, judgment)  # type: ignore[arg-type]
        return results
