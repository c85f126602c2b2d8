"""Faithfulness: is every claim of an answer supported by the context it was given?

Two typed calls, as Ragas does, but nothing is thrown away:

1. decompose the answer into standalone statements (no pronouns; the prompt has a worked example);
2. judge all statements against the context in one call: one ``"0"``/``"1"`` verdict and a short
   reason per statement. The output schema is built for the exact number of statements, so a
   reply with too few or too many verdicts is invalid output: it is sent back for correction,
   and after the retries the judgment is unscored (never misaligned).

``score = supported / total``. The result keeps every statement with its verdict and reason,
so a user sees which claims failed. An answer with no statements, or no context to check
against, is unscored with that reason: never NaN, never 0.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

from pydantic import BaseModel, Field, computed_field, create_model
from pydantic_ai.models import Model
from typing_extensions import Unpack

from ragjury.config.instructions import UNTRUSTED_DATA_RULE, Instruction
from ragjury.rag_agent.core.items import FaithfulnessItem
from ragjury.rag_agent.core.protocol import Judge
from ragjury.rag_agent.core.prompting import CONTEXT, EVALUATED_ANSWER, QUESTION, STATEMENT, tagged
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.value_tags import value_tag
from ragjury.rag_agent.core.schemas import UnitFloat
from ragjury.rag_agent.core.text import normalise
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.judges.llm.value_view import ValueView
from ragjury.rag_agent.judges.llm.verdict_base import (
    MAX_REASON_CHARS,
    BinaryVerdict,
    ModelVerdictJudge,
    VerdictOptions,
    majority,
    sum_usage,
    tagged_list,
)

FAITHFULNESS_STATEMENTS = Instruction(
    name="faithfulness_statements",
    version="1.0",
    text=(
        "You break an answer into standalone factual statements so that each can be checked on its own.\n"
        f"{UNTRUSTED_DATA_RULE}\n\n"
        "Rules:\n"
        "- One claim per statement, a full sentence that is understandable without the answer: replace "
        "pronouns and references (he, she, it, they, this, the former) by the names they stand for.\n"
        "- Keep the answer's meaning: do not add facts, do not correct it, do not judge whether it is true.\n"
        "- Skip greetings, questions, opinions about the conversation and filler that claims nothing.\n"
        "- If the answer makes no factual claim at all, return an empty list.\n\n"
        "Worked example.\n"
        "<question>Who was Albert Einstein and what is he best known for?</question>\n"
        "<evaluated_answer>He was a German-born theoretical physicist, widely acknowledged to be one of the "
        "greatest physicists of all time. He was best known for developing the theory of relativity; he also "
        "made important contributions to quantum mechanics.</evaluated_answer>\n"
        'Output: {"statements": ["Albert Einstein was a German-born theoretical physicist.", '
        '"Albert Einstein is widely acknowledged to be one of the greatest physicists of all time.", '
        '"Albert Einstein is best known for developing the theory of relativity.", '
        '"Albert Einstein made important contributions to quantum mechanics."]}\n\n'
        "Answer with the JSON object only."
    ),
)

FAITHFULNESS_VERDICTS = Instruction(
    name="faithfulness_verdicts",
    version="1.0",
    text=(
        "You check numbered statements against a context, one verdict per statement.\n"
        f"{UNTRUSTED_DATA_RULE}\n\n"
        "For each <statement>, in order, decide whether the <context> passages support it:\n"
        '- verdict "1": the context states it, or it follows directly from what the context states;\n'
        '- verdict "0": the context does not say it, contradicts it, or it needs outside knowledge.\n'
        "Judge only against the context, never against your own knowledge of the world.\n"
        "Return exactly one entry per statement, in the same order, each with a one-sentence reason and "
        'the verdict "1" or "0".\n\n'
        "Worked example.\n"
        "<context>John is a student at XYZ University. He is pursuing a degree in Computer Science. This "
        "semester he takes Data Structures, Algorithms and Database Management.</context>\n"
        '<statement index="1">John is majoring in Biology.</statement>\n'
        '<statement index="2">John is taking a course on Artificial Intelligence.</statement>\n'
        '<statement index="3">John studies at XYZ University.</statement>\n'
        'Output: {"verdicts": [{"reason": "The context says John studies Computer Science, not Biology.", '
        '"verdict": "0"}, {"reason": "Artificial Intelligence is not among the listed courses.", '
        '"verdict": "0"}, {"reason": "The context states that John is a student at XYZ University.", '
        '"verdict": "1"}]}\n\n'
        "Answer with the JSON object only."
    ),
)


MAX_STATEMENTS = 20
"""Upper bound on statements per answer: a small model that loops must not produce hundreds."""
MAX_STATEMENT_CHARS = 300
"""A statement is one sentence; the bound is in the schema, so constrained decoding enforces it."""


class StatementsOutput(BaseModel):
    """What the decomposition call returns."""

    statements: list[Annotated[str, Field(max_length=MAX_STATEMENT_CHARS)]] = Field(
        max_length=MAX_STATEMENTS,
        description="Standalone factual statements of the answer, pronouns replaced by names; empty if none",
    )


class StatementVerdictOutput(BaseModel):
    """One statement's verdict as the model returns it (position = statement number)."""

    reason: str = Field(
        max_length=MAX_REASON_CHARS,
        description="One sentence: why the context does or does not support the statement",
    )
    verdict: BinaryVerdict = Field(description='"1" supported by the context, "0" not supported')


