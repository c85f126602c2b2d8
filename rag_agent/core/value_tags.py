"""``@value_tag``: a judgment's value (or envelope) class declares, beside it, the word stored for it.

Why: the judgment cache and the Ray hand-over store a judgment as JSON plus the name of its
classes, so that a ``JudgeScore`` comes back as a ``JudgeScore``. A stable tag, not a code path,
means moving a module never touches stored data; and the tags declared here are the allow-list:
a stored name that is not one of them is never instantiated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound=type[BaseModel])

TAGGED: dict[str, type[BaseModel]] = {}
"""tag -> class, for every tagged class imported so far."""
_TAG_OF: dict[type[BaseModel], str] = {}


def value_tag(tag: str) -> Callable[[ModelT], ModelT]:
    """Declare the decorated pydantic class as one the cache stores, and rebuilds, as ``tag``.

    ``tag`` must be a literal string (the cache finds it in the source text before importing the
    module) and is never changed once rows carry it; a subclass does not inherit it.
    """

    def declare(cls: ModelT) -> ModelT:
        previous = TAGGED.get(tag)
        if previous is not None and previous.__qualname__ != cls.__qualname__:
            raise ValueError(f"value tag '{tag}' is declared twice: {previous.__qualname__}, {cls.__qualname__}")
        TAGGED[tag] = cls
        _TAG_OF[cls] = tag
        return cls

    return declare


def tag_of(cls: type) -> str | None:
    """The tag ``cls`` declared (of its generic origin when parametrised), or None. Asked once
    per stored row: a parametrised class (``Judgment[bool]``) is remembered once found."""
    tag = _TAG_OF.get(cls)  # type: ignore[call-overload]
    if tag is None:
        origin = (getattr(cls, "__pydantic_generic_metadata__", None) or {}).get("origin")
        tag = _TAG_OF.get(origin) if origin is not None else None
        if tag is not None:
            _TAG_OF[cls] = tag  # type: ignore[index]
    return tag


__all__ = ["TAGGED", "tag_of", "value_tag"]
