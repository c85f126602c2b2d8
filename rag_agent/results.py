"""The envelope around every judgment: what produced it, what it cost, and whether it counts.

Why an envelope: a score without provenance cannot be trusted or compared. A judgment that
failed carries ``unscored=True`` and the reason, and no value: it is counted as unscored in
every summary, never reported as 0.0.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel, Field, model_validator

ValueT = TypeVar("ValueT")


class Usage(BaseModel):
    """Tokens and model requests spent on one judgment (zero for deterministic judges)."""

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


class Judgment(BaseModel, Generic[ValueT]):
    """One judgment and its provenance.

    Exactly one of ``value`` and ``unscored_reason`` is set: the validator enforces it, so no
    code path can produce a score-less judgment that looks scored or the reverse.
    """

    value: ValueT | None = None
    judge: str = Field(description="Name of the judge that produced the value (or tried to)")
    model: str | None = Field(default=None, description="Model name, None for deterministic judges")
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
    (a typed JSON answer); ``None`` for judges with one way only (deterministic, JudgeLLM)."""

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

    def envelope(self) -> dict[str, object]:
        """The provenance fields without the value, for flat JSON output."""
        return self.model_dump(mode="json", exclude={"value"})
