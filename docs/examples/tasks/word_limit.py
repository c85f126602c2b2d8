"""WordLimitJudge: an answer is concise when it has at most ``limit`` words.

An example of a model-free judge of a new task (docs/extending.md): this one file, dropped into
``rag_agent/judges/model_free/`` beside the task's file (``conciseness.py``) in
``rag_agent/tasks/``, is ``ragjury evaluate --task conciseness --judge word-limit``.
"""

from __future__ import annotations

from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.tasks.conciseness import ConcisenessItem


@judge_entry("conciseness", "word-limit", "the answer has at most 30 words")
class WordLimitJudge(BaseJudge[ConcisenessItem, bool]):
    """Concise when the answer is at most ``limit`` words long (whitespace-separated)."""

    name = "word_limit"

    def __init__(self, limit: int = 30) -> None:
        self.limit = limit

    @property
    def identity(self) -> JudgeIdentity:
        # The limit is a parameter of the rule: it goes into every cache key with the version.
        return JudgeIdentity(name=self.name, prompt_version="word_limit@1.0", params=f"limit={self.limit}")

    async def _judge(self, item: ConcisenessItem) -> Judgment[bool]:
        if not item.answer.strip():
            return self.unscored("empty answer: nothing to judge")
        return self.scored(len(item.answer.split()) <= self.limit)


__all__ = ["WordLimitJudge"]
