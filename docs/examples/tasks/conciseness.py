"""ConcisenessItem: the items of the ``conciseness`` task -- is the answer short enough?

An example of a new task (docs/extending.md): this one file, dropped into ``rag_agent/tasks/``,
is the whole task -- ``ragjury evaluate --task conciseness`` reads its rows (``question``,
``answer`` and an optional true/false ``label``), and the result line says "judged concise".
Its judges are files of their own (``word_limit.py`` beside this one).
"""

from __future__ import annotations

from pydantic import BaseModel

from ragjury.rag_agent.core.task_entry import task_entry


@task_entry("conciseness", verdict_word="concise")
class ConcisenessItem(BaseModel):
    """A question and the answer to it; the judge decides whether the answer says no more than it needs."""

    question: str
    answer: str


__all__ = ["ConcisenessItem"]
