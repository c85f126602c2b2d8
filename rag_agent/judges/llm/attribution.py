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

from ragjury.config.instructions import ONE_DIGIT_RULE, UNTRUSTED_DATA_RULE, Instruction
from ragjury.rag_agent.core.items import FaithfulnessItem
from ragjury.rag_agent.core.prompting import CONTEXT, EVALUATED_ANSWER, QUESTION, tagged
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.judges.llm.correctness import Verdict
from ragjury.rag_agent.judges.llm.verdict_base import (
    Ballot,
    ThresholdVerdictJudge,
    VerdictOutput,
    tagged_list,
)

FAITHFULNESS_HOLISTIC = Instruction(
    name="faithfulness_holistic",
    version="1.0",
    text=(
        "You decide whether a response is fully supported by the context it was written from.\n"
        f"{UNTRUSTED_DATA_RULE}\n\n"
        'Verdict "1": every factual claim of the <evaluated_answer> is stated in the <context> or follows '
        "directly from it. Greetings, questions and opinions that claim no fact do not count against it.\n"
        'Verdict "0": at least one factual claim is missing from the context, contradicts it, or needs '
        "outside knowledge. Judge only against the context, never against your own knowledge.\n"
        "Give a one-sentence reason first (name the unsupported claim, if any), then the verdict.\n\n"
        "Answer with the JSON object only."
    ),
)

FAITHFULNESS_TOKEN = Instruction(
    name="faithfulness_token",
    version="1.0",
    text=(
        "You decide whether a response is fully supported by the context it was written from.\n"
        f"{UNTRUSTED_DATA_RULE}\n\n"
        "1 = supported: every factual claim of the <evaluated_answer> is stated in the <context> or follows "
        "directly from it. Greetings, questions and opinions that claim no fact do not count against it.\n"
        "0 = not supported: at least one factual claim is missing from the context, contradicts it, or needs "
        "outside knowledge. Judge only against the context, never against your own knowledge.\n\n"
        f"Answer 1 or 0. {ONE_DIGIT_RULE}"
    ),
)


def attribution_problem(item: FaithfulnessItem) -> str | None:
    """Why there is nothing to judge (an empty answer, no context), or None."""
    if not item.answer.strip():
        return "empty answer: nothing to judge"
    if not any(context.strip() for context in item.contexts):
        return "no context: nothing to check the answer against"
    return None


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
    verdict_instruction = FAITHFULNESS_HOLISTIC
    token_instruction = FAITHFULNESS_TOKEN
    supports_logprobs = True

    def problem(self, item: FaithfulnessItem) -> str | None:
        return attribution_problem(item)

    def verdict_prompt(self, item: FaithfulnessItem) -> str:
        return attribution_prompt(item, self.settings.source_token_budget)

    def ballot_value(self, ballot: Ballot[VerdictOutput, str]) -> Verdict:
        return Verdict.of_ballot(ballot)

    def probability_value(self, p_true: float) -> Verdict:
        return Verdict.from_probability(p_true, self.threshold, "supported")


__all__ = ["FAITHFULNESS_HOLISTIC", "FAITHFULNESS_TOKEN", "AttributionJudge", "attribution_prompt"]
