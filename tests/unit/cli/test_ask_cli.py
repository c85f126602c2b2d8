"""``ragjury ask``: answer, sources, --judge, exit codes and one-line errors, with FunctionModel models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from typer.testing import CliRunner

import ragjury.rag_agent.agent.reference_agent
import ragjury.rag_agent.judges.llm.model_judge
from ragjury.cli import app
from ragjury.rag_agent.judges.llm.faithfulness import FAITHFULNESS_STATEMENTS, FAITHFULNESS_VERDICTS
from ragjury.rag_agent.judges.llm.multi_dimension import JUDGE_SCORE
from ragjury.rag_agent.agent.reference_agent import SEARCH_TOOL

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TINY = str(FIXTURES / "agent_tiny_corpus.jsonl")
QUESTION = "What is the capital of France?"
RATINGS = {
    "relevance": 10,
    "completeness": 10,
    "accuracy": 10,
    "source_attribution": 10,
    "coherence": 10,
    "confidence": 9,
    "reasoning": "Supported by the passage.",
}

runner = CliRunner()


@pytest.fixture(autouse=True)
def no_model_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Point every model at a closed port unless a test fakes it, and ignore any .env."""
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("RAGJURY_HTTP_RETRIES", "0")
    monkeypatch.delenv("RAGJURY_BASE_URL", raising=False)
    monkeypatch.delenv("RAGJURY_AGENT_MODEL", raising=False)
    monkeypatch.delenv("RAGJURY_JUDGE_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)


def _prompt_text(messages: list[ModelMessage]) -> str:
    first = messages[0]
    assert isinstance(first, ModelRequest)
    return "".join(str(p.content) for p in first.parts if isinstance(p, UserPromptPart))


def _final(info: AgentInfo, payload: dict[str, Any]) -> ModelResponse:
    if info.output_tools:
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, payload)])
    return ModelResponse(parts=[TextPart(json.dumps(payload))])


