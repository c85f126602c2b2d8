"""The framework adapters (``evals.adapters``): a pydantic-evals ``Evaluator``, an Inspect
scorer and a pytest assertion, each run for real on its framework with judges that need no
server: ``ContainsJudge`` and LLM verdict judges on pydantic-ai's ``FunctionModel``.

What must hold in all three: a verdict comes with the judge's reason, and an unscored judgment
is the framework's failure / unscored value with that reason, never a false verdict or a 0.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from ragjury.rag_agent.judges.llm.faithfulness import FAITHFULNESS_STATEMENTS
from ragjury.config.settings import RagjurySettings
from ragjury.evals.adapters.judging import ItemError, Outcome, build_item, item_type_of
from ragjury.evals.adapters.pytest_helpers import assert_judged, assert_judged_async
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem
from ragjury.rag_agent.judges.combined.fallback import FallbackJudge
from ragjury.rag_agent.judges.llm import CorrectnessJudge, FaithfulnessJudge
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge

PYDANTIC_EVALS_ABSENT = (
    "pydantic-evals is not installed (not in the dev extra: no release on the package index matches "
    "pydantic-ai-slim 2.68, which pydantic-evals pins to its own version)"
)
SETTINGS = RagjurySettings(_env_file=None, retries=0)  # type: ignore[call-arg]

HAMLET = CorrectnessItem(
    question="Who wrote Hamlet?", answer="William Shakespeare.", references=["Shakespeare"]
)
MARLOWE = CorrectnessItem(
    question="Who wrote Hamlet?", answer="Christopher Marlowe.", references=["Shakespeare"]
)
EMPTY = CorrectnessItem(question="Who wrote Hamlet?", answer="", references=["Shakespeare"])

EIFFEL = FaithfulnessItem(
    answer="The Eiffel Tower is in Paris. It is 500 metres tall.",
    contexts=["The Eiffel Tower, in Paris, is 330 metres tall."],
)


def text_model(reply: Any) -> FunctionModel:
    """A fake OpenAI-style model: no logprobs (so verdicts take the structured path), then
    ``reply(instructions)`` as JSON."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if (info.model_settings or {}).get("openai_logprobs"):
            return ModelResponse(parts=[TextPart("1")])
        return ModelResponse(parts=[TextPart(json.dumps(reply(str(info.instructions))))])

    return FunctionModel(respond, model_name="fake")


def marlowe_judge() -> CorrectnessJudge:
    """Says "not correct" with a reason the tests look for."""
    return CorrectnessJudge(
        text_model(lambda _: {"reason": "It names Marlowe, not Shakespeare.", "verdict": "0"}),
        settings=SETTINGS,
    )


def broken_judge() -> CorrectnessJudge:
    """Answers garbage every time: its judgments are unscored."""
    return CorrectnessJudge(text_model(lambda _: {"verdict": "perhaps"}), settings=SETTINGS)


def eiffel_judge() -> FaithfulnessJudge:
    """Supports the first of two statements, with a reason for the second."""

    def reply(instructions: str) -> dict[str, Any]:
        if instructions.startswith(FAITHFULNESS_STATEMENTS.text[:60]):
            return {"statements": ["The Eiffel Tower is in Paris.", "The Eiffel Tower is 500 metres tall."]}
        return {
            "verdicts": [
                {"reason": "The context places it in Paris.", "verdict": "1"},
                {"reason": "The context says 330 metres.", "verdict": "0"},
            ]
        }

    return FaithfulnessJudge(text_model(reply), settings=SETTINGS)


# -- shared: items and outcomes ----------------------------------------------------------------------------


def test_the_item_type_is_read_from_the_judge_and_its_wrappers() -> None:
    assert item_type_of(ContainsJudge()) is CorrectnessItem
    assert item_type_of(eiffel_judge()) is FaithfulnessItem
    assert item_type_of(FallbackJudge(marlowe_judge(), ContainsJudge())) is CorrectnessItem


def test_items_are_built_from_ragjury_ragas_or_deepeval_field_names() -> None:
    ragas = {"user_input": "Who?", "response": "Shakespeare", "reference": "Shakespeare"}
    deepeval = {"input": "Who?", "actual_output": "Shakespeare", "expected_output": "Shakespeare"}
    for fields in (
        {"question": "Who?", "answer": "Shakespeare", "references": ["Shakespeare"]},
        ragas,
        deepeval,
    ):
        item = build_item(ContainsJudge(), fields)
        assert item == CorrectnessItem(question="Who?", answer="Shakespeare", references=["Shakespeare"])
    faithful = build_item(eiffel_judge(), {"response": "A.", "retrieved_contexts": ["c1", "c2"]})
    assert faithful == FaithfulnessItem(answer="A.", contexts=["c1", "c2"])
    with pytest.raises(ItemError, match=r"case 1: field 'references': missing \(looked for: references"):
        build_item(ContainsJudge(), {"question": "Who?", "answer": "A"}, where="case 1")