@lru_cache(maxsize=MAX_STATEMENTS + 1)
def verdicts_output(count: int) -> type[BaseModel]:
    """The verdict-call schema for exactly ``count`` statements (cached: one agent per count)."""
    model: type[BaseModel] = create_model(
        f"StatementVerdicts{count}",
        __doc__=f"One verdict per statement, exactly {count}, in the statements' order.",
        verdicts=(
            list[StatementVerdictOutput],
            Field(min_length=count, max_length=count, description=f"Exactly {count} entries, in order"),
        ),
    )
    return model


class StatementVerdict(BaseModel):
    """A statement of the answer, whether the context supports it, and why."""

    statement: str
    verdict: bool
    reason: str
    agreement: float = 1.0
    """Share of the samples that voted for ``verdict`` (1.0 with one sample)."""


@value_tag("faithfulness_result")
class FaithfulnessResult(BaseModel):
    """Share of the answer's statements the context supports, with every statement kept."""

    score: UnitFloat
    statements: list[StatementVerdict]
    threshold: float = 1.0
    agreement: float = 1.0
    """Mean per-statement agreement of the self-consistency samples (1.0 with one sample)."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def label(self) -> bool:
        """Faithful when ``score >= threshold`` (default: every statement supported)."""
        return self.score >= self.threshold

    @property
    def unsupported(self) -> list[StatementVerdict]:
        return [s for s in self.statements if not s.verdict]


def clean_statements(statements: list[str]) -> list[str]:
    """Strip, drop empty and duplicate statements (a small model often repeats itself)."""
    seen: set[str] = set()
    kept: list[str] = []
    for statement in statements:
        text = statement.strip()
        key = normalise(text)
        if text and key not in seen:
            seen.add(key)
            kept.append(text)
    return kept


def statements_prompt(item: FaithfulnessItem) -> str:
    parts = [tagged(QUESTION, item.question)] if item.question else []
    parts.append(tagged(EVALUATED_ANSWER, item.answer))
    return "\n\n".join(parts)


def verdicts_prompt(contexts: list[str], statements: list[str], token_budget: int) -> str:
    context_text, omitted = tagged_list(CONTEXT, contexts, token_budget)
    parts = ["Context:\n" + context_text]
    if omitted:
        parts.append(f"({omitted} characters of context were not shown: token budget.)")
    parts.append(
        f"Statements ({len(statements)}):\n"
        + "\n".join(tagged(STATEMENT, text, index=str(i)) for i, text in enumerate(statements, start=1))
    )
    parts.append(f"Return exactly {len(statements)} verdicts, in this order.")
    return "\n\n".join(parts)


@judge_entry("faithfulness", "llm", "LLM claim check", uses_model=True, fallback="support", default=True)
class FaithfulnessJudge(ModelVerdictJudge[FaithfulnessItem, FaithfulnessResult]):
    """Statement-level faithfulness of an answer to its contexts; ``label`` is ``score >= threshold``."""

    name = "faithfulness"
    instructions = (FAITHFULNESS_STATEMENTS, FAITHFULNESS_VERDICTS)

    def __init__(
        self, model: str | Model | None = None, *, threshold: float = 1.0, **options: Unpack[VerdictOptions]
    ) -> None:
        super().__init__(model, **options)
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be within [0, 1], got {threshold}")
        self.threshold = threshold

    def params(self) -> dict[str, str]:
        return {**super().params(), "threshold": f"{self.threshold:g}", "max_statements": str(MAX_STATEMENTS)}

    @staticmethod
    def view_fallback(judge: Judge[FaithfulnessItem, Any]) -> Judge[FaithfulnessItem, FaithfulnessResult]:
        """``support`` (the strongest model-free faithfulness judge: kappa 0.71 on BEGIN dev, 0.675
        held out) seen as this judge's value type, so ``auto`` falls back to it."""
        return SupportAsFaithfulness(judge)

    async def _judge(self, item: FaithfulnessItem) -> Judgment[FaithfulnessResult]:
        if not item.answer.strip():
            return self.failed("no statements: the answer is empty")
        contexts = [context for context in item.contexts if context.strip()]
        if not contexts:
            return self.failed("no context: there is nothing to check the statements against")

        decomposition = await self.call(FAITHFULNESS_STATEMENTS, StatementsOutput, statements_prompt(item))
        usage = decomposition.usage
        if not decomposition.ok or decomposition.output is None:
            return self.failed(f"statement extraction failed: {decomposition.error}", usage=usage)
        statements = clean_statements(decomposition.output.statements)
        if not statements:
            return self.failed("no statements: the answer makes no factual claim to check", usage=usage)

        prompt = verdicts_prompt(contexts, statements, self.settings.source_token_budget)
        outcomes = await self.draw(FAITHFULNESS_VERDICTS, verdicts_output(len(statements)), prompt)
        usage = usage + sum_usage([outcome.usage for outcome in outcomes])
        samples = [_verdicts(o.output) if o.ok and o.output is not None else None for o in outcomes]
        errors = [o.error or "no output" for o in outcomes if not o.ok]
        votes = [
            f"{sum(v.verdict == '1' for v in s)}/{len(s)}" if s is not None else "invalid" for s in samples
        ]
        valid = [sample for sample in samples if sample is not None]
        if not valid:
            return self.failed(f"statement verdicts failed: {errors[0]}", usage=usage, votes=votes)

        judged: list[StatementVerdict] = []
        for index, statement in enumerate(statements):
            winner, count = majority([sample[index].verdict for sample in valid], self.samples)
            if winner is None:
                detail = f"{len(errors)} failed: {errors[0]}" if errors else "split vote"
                return self.failed(
                    f"no majority on statement {index + 1} among {self.samples} samples ({detail})",
                    usage=usage,
                    votes=votes,
                )
            reason = next(sample[index].reason for sample in valid if sample[index].verdict == winner)
            judged.append(
                StatementVerdict(
                    statement=statement, verdict=winner == "1", reason=reason, agreement=count / self.samples
                )
            )
        supported = sum(s.verdict for s in judged)
        agreement = round(sum(s.agreement for s in judged) / len(judged), 6)
        result = FaithfulnessResult(
            score=round(supported / len(judged), 6),
            statements=judged,
            threshold=self.threshold,
            agreement=agreement,
        )
        return self.sampled(result, usage=usage, agreement=agreement, votes=votes)


class SupportAsFaithfulness(ValueView[FaithfulnessItem, FaithfulnessResult]):
    """The model-free ``support`` judge seen as a ``FaithfulnessResult`` judge, so it can stand in
    for ``FaithfulnessJudge`` under ``auto`` (one value type): its score and cut-off, no statements."""

    def view(self, value: Any) -> FaithfulnessResult:
        return FaithfulnessResult(score=float(value.score), statements=[], threshold=float(value.threshold))


def _verdicts(output: Any) -> list[StatementVerdictOutput]:
    """The verdict list of a dynamically built ``StatementVerdicts<n>`` output."""
    verdicts: list[StatementVerdictOutput] = output.verdicts
    return verdicts


__all__ = [
    "MAX_STATEMENTS",
    "FaithfulnessJudge",
    "FaithfulnessResult",
    "StatementVerdict",
    "StatementVerdictOutput",
    "StatementsOutput",
    "SupportAsFaithfulness",
    "clean_statements",
    "verdicts_output",
]
