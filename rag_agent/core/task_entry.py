"""``@task_entry``: an item class declares the task it is, beside its fields.

A task is what a judge decides (``correctness``, ``faithfulness``, ``score``, ...). Its item
class already says what a row holds (its fields, which are required, which are lists); the
declaration adds only what the fields cannot: the task's name, what its people's labels are and
what a true verdict is called. Everything else that names tasks (``ragjury evaluate --task``,
its help, the dataset reader, the result line) is derived from these declarations, read from the
source text first (``rag_agent.tasks.catalogue``) so ``--help`` imports no item class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

GoldKind = Literal["binary", "score"]
"""What people's labels and the judge's values are: ``binary`` (true/false) or ``score`` (a number)."""

ItemT = TypeVar("ItemT", bound=type)


@dataclass(frozen=True)
class TaskEntry:
    """One declared task: its item class and what its labels mean."""

    name: str
    item: type
    """The item class (a pydantic model) the task's judges read."""
    gold: GoldKind = "binary"
    verdict_word: str | None = None
    """What a true verdict is called in the result line ("judged correct"); None: "judged true"."""
    dataset: bool = True
    """``ragjury evaluate --task`` reads it from a file; relevance (graded qrels, ``ragjury
    relevance``) and goal (traces, ``ragjury verdict goal``) come in by doors of their own."""


TASKS: dict[str, TaskEntry] = {}
"""Every task declared so far (an item module adds its own when it is imported)."""


def task_entry(
    name: str, *, gold: GoldKind = "binary", verdict_word: str | None = None, dataset: bool = True
) -> Callable[[ItemT], ItemT]:
    """Declare the decorated item class as the items of task ``name``. Every argument must be a
    literal: the task catalogue reads them from the source text before importing the module."""

    def declare(item: ItemT) -> ItemT:
        previous = TASKS.get(name)
        if previous is not None and previous.item.__qualname__ != item.__qualname__:
            raise ValueError(
                f"task {name} is declared twice: {previous.item.__qualname__} and {item.__qualname__}"
            )
        TASKS[name] = TaskEntry(name, item, gold, verdict_word, dataset)
        return item

    return declare


__all__ = ["TASKS", "GoldKind", "TaskEntry", "task_entry"]
