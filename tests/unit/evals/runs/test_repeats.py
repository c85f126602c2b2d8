"""#54 item 6 (first half): ``evaluate --repeats K`` judges the items K times (each repeat cached
under its own key) and reports how stable the verdicts are: Fleiss' kappa across the repeats and
the share of items whose verdict changed, in the summary, --json and the judge card."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from recording_server import recording_server
from typer.testing import CliRunner

from ragjury import RagjurySettings
from ragjury.cli import app
from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.repeats import Repeat, fleiss_kappa, stability
from ragjury.evals.runs.runner import run_judgments
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.judges.llm.correctness import CorrectnessJudge

DATA = Path(__file__).resolve().parents[4] / "examples" / "data" / "correctness.jsonl"
VERDICT = '{"reason": "it names the same person", "verdict": "1"}'


def test_fleiss_kappa_and_the_changed_share() -> None:
    assert fleiss_kappa([[True, True], [False, False], [True, False]]) is not None
    assert abs(fleiss_kappa([[True, True], [False, False], [True, False]]) - 1 / 3) < 1e-9  # type: ignore[operator]
    assert fleiss_kappa([[True, True], [True, True]]) is None  # one category: undefined
    figures = stability([[True, False, None], [True, True, True], [True, False, True]])
    assert (figures["changed"], figures["scored_in_every_repeat"], figures["item_agreement"][2]) == (1, 2, None)


async def test_repeats_ask_the_model_again_and_keep_their_own_cache_keys(tmp_path: Path) -> None:
    flips = itertools.cycle(["1", "0", "1", "1"])

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(json.dumps({"reason": "r", "verdict": next(flips)}))])

    judge = CorrectnessJudge(FunctionModel(reply), method="structured", settings=RagjurySettings())
    items = [CorrectnessItem(question=f"q{i}", answer=f"a{i}", references=[f"r{i}"]) for i in range(6)]
    cache = JudgmentCache(tmp_path / "c.sqlite")
    first, _ = await run_judgments(judge, items, cache=cache, progress=False)
    again, stats = await run_judgments(Repeat(judge, 1), items, cache=cache, progress=False)
    assert stats.judged == 6 and stats.cached == 0  # repeat 2 asked the model, not repeat 1's rows
    _, resumed = await run_judgments(Repeat(judge, 1), items, cache=cache, progress=False)
    assert resumed.cached == 6  # a resumed repeat keeps what it judged
    figures = stability([[j.label for j in first], [j.label for j in again]])
    assert figures["changed"] > 0 and figures["repeats"] == 2
    cache.close()


def test_evaluate_repeats_reports_stability_in_json_the_card_and_the_summary(tmp_path: Path, offline_cli: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    args = ["evaluate", "--task", "correctness", "--judge", "llm", "--data", str(DATA), "--limit", "8",
            "--no-progress", "--cache", str(cache), "--repeats", "3"]
    with recording_server(content=VERDICT) as server:
        result = CliRunner().invoke(app, [*args, "--base-url", server.base_url, "--json"])
        sent = len(server.chat_requests)
        said = CliRunner().invoke(app, [*args, "--base-url", server.base_url], env={"COLUMNS": "300"})
        assert len(server.chat_requests) == sent  # every repeat came from the cache the second time
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    figures = payload["stability"]
    assert (figures["repeats"], figures["items"], figures["changed"]) == (3, 8, 0)
    assert figures["item_agreement"] == [1.0] * 8
    assert payload["judge_card"]["stability"]["repeats"] == 3
    assert sent >= 3 * 8
    assert "stability over 3 repeats" in said.stdout and "0 of 8 items changed verdict" in said.stdout
