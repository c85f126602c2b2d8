"""The logprob path: one token's distribution becomes grades and probabilities; no logprobs -> structured.

Scripted with pydantic-ai's FunctionModel: the function returns the response a server would,
with (or without) ``provider_details["logprobs"]`` in the shape pydantic-ai maps OpenAI-compatible
Chat Completions logprobs to.
"""

from __future__ import annotations

import json
import math

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.judges.catalogue import build_judge
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem, RelevanceItem
from ragjury.rag_agent.core.labels import label_of
from ragjury.rag_agent.judges.llm.attribution import AttributionJudge
from ragjury.rag_agent.judges.llm.correctness import CorrectnessJudge
from ragjury.rag_agent.judges.llm.relevance import GradedRelevanceJudge, RelevanceGrade, RelevanceVerdictJudge
from ragjury.rag_agent.model.logprobs import (
    ChoiceDistribution,
    LogprobUnavailable,
    choice_distribution,
    logprob_settings,
)

CONTEXT = RelevanceItem(query="boiling point of water", retrieved_text="Water boils at 100 C at sea level.")


def settings() -> RagjurySettings:
    return RagjurySettings(base_url="http://127.0.0.1:9/v1", retries=0, http_retries=0)


def details(alternatives: dict[str, float], sampled: str | None = None) -> dict[str, object]:
    """``provider_details`` with the first token's top alternatives (token -> probability)."""
    top = [{"token": token, "logprob": math.log(p), "bytes": None} for token, p in alternatives.items()]
    first = sampled if sampled is not None else max(alternatives, key=lambda t: alternatives[t])
    return {"logprobs": [{"token": first, "logprob": top[0]["logprob"], "bytes": None, "top_logprobs": top}]}


