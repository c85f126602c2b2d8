"""Schemas: bounds are enforced, overall is computed from the dimensions, envelopes are honest."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ragjury.config.settings import RagjurySettings, ScoreWeights
from ragjury.rag_agent.core.results import Judgment, Usage
from ragjury.rag_agent.core.schemas import DimensionRatings, JudgeScore, RAGAnswer

RATINGS = dict(relevance=1.0, completeness=0.5, accuracy=0.8, source_attribution=0.0, coherence=1.0,
               confidence=0.9, reasoning="ok")


@pytest.mark.parametrize("field", ["relevance", "completeness", "accuracy", "source_attribution", "coherence",
                                   "confidence"])
@pytest.mark.parametrize("bad", [-0.01, 1.01, 7])
def test_dimension_bounds_are_rejected_not_clipped(field: str, bad: float) -> None:
    with pytest.raises(ValidationError):
        DimensionRatings(**{**RATINGS, field: bad})


def test_overall_is_weighted_mean_of_dimensions() -> None:
    weights = ScoreWeights().normalised()
    score = JudgeScore.from_ratings(DimensionRatings(**RATINGS), weights)
    expected = 0.25 * 1.0 + 0.20 * 0.5 + 0.30 * 0.8 + 0.15 * 0.0 + 0.10 * 1.0
    assert score.overall_score == pytest.approx(expected)
    assert score.relevance == 1.0 and score.reasoning == "ok"


def test_custom_weights_change_overall_and_need_a_positive_sum() -> None:
    only_accuracy = ScoreWeights(relevance=0, completeness=0, accuracy=1, source_attribution=0, coherence=0)
    score = JudgeScore.from_ratings(DimensionRatings(**RATINGS), only_accuracy.normalised())
    assert score.overall_score == pytest.approx(0.8)
    with pytest.raises(ValidationError):
        ScoreWeights(relevance=0, completeness=0, accuracy=0, source_attribution=0, coherence=0)


def test_judge_score_rejects_out_of_range_overall() -> None:
    with pytest.raises(ValidationError):
        JudgeScore(overall_score=1.5, **RATINGS)


def test_unscored_judgment_cannot_carry_a_value_and_needs_a_reason() -> None:
    with pytest.raises(ValidationError):
        Judgment[float](value=0.0, judge="x", unscored=True, unscored_reason="down")
    with pytest.raises(ValidationError):
        Judgment[float](judge="x", unscored=True)
    with pytest.raises(ValidationError):
        Judgment[float](judge="x")  # scored but no value
    ok = Judgment[float](judge="x", unscored=True, unscored_reason="server down")
    assert ok.value is None and not ok.scored


def test_usage_adds_up() -> None:
    total = Usage(input_tokens=3, output_tokens=4, requests=1) + Usage(input_tokens=1, output_tokens=1, requests=2)
    assert (total.input_tokens, total.output_tokens, total.requests, total.total_tokens) == (4, 5, 3, 9)


def test_rag_answer_defaults_and_bounds() -> None:
    assert RAGAnswer(answer="x").sources_used == []
    with pytest.raises(ValidationError):
        RAGAnswer(answer="x", confidence=2)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("http://localhost:11434", "http://localhost:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("myhost:1234", "http://myhost:1234"),
        ("https://ollama.example.org/", "https://ollama.example.org:11434"),
    ],
)
def test_ollama_host_forms(raw: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", raw)
    settings = RagjurySettings()
    assert settings.ollama_host == expected
    assert settings.openai_base_url == expected + "/v1"


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGJURY_JUDGE_MODEL", "llama3.1:8b")
    monkeypatch.setenv("RAGJURY_TEMPERATURE", "0.3")
    monkeypatch.setenv("RAGJURY_WEIGHTS", '{"accuracy": 2, "relevance": 1, "completeness": 0, '
                       '"source_attribution": 0, "coherence": 0}')
    monkeypatch.setenv("RAGJURY_BASE_URL", "http://127.0.0.1:8080/v1/")
    settings = RagjurySettings()
    assert settings.judge_model == "llama3.1:8b" and settings.temperature == 0.3
    assert settings.weights.normalised()["accuracy"] == pytest.approx(2 / 3)
    assert settings.openai_base_url == "http://127.0.0.1:8080/v1" and not settings.targets_ollama


def test_defaults_match_the_brief(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RAGJURY_JUDGE_MODEL", "RAGJURY_TEMPERATURE", "OLLAMA_HOST", "RAGJURY_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    settings = RagjurySettings(_env_file=None)
    assert settings.judge_model == "phi3:mini"
    assert settings.temperature == 0.1
    assert settings.openai_base_url == "http://localhost:11434/v1"
    assert settings.output_mode == "native"