def test_an_unscored_outcome_has_no_label_only_its_reason() -> None:
    outcome = Outcome(ContainsJudge().judge_sync(EMPTY))
    assert not outcome.scored and outcome.reason == "empty answer: nothing to judge"
    with pytest.raises(Exception, match="empty answer"):
        _ = outcome.label
    with pytest.raises(Exception, match="empty answer"):
        _ = outcome.score


# -- pytest helper -----------------------------------------------------------------------------------------


def test_assert_judged_passes_and_returns_the_outcome() -> None:
    outcome = assert_judged(ContainsJudge(), HAMLET)
    assert outcome.label is True and outcome.score == 1.0
    assert "contains@1.0" in outcome.reason  # no reason of its own: it says so, naming the judge
    ragas_row = {"user_input": "Who wrote Hamlet?", "response": "Shakespeare.", "reference": "Shakespeare"}
    assert assert_judged(ContainsJudge(), ragas_row).label is True


def test_assert_judged_failure_shows_the_judges_reason() -> None:
    with pytest.raises(AssertionError) as failure:
        assert_judged(marlowe_judge(), MARLOWE)
    message = str(failure.value)
    assert "judged False by answer_correctness (fake" in message
    assert "reason: It names Marlowe, not Shakespeare." in message


def test_assert_judged_threshold_fails_below_with_the_unsupported_statement() -> None:
    with pytest.raises(AssertionError) as failure:
        assert_judged(eiffel_judge(), EIFFEL, threshold=0.8)
    message = str(failure.value)
    assert "judged 0.500, below the threshold 0.8" in message
    assert '1 of 2 statements supported; not supported: "The Eiffel Tower is 500 metres tall."' in message
    assert "(The context says 330 metres.)" in message
    assert assert_judged(eiffel_judge(), EIFFEL, threshold=0.5).score == 0.5


def test_assert_judged_fails_an_unscored_judgment_with_its_reason() -> None:
    with pytest.raises(
        AssertionError, match=r"could not judge the item \(unscored\): .*invalid model output"
    ):
        assert_judged(broken_judge(), HAMLET)
    with pytest.raises(AssertionError, match=r"unscored\): empty answer: nothing to judge"):
        assert_judged(ContainsJudge(), EMPTY, threshold=0.0)  # a threshold of 0 does not let it pass


async def test_assert_judged_async_inside_a_running_loop() -> None:
    assert (await assert_judged_async(ContainsJudge(), HAMLET)).label is True
    assert assert_judged(ContainsJudge(), HAMLET).label is True  # the sync helper also works here
    with pytest.raises(AssertionError, match="It names Marlowe"):
        await assert_judged_async(marlowe_judge(), MARLOWE)


# -- pydantic-evals ----------------------------------------------------------------------------------------


def test_pydantic_evals_evaluator_reports_verdicts_reasons_and_unscored_as_failures() -> None:
    pytest.importorskip("pydantic_evals", reason=PYDANTIC_EVALS_ABSENT)
    from pydantic_evals import Case, Dataset

    from ragjury.evals.adapters.pydantic_evals import RagjuryEvaluator

    answers = {"hamlet": "William Shakespeare wrote it.", "marlowe": "Christopher Marlowe.", "empty": ""}

    async def rag_task(question: str) -> str:
        return answers[question]

    dataset = Dataset(
        name="hamlet",
        cases=[
            Case(name="hamlet", inputs="hamlet", expected_output=["Shakespeare"]),
            Case(name="marlowe", inputs="marlowe", expected_output="Shakespeare"),
            Case(name="empty", inputs="empty", expected_output="Shakespeare"),
        ],
        evaluators=[RagjuryEvaluator(ContainsJudge()), RagjuryEvaluator(marlowe_judge(), name="llm")],
    )
    report = dataset.evaluate_sync(rag_task, progress=False)
    cases = {case.name: case for case in report.cases}

    assert cases["hamlet"].assertions["contains"].value is True
    assert cases["marlowe"].assertions["contains"].value is False
    llm = cases["marlowe"].assertions["llm"]
    assert llm.value is False and llm.reason == "It names Marlowe, not Shakespeare."
    # unscored: an evaluator failure with the reason, and no assertion at all (not a False)
    assert "contains" not in cases["empty"].assertions
    (failure,) = [f for f in cases["empty"].evaluator_failures if f.name == "contains"]
    assert (
        failure.error_type == "JudgmentUnscored" and "empty answer: nothing to judge" in failure.error_message
    )
    spec = RagjuryEvaluator(ContainsJudge()).as_spec()
    assert spec.arguments == {"judge": "contains", "prompt_version": "contains@1.0"}


