"""Every prompt keeps its name, version and text, so cached judgments keep their identities.

Why: a judgment is cached under its judge's identity, whose ``prompt_version`` is built from the
``name@version`` of every prompt the judge sends. A prompt whose text changes without a new
version would silently reuse judgments made under the old text. The values below were taken
from the code when the prompts moved beside their judges; change them only with a new version.

A judge added since is found in the catalogue and held to the same rules without an edit here:
every prompt it sends is versioned and named in its identity, and no ``name@version`` is sent
with two texts (by two judges, or once pinned here).
"""

from __future__ import annotations

import hashlib

import pytest

from ragjury.config.instructions import Instruction
from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.judges import catalogue

PROMPTS: dict[str, str] = {
    "answer_correctness@1.0": "b1a7d138303e3ea6",
    "answer_correctness_token@1.0": "a4a016e00b63d196",
    "faithfulness_statements@1.0": "b2a17c59ca8c188b",
    "faithfulness_verdicts@1.0": "e7f0e8063a96ccf2",
    "faithfulness_holistic@1.0": "289b93dd146c9b20",
    "faithfulness_token@1.0": "624f7289d77799cb",
    "goal_inference@1.0": "432124d53da810a2",
    "goal_verdict@1.0": "fe5a92e5bf132c46",
    "relevance_verdict@1.0": "57f0b53cf2ce40ef",
    "relevance_verdict_token@1.0": "8b51308cac3c828c",
    "relevance_grade_umbrela@1.0": "0fed1d44ef73cec9",
    "relevance_grade_token@1.0": "3dae0dd5d7e4d87f",
    "judge_score@2.0": "b4a01fa6028cdeb3",
}
"""prompt name@version -> sha256 of its text, first 16 hex: the prompts of the judges pinned in
``IDENTITIES``. A new judge's prompts need no entry (the rules below hold them)."""

IDENTITIES: dict[tuple[str, str], str] = {
    ("correctness", "contains"): "contains@1.0",
    ("correctness", "llm"): "answer_correctness@1.0+answer_correctness_token@1.0",
    ("correctness", "semantic"): "cosine@1.0",
    ("correctness", "token-overlap"): "token_overlap_weighted@1.0",
    ("faithfulness", "llm"): "faithfulness_statements@1.0+faithfulness_verdicts@1.0",
    ("faithfulness", "llm-attribution"): "faithfulness_holistic@1.0+faithfulness_token@1.0",
    ("faithfulness", "support"): "support@1.0",
    ("faithfulness", "stack"): "stack@1.0",
    ("faithfulness", "token-overlap"): "token_overlap_weighted@1.0",
    ("goal", "llm"): "goal_inference@1.0+goal_verdict@1.0+trace_text@1.0",
    ("relevance", "llm"): "relevance_verdict@1.0+relevance_verdict_token@1.0",
    ("relevance", "llm-graded"): "relevance_grade_umbrela@1.0+relevance_grade_token@1.0",
    ("relevance", "non-llm"): "trec_autojudge_non_llm@1.0",
    ("relevance", "semantic"): "cosine@1.0",
    ("relevance", "token-overlap"): "token_overlap_weighted@1.0",
    ("score", "heuristic"): "deterministic_score@1.1",
    ("score", "llm"): "judge_score@2.0",
}
"""(task, judge) -> its identity's prompt_version, for the judges that existed when the cache keys
were pinned: these never change silently. A judge added later is checked by the rules below."""

PINNED_ELSEWHERE: dict[str, str] = {
    "rag_agent_tool@1.0": "c0a6eaa5d9ad58f0",
    "rag_agent_pre@1.0": "6db2183b7ca3e1c2",
    "relevance_grade_token@1.1": "312f68397cbeee91",
    "answer_correctness_token@1.1": "d90a99a8de53e73d",
}
"""The reference agent's prompts and the measured alternative one-token prompts."""


def text_hash(instruction: Instruction) -> str:
    return hashlib.sha256(instruction.text.encode()).hexdigest()[:16]


def prompts_of(judge: object) -> tuple[Instruction, ...]:
    instructions = getattr(judge, "instructions", None)
    if instructions is None and hasattr(judge, "instruction"):
        instructions = (judge.instruction,)
    return tuple(instructions or ())


@pytest.mark.parametrize(("task", "name"), sorted(catalogue.declared()))
def test_prompt_names_versions_and_texts_are_unchanged(task: str, name: str) -> None:
    """Every catalogue judge, found in the catalogue: each prompt it sends is named in its
    identity, a pinned prompt keeps its text, a pinned judge sends only pinned prompts, and a
    pinned identity is as it was."""
    judge = catalogue.build_judge(task, name, RagjurySettings(base_url="http://127.0.0.1:9/v1"))
    prompt_version = judge.identity.prompt_version
    for instruction in prompts_of(judge):
        if instruction.tag in PROMPTS or (task, name) in IDENTITIES:
            assert PROMPTS.get(instruction.tag) == text_hash(instruction), f"{instruction.tag}: new text, same version"
        assert instruction.tag in prompt_version.split("+")
    assert prompt_version == IDENTITIES.get((task, name), prompt_version)
    assert prompt_version and all("@" in part for part in prompt_version.split("+")), (
        f"{task}/{name}: its identity needs a versioned prompt_version (name@1.0), bumped when its reading changes"
    )


def test_pinned_judges_and_prompts_still_exist() -> None:
    assert set(IDENTITIES) <= set(catalogue.declared())
    sent = {
        instruction.tag
        for task, name in catalogue.declared()
        for instruction in prompts_of(catalogue.build_judge(task, name, RagjurySettings(base_url="http://127.0.0.1:9/v1")))
    }
    assert set(PROMPTS) <= sent


def test_no_prompt_version_is_sent_with_two_texts() -> None:
    """One ``name@version`` is one text across every catalogue judge (and the pinned ones): two
    texts under one tag would share cached judgments."""
    texts: dict[str, set[str]] = {tag: {digest} for tag, digest in {**PROMPTS, **PINNED_ELSEWHERE}.items()}
    for task, name in catalogue.declared():
        judge = catalogue.build_judge(task, name, RagjurySettings(base_url="http://127.0.0.1:9/v1"))
        for instruction in prompts_of(judge):
            texts.setdefault(instruction.tag, set()).add(text_hash(instruction))
    assert not {tag: digests for tag, digests in texts.items() if len(digests) > 1}


def test_agent_and_alternative_prompts_are_unchanged() -> None:
    from ragjury.rag_agent.agent.reference_agent import RAG_AGENT_PRE, RAG_AGENT_TOOL
    from ragjury.rag_agent.judges.llm.alternative_prompts import ALTERNATIVE_INSTRUCTIONS

    found = {i.tag: text_hash(i) for i in (RAG_AGENT_TOOL, RAG_AGENT_PRE, *ALTERNATIVE_INSTRUCTIONS.values())}
    assert found == PINNED_ELSEWHERE
    assert set(ALTERNATIVE_INSTRUCTIONS) == {"relevance_grade_token@1.1", "answer_correctness_token@1.1"}