@pytest.fixture
def fake_models(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """One FunctionModel per model name that plays agent, JudgeLLM and faithfulness judge by instructions."""
    seen: dict[str, Any] = {"models": [], "verdict_prompts": []}

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if info.instructions == JUDGE_SCORE.text:
            return ModelResponse(parts=[TextPart(json.dumps(RATINGS))])
        if info.instructions == FAITHFULNESS_STATEMENTS.text:
            return ModelResponse(
                parts=[TextPart(json.dumps({"statements": ["Paris is the capital of France."]}))]
            )
        if info.instructions == FAITHFULNESS_VERDICTS.text:
            seen["verdict_prompts"].append(_prompt_text(messages))
            verdicts = [{"reason": "The passage says so.", "verdict": "1"}]
            return ModelResponse(parts=[TextPart(json.dumps({"verdicts": verdicts}))])
        returns = [
            p
            for m in messages
            if isinstance(m, ModelRequest)
            for p in m.parts
            if isinstance(p, ToolReturnPart) and p.tool_name == SEARCH_TOOL
        ]
        if info.function_tools and not returns:
            return ModelResponse(parts=[ToolCallPart(SEARCH_TOOL, {"query": "capital France"})])
        return _final(
            info,
            {
                "answer": "Paris is the capital of France.",
                "confidence": 0.9,
                "sources_used": ["paris"],
                "reasoning": "paris says so",
            },
        )

    def build(settings: Any, model_name: str | None = None) -> FunctionModel:
        name = model_name or settings.judge_model
        seen["models"].append(name)
        return FunctionModel(reply, model_name=name)

    for module in (ragjury.rag_agent.agent.reference_agent, ragjury.rag_agent.judges.llm.model_judge):  # where models are built
        monkeypatch.setattr(module, "build_model", build)
    return seen


def invoke(*args: str):
    return runner.invoke(app, list(args))


def test_json_answer_with_the_sources_the_tool_returned(fake_models: dict[str, Any]) -> None:
    result = invoke("ask", QUESTION, "--corpus", TINY, "--top-k", "2", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["answer"]["answer"] == "Paris is the capital of France."
    assert payload["answer"]["sources_used"] == ["paris"]
    assert payload["error"] is None and payload["retrieval"] == "tool"
    assert payload["searches"] == ["capital France"]
    assert [s["id"] for s in payload["sources"]] == ["paris", "capital"]
    assert payload["model"] == "llama3.2:3b" and payload["prompt_version"] == "rag_agent_tool@1.0"
    assert "judgment" not in payload


def test_judge_scores_the_answer_and_checks_faithfulness_against_the_retrieved_sources(
    fake_models: dict[str, Any],
) -> None:
    result = invoke(
        "ask",
        QUESTION,
        "--corpus",
        TINY,
        "--judge",
        "--retrieval",
        "pre",
        "--top-k",
        "2",
        "--model",
        "agent-x",
        "--judge-model",
        "judge-y",
        "--json",
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["model"] == "agent-x" and payload["retrieval"] == "pre"
    judgment = payload["judgments"]["score"]
    assert judgment["label"] == pytest.approx(1.0) and judgment["model"] == "judge-y"
    assert judgment["task"] == "score" and judgment["unscored"] is False
    faithful = payload["judgments"]["faithfulness"]
    assert faithful["value"]["score"] == 1.0 and faithful["label"] is True and faithful["judge"] == "llm"  # as --judge names it
    assert faithful["value"]["statements"][0]["statement"] == "Paris is the capital of France."
    # the faithfulness judge checked exactly the passages the agent retrieved
    (prompt,) = fake_models["verdict_prompts"]
    for source in payload["sources"]:
        assert source["content"] in prompt
    assert "Bananas" not in prompt


def test_human_output_shows_answer_sources_and_judgments(fake_models: dict[str, Any]) -> None:
    result = invoke("ask", QUESTION, "--corpus", TINY, "--judge")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Paris is the capital of France." in out and "confidence 0.90" in out
    assert "paris" in out and "Retrieved sources" in out
    assert "overall 1.000" in out and "faithfulness:" in out and "1/1 statements supported" in out


@pytest.mark.parametrize("mode", ["heuristic", "deterministic"])  # the second: retired spelling, still accepted
def test_heuristic_judge_mode_skips_faithfulness_instead_of_guessing(fake_models: dict[str, Any], mode: str) -> None:
    result = invoke("ask", QUESTION, "--corpus", TINY, "--judge", "--judge-mode", mode, "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    judgments = payload["judgments"]
    assert judgments["score"]["model"] is None and judgments["score"]["label"] is not None
    assert judgments["score"]["judge"] == "heuristic"
    assert judgments["faithfulness"] == {"task": "faithfulness", "skipped": "--judge-mode heuristic uses no model"}


def test_the_retired_judge_mode_is_not_offered() -> None:
    shown = runner.invoke(app, ["ask", "--help"], env={"COLUMNS": "200"})
    assert "[auto|llm|heuristic]" in shown.stdout and "deterministic" not in shown.stdout


def test_server_down_exits_3_with_the_reason_and_no_answer() -> None:
    result = invoke("ask", QUESTION, "--corpus", TINY, "--judge", "--json")
    assert result.exit_code == 3
    payload = json.loads(result.stdout)
    assert payload["answer"] is None and "unreachable" in payload["error"]
    assert payload["judgments"] is None
    human = invoke("ask", QUESTION, "--corpus", TINY)
    assert human.exit_code == 3 and "no answer" in human.stdout and "unreachable" in human.stdout


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"docid": "a", "text": "x"}\n{"docid": "b"}\n', "bad.jsonl:2: field 'text': missing"),
        ('{"docid": "a", "text": "x"}\n{not json\n', "bad.jsonl:2: malformed JSON"),
    ],
)
def test_bad_corpus_is_one_line_naming_file_line_field(tmp_path: Path, body: str, message: str) -> None:
    (tmp_path / "bad.jsonl").write_text(body)
    result = invoke("ask", QUESTION, "--corpus", "bad.jsonl")
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())
    assert "Traceback" not in result.output


def test_missing_corpus_and_bad_options_exit_2() -> None:
    missing = invoke("ask", QUESTION, "--corpus", "nope.jsonl")
    assert missing.exit_code == 2 and "nope.jsonl: file not found" in missing.stderr
    assert invoke("ask", QUESTION, "--corpus", TINY, "--top-k", "0").exit_code == 2
    assert invoke("ask", QUESTION, "--corpus", TINY, "--retrieval", "magic").exit_code == 2
    assert invoke("ask", QUESTION).exit_code == 2  # --corpus is required


def test_help_lists_ask_with_examples() -> None:
    assert "ask" in invoke("--help").stdout
    text = invoke("ask", "--help").stdout
    assert "--retrieval" in text and "--judge" in text and "ragjury ask" in text
