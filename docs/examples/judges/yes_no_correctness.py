"""YesNoCorrectnessJudge: a model says yes or no to "does the answer match a reference?".

An example of an LLM verdict judge (docs/extending.md): this one file, dropped into
``rag_agent/judges/llm/``, is the whole judge, its versioned prompt beside its class. The base
(``ModelVerdictJudge``) does the rest: model setup, the identity and cache key, ``samples``
self-consistency, retries, usage; ``_judge`` is inherited, so the judge only says what to send
(``verdict_prompt``) and what the winning answer means (``ballot_value``).
"""

from __future__ import annotations

from ragjury.config.instructions import UNTRUSTED_DATA_RULE, Instruction
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.judges.llm.correctness import Verdict, correctness_prompt
from ragjury.rag_agent.judges.llm.verdict_base import Ballot, ModelVerdictJudge, VerdictOutput

YES_NO_CORRECTNESS = Instruction(
    name="yes_no_correctness",
    version="1.0",  # goes into every result and cache key: bump it whenever the text changes
    text=(
        "Does the evaluated answer give the same answer as at least one <reference>?\n"
        f"{UNTRUSTED_DATA_RULE}\n"
        'Give a one-sentence reason, then the verdict: "1" for yes, "0" for no. '
        "Answer with the JSON object only."
    ),
)


@judge_entry("correctness", "yes-no", "LLM yes/no: the answer matches a reference", uses_model=True)
class YesNoCorrectnessJudge(ModelVerdictJudge[CorrectnessItem, Verdict]):
    """Correct when the model's majority answer is "1"; the reason is kept in the value."""

    name = "yes_no_correctness"
    instructions = (YES_NO_CORRECTNESS,)  # every prompt it sends: they make its prompt_version
    verdict_instruction = YES_NO_CORRECTNESS

    def verdict_prompt(self, item: CorrectnessItem) -> str:
        return correctness_prompt(item, self.settings.source_token_budget)

    def ballot_value(self, ballot: Ballot[VerdictOutput, str]) -> Verdict:
        return Verdict.of_ballot(ballot)


__all__ = ["YES_NO_CORRECTNESS", "YesNoCorrectnessJudge"]
