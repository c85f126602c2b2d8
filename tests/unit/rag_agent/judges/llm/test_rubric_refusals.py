"""#54 item 36 (judge bits): rubric files and the pytest helper refuse what they used to take."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import ragjury
from ragjury.evals.adapters.pytest_helpers import assert_judged
from ragjury.rag_agent.core.input_files import InputError
from ragjury.rag_agent.judges.llm.rubric import Rubric, RubricJudge


def _says(verdict: str) -> FunctionModel:
    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(json.dumps({"reason": "as scripted", "verdict": verdict}))])

    return FunctionModel(reply)


def test_a_negative_threshold_is_refused_it_would_pass_a_no() -> None:
    from ragjury.rag_agent.core.items import CorrectnessItem
    from ragjury.rag_agent.judges.model_free.contains import ContainsJudge

    item = CorrectnessItem(question="q", answer="Berlin", references=["Paris"])
    with pytest.raises(ValueError, match="threshold must be 0 or more"):
        assert_judged(ContainsJudge(), item, threshold=-1)


def test_a_rubric_judge_takes_a_dict_as_docs_rubrics_md_shows() -> None:
    rubric = Rubric(name="cites", criterion="The answer cites a passage of the context", sees=("answer", "context"))
    outcome = assert_judged(RubricJudge(rubric, _says("1"), method="structured"),
                            {"answer": "Paris [1]", "contexts": ["Paris is the capital."]})
    assert outcome.label is True
    with pytest.raises(AssertionError, match="judged False"):
        assert_judged(RubricJudge(rubric, _says("0"), method="structured"),
                      {"answer": "Paris", "contexts": ["Paris is the capital."]})


def test_inline_none_is_a_clear_error() -> None:
    with pytest.raises(TypeError, match="criterion as text"):
        Rubric.inline(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "field", "says"), [
    ("name: r\ncriterion: '   '\n", "criterion", "blank"),
    ("name: r\ncriterion: The answer names a source\nname: other\n", "name", "given twice"),
    ("name: r\ncriterion: The answer names a source\nstrict: \"no\"\n", "strict", "boolean"),
])
def test_rubric_files_refuse_a_blank_criterion_a_key_twice_and_a_string_for_strict(
        tmp_path: Path, text: str, field: str, says: str) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as refused:
        Rubric.from_file(path)
    assert says in str(refused.value) and field in str(refused.value) and str(path) in str(refused.value)


def test_a_json_rubric_with_a_key_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"name": "a", "criterion": "The answer names a source", "name": "b"}')
    with pytest.raises(InputError, match="given twice"):
        Rubric.from_file(path)


def test_a_fifo_and_a_symlink_loop_say_what_they_are(tmp_path: Path) -> None:
    fifo = tmp_path / "r.yaml"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="FIFO"):
        Rubric.from_file(fifo)
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(loop)
    with pytest.raises(InputError, match="symbolic link loop"):
        Rubric.from_file(loop)
    with pytest.raises(InputError, match="no such rubric file"):
        Rubric.from_file(tmp_path / "missing.yaml")
