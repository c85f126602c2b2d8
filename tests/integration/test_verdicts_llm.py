"""Each verdict judge once, end to end, against a real llama-server over HTTP.

The tiny test model (SmolLM2-135M) is near chance, so these tests prove the path is real:
HTTP, JSON-schema-constrained decoding of ``"0"``/``"1"`` and 0-3 fields, validation, the
envelope with usage. A judgment may come back unscored (a 135M model can fail to decompose an
answer), but then it must say why, and the model must have been asked (usage.requests > 0).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.items import (
    CorrectnessItem,
    FaithfulnessItem,
    GoalItem,
    RelevanceItem,
    TraceMessage,
)
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.judges.llm import (
    TRACE_FORMAT_VERSION,
    CorrectnessJudge,
    FaithfulnessJudge,
    FaithfulnessResult,
    GoalAccuracyJudge,
    GoalResult,
    GradedRelevanceJudge,
    RelevanceVerdictJudge,
    SampledJudgment,
    Verdict,
)
from ragjury.rag_agent.judges.llm.relevance import RelevanceGrade, RelevanceVerdict

REPO = Path(__file__).resolve().parents[2]
CTX = RelevanceItem(
    query="what is the boiling point of water at sea level",
    retrieved_text="At sea level, pure water boils at 100 degrees Celsius (212 degrees Fahrenheit).",
)


def assert_honest(judgment: Judgment[object], value_type: type) -> None:
    """A typed value, or unscored with a reason; the model was asked either way."""
    assert judgment.usage.requests > 0, judgment
    assert judgment.model == "phi3:mini" and not judgment.fallback_used
    if judgment.scored:
        assert isinstance(judgment.value, value_type), judgment.value
    else:
        assert judgment.value is None and judgment.unscored_reason, judgment


async def test_faithfulness_against_the_server(server_settings: RagjurySettings) -> None:
    item = FaithfulnessItem(
        question="Where is the Eiffel Tower?",
        answer="The Eiffel Tower is in Paris.",
        contexts=["The Eiffel Tower is a wrought-iron tower in Paris, France, 330 metres tall."],
    )
    judgment = await FaithfulnessJudge(settings=server_settings).ajudge(item)
    assert_honest(judgment, FaithfulnessResult)
    if judgment.value is not None:
        assert judgment.value.statements and 0.0 <= judgment.value.score <= 1.0
        assert judgment.usage.requests >= 2  # decomposition + verdicts
    print(f"\n[faithfulness] {judgment.value or judgment.unscored_reason} in {judgment.latency_s:.2f}s")


async def test_correctness_against_the_server(server_settings: RagjurySettings) -> None:
    item = CorrectnessItem(
        question="who got the first nobel prize in physics",
        answer="Wilhelm Röntgen won it in 1901.",
        references=["Wilhelm Conrad Röntgen"],
    )
    judgment = await CorrectnessJudge(settings=server_settings).ajudge(item)
    assert_honest(judgment, Verdict)
    print(f"\n[correctness] {judgment.value or judgment.unscored_reason} in {judgment.latency_s:.2f}s")


async def test_binary_relevance_against_the_server(server_settings: RagjurySettings) -> None:
    judgment = await RelevanceVerdictJudge(settings=server_settings).ajudge(CTX)
    assert_honest(judgment, RelevanceVerdict)
    print(f"\n[relevance] {judgment.value} {judgment.unscored_reason or ''} in {judgment.latency_s:.2f}s")


async def test_logprob_path_against_the_server(server_settings: RagjurySettings) -> None:
    """llama-server returns top_logprobs: every judge with a one-token path reads its distribution,
    one request and one output token per judgment (the path, not the quality: SmolLM2 is tiny)."""
    graded = await GradedRelevanceJudge(settings=server_settings, method="logprobs").ajudge(CTX)
    assert_honest(graded, RelevanceGrade)
    assert graded.method == "logprobs" and graded.usage.requests == 1 and graded.usage.output_tokens <= 1
    if graded.value is not None:
        probabilities = graded.value.probabilities or []
        assert len(probabilities) == 4 and abs(sum(probabilities) - 1.0) < 1e-6
        assert graded.value.expected_grade is not None and 0.0 <= graded.value.expected_grade <= 3.0
    correct = await CorrectnessJudge(settings=server_settings).ajudge(
        CorrectnessItem(question="capital of France", answer="Paris", references=["Paris"])
    )
    assert_honest(correct, Verdict)
    assert correct.method == "logprobs" and correct.usage.requests == 1  # auto chose the logprob path
    if correct.value is not None:
        assert correct.value.probability is not None and 0.0 <= correct.value.probability <= 1.0
    print(f"\n[logprobs] graded {graded.value or graded.unscored_reason}; correct {correct.value}")


async def test_graded_relevance_with_three_samples_against_the_server(
    server_settings: RagjurySettings,
) -> None:
    judge = GradedRelevanceJudge(settings=server_settings.model_copy(update={"temperature": 0.7}), samples=3)
    judgment = await judge.ajudge(CTX)
    assert_honest(judgment, RelevanceGrade)
    assert judgment.attempts == 3 and judgment.usage.requests >= 3 and judgment.method == "structured"
    if judgment.value is not None:
        assert judgment.value.grade in (0, 1, 2, 3)
        assert isinstance(judgment, SampledJudgment) and judgment.agreement is not None
        assert 1 / 3 <= judgment.agreement <= 1.0
    print(
        f"\n[graded x3] {judgment.value} votes {getattr(judgment, 'votes', None)} in {judgment.latency_s:.2f}s"
    )


async def test_goal_accuracy_against_the_server(server_settings: RagjurySettings) -> None:
    item = GoalItem(
        trace=[
            TraceMessage(role="user", content="Book me a table for two at an Italian place tonight at 8."),
            TraceMessage(role="tool", tool_name="book_table", content="confirmed: Luigi's, 20:00, 2 people"),
            TraceMessage(role="assistant", content="Your table for two at Luigi's is booked for 8 pm."),
        ],
        reference_goal="A table for two booked at an Italian restaurant for 8 pm tonight.",
    )
    judgment = await GoalAccuracyJudge(settings=server_settings).ajudge(item)
    assert_honest(judgment, GoalResult)
    assert TRACE_FORMAT_VERSION in (judgment.prompt_version or "")
    print(f"\n[goal] {judgment.value or judgment.unscored_reason} in {judgment.latency_s:.2f}s")


def test_cli_verdict_correctness_json_against_the_server(
    server_settings: RagjurySettings, tmp_path: Path
) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "cli.py"),
            "verdict",
            "correctness",
            "-q",
            "who got the first nobel prize in physics",
            "-a",
            "Röntgen",
            "-r",
            "Wilhelm Conrad Röntgen",
            "--base-url",
            server_settings.openai_base_url,
            "--judge",
            "llm",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "RAGJURY_MAX_TOKENS": "384", "HOME": str(tmp_path)},
    )
    assert done.returncode in (0, 3), done.stderr
    payload = json.loads(done.stdout)
    assert payload["task"] == "correctness" and payload["usage"]["requests"] > 0
    assert payload["fallback_used"] is False
    if done.returncode == 0:
        assert isinstance(payload["label"], bool) and payload["value"]["reason"] is not None
    else:
        assert payload["unscored_reason"]
