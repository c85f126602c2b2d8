"""``--judge rubric:FILE``: a criterion in plain words judged by one token's P(yes); a bad rubric
file is one line naming the file and field; editing a rubric changes its identity (re-judges)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.input_files import InputError
from ragjury.rag_agent.core.items import FaithfulnessItem
from ragjury.rag_agent.judges.catalogue import build_judge
from ragjury.rag_agent.judges.llm.rubric import Rubric, RubricJudge

EXAMPLES = Path(__file__).resolve().parents[5] / "examples" / "rubrics"


def cites(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """P("1") = 0.9 when the answer cites [1], else 0.2; the prompt is recorded for the test."""
    request = messages[-1]
    assert isinstance(request, ModelRequest)
    prompt = "".join(str(p.content) for p in request.parts if isinstance(p, UserPromptPart))
    cites.prompts.append(prompt)  # type: ignore[attr-defined]
    answer = prompt.split("<evaluated_answer>")[-1].split("</evaluated_answer>")[0]
    p = 0.9 if "[1]" in answer else 0.2
    top = [{"token": "1", "logprob": math.log(p)}, {"token": "0", "logprob": math.log(1 - p)}]
    return ModelResponse(parts=[TextPart("1")],
                         provider_details={"logprobs": [{"token": "1", "logprob": top[0]["logprob"], "top_logprobs": top}]})


cites.prompts = []  # type: ignore[attr-defined]


def item(answer: str, context: str = "[1] The tower was completed in 1889.") -> FaithfulnessItem:
    return FaithfulnessItem(question="When was it completed?", answer=answer, contexts=[context])


async def test_the_rubric_is_judged_from_one_token_and_its_prompt_shows_what_it_sees() -> None:
    rubric = Rubric.from_file(EXAMPLES / "cites-source.yaml")
    judge = RubricJudge(rubric, FunctionModel(cites, model_name="scripted"), settings=RagjurySettings())
    good = await judge.ajudge(item("It was completed in 1889 [1]."))
    bad = await judge.ajudge(item("It was completed in 1889."))
    assert good.value.verdict and not bad.value.verdict and good.value.probability == pytest.approx(0.9)
    assert good.judge == "rubric:cites-source" and good.prompt_version.startswith("rubric_cites-source@1.")
    prompt = cites.prompts[-1]  # type: ignore[attr-defined]
    assert "<question>" in prompt and "<context" in prompt and "<reference" not in prompt


async def test_a_field_the_rubric_sees_that_the_item_lacks_is_unscored_saying_which() -> None:
    rubric = Rubric(name="needs-reference", criterion="The answer matches the reference.", sees=("answer", "reference"))
    judge = RubricJudge(rubric, FunctionModel(cites, model_name="scripted"), settings=RagjurySettings())
    judgment = await judge.ajudge(item("1889"))
    assert judgment.unscored and "sees the reference, which this item lacks" in judgment.unscored_reason


def test_editing_a_rubric_changes_its_identity(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("name: r\ncriterion: The answer is polite.\n")
    first = build_judge("correctness", f"rubric:{path}", RagjurySettings()).identity
    path.write_text("name: r\ncriterion: The answer is polite and short.\n")
    second = build_judge("correctness", f"rubric:{path}", RagjurySettings()).identity
    assert first.prompt_version != second.prompt_version and first.name == second.name == "rubric:r"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("criterion: polite\n", "name"),
        ("name: r\ncriterion: polite\nsees: [question]\n", "must include answer"),
        ("name: r\ncriterion: polite\ncolour: red\n", "colour"),
        ("name: 'bad name!'\ncriterion: polite\n", "name"),
        ("- just\n- a list\n", "expected a mapping"),
        ("name: [unclosed\n", "not YAML or JSON"),
    ],
)
def test_a_bad_rubric_is_one_line_naming_the_file(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        Rubric.from_file(path)
    assert "bad.yaml" in str(caught.value) and words in str(caught.value)


def test_the_cli_runs_a_rubric_and_says_a_missing_file_in_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ragjury.cli import app

    result = CliRunner().invoke(app, ["evaluate", "--task", "faithfulness", "--judge", f"rubric:{tmp_path / 'no.yaml'}",
                                      "--data", str(EXAMPLES / "data" / "cites-source.jsonl"), "--no-progress"])
    assert result.exit_code == 2 and "no such rubric file" in result.output and "Traceback" not in result.output


def test_the_worked_rubrics_and_their_data_are_valid() -> None:
    for path in sorted(EXAMPLES.glob("*.yaml")):
        rubric = Rubric.from_file(path)
        rows = [json.loads(line) for line in (EXAMPLES / "data" / f"{path.stem}.jsonl").read_text().splitlines()]
        assert len(rows) == 16 and sum(r["label"] for r in rows) == 8, path.name
        assert rubric.examples, path.name


def test_assert_judged_takes_a_rubric_judge() -> None:
    import ragjury
    from ragjury.evals.adapters.pytest_helpers import assert_judged

    judge = ragjury.RubricJudge(ragjury.Rubric.from_file(EXAMPLES / "cites-source.yaml"),
                                FunctionModel(cites, model_name="scripted"), settings=RagjurySettings())
    assert_judged(judge, item("Completed in 1889, per [1]."))
    with pytest.raises(AssertionError):
        assert_judged(judge, item("Completed in 1889."))


def test_a_one_line_rubric_sees_what_the_item_has() -> None:
    judge = build_judge("faithfulness", "rubric-text:The answer cites a passage", RagjurySettings())
    assert judge.identity.name == "rubric:rubric" and not judge.rubric.strict
    no_question = FaithfulnessItem(answer="It was 1889 [1].", contexts=["[1] 1889."])
    assert judge.problem(no_question) is None  # a missing question is not shown, not a failure
    assert "<context" in judge.verdict_prompt(no_question) and "<question>" not in judge.verdict_prompt(no_question)


def test_the_rubric_option_of_evaluate(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ragjury.cli import app

    data = EXAMPLES / "data" / "cites-source.jsonl"
    dry = CliRunner().invoke(app, ["evaluate", "--task", "faithfulness", "--rubric", "The answer cites a passage",
                                   "--data", str(data), "--dry-run", "--json", "--no-progress"])
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.stdout)["judge"] == "rubric-text:The answer cites a passage"
    both = CliRunner().invoke(app, ["evaluate", "--task", "faithfulness", "--rubric", "x y z", "--judge", "llm",
                                    "--data", str(data)])
    assert both.exit_code == 2 and "not both" in both.output
