"""The envelope around every judgment: what produced it, what it cost, and whether it counts.

A score without provenance cannot be trusted or compared. A failed judgment carries
``unscored=True``, its reason and no value: every summary counts it as unscored, never as 0.0.
"""

from __future__ import annotations

import gc
from collections import deque
from collections.abc import Sequence
from itertools import repeat
from typing import Any, Generic, Self, TypeVar

from pydantic import BaseModel, Field, field_validator, model_validator

from ragjury.config.redaction import redact_secrets
from ragjury.rag_agent.core.labels import Label, label_of
from ragjury.rag_agent.core.value_tags import value_tag

ValueT = TypeVar("ValueT")
JudgmentT = TypeVar("JudgmentT", bound="Judgment[Any]")


class Usage(BaseModel):
    """Tokens and model requests spent on one judgment (zero for model-free judges)."""

    input_tokens: int = 0
    output_tokens: int = 0
    requests: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            requests=self.requests + other.requests,
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


_PAUSE_FROM = 1_000
"""``replicas`` pauses the cyclic garbage collector from this many copies on."""


# BaseModel's slots, set through their descriptors as ``model_construct`` sets them through
# ``object.__setattr__`` (the descriptors directly: a fifth cheaper per copy).
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__

_VALUE = {"value"}
"""What ``Judgment.envelope`` leaves out (built once, not per row)."""

_REPLICABLE = frozenset({"latency_s", "usage", "attempts", "fallback_used", "fallback_reason", "method",
                         "judged_answer", "recalled"})
"""Fields ``replicas`` may change: none of them bears on the scored/unscored invariant."""


@value_tag("judgment")
class Judgment(BaseModel, Generic[ValueT]):
    """One judgment and its provenance.

    Exactly one of ``value`` and ``unscored_reason`` is set: the validator enforces it, so no
    code path can produce a score-less judgment that looks scored or the reverse.
    """

    value: ValueT | None = None
    judge: str = Field(description="Name of the judge that produced the value (or tried to)")
    model: str | None = Field(default=None, description="Model name, None for model-free judges")
    prompt_version: str | None = Field(default=None, description="``name@version`` of the prompt used")
    fallback_used: bool = False
    fallback_reason: str | None = None
    latency_s: float = 0.0
    usage: Usage = Field(default_factory=Usage)
    unscored: bool = False
    unscored_reason: str | None = None
    attempts: int = 1
    """How many samples or attempts produced this judgment (self-consistency uses n > 1)."""
    method: str | None = None
    """How the model's verdict was read: ``logprobs`` (one token's distribution) or ``structured``
    (a typed JSON answer); ``None`` for judges with one way only (model-free ones, JudgeLLM)."""
    recalled: bool = Field(default=False, exclude=True)
    """Served from what the run's cache already held (a nested judge's call memo; a panel whose
    every model member was): counted as cached, not judged. Never serialised: a stored row is read
    back as a cache hit anyway."""
    judged_answer: str | None = None
    """The text the verdict actually read where a judge reduces the answer first (``llm-guarded``:
    the short answer the answer gives): a reduction swayed by text aimed at the grader shows here,
    in every predictions row. None for judges that read the answer as it is."""

    @field_validator("unscored_reason", "fallback_reason")
    @classmethod
    def _no_secrets(cls, reason: str | None) -> str | None:
        """A reason quotes the server's URL and the HTTP library's errors: credentials in them
        (``user:pw@``, ``?token=``, ``Bearer <key>``) would reach predictions, cache and HTML."""
        return None if reason is None else redact_secrets(reason)

    @model_validator(mode="after")
    def _scored_xor_reason(self) -> Judgment[ValueT]:
        if self.unscored:
            if self.value is not None:
                raise ValueError("an unscored judgment cannot carry a value")
            if not self.unscored_reason:
                raise ValueError("an unscored judgment needs a reason")
        elif self.value is None:
            raise ValueError("a scored judgment needs a value; use unscored=True with a reason")
        return self

    @property
    def scored(self) -> bool:
        return not self.unscored

    @property
    def label(self) -> Label | None:
        """The verdict as the JSON's ``label``: a ``bool``, a 0-3 grade or a [0, 1] score
        (``core.labels.label_of``); None when unscored. Read-only: it is derived from ``value``."""
        return label_of(self.value)

    @property
    def reason(self) -> str | None:
        """Why, in one place: the value's own reason (``reason`` or ``reasoning``, as the JSON's
        ``value`` has it) when scored, ``unscored_reason`` when not."""
        if self.unscored:
            return self.unscored_reason
        for name in ("reason", "reasoning"):
            text = getattr(self.value, name, None)
            if isinstance(text, str) and text:
                return text
        return None

    def replicate(self, **changes: Any) -> Self:
        """A shallow copy with ``changes`` applied, *not validated* (see ``replicas``)."""
        return replicas([self], **changes)[0]

    def envelope(self) -> dict[str, object]:
        """The provenance fields without the value, for flat JSON output (``model_dump(mode=
        "json", exclude={"value"})`` through the serializer directly: a predictions file calls
        this once per row, and the public wrapper's argument handling doubled its cost)."""
        return self.__pydantic_serializer__.to_python(self, mode="json", exclude=_VALUE)


