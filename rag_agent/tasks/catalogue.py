"""The task catalogue: every task an item class declares with ``@task_entry``, and its entry.

The declarations are read from the source text (``rag_agent/core/items.py`` and each file of
``rag_agent/tasks/``), so ``ragjury --help`` knows every task's name, labels and verdict word
without importing an item class (nor pydantic); the item's module is imported when it is used.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ragjury.rag_agent.core import task_entry as declarations
from ragjury.rag_agent.core.source_declarations import literal_calls
from ragjury.rag_agent.core.task_entry import TaskEntry

TASK_MODULES: tuple[str, ...] = ("ragjury.rag_agent.core.items",)
"""The built-in tasks' module; tasks added later are the files of this package."""


@dataclass(frozen=True)
class TaskDeclaration:
    """What the source text says of one task, read without importing its module."""

    name: str
    module: str
    gold: str = "binary"
    verdict_word: str | None = None
    dataset: bool = True


def _sources() -> list[tuple[str, Path]]:
    """(module, path) of every file that may declare tasks: the built-in module, then this
    package's files by name."""
    root = Path(__file__).resolve().parents[2]  # the ragjury package folder
    found = [(module, root.joinpath(*module.split(".")[1:]).with_suffix(".py")) for module in TASK_MODULES]
    here = Path(__file__).resolve().parent
    found += [(f"{__package__}.{path.stem}", path) for path in sorted(here.glob("*.py"))
              if path.stem != "__init__"]
    return found


@cache
def declared() -> dict[str, TaskDeclaration]:
    """``name -> TaskDeclaration`` of every declared task, in declaration order (read, not imported)."""
    index: dict[str, TaskDeclaration] = {}
    for module, path in _sources():
        source = path.read_text(encoding="utf-8")
        if "@task_entry(" not in source:
            continue
        try:
            compile(source, str(path), "exec")
        except SyntaxError as error:  # it would fail at import: said now, the other tasks keep working
            _problem(f"{path}:{error.lineno}: not Python ({error.msg}); its tasks are left out")
            continue
        for args, keywords in literal_calls(source, "task_entry"):
            name = args[0] if args else keywords.get("name")
            if not isinstance(name, str):
                _problem(f"{path}: a @task_entry whose name is not a literal string is left out "
                         "(the catalogue reads names from the source: write @task_entry(\"name\", ...))")
                continue
            if name in index and index[name].module != module:
                _problem(f"{path}: task '{name}' is already declared in {index[name].module}; this one is ignored "
                         "(rename it)")
                continue
            word = keywords.get("verdict_word")
            index[name] = TaskDeclaration(
                name, module, str(keywords.get("gold", "binary")), word if isinstance(word, str) else None,
                bool(keywords.get("dataset", True)),
            )
    return index


_SAID: set[str] = set()


def _problem(message: str) -> None:
    """A drop-in task file the catalogue cannot use: one stderr line naming the file, once."""
    if message not in _SAID:
        _SAID.add(message)
        sys.stderr.write(f"ragjury: {message}\n")


def dataset_tasks() -> list[str]:
    """The tasks ``ragjury evaluate --task`` reads from a file, in declaration order."""
    return [name for name, found in declared().items() if found.dataset]


def verdict_words() -> dict[str, str]:
    """What a true verdict of each task is called ("judged correct"), where its task says."""
    return {name: found.verdict_word for name, found in declared().items() if found.verdict_word}


def entry(name: str) -> TaskEntry:
    """The entry of a declared task (its module imported now); ``KeyError`` when undeclared."""
    if name not in declarations.TASKS:
        found = declared().get(name)
        if found is None:
            raise KeyError(name)
        importlib.import_module(found.module)
        if name not in declarations.TASKS:
            raise KeyError(f"{found.module} names task {name} but did not register it")
    return declarations.TASKS[name]


__all__ = ["TASK_MODULES", "TaskDeclaration", "dataset_tasks", "declared", "entry", "verdict_words"]