class Scripted:
    """A FunctionModel body: logprob requests (max_tokens=1) get ``alternatives``; structured ones get ``json_reply``."""

    def __init__(self, alternatives: dict[str, float] | None, json_reply: dict[str, object] | None = None) -> None:
        self.alternatives = alternatives
        self.json_reply = json_reply
        self.logprob_calls = 0
        self.structured_calls = 0
        self.settings_seen: list[dict[str, object]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        model_settings = dict(info.model_settings or {})
        self.settings_seen.append(model_settings)
        if model_settings.get("openai_logprobs"):
            self.logprob_calls += 1
            if self.alternatives is None:
                return ModelResponse(parts=[TextPart("2")])  # a server without logprobs
            first = max(self.alternatives, key=lambda t: self.alternatives[t])  # type: ignore[index]
            return ModelResponse(parts=[TextPart(first)], provider_details=details(self.alternatives))
        self.structured_calls += 1
        return ModelResponse(parts=[TextPart(json.dumps(self.json_reply))])


# -- parsing ---------------------------------------------------------------------------------------------


def test_distribution_renormalises_over_choices_and_merges_whitespace_variants() -> None:
    parsed = choice_distribution(details({"2": 0.5, " 2": 0.1, "3": 0.2, "The": 0.2}), ("0", "1", "2", "3"))
    assert parsed.probabilities["2"] == pytest.approx(0.75)
    assert parsed.probabilities["3"] == pytest.approx(0.25)
    assert parsed.probabilities["0"] == 0.0
    assert parsed.choice_mass == pytest.approx(0.8)
    assert parsed.expectation({str(g): g for g in range(4)}) == pytest.approx(2.25)


def test_no_logprobs_is_unavailable_and_no_choice_is_an_error() -> None:
    with pytest.raises(LogprobUnavailable):
        choice_distribution({}, ("0", "1"))
    with pytest.raises(ValueError, match="began with 'Yes'"):
        choice_distribution(details({"Yes": 0.9, "No": 0.1}), ("0", "1"))


def test_logprob_request_asks_for_one_token_greedy_with_alternatives() -> None:
    sent = logprob_settings(settings())
    assert sent["max_tokens"] == 1 and sent["temperature"] == 0.0
    assert sent["openai_logprobs"] is True and sent["openai_top_logprobs"] == 20  # type: ignore[typeddict-item]


# -- judges ----------------------------------------------------------------------------------------------


async def test_graded_relevance_keeps_distribution_expected_grade_and_argmax() -> None:
    script = Scripted({"0": 0.1, "1": 0.2, "2": 0.3, "3": 0.4})
    judge = GradedRelevanceJudge(FunctionModel(script), settings=settings())
    judgment = await judge.ajudge(CONTEXT)
    value = judgment.value
    assert isinstance(value, RelevanceGrade) and judgment.method == "logprobs" and value.method == "logprobs"
    assert value.grade == 3 and label_of(value) == 3
    assert value.expected_grade == pytest.approx(2.0)
    assert value.p_relevant == pytest.approx(0.7)
    assert judgment.usage.requests == 1 and script.structured_calls == 0


async def test_calibrated_cuts_move_the_grade_and_change_the_cache_identity() -> None:
    script = Scripted({"0": 0.1, "1": 0.2, "2": 0.3, "3": 0.4})  # expected grade 2.0
    plain = GradedRelevanceJudge(FunctionModel(script), settings=settings())
    strict = GradedRelevanceJudge(FunctionModel(script), settings=settings(), cuts=(0.5, 2.2, 2.8))
    assert (await strict.ajudge(CONTEXT)).value.grade == 1  # type: ignore[union-attr]
    assert plain.identity.key() != strict.identity.key()
    with pytest.raises(ValueError, match="ascending"):
        GradedRelevanceJudge(FunctionModel(script), settings=settings(), cuts=(2.0, 1.0, 2.5))


async def test_binary_threshold_applies_to_p_true() -> None:
    script = Scripted({"1": 0.3, "0": 0.7})
    lenient = RelevanceVerdictJudge(FunctionModel(script), settings=settings(), threshold=0.25)
    default = RelevanceVerdictJudge(FunctionModel(script), settings=settings())
    assert (await lenient.ajudge(CONTEXT)).value.verdict is True  # type: ignore[union-attr]
    judgment = await default.ajudge(CONTEXT)
    assert judgment.value.verdict is False and judgment.value.probability == pytest.approx(0.3)  # type: ignore[union-attr]


async def test_server_without_logprobs_falls_back_to_structured_once_and_says_so() -> None:
    script = Scripted(None, json_reply={"grade": 2})
    judge = GradedRelevanceJudge(FunctionModel(script), settings=settings())
    first = await judge.ajudge(CONTEXT)
    second = await judge.ajudge(CONTEXT)
    assert first.method == second.method == "sampled"  # P(1) asked for, unreadable: the sampled answer (#54 item 6)
    assert first.value.grade == 2 and first.value.probabilities is None  # type: ignore[union-attr]
    assert script.logprob_calls == 1  # remembered: the second item went straight to the structured path
    assert script.structured_calls == 2


async def test_method_logprobs_without_logprobs_is_unscored_not_guessed() -> None:
    script = Scripted(None, json_reply={"grade": 2})
    judge = GradedRelevanceJudge(FunctionModel(script), settings=settings(), method="logprobs")
    judgment = await judge.ajudge(CONTEXT)
    assert judgment.unscored and "no logprobs" in (judgment.unscored_reason or "")
    assert script.structured_calls == 0


async def test_answer_outside_the_choices_is_unscored_with_the_models_first_token() -> None:
    judge = CorrectnessJudge(FunctionModel(Scripted({"Yes": 0.95, "No": 0.05})), settings=settings())
    item = CorrectnessItem(question="q", answer="a", references=["a"])
    judgment = await judge.ajudge(item)
    assert judgment.unscored and "'Yes'" in (judgment.unscored_reason or "")


async def test_low_mass_on_the_choices_is_unscored() -> None:
    judge = CorrectnessJudge(FunctionModel(Scripted({"Sure": 0.98, "1": 0.02})), settings=settings())
    judgment = await judge.ajudge(CorrectnessItem(question="q", answer="a", references=["a"]))
    assert judgment.unscored and "held only" in (judgment.unscored_reason or "")


async def test_correctness_and_attribution_report_probability_and_reason() -> None:
    script = Scripted({"1": 0.8, "0": 0.2})
    correct = await CorrectnessJudge(FunctionModel(script), settings=settings()).ajudge(
        CorrectnessItem(question="q", answer="a", references=["a"])
    )
    assert correct.value.verdict is True and correct.value.probability == pytest.approx(0.8)  # type: ignore[union-attr]
    assert "P(correct) = 0.800" in correct.value.reason  # type: ignore[union-attr]
    faithful = await AttributionJudge(FunctionModel(script), settings=settings(), threshold=0.9).ajudge(
        FaithfulnessItem(answer="a", contexts=["a"])
    )
    assert faithful.value.verdict is False and faithful.method == "logprobs"  # type: ignore[union-attr]


async def test_self_consistency_uses_the_structured_path() -> None:
    script = Scripted({"1": 0.8, "0": 0.2}, json_reply={"reason": "same", "verdict": "1"})
    judge = CorrectnessJudge(FunctionModel(script), settings=settings(), samples=3)
    judgment = await judge.ajudge(CorrectnessItem(question="q", answer="a", references=["a"]))
    assert judgment.method == "structured" and script.logprob_calls == 0 and script.structured_calls == 3


def test_registry_passes_calibration_options() -> None:
    judge = build_judge("relevance", "llm-graded", settings(), cuts=(0.4, 1.6, 2.6), method="logprobs")
    assert isinstance(judge, GradedRelevanceJudge) and judge.cuts == (0.4, 1.6, 2.6)
    attribution = build_judge("faithfulness", "llm-attribution", settings(), threshold=0.7)
    assert isinstance(attribution, AttributionJudge) and attribution.threshold == 0.7
    # the cut-off is applied to the cached P("1"), not keyed (#54 item 2: calibrate reuses a run's calls)
    assert "threshold" not in attribution.identity.params


def test_value_round_trips_through_json() -> None:
    value = RelevanceGrade(grade=2, method="logprobs", probabilities=[0.1, 0.2, 0.3, 0.4], expected_grade=2.0,
                           p_relevant=0.7)
    again = RelevanceGrade.model_validate_json(value.model_dump_json())
    assert again == value and again.label == 2
    assert isinstance(ChoiceDistribution(probabilities={"1": 1.0}, choice_mass=1.0, sampled_token="1").argmax(), str)
