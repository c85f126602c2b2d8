"""Answer correctness: does the answer match at least one reference answer?

Why any-of: datasets such as Natural Questions list several acceptable gold answers
("1901 / in 1901"); an answer is correct when it agrees with any one of them. The verdict is
binary with a one-sentence reason, both kept in the result.
"""

from __future__ import annotations

from pydantic import BaseModel, computed_field

from config.instructions import ANSWER_CORRECTNESS
from rag_agent.items import CorrectnessItem
from rag_agent.prompting import EVALUATED_ANSWER, QUESTION, REFERENCE, tagged
from rag_agent.protocol import BaseJudge, Judge, JudgeIdentity
from rag_agent.results import Judgment
from rag_agent.verdicts.base import LLMVerdictJudge, VerdictOutput, tagged_list


class Verdict(BaseModel):
    """A binary verdict with the model's reason."""

    verdict: bool
    reason: str
    agreement: float = 1.0
    """Share of the self-consistency samples that voted for ``verdict`` (1.0 with one sample)."""

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


class CorrectnessJudge(LLMVerdictJudge[CorrectnessItem, Verdict]):
    """Is the answer correct against any of the references? ``judge(item) -> bool``."""

    name = "answer_correctness"
    instructions = (ANSWER_CORRECTNESS,)

    async def _judge(self, item: CorrectnessItem) -> Judgment[Verdict]:
        if not item.answer.strip():
            return self.failed("empty answer: nothing to judge")
        prompt = correctness_prompt(item, self.settings.source_token_budget)
        ballot = await self.ballot(ANSWER_CORRECTNESS, VerdictOutput, prompt, key=lambda out: out.verdict)
        if ballot.winner is None:
            return self.failed(ballot.failure_reason(), usage=ballot.usage, votes=ballot.votes)
        chosen = ballot.representative()
        value = Verdict(verdict=ballot.winner == "1", reason=chosen.reason, agreement=ballot.agreement)
        return self.sampled(value, usage=ballot.usage, agreement=ballot.agreement, votes=ballot.votes)


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
        return judgment.model_copy(update={"value": Verdict(verdict=bool(judgment.value), reason=reason)})  # type: ignore[return-value]


__all__ = ["BoolAsVerdict", "CorrectnessJudge", "Verdict", "correctness_prompt"]
