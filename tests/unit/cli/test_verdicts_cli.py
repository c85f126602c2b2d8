"""``ragjury verdict ...``: items from flags or files, JSON shape, --judge choices, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.rag_agent.judges.llm.correctness import SHORT_ANSWER
from ragjury.rag_agent.judges.llm.faithfulness import FAITHFULNESS_STATEMENTS
from ragjury.rag_agent.judges.llm.goal import GOAL_INFERENCE
from ragjury.commands.verdict import parse_turn

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
ENVELOPE = {
    "judge",
    "model",
    "prompt_version",
    "fallback_used",
    "usage",
    "unscored",
    "unscored_reason",
    "attempts",
}

runner = CliRunner()


@pytest.fixture(autouse=True)
def no_model_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A closed port for Ollama so no test depends on a server, and no .env."""
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("RAGJURY_HTTP_RETRIES", "0")
    monkeypatch.delenv("RAGJURY_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every verdict judge the CLI builds talks to a scripted model instead of a server."""

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        instructions = str(info.instructions)
        if instructions.startswith(FAITHFULNESS_STATEMENTS.text[:60]):
            body: object = {
                "statements": ["The Eiffel Tower is in Paris.", "The Eiffel Tower is 500 metres tall."]
            }
        elif instructions.startswith(GOAL_INFERENCE.text[:60]):
            body = {"user_goal": "Book a table.", "end_state": "A table is booked."}
        elif instructions.startswith(SHORT_ANSWER.text[:60]):  # the default correctness judge reduces first
            return ModelResponse(parts=[TextPart("Röntgen")])  # one plain line
        elif "grade" in instructions and "UMBRELA" in instructions:
            body = {"grade": 2}
        elif "numbered statements" in instructions:
            body = {
                "verdicts": [
                    {"reason": "stated", "verdict": "1"},
                    {"reason": "330 m, not 500", "verdict": "0"},
                ]
            }
        elif "search query" in instructions:
            body = {"verdict": "1"}
        else:
            body = {"reason": "matches the reference", "verdict": "1"}
        return ModelResponse(parts=[TextPart(json.dumps(body))])

    monkeypatch.setattr(
        "ragjury.rag_agent.judges.llm.model_judge.build_model", lambda settings, name=None: FunctionModel(reply)
    )


def invoke(*args: str, stdin: str | None = None):
    return runner.invoke(app, ["verdict", *args], input=stdin)


def test_faithfulness_from_flags_prints_every_statement(fake_model: None) -> None:
    result = invoke(
        "faithfulness",
        "--answer",
        "The Eiffel Tower is in Paris. It is 500 metres tall.",
        "--context",
        "The Eiffel Tower, in Paris, is 330 metres tall.",
        "--judge",
        "llm",
    )
    assert result.exit_code == 0, result.output
    assert "score 0.500" in result.stdout and "1/2 statements supported" in result.stdout
    assert "500 metres tall" in result.stdout and "330 m, not 500" in result.stdout


def test_faithfulness_item_file_json_and_negative_gate(fake_model: None) -> None:
    item = str(FIXTURES / "verdicts_faithfulness_item.json")
    result = invoke("faithfulness", "--item-file", item, "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert ENVELOPE <= payload.keys() and payload["task"] == "faithfulness"
    assert payload["label"] is False and payload["value"]["score"] == 0.5
    assert [s["verdict"] for s in payload["value"]["statements"]] == [True, False]
    gated = invoke("faithfulness", "--item-file", item, "--json", "--fail-on-negative")
    assert gated.exit_code == 1


def test_correctness_and_relevance_and_goal_with_a_model(fake_model: None) -> None:
    correct = invoke(
        "correctness",
        "-q",
        "who got the first nobel prize in physics",
        "-a",
        "The first one went to Wilhelm Röntgen in 1901.",
        "-r",
        "Wilhelm Conrad Röntgen",
        "--json",
        "--samples",
        "3",
    )
    payload = json.loads(correct.stdout)
    assert correct.exit_code == 0 and payload["label"] is True and payload["value"]["reason"]
    # the default correctness judge reduces the answer (a sentence, not a short answer) once, then
    # draws its three verdicts
    assert payload["attempts"] == 3 and payload["sample_agreement"] == 1.0 and payload["usage"]["requests"] == 4
    assert payload["judge"] == "llm-guarded", payload["judge"]

    graded = invoke("relevance", "-q", "boiling point", "-p", "Water boils at 100 C.", "--graded", "--json")
    assert json.loads(graded.stdout)["value"]["grade"] == 2 and json.loads(graded.stdout)["label"] is True
    strict = invoke("relevance", "-q", "boiling point", "-p", "x", "--graded", "--threshold", "3", "--json")
    assert json.loads(strict.stdout)["label"] is False

    goal = invoke("goal", "--item-file", str(FIXTURES / "verdicts_goal_trace.json"))
    assert goal.exit_code == 0, goal.output
    assert "goal achieved" in goal.stdout and "reference goal: A table for two" in goal.stdout


def test_llm_only_with_server_down_is_unscored_exit_3() -> None:
    result = invoke(
        "faithfulness",
        "--item-file",
        str(FIXTURES / "verdicts_faithfulness_item.json"),
        "--judge",
        "llm",
        "--json",
    )
    assert result.exit_code == 3
    payload = json.loads(result.stdout)
    assert payload["value"] is None and payload["label"] is None
    assert "unreachable" in payload["unscored_reason"]


def test_auto_relevance_falls_back_to_token_overlap_and_says_so() -> None:
    pytest.importorskip("ragjury.rag_agent.judges.model_free.token_overlap")
    result = invoke(
        "relevance",
        "-q",
        "boiling point of water",
        "-p",
        "The boiling point of water is 100 degrees",
        "--json",
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["fallback_used"] is True and "unreachable" in payload["fallback_reason"]
    assert payload["judge"] == "token-overlap" and isinstance(payload["label"], bool)


@pytest.mark.parametrize("choice", ["contains", "deterministic"])  # deterministic: the retired word, still accepted
def test_the_model_free_correctness_judge_is_contains(choice: str) -> None:
    pytest.importorskip("ragjury.rag_agent.judges.model_free.contains")
    args = ("correctness", "-q", "q", "-a", "It was Wilhelm Conrad Röntgen.", "-r", "Wilhelm Conrad Röntgen")
    result = invoke(*args, "--judge", choice, "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["model"] is None and payload["value"]["verdict"] is True and payload["judge"] == "contains"
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("relevance", "-q", "q", "-p", "p", "--graded", "--judge", "deterministic"),  # retired word
            "no model-free judge",
        ),
        (("goal", "-t", "user: hi", "--judge", "deterministic"), "no model-free judge"),  # retired word
        (("correctness", "-q", "q", "-a", "a"), "missing --reference"),
        (("correctness", "--item-file", str(FIXTURES / "verdicts_correctness_bad.json")), "references"),
        (("faithfulness", "--item-file", "missing.json"), "missing.json: file not found"),
        (
            ("faithfulness", "-a", "a", "--item-file", str(FIXTURES / "verdicts_faithfulness_item.json")),
            "not both",
        ),
        (("correctness", "-q", "q", "-a", "a", "-r", "r", "--samples", "2"), "odd"),
        (("goal", "-t", "narrator: once upon a time"), "turn 1 must look like"),
    ],
)
def test_user_mistakes_are_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_malformed_item_file_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "item.json"
    bad.write_text('{"answer": "a",\n "contexts": ["c"],,}\n', encoding="utf-8")
    result = invoke("faithfulness", "--item-file", str(bad))
    assert result.exit_code == 2 and f"{bad}:2: malformed JSON" in result.output


def test_goal_item_file_accepts_a_bare_list_of_turns_on_stdin(fake_model: None) -> None:
    turns = json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    result = invoke("goal", "--item-file", "-", "--json", stdin=turns)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["value"]["end_state"] == "A table is booked."


def test_parse_turn_reads_roles_and_tool_names() -> None:
    turn = parse_turn("tool(book_table): confirmed\nline two", 1)
    assert (turn.role, turn.tool_name, turn.content) == ("tool", "book_table", "confirmed\nline two")
    assert parse_turn("assistant: ok", 2).tool_name is None
