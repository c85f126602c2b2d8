"""The cache key is the model call: a judge nested in another (a panel's member, ``auto``'s model
judge) takes the judgment a plain run of it already paid for, and a plain run takes theirs."""

from __future__ import annotations

import json

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from ragjury.config.settings import RagjurySettings
from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.runner import run_judgments
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.judges.combined.fallback import FallbackJudge
from ragjury.rag_agent.judges.combined.panel import Panel as PanelJudge
from ragjury.rag_agent.judges.llm.correctness import CorrectnessJudge
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge

SETTINGS = RagjurySettings(preflight_timeout_s=0, retries=0, http_retries=0)


def counting_model(calls: list[int], verdict: str = "1") -> FunctionModel:
    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        return ModelResponse(parts=[TextPart(json.dumps({"reason": "matches", "verdict": verdict}))])

    return FunctionModel(reply, model_name="fake-judge")


def items(n: int) -> list[CorrectnessItem]:
    return [CorrectnessItem(question=f"question {i}", answer="Paris", references=["Paris"]) for i in range(n)]


async def test_a_panel_after_a_plain_run_pays_for_no_model_call_again() -> None:
    calls: list[int] = []
    cache = JudgmentCache(":memory:")
    llm = CorrectnessJudge(counting_model(calls), settings=SETTINGS, method="structured")
    await run_judgments(llm, items(6), cache=cache, progress=False)
    assert len(calls) == 6

    panel = PanelJudge([CorrectnessJudge(counting_model(calls), settings=SETTINGS, method="structured"),
                        ContainsJudge()])
    judgments, stats = await run_judgments(panel, items(6), cache=cache, progress=False)

    assert len(calls) == 6  # the member's six calls were the plain run's
    # served wholly from the cache: counted cached, not judged (#54 item 28: it said "judged 6, cached 0")
    assert (stats.cached, stats.judged) == (6, 0) and not any(j.unscored for j in judgments)
    assert sum(j.usage.requests for j in judgments) == 0  # nothing paid in this run


async def test_a_plain_run_after_auto_takes_the_model_judge_calls_it_made() -> None:
    calls: list[int] = []
    cache = JudgmentCache(":memory:")
    auto = FallbackJudge(CorrectnessJudge(counting_model(calls), settings=SETTINGS, method="structured"),
                         ContainsJudge())
    await run_judgments(auto, items(4), cache=cache, progress=False)
    assert len(calls) == 4

    llm = CorrectnessJudge(counting_model(calls), settings=SETTINGS, method="structured")
    _, stats = await run_judgments(llm, items(5), cache=cache, progress=False)

    assert len(calls) == 5 and stats.cached == 4 and stats.judged == 1


async def test_without_a_cache_nothing_is_shared_and_unscored_calls_are_not_kept() -> None:
    calls: list[int] = []
    llm = CorrectnessJudge(counting_model(calls), settings=SETTINGS, method="structured")
    await run_judgments(llm, items(3), cache=None, progress=False)
    panel = PanelJudge([CorrectnessJudge(counting_model(calls), settings=SETTINGS, method="structured"),
                        ContainsJudge()])
    await run_judgments(panel, items(3), cache=None, progress=False)
    assert len(calls) == 6

    cache = JudgmentCache(":memory:")
    broken: list[int] = []
    bad = FallbackJudge(CorrectnessJudge(counting_model(broken, verdict="maybe"), settings=SETTINGS,
                                         method="structured"), ContainsJudge())
    await run_judgments(bad, items(2), cache=cache, progress=False)
    again = CorrectnessJudge(counting_model(calls), settings=SETTINGS, method="structured")
    _, stats = await run_judgments(again, items(2), cache=cache, progress=False)
    assert stats.judged == 2  # an unscored call was never kept: the plain run asks the model
