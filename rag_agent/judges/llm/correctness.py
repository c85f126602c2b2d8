"""Answer correctness: does the answer match at least one reference answer?

Why any-of: datasets such as Natural Questions list several acceptable gold answers
("1901 / in 1901"); an answer is correct when it agrees with any one of them. The verdict is
binary with a one-sentence reason, both kept in the result.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, computed_field

from ragjury.config.instructions import ANSWER_CORRECTNESS, ANSWER_CORRECTNESS_TOKEN, Instruction
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.core.prompting import EVALUATED_ANSWER, QUESTION, REFERENCE, tagged
from ragjury.rag_agent.core.protocol import BaseJudge, Judge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment, Usage
from ragjury.rag_agent.judges.catalogue import judge_entry
from ragjury.rag_agent.judges.llm.verdict_base import (
    LLMVerdictJudge,
    ThresholdVerdictJudge,
    VerdictOutput,
    tagged_list,
)


class Verdict(BaseModel):
    """A binary verdict with the model's reason."""

    verdict: bool
    reason: str
    agreement: float = 1.0
    """Share of the self-consistency samples that voted for ``verdict`` (1.0 with one sample)."""
    probability: float | None = Field(default=None, ge=0.0, le=1.0)
    """P(verdict = "1") where it was read from the model's token probabilities."""
    method: Literal["logprobs", "structured", "deterministic"] = "structured"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def label(self) -> bool:
        return self.verdict


def correctness_prompt(item: CorrectnessItem, token_budget: int) -> str:
    """Question, every reference (numbered) and the answer, each in its data tag."""
    references, omitted = tagged_list(REFERENCE, item.references, token_budget)
    parts = [tagged(QUESTION, item.question), f"Reference answers (any one suffices):\n{references}"]
    if omitted:
        parts.append(f"({omitted} characters of references were not shown: token budget.)")
    parts.append(tagged(EVALUATED_ANSWER, item.answer))
    return "\n\n".join(parts)


@judge_entry("correctness", "llm", "LLM verdict", uses_model=True, fallback="contains", default=True)
class CorrectnessJudge(ThresholdVerdictJudge[CorrectnessItem, Verdict]):
    """Is the answer correct against any of the references? ``judge(item) -> bool``."""

    name = "answer_correctness"
    instructions = (ANSWER_CORRECTNESS, ANSWER_CORRECTNESS_TOKEN)
    token_instruction = ANSWER_CORRECTNESS_TOKEN
    supports_logprobs = True

    @staticmethod
    def view_fallback(judge: Judge[CorrectnessItem, bool]) -> Judge[CorrectnessItem, Verdict]:
        """The model-free fallback's ``bool`` seen as a ``Verdict``, so ``auto`` has one value type."""
        return BoolAsVerdict(judge)

    async def _judge(self, item: CorrectnessItem) -> Judgment[Verdict]:
        if not item.answer.strip():
            return self.failed("empty answer: nothing to judge")
        prompt = correctness_prompt(item, self.settings.source_token_budget)
        probabilistic, probe = await probability_verdict(
            self, self.token_instruction, prompt, "correct", self.threshold
        )
        if probabilistic is not None:
            return probabilistic
        ballot = await self.ballot(ANSWER_CORRECTNESS, VerdictOutput, prompt, key=lambda out: out.verdict)
        ballot.add_usage(probe)
        if ballot.winner is None:
            return self.failed(ballot.failure_reason(), usage=ballot.usage, votes=ballot.votes)
        chosen = ballot.representative()
        value = Verdict(verdict=ballot.winner == "1", reason=chosen.reason, agreement=ballot.agreement)
        return self.sampled(value, usage=ballot.usage, agreement=ballot.agreement, votes=ballot.votes).model_copy(
            update={"method": "structured"}
        )


async def probability_verdict(
    judge: LLMVerdictJudge[object, Verdict], instruction: Instruction, prompt: str, noun: str, threshold: float
) -> tuple[Judgment[Verdict] | None, Usage | None]:
    """A ``Verdict`` from one token's P("1") against ``threshold``, or ``(None, probe usage)``
    meaning "use the structured path" (and count the probe's cost, if one was made).

    Shared by the binary judges whose value is a ``Verdict`` (correctness, holistic faithfulness).
    """
    outcome = await judge.token_distribution(instruction, prompt, ("0", "1"))
    if outcome is None:
        return None, None
    if outcome.unavailable:
        return None, outcome.usage
    if outcome.distribution is None:
        failed = judge.failed(outcome.error or "no distribution", usage=outcome.usage)
        return failed.model_copy(update={"method": "logprobs"}), None
    p_true = outcome.distribution.probabilities["1"]
    verdict = p_true >= threshold
    reason = f"P({noun}) = {p_true:.3f} from the first answer token ({'>=' if verdict else '<'} {threshold:g})"
    value = Verdict(verdict=verdict, reason=reason, probability=p_true, method="logprobs")
    return judge.sampled(value, usage=outcome.usage).model_copy(update={"method": "logprobs"}), None


class BoolAsVerdict(BaseJudge[CorrectnessItem, Verdict]):
    """A ``bool``-valued correctness judge (e.g. the deterministic ``ContainsJudge``) seen as a
    ``Verdict`` judge, so it can be the fallback of ``CorrectnessJudge`` (same value type)."""

    def __init__(self, inner: Judge[CorrectnessItem, bool]) -> None:
        self.inner = inner
        self.name = inner.identity.name
        self.concurrency = getattr(inner, "concurrency", 4)

    @property
    def identity(self) -> JudgeIdentity:
        return self.inner.identity

    async def _judge(self, item: CorrectnessItem) -> Judgment[Verdict]:
        judgment = await self.inner.ajudge(item)
        if judgment.value is None:
            return judgment  # type: ignore[return-value] - unscored: no value to convert
        reason = f"decided by the deterministic judge {self.name} (no model)"
        value = Verdict(verdict=bool(judgment.value), reason=reason, method="deterministic")
        return judgment.model_copy(update={"value": value})  # type: ignore[return-value]


__all__ = [
    "BoolAsVerdict",
    "CorrectnessJudge",
    "Verdict",
    "correctness_prompt",
    "probability_verdict",
]
