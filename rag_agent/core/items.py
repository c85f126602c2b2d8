"""What judges judge: one small typed item per judge family.

Items are pydantic models so they hash stably (the cache key is their JSON) and so a dataset
row that lacks a field fails with a clear validation error, not deep inside a judge. Each item
class declares its task (``@task_entry``); a task added later is one file in ``rag_agent/tasks/``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ragjury.rag_agent.core.schemas import SourceDocument
from ragjury.rag_agent.core.task_entry import task_entry


@task_entry("relevance", verdict_word="relevant", dataset=False)
class RelevanceItem(BaseModel):
    """The Evret/UMBRELA relevance task: is ``retrieved_text`` relevant to ``query``
    (or, when ``expected_text`` is given, does it match the expected answer text)?"""

    query: str
    retrieved_text: str
    expected_text: str | None = None


@task_entry("correctness", verdict_word="correct")
class CorrectnessItem(BaseModel):
    """An answer and the reference answers it may match (any one suffices)."""

    question: str
    answer: str
    references: list[str] = Field(min_length=1)


@task_entry("faithfulness", verdict_word="faithful")
class FaithfulnessItem(BaseModel):
    """An answer and the context it must be supported by."""

    answer: str
    contexts: list[str]
    question: str | None = None


@task_entry("score", gold="score")
class ScoreItem(BaseModel):
    """A question, an answer and the sources it may use: input of the multi-dimension judges."""

    question: str
    answer: str
    sources: list[SourceDocument] = Field(default_factory=list)
    sources_used: list[str] = Field(default_factory=list, description="Source IDs the answer says it used")


class TraceMessage(BaseModel):
    """One turn of a multi-turn agent trace."""

    role: Literal["user", "assistant", "tool", "system"]
    content: str
    tool_name: str | None = None


@task_entry("goal", dataset=False)
class GoalItem(BaseModel):
    """A multi-turn agent trace, optionally with the goal a person says the user had."""

    trace: list[TraceMessage] = Field(min_length=1)
    reference_goal: str | None = None


__all__ = [
    "CorrectnessItem",
    "FaithfulnessItem",
    "GoalItem",
    "RelevanceItem",
    "ScoreItem",
    "TraceMessage",
]
