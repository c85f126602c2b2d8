"""``--dry-run``: counts what a batch would send, from the judge's own prompts, and sends nothing.

A real HTTP server (``tests/recording_server.py``) stands where the model server would be: after a
dry run it must have seen no request at all (not even the preflight), and the counts must match
the data: items not in the cache, one prompt per item and step, tokens of the rendered prompts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from genai_prices import Usage, calc_price
from recording_server import recording_server
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.rag_agent.judges.llm.correctness import ANSWER_CORRECTNESS_TOKEN
from ragjury.config.settings import RagjurySettings
from ragjury.evals.io.tasks import load_task_rows, parse_mapping
from ragjury.evals.runs.dry_run import estimate, price
from ragjury.rag_agent.core.items import FaithfulnessItem
from ragjury.rag_agent.judges.llm.correctness import correctness_prompt
from ragjury.rag_agent.judges.llm.faithfulness import FaithfulnessJudge
from ragjury.rag_agent.model.dry_model import recording_models, tokens_of
from ragjury.rag_agent.judges.llm.short_answers import is_short_answer

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
CORRECTNESS = FIXTURES / "pipeline_correctness.jsonl"  # 20 evouna-nq rows
TOPICS = str(FIXTURES / "pipeline_topics.jsonl")
PASSAGES = str(FIXTURES / "pipeline_passages.jsonl")
PAIRS = str(FIXTURES / "pipeline_pairs.qrels")  # 4 pairs; one (Q1) has no topic, so 3 are judged
VERDICT = '{"reason": "it names the same person", "verdict": "1"}'

runner = CliRunner()


@pytest.fixture(autouse=True)
def isolated(offline_cli: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``offline_cli``, and the default token cap (the token counts below depend on it)."""
    monkeypatch.delenv("RAGJURY_MAX_TOKENS", raising=False)


def evaluate(*args: str) -> Any:
    return runner.invoke(
        app, ["evaluate", "--task", "correctness", "--data", str(CORRECTNESS), "--no-progress", *args]
    )


def dry_run_of(result: Any) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["mode"] == "dry_run"
    return payload


def expected_correctness_tokens(limit: int | None = None) -> list[int]:
    """Tokens of each one-token prompt, rendered here from the template and the data."""
    rows = load_task_rows("correctness", CORRECTNESS, mapping=parse_mapping([], "correctness"))
    budget = RagjurySettings().source_token_budget
    return [
        tokens_of(len(ANSWER_CORRECTNESS_TOKEN.text) + len(correctness_prompt(row.item, budget)))
        for row in rows[:limit]
    ]


def test_dry_run_sends_nothing_and_counts_the_rendered_prompts() -> None:
    with recording_server(content=VERDICT) as server:
        payload = dry_run_of(evaluate("--judge", "llm", "--base-url", server.base_url, "--dry-run", "--json"))
        assert server.requests == []  # no preflight, no chat request

    counts = payload["dry_run"]
    assert (payload["n"], payload["cached"], counts["to_judge"], counts["duplicates"]) == (20, 0, 20, 0)
    # --method auto asks for one token's logprobs first: one prompt per item, capped at 1 token.
    assert counts["prompts"] == counts["models"][0]["logprob_prompts"] == 20
    assert counts["output_token_cap"] == 20
    assert counts["input_tokens"] == sum(expected_correctness_tokens())
    assert counts["models"][0]["model"] == "phi3:mini"
    assert counts["price_usd"] is None and "local server" in counts["models"][0]["price_note"]


def test_dry_run_leaves_out_what_the_cache_holds() -> None:
    with recording_server(content=VERDICT) as server:
        first = evaluate("--judge", "llm", "--base-url", server.base_url, "--limit", "5", "--json")
        assert first.exit_code == 0, first.output
        assert json.loads(first.stdout)["scored"] == 5
        sent = len(server.requests)
        assert sent > 0

        payload = dry_run_of(evaluate("--judge", "llm", "--base-url", server.base_url, "--dry-run", "--json"))
        assert len(server.requests) == sent

    counts = payload["dry_run"]
    assert (payload["cached"], counts["to_judge"], counts["prompts"]) == (5, 15, 15)
    assert counts["input_tokens"] == sum(expected_correctness_tokens()[5:])


def test_dry_run_prints_a_summary_and_exits_0() -> None:
    with recording_server() as server:
        result = evaluate("--judge", "llm", "--base-url", server.base_url, "--dry-run")
        assert server.requests == []
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "items to judge │ 20" in text
    assert "prompts │ 20" in text
    assert f"input tokens (estimated) │ {sum(expected_correctness_tokens()):,}" in text
    assert "nothing was sent" in text


def test_model_free_judge_sends_no_prompt() -> None:
    payload = dry_run_of(evaluate("--judge", "contains", "--dry-run", "--json"))
    assert payload["dry_run"]["model_free"] is True
    assert (payload["dry_run"]["to_judge"], payload["dry_run"]["prompts"]) == (20, 0)


def test_dry_run_refuses_agent_mode() -> None:
    result = runner.invoke(
        app, ["evaluate", "--agent", "--corpus", PASSAGES, "--data", TOPICS, "--dry-run"]
    )
    assert result.exit_code == 2
    assert "--dry-run applies to dataset evaluation" in result.stderr