def replicas(templates: Sequence[JudgmentT], **changes: Any) -> list[JudgmentT]:
    """One shallow copy of each of ``templates`` (which may repeat), with ``changes`` applied,
    *not validated*: the envelopes a judge builds by the thousand from a few validated ones (a
    vectorised batch gives every item with the same value the same envelope and latency share).

    Only for changes the caller knows valid: they may not touch ``value``, ``unscored`` or
    ``unscored_reason`` (the validator's invariant; asking to raises ``ValueError``). Each copy
    has its own field dict, so setting a field on one never shows on another; copies share the
    value and ``usage`` objects (ragjury never changes those in place). The copies of one class
    share one fields-set that names every field (the library set them all): pydantic adds a
    field's name to it in place on assignment, which is then a no-op, so sharing it leaks
    nothing; ``model_fields_set`` of a copy is every field.

    Why not ``model_copy(update=...)``: it goes through the generic ``__copy__``, which is much
    slower; and the cyclic garbage collector is paused while a large batch is made (copies hold
    no cycles, and each collection their allocations trigger would rescan everything alive).
    """
    if not _REPLICABLE.issuperset(changes):
        raise ValueError(f"replicas may not change {sorted(set(changes) - _REPLICABLE)}: use model_copy")
    ids = list(map(id, templates))
    fields_of: dict[int, dict[str, Any]] = {}
    every_field: dict[type, set[str]] = {}
    plain = True  # no template has extra fields or private attributes (only subclasses could)
    for template in dict(zip(ids, templates)).values():
        fields_of[id(template)] = {**template.__dict__, **changes}
        every_field.setdefault(type(template), set(type(template).model_fields))
        plain = plain and template.__pydantic_extra__ is None and template.__pydantic_private__ is None
    classes = list(map(type, templates))
    paused = len(ids) >= _PAUSE_FROM and gc.isenabled()
    if paused:
        gc.disable()
    try:
        # Whole-list passes through C-level ``map`` rather than a Python loop per copy: a
        # quarter cheaper, and this is most of a vectorised judge's envelope cost.
        if all(cls.__new__ is object.__new__ for cls in every_field):
            out = list(map(object.__new__, classes))  # BaseModel defines no __new__
        else:
            out = [cls.__new__(cls) for cls in classes]
        _drain(map(_set_dict, out, map(dict.copy, map(fields_of.__getitem__, ids))))
        _drain(map(_set_fields_set, out, map(every_field.__getitem__, classes)))
        if plain:
            _drain(map(_set_extra, out, repeat(None)))
            _drain(map(_set_private, out, repeat(None)))
        else:
            for copy, template in zip(out, templates):
                extra, private = template.__pydantic_extra__, template.__pydantic_private__
                _set_extra(copy, None if extra is None else dict(extra))
                _set_private(copy, None if private is None else dict(private))
    finally:
        if paused:
            gc.enable()
    return out


_drain = deque(maxlen=0).extend
"""Run an iterator to its end, keeping nothing (for ``map`` passes called for their effect)."""


__all__ = ["Judgment", "Usage", "replicas"]
