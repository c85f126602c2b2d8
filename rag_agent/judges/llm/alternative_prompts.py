"""One-token prompt versions measured beside the defaults, by ``name@version``.

Why kept: the benches print before/after rows for a prompt change, so a version that lost stays
runnable (``judge.use_token_instruction``). Each prompt lives beside its judge; this only indexes them.
"""

from __future__ import annotations

from ragjury.config.instructions import Instruction
from ragjury.rag_agent.judges.llm.correctness import ANSWER_CORRECTNESS_TOKEN_1_1
from ragjury.rag_agent.judges.llm.relevance import RELEVANCE_GRADE_TOKEN_1_1

ALTERNATIVE_INSTRUCTIONS: dict[str, Instruction] = {
    RELEVANCE_GRADE_TOKEN_1_1.tag: RELEVANCE_GRADE_TOKEN_1_1,
    ANSWER_CORRECTNESS_TOKEN_1_1.tag: ANSWER_CORRECTNESS_TOKEN_1_1,
}

__all__ = ["ALTERNATIVE_INSTRUCTIONS"]
