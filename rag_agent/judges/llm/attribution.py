"""Faithfulness as one verdict on the whole answer: is all of it supported by the context?

Why beside the statement judge: ``FaithfulnessJudge`` decomposes the answer and checks every
statement (two calls, hundreds of output tokens, a reason per claim) — the right tool when a user
needs to see which claim failed. Many uses only need the answer-level label that datasets such as
BEGIN annotate ("fully attributable to the passage or not"), and a small model answers that in one
token: on the logprob path the value keeps P(supported), so runs can be ranked and the threshold
calibrated on labelled data (``ragjury calibrate --task faithfulness``). Without logprobs the
structured path answers with a one-sentence reason.
"""

from __future__ import annotations

from ragjury.config.instructions import FAITHFULNESS_HOLISTIC, FAITHFULNESS_TOKEN
from ragjury.rag_agent.core.items import FaithfulnessItem
from ragjury.rag_agent.core.prompting import CONTEXT, EVALUATED_ANSWER, QUESTION, tagged
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.judges.catalogue import judge_entry
from ragjury.rag_agent.judges.llm.correctness import Verdict, probability_verdict
from ragjury.rag_agent.judges.llm.verdict_base import ThresholdVerdictJudge, VerdictOutput, tagged_list


def attribution_prompt(item: FaithfulnessItem, token_budget: int) -> str:
    """Context passages first (a shared prefix across answers of one context), then the answer."""
    context_text, omitted = tagged_list(CONTEXT, item.contexts, token_budget)
    parts = ["Context:\n" + context_text]
    if omitted:
        parts.append(f"({omitted} characters of context were not shown: token budget.)")
    if item.question:
        parts.append(tagged(QUESTION, item.question))
    parts.append(tagged(EVALUATED_ANSWER, item.answer))
    return "\n\n".join(parts)


@judge_entry("faithfulness", "llm-attribution", "LLM verdict on the whole answer, P(supported) from one token", uses_model=True)
class AttributionJudge(ThresholdVerdictJudge[FaithfulnessItem, Verdict]):
    """Is the whole answer supported by its contexts? One token's P("1") against ``threshold``."""

    name = "faithfulness_attribution"
    instructions = (FAITHFULNESS_HOLISTIC, FAITHFULNESS_TOKEN)
    supports_logprobs = True

    async def _judge(self, item: FaithfulnessItem) -> Judgment[Verdict]:
        if not item.answer.strip():
            return self.failed("empty answer: nothing to judge")
        if not any(context.strip() for context in item.contexts):
            return self.failed("no context: nothing to check the answer against")
        prompt = attribution_prompt(item, self.settings.source_token_budget)
        probabilistic, probe = await probability_verdict(
            self, FAITHFULNESS_TOKEN, prompt, "supported", self.threshold
        )
        if probabilistic is not None:
            return probabilistic
        ballot = await self.ballot(FAITHFULNESS_HOLISTIC, VerdictOutput, prompt, key=lambda out: out.verdict)
        ballot.add_usage(probe)
        if ballot.winner is None:
            return self.failed(ballot.failure_reason(), usage=ballot.usage, votes=ballot.votes).model_copy(
                update={"method": "structured"}
            )
        chosen = ballot.representative()
        value = Verdict(verdict=ballot.winner == "1", reason=chosen.reason, agreement=ballot.agreement)
        return self.sampled(value, usage=ballot.usage, agreement=ballot.agreement, votes=ballot.votes).model_copy(
            update={"method": "structured"}
        )


__all__ = ["AttributionJudge", "attribution_prompt"]
