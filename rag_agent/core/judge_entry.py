"""``@judge_entry``: a judge declares, beside its class, the task and name it answers to.

It sits in the bottom layer so every judge module can declare itself without importing the
catalogue above it; the catalogue reads these declarations (first from the source text, so
listings and ``--help`` import no judge) and resolves names through them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from ragjury.rag_agent.core.labels import Label, label_of

Scale = Literal["binary", "graded", "score"]
"""``binary`` (bool labels), ``graded`` (0-3 int labels) or ``score`` (float in [0, 1])."""

Adapter = Literal["correctness", "faithfulness"]
"""A relevance-style judge (``RelevanceItem`` items) answering another task (see ``adapted``)."""

JudgeT = TypeVar("JudgeT")


@dataclass(frozen=True)
class CatalogueEntry:
    """What one ``--judge`` name of one task is: how to build it and what its values mean."""

    task: str
    name: str
    target: Callable[..., Any]
    """The judge class (or a factory function) the decorator sat on."""
    description: str
    scale: Scale = "binary"
    uses_model: bool = False
    """An LLM judge (listings say so; ``--dry-run`` and preflight checks care)."""
    uses_embeddings: bool = False
    """Needs an embedding model (the ``embeddings`` extra, or an embedding server): listings say so."""
    takes_settings: bool = False
    """Built with ``settings=RagjurySettings`` (model, server, budgets); true for every LLM judge."""
    fallback: str | None = None
    """The name of the model-free judge of the same task that ``auto`` falls back to."""
    default: bool = False
    """The task's default judge: ``auto`` resolves to it."""
    aliases: tuple[str, ...] = ()
    """Retired names that still resolve to this judge (old commands keep working); listings and
    ``--help`` show ``name`` only."""
    adapt: Adapter | None = None
    label: Callable[[object], Label | None] = field(default=label_of)
    """The label of a value this judge produced; the ``Labelled`` protocol unless told otherwise."""

    @property
    def module(self) -> str:
        return self.target.__module__


ENTRIES: dict[tuple[str, str], CatalogueEntry] = {}
"""Every entry declared so far (a judge module adds its own when it is imported)."""


def judge_entry(
    task: str,
    name: str,
    description: str,
    *,
    scale: Scale = "binary",
    uses_model: bool = False,
    uses_embeddings: bool = False,
    takes_settings: bool | None = None,
    fallback: str | None = None,
    default: bool = False,
    aliases: tuple[str, ...] = (),
    adapt: Adapter | None = None,
    label: Callable[[object], Label | None] = label_of,
) -> Callable[[JudgeT], JudgeT]:
    """Declare the decorated judge class (or factory) as ``--judge name`` for ``task``.

    Stack the decorator to offer one judge under several tasks (``adapt`` says how a
    relevance-style judge reads the other task's items). ``task`` and ``name`` must be literal
    strings: the catalogue finds them in the source text before importing the module, and so
    must ``aliases`` (a tuple of retired names that still resolve to this judge).
    """

    def declare(target: JudgeT) -> JudgeT:
        key = (task, name)
        previous = ENTRIES.get(key)
        if previous is not None and previous.target is not target and _qualname(previous.target) != _qualname(target):
            raise ValueError(
                f"judge '{name}' of task {task} is declared twice: {_qualname(previous.target)} and {_qualname(target)}"
            )
        ENTRIES[key] = CatalogueEntry(
            task=task,
            name=name,
            target=target,  # type: ignore[arg-type]
            description=description,
            scale=scale,
            uses_model=uses_model,
            uses_embeddings=uses_embeddings,
            takes_settings=uses_model if takes_settings is None else takes_settings,
            fallback=fallback,
            default=default,
            aliases=tuple(aliases),
            adapt=adapt,
            label=label,
        )
        return target

    return declare


def _qualname(target: object) -> str:
    return f"{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', repr(target))}"


__all__ = ["ENTRIES", "Adapter", "CatalogueEntry", "Scale", "judge_entry"]