async def test_multi_step_and_sampled_prompts_are_each_counted() -> None:
    """Faithfulness: one statement-extraction prompt, then the verdict prompt once per sample."""
    settings = RagjurySettings(max_tokens=300)
    items = [
        FaithfulnessItem(answer=f"Paris is the capital ({i}).", contexts=["Paris is France's capital."])
        for i in range(3)
    ]
    with recording_models() as log:
        judge = FaithfulnessJudge(settings=settings, samples=3)
        result = await estimate(judge, items, log)
    assert (result.to_judge, result.prompts) == (3, 3 * (1 + 3))
    assert result.output_token_cap == 3 * 4 * 300
    assert result.models[0].logprob_prompts == 0


def test_relevance_dry_run_counts_pairs_and_sends_nothing(tmp_path: Path) -> None:
    out = tmp_path / "judged.qrels"
    with recording_server() as server:
        result = runner.invoke(
            app,
            ["relevance", "--topics", TOPICS, "--passages", PASSAGES, "--pairs", PAIRS, "--out", str(out),
             "--judge", "llm-graded", "--base-url", server.base_url, "--dry-run", "--json",
             "--no-progress"],
        )
        assert server.requests == []
    payload = dry_run_of(result)
    assert payload["command"] == "relevance"
    # One one-token (logprob) prompt per judged pair, capped at one output token.
    assert (payload["n"], payload["dry_run"]["prompts"], payload["dry_run"]["output_token_cap"]) == (3, 3, 3)
    assert not out.exists()

    model_free = runner.invoke(
        app,
        ["relevance", "--topics", TOPICS, "--passages", PASSAGES, "--pairs", PAIRS, "--out", str(out),
         "--judge", "non-llm", "--dry-run", "--json"],
    )
    assert dry_run_of(model_free)["dry_run"]["model_free"] is True


def test_hosted_model_is_priced_by_its_base_url() -> None:
    openai = "https://api.openai.com/v1"
    usage = Usage(input_tokens=1_000_000, output_tokens=2_000)
    listed = calc_price(usage, "gpt-4o-mini", provider_api_url=openai)
    priced, note = price("gpt-4o-mini", openai, 1_000_000, 2_000)
    assert priced is not None
    assert priced["total_at_most"] == pytest.approx(float(listed.total_price))
    assert priced["input"] == pytest.approx(float(listed.input_price))
    assert "OpenAI" in note
    # A local server serving a model named like a hosted one costs nothing per token.
    assert price("gpt-4o-mini", "http://127.0.0.1:8080/v1", 1_000_000, 0)[0] is None
    unknown, why = price("phi3:mini", openai, 1_000, 0)
    assert unknown is None and "phi3:mini" in why


def test_dry_run_of_a_hosted_model_shows_its_price() -> None:
    payload = dry_run_of(
        evaluate("--judge", "llm", "--base-url", "https://api.openai.com/v1", "-m", "gpt-4o-mini",
                 "--dry-run", "--json")
    )
    counts = payload["dry_run"]
    url = counts["models"][0]["base_url"]
    expected, _ = price("gpt-4o-mini", url, counts["input_tokens"], counts["output_token_cap"])
    assert expected is not None and counts["price_usd"] == pytest.approx(expected["total_at_most"])
    assert counts["price_usd"] > 0


def test_calibrate_dry_run_counts_its_one_token_prompts(tmp_path: Path) -> None:
    out = tmp_path / "correctness.calibration.json"
    with recording_server() as server:
        result = runner.invoke(
            app,
            ["calibrate", "--task", "correctness", "--judge", "llm", "--data", str(CORRECTNESS), "--out", str(out),
             "--base-url", server.base_url, "--dry-run", "--json"],
        )
        default = runner.invoke(  # the default correctness judge (llm-guarded): a reduction, then the token
            app,
            ["calibrate", "--task", "correctness", "--data", str(CORRECTNESS), "--out", str(out),
             "--base-url", server.base_url, "--dry-run", "--json"],
        )
        assert server.requests == []
    counts = dry_run_of(result)["dry_run"]
    assert (counts["prompts"], counts["models"][0]["logprob_prompts"]) == (20, 20)
    assert counts["input_tokens"] == sum(expected_correctness_tokens())
    guarded = dry_run_of(default)["dry_run"]
    answers = [json.loads(line)["answer"] for line in CORRECTNESS.read_text(encoding="utf-8").splitlines()]
    reduced = sum(not is_short_answer(answer) for answer in answers)  # a short answer is judged as it is
    assert 0 < reduced < len(answers) == 20
    assert (guarded["prompts"], guarded["models"][0]["logprob_prompts"]) == (20 + reduced, 20)
    assert not out.exists()


def test_user_code_judge_is_not_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A python: plug-in may call a server of its own: a dry run counts its items and never runs it."""
    monkeypatch.syspath_prepend(str(FIXTURES))
    monkeypatch.setenv("RAGJURY_FAKE_JUDGE_LOG", str(tmp_path / "calls.log"))
    try:
        payload = dry_run_of(
            evaluate("--judge", "python:pipeline_fake_judge:SlowCountingJudge", "--dry-run", "--json")
        )
    finally:
        sys.modules.pop("pipeline_fake_judge", None)
    assert not (tmp_path / "calls.log").exists()  # the judge logs every judgment it makes
    counts = payload["dry_run"]
    assert (counts["to_judge"], counts["not_estimated"], counts["prompts"]) == (20, 20, 0)
    assert counts["model_free"] is False
