"""The stacked faithfulness judge: the shipped fit loads, reads its features in order, and judges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragjury.rag_agent.core.items import FaithfulnessItem
from ragjury.rag_agent.judges.model_free.stacked import DEFAULT_STACK, FEATURES, StackedSupportJudge, load_stack


def test_the_shipped_stack_was_fitted_on_the_tune_half_and_names_its_features() -> None:
    stack = load_stack(DEFAULT_STACK)
    assert stack.features == FEATURES and "tune half" in stack.fitted_on and stack.n > 500
    assert 0 < stack.threshold < 1


def test_supported_answers_score_higher_than_invented_ones() -> None:
    judge = StackedSupportJudge()
    context = ["The Eiffel Tower is 330 metres tall and stands in Paris."]
    copied = judge.judge_sync(FaithfulnessItem(answer="The Eiffel Tower is 330 metres tall.", contexts=context))
    invented = judge.judge_sync(FaithfulnessItem(answer="It was painted green by Napoleon in 1999.", contexts=context))
    assert copied.value.probability > invented.value.probability
    assert copied.value.label is True and invented.value.label is False
    assert judge.identity.prompt_version == f"stack@{load_stack(DEFAULT_STACK).version}"


def test_an_empty_answer_is_unscored_not_false() -> None:
    judgment = StackedSupportJudge().judge_sync(FaithfulnessItem(answer="", contexts=["text"]))
    assert judgment.unscored and judgment.value is None


def test_a_stack_file_with_other_features_is_refused(tmp_path: Path) -> None:
    data = json.loads(DEFAULT_STACK.read_text(encoding="utf-8"))
    data["features"] = list(reversed(data["features"]))
    path = tmp_path / "stack.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="this judge reads"):
        load_stack(path)
