"""Unvalidated envelope copies (``results.replicas``): equal to validated judgments, independent of
each other, refusing any change to the scored/unscored invariant, and leaving the garbage
collector as they found it."""

from __future__ import annotations

import gc

import pytest

from ragjury.rag_agent.core.results import Judgment, Usage, replicas
from ragjury.rag_agent.judges.llm.verdict_base import SampledJudgment


def test_copies_equal_the_validated_judgment_with_the_change() -> None:
    scored = Judgment(value=True, judge="contains", prompt_version="contains@1.0")
    unscored = Judgment(judge="contains", unscored=True, unscored_reason="empty answer")
    copies = replicas([scored, unscored, scored], latency_s=0.25)
    assert copies[0] == Judgment(value=True, judge="contains", prompt_version="contains@1.0", latency_s=0.25)
    assert copies[1] == Judgment(judge="contains", unscored=True, unscored_reason="empty answer", latency_s=0.25)
    assert copies[1].value is None and copies[1].unscored
    assert copies[0].model_fields_set == set(Judgment.model_fields)  # the library set every field
    assert scored.latency_s == 0.0  # the template is untouched
    assert copies[0].model_dump_json() == Judgment.model_validate_json(copies[0].model_dump_json()).model_dump_json()


def test_copies_are_independent() -> None:
    template = Judgment(value=2, judge="non_llm")
    first, second = replicas([template, template], latency_s=0.5)
    assert first is not second and first.__dict__ is not second.__dict__
    first.latency_s = 9.0
    first.fallback_used = True
    assert second.latency_s == 0.5 and not second.fallback_used
    assert first.model_fields_set == second.model_fields_set == set(Judgment.model_fields)
    assert "fallback_used" not in template.model_fields_set and template.latency_s == 0.0
    assert template.replicate(attempts=3).attempts == 3 and template.attempts == 1


@pytest.mark.parametrize("change", [{"value": None}, {"unscored": True}, {"unscored_reason": "x"}, {"judge": "y"}])
def test_changes_that_could_break_the_invariant_are_refused(change: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="may not change"):
        replicas([Judgment(value=True, judge="j")], **change)


def test_subclasses_keep_their_class_and_fields() -> None:
    sampled = SampledJudgment[bool](value=True, judge="llm", agreement=0.75, votes=["1", "1", "0", "1"])
    (copy,) = replicas([sampled], latency_s=1.5, usage=Usage(input_tokens=4))
    assert type(copy) is type(sampled) and copy.votes == ["1", "1", "0", "1"] and copy.agreement == 0.75
    assert copy.latency_s == 1.5 and copy.usage.input_tokens == 4


@pytest.mark.parametrize("enabled", [True, False])
def test_a_large_batch_leaves_the_garbage_collector_as_it_was(enabled: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        copies = replicas([Judgment(value=True, judge="j")] * 5_000, latency_s=0.001)
        assert len(copies) == 5_000 and gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_envelope_is_the_json_dump_without_the_value() -> None:
    plain = Judgment(value=True, judge="j", usage=Usage(input_tokens=3), latency_s=0.5)
    sampled = SampledJudgment[bool](value=False, judge="llm", votes=["0"], agreement=1.0)
    for judgment in (plain, sampled):
        assert judgment.envelope() == judgment.model_dump(mode="json", exclude={"value"})
    assert "value" not in plain.envelope() and sampled.envelope()["votes"] == ["0"]
