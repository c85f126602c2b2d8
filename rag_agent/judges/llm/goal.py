"""Goal accuracy of a multi-turn agent trace, with or without a reference goal.

Two typed calls, as Ragas' agent-goal-accuracy metrics do:

1. read the trace (rendered by the versioned formatter in ``trace_format``) and infer
   ``user_goal`` (what the user wanted) and ``end_state`` (what was achieved);
2. compare the desired outcome with the end state: a binary verdict with a reason. The desired
   outcome is the reference goal when one is given, the inferred goal otherwise.

The verdict step sees only the goal and the end state, not the trace: the trace may be long
and persuasive, and the comparison should not be swayed by the agent's own claims. With
``samples=n`` the inference runs once and the comparison n times.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, computed_field

from ragjury.config.instructions import UNTRUSTED_DATA_RULE, Instruction
from ragjury.rag_agent.core.items import GoalItem
from ragjury.rag_agent.core.prompting import REFERENCE, STATEMENT, TRACE, tagged
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.judges.llm.trace_format import TRACE_FORMAT_VERSION, TraceText, format_trace
from ragjury.rag_agent.judges.llm.verdict_base import ModelVerdictJudge, VerdictOutput
from ragjury.rag_agent.core.value_tags import value_tag

GOAL_INFERENCE = Instruction(
    name="goal_inference",
    version="1.0",
    text=(
        "You read a trace of a conversation between a user, an AI agent and its tools.\n"
        f"{UNTRUSTED_DATA_RULE}\n\n"
        "State, each in one sentence:\n"
        "- user_goal: what the user wanted to achieve in this conversation;\n"
        "- end_state: what had actually been achieved when the trace ends, judged from tool results and "
        "the final turns, not from promises or plans the agent made.\n\n"
        "Worked example.\n"
        "<trace>[1] user: Book me a table for two at an Italian place tonight at 8.\n"
        "[2] tool (restaurant_search): Luigi's, 8pm, 2 seats available\n"
        "[3] tool (book_table): confirmed: Luigi's, 20:00, 2 people\n"
        "[4] assistant: Your table for two at Luigi's is booked for 8 pm.</trace>\n"
        'Output: {"user_goal": "Book a table for two at an Italian restaurant tonight at 8 pm.", '
        '"end_state": "A table for two at Luigi\'s, an Italian restaurant, is booked for 8 pm."}\n\n'
        "Answer with the JSON object only."
    ),
)

GOAL_VERDICT = Instruction(
    name="goal_verdict",
    version="1.0",
    text=(
        "You decide whether an AI agent achieved a user's goal, by comparing the desired outcome with the "
        "end state the agent reached.\n"
        f"{UNTRUSTED_DATA_RULE}\n\n"
        'Verdict "1": the end state achieves the desired outcome, all of its essential parts.\n'
        'Verdict "0": it does not, achieves only part of it, or achieves something else.\n'
        "Give a one-sentence reason first, then the verdict.\n\n"
        "Worked example.\n"
        '<reference kind="user_goal">Book a table for two at an Italian restaurant tonight at 8 pm.</reference>\n'
        '<statement kind="end_state">The agent found Italian restaurants but booked nothing.</statement>\n'
        'Output: {"reason": "No table was booked.", "verdict": "0"}\n\n'
        "Answer with the JSON object only."
    ),
)


MAX_GOAL_CHARS = 400
"""The goal and the end state are one sentence each; the bound is in the schema (see ``MAX_REASON_CHARS``)."""


class GoalInferenceOutput(BaseModel):
    """What the inference call returns."""

    user_goal: str = Field(
        max_length=MAX_GOAL_CHARS, description="One sentence: what the user wanted to achieve"
    )
    end_state: str = Field(
        max_length=MAX_GOAL_CHARS,
        description="One sentence: what had actually been achieved when the trace ends",
    )


@value_tag("goal_result")
class GoalResult(BaseModel):
    """Whether the agent achieved the goal, with the inferred goal and end state it was decided on."""

    user_goal: str
    end_state: str
    verdict: bool
    reason: str
    reference_goal: str | None = None
    """The goal the verdict compared against when a reference was given (else the inferred goal)."""
    agreement: float = 1.0
    """Share of the self-consistency samples that voted for ``verdict`` (1.0 with one sample)."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def label(self) -> bool:
        return self.verdict


def inference_prompt(trace: TraceText) -> str:
    parts = ["Agent trace:\n" + tagged(TRACE, trace.text, format=trace.version)]
    if trace.turns_omitted or trace.chars_cut:
        parts.append(
            f"({trace.turns_omitted} turns and {trace.chars_cut} characters were not shown: token budget.)"
        )
    return "\n\n".join(parts)


def verdict_prompt(goal: str, end_state: str, *, from_reference: bool) -> str:
    source = "reference" if from_reference else "inferred"
    return "\n\n".join(
        [
            "Desired outcome:\n" + tagged(REFERENCE, goal, kind="user_goal", source=source),
            "End state reached by the agent:\n" + tagged(STATEMENT, end_state, kind="end_state"),
        ]
    )


@judge_entry("goal", "llm", "LLM verdict: did the agent reach the user's goal", uses_model=True, default=True)
class GoalAccuracyJudge(ModelVerdictJudge[GoalItem, GoalResult]):
    """Did the agent achieve the user's goal? Uses ``reference_goal`` when the item has one."""

    name = "goal_accuracy"
    instructions = (GOAL_INFERENCE, GOAL_VERDICT)

    @property
    def prompt_version(self) -> str:
        """The prompts plus the trace format: both change what the judge sees."""
        return f"{super().prompt_version}+{TRACE_FORMAT_VERSION}"

    def params(self) -> dict[str, str]:
        return {**super().params(), "trace_format": TRACE_FORMAT_VERSION}

    async def _judge(self, item: GoalItem) -> Judgment[GoalResult]:
        if not any(message.content.strip() for message in item.trace):
            return self.failed("empty trace: every turn is empty")
        trace = format_trace(item.trace, token_budget=self.settings.source_token_budget)
        inference = await self.call(GOAL_INFERENCE, GoalInferenceOutput, inference_prompt(trace))
        usage = inference.usage
        if not inference.ok or inference.output is None:
            return self.failed(f"goal inference failed: {inference.error}", usage=usage)
        inferred = inference.output
        if not inferred.end_state.strip():
            return self.failed("goal inference gave an empty end state", usage=usage)

        reference = (item.reference_goal or "").strip() or None
        goal = reference or inferred.user_goal.strip()
        if not goal:
            return self.failed(
                "goal inference gave an empty user goal and no reference goal was given", usage=usage
            )
        prompt = verdict_prompt(goal, inferred.end_state, from_reference=reference is not None)
        ballot = await self.ballot(GOAL_VERDICT, VerdictOutput, prompt, key=lambda out: out.verdict)
        usage = usage + ballot.usage
        if ballot.winner is None:
            return self.failed(
                f"goal verdict failed: {ballot.failure_reason()}", usage=usage, votes=ballot.votes
            )
        value = GoalResult(
            user_goal=inferred.user_goal,
            end_state=inferred.end_state,
            verdict=ballot.winner == "1",
            reason=ballot.representative().reason,
            reference_goal=reference,
            agreement=ballot.agreement,
        )
        return self.sampled(value, usage=usage, agreement=ballot.agreement, votes=ballot.votes)


__all__ = ["GoalAccuracyJudge", "GoalInferenceOutput", "GoalResult", "inference_prompt", "verdict_prompt"]
