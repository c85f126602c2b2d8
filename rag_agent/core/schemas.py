"""Typed schemas shared by judges, agents, the CLI and the evaluation pipeline.

Pydantic models, because their JSON schema is what a model's constrained decoding follows and
what validates its output: a value out of range is an error, never silently clipped.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from ragjury.rag_agent.core.value_tags import value_tag

UnitFloat = Annotated[float, Field(ge=0.0, le=1.0)]
"""A score in [0, 1]; anything outside is a validation error, never clipped silently."""

DIMENSIONS: tuple[str, ...] = ("relevance", "completeness", "accuracy", "source_attribution", "coherence")
"""The rated dimensions that ``overall_score`` is computed from."""


class SourceDocument(BaseModel):
    """A retrieved passage an answer may rely on."""

    model_config = ConfigDict(extra="ignore")

    id: str
    title: str = ""
    content: str


@value_tag("rag_answer")
class RAGAnswer(BaseModel):
    """What a RAG agent returns: the answer and how it got there."""

    answer: str
    confidence: UnitFloat = 0.5
    sources_used: list[str] = Field(default_factory=list, description="IDs of the sources the answer relies on")
    reasoning: str = ""


MAX_REASONING_CHARS = 600
"""Cap on the judge's reasoning. It is part of the JSON schema, so constrained decoding (Ollama,
llama.cpp) stops a rambling model there instead of running into ``max_tokens`` mid-string."""


class DimensionRatings(BaseModel):
    """What the LLM judge is asked for: the dimensions, not the overall score.

    ``overall_score`` is left out on purpose: it is computed in code from these ratings
    (see ``JudgeScore.from_ratings``) so that it cannot contradict them.
    """

    relevance: UnitFloat = Field(description="Does the answer address the question? 0.0-1.0")
    completeness: UnitFloat = Field(description="Does it cover what the question needs? 0.0-1.0")
    accuracy: UnitFloat = Field(description="Are its claims correct and supported? 0.0-1.0")
    source_attribution: UnitFloat = Field(description="Are claims traceable to the sources? 0.0-1.0")
    coherence: UnitFloat = Field(description="Is it clear and consistent? 0.0-1.0")
    confidence: UnitFloat = Field(description="How sure the judge is of these ratings. 0.0-1.0")
    reasoning: str = Field(
        max_length=MAX_REASONING_CHARS,
        description="One to three sentences naming the main weakness",
    )


Grade10 = Annotated[int, Field(ge=0, le=10)]
"""An integer rating 0-10: what the LLM judge is asked for. Integer bounds are enforced by
JSON-schema-constrained decoding (llama.cpp, Ollama); float bounds are not, and small models
answer ``-1.0`` or ``8.5`` on a 0-1 scale, which would only fail validation afterwards."""


class ModelRatings(BaseModel):
    """The judge model's structured output: integer ratings 0-10, mapped to [0, 1] in code."""

    relevance: Grade10 = Field(description="Does the answer address the question? 0-10")
    completeness: Grade10 = Field(description="Does it cover what the question needs? 0-10")
    accuracy: Grade10 = Field(description="Are its claims correct and supported? 0-10")
    source_attribution: Grade10 = Field(description="Are claims traceable to the sources? 0-10")
    coherence: Grade10 = Field(description="Is it clear and consistent? 0-10")
    confidence: Grade10 = Field(description="How sure the judge is of these ratings. 0-10")
    reasoning: str = Field(max_length=MAX_REASONING_CHARS, description="One to three sentences naming the main weakness")

    def to_ratings(self) -> DimensionRatings:
        scaled = {name: getattr(self, name) / 10 for name in (*DIMENSIONS, "confidence")}
        return DimensionRatings(**scaled, reasoning=self.reasoning)


@value_tag("judge_score")
class JudgeScore(DimensionRatings):
    """A multi-dimension judgment of one answer; ``overall_score`` is a weighted mean of the dimensions."""

    overall_score: UnitFloat

    @property
    def label(self) -> float:
        """The overall score is the label (the ``Labelled`` protocol); a plain property, so the
        JSON of a score is unchanged."""
        return self.overall_score

    @classmethod
    def from_ratings(cls, ratings: DimensionRatings, weights: dict[str, float]) -> JudgeScore:
        """Compute ``overall_score`` from the dimension ratings and normalised weights."""
        total = sum(weights.get(name, 0.0) for name in DIMENSIONS)
        if total <= 0:
            raise ValueError("score weights must have a positive sum")
        overall = sum(getattr(ratings, name) * weights.get(name, 0.0) for name in DIMENSIONS) / total
        return cls(overall_score=round(min(1.0, max(0.0, overall)), 6), **ratings.model_dump())


__all__ = [
    "DIMENSIONS",
    "MAX_REASONING_CHARS",
    "DimensionRatings",
    "Grade10",
    "JudgeScore",
    "ModelRatings",
    "RAGAnswer",
    "SourceDocument",
    "UnitFloat",
]