def test_pydantic_evals_evaluator_reads_contexts_from_metadata_and_gives_a_score() -> None:
    pytest.importorskip("pydantic_evals", reason=PYDANTIC_EVALS_ABSENT)
    from pydantic_evals import Case, Dataset

    from ragjury.evals.adapters.pydantic_evals import RagjuryEvaluator

    async def rag_task(question: str) -> dict[str, Any]:
        return {"answer": EIFFEL.answer}

    dataset = Dataset(
        name="eiffel",
        cases=[Case(name="eiffel", inputs="How tall?", metadata={"retrieved_contexts": EIFFEL.contexts})],
        evaluators=[RagjuryEvaluator(eiffel_judge(), value="score", name="faithfulness")],
    )
    (case,) = dataset.evaluate_sync(rag_task, progress=False).cases
    result = case.scores["faithfulness"]
    assert result.value == 0.5
    assert result.reason is not None and "(The context says 330 metres.)" in result.reason


# -- Inspect -----------------------------------------------------------------------------------------------


def test_inspect_scorer_scores_explains_and_leaves_unscored_out_of_the_metrics(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("inspect_ai")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # Inspect's traces and buffers
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.solver import Generate, TaskState, solver

    from ragjury.evals.adapters.inspect import ragjury_scorer

    answers = {"hamlet": "William Shakespeare wrote it.", "marlowe": "Christopher Marlowe.", "empty": ""}

    @solver
    def recorded_answers() -> Any:
        """The system under test, replayed: no model is called."""

        async def solve(state: TaskState, generate: Generate) -> TaskState:
            state.output = ModelOutput.from_content("mockllm/model", answers[str(state.sample_id)])
            return state

        return solve

    task = Task(
        dataset=[
            Sample(id=name, input="Who wrote Hamlet?", target=["Shakespeare", "William Shakespeare"])
            for name in answers
        ],
        solver=recorded_answers(),
        scorer=ragjury_scorer(ContainsJudge()),
    )
    (log,) = inspect_eval(task, model="mockllm/model", display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "success", log.error
    assert log.samples is not None
    scores = {str(sample.id): sample.scores["ragjury_scorer"] for sample in log.samples if sample.scores}
    assert scores["hamlet"].value == "C" and scores["marlowe"].value == "I"
    assert "contains@1.0" in (scores["hamlet"].explanation or "")
    assert scores["hamlet"].metadata == {
        "judge": "contains",
        "model": None,
        "prompt_version": "contains@1.0",
        "fallback_used": False,
    }
    empty = scores["empty"]
    assert isinstance(empty.value, float) and math.isnan(empty.value)  # Inspect's unscored sentinel
    assert empty.explanation == "empty answer: nothing to judge"
    assert getattr(empty, "reason", "grader_failed") == "grader_failed"
    assert log.results is not None
    (summary,) = log.results.scores
    assert (summary.scored_samples, summary.unscored_samples) == (2, 1)
    assert summary.metrics["mean"].value == 0.5  # C and I; the unscored sample is not a 0


async def test_inspect_scorer_called_directly_carries_the_llm_judges_reason() -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai.model import ModelName, ModelOutput
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState

    from ragjury.evals.adapters.inspect import ragjury_scorer

    state = TaskState(
        model=ModelName("mockllm/model"), sample_id="m", epoch=1, input="Who wrote Hamlet?", messages=[]
    )
    state.output = ModelOutput.from_content("mockllm/model", "Christopher Marlowe.")
    score = await ragjury_scorer(marlowe_judge())(state, Target(["Shakespeare"]))
    assert score is not None and score.value == "I"
    assert score.explanation == "It names Marlowe, not Shakespeare."
    unscored = await ragjury_scorer(broken_judge())(state, Target(["Shakespeare"]))
    assert unscored is not None and math.isnan(float(unscored.value))  # type: ignore[arg-type]
    assert "invalid model output" in (unscored.explanation or "")
