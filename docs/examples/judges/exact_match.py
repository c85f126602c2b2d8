"""ExactMatchJudge: the answer, normalised, is one of the reference answers.

An example of a model-free judge (docs/extending.md): this one file, dropped into
``rag_agent/judges/model_free/``, is the whole judge -- ``ragjury judges`` lists it and
``ragjury evaluate --task correctness --judge exact-match`` runs it. Stricter than ``contains``:
"It was Paris." is not an exact match of "Paris".
"""

from __future__ import annotations

from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.judges.model_free.contains import normalise_answer


@judge_entry("correctness", "exact-match", "the answer is a reference answer (normalised)")
class ExactMatchJudge(BaseJudge[CorrectnessItem, bool]):
    """Correct when the normalised answer equals a normalised reference (SQuAD's exact match)."""

    name = "exact_match"

    @property
    def identity(self) -> JudgeIdentity:
        # The version goes into every result and cache key: bump it when the rule changes.
        return JudgeIdentity(name=self.name, prompt_version="exact_match@1.0")

    async def _judge(self, item: CorrectnessItem) -> Judgment[bool]:
        references = {normalise_answer(reference) for reference in item.references} - {""}
        if not item.answer.strip() or not references:
            return self.unscored("empty answer or references: nothing to compare")
        return self.scored(normalise_answer(item.answer) in references)


__all__ = ["ExactMatchJudge"]
