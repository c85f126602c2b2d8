"""FallbackJudge: the fallback answers when the primary is unscored, and the result says so."""

from __future__ import annotations

from ragjury.rag_agent.core.items import CorrectnessItem, RelevanceItem
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment, Usage
from ragjury.rag_agent.judges.combined.fallback import FallbackJudge
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge
from ragjury.rag_agent.judges.model_free.token_overlap import TokenOverlapJudge


class Primary(BaseJudge[RelevanceItem, bool]):
    """A stand-in for an LLM judge: scored, unscored (server down) or raising (invalid output)."""

    name = "llm_stub"

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.calls = 0

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(name=self.name, model="phi3:mini", prompt_version="stub@1")

    async def _judge(self, item: RelevanceItem) -> Judgment[bool]:
        self.calls += 1
        if self.mode == "down":
            return self.unscored("ConnectError: server at 127.0.0.1:11434 is down", usage=Usage(requests=1))
        if self.mode == "raise":
            raise ValueError("model output failed validation after 2 retries")
        return self.scored(False, usage=Usage(input_tokens=10, output_tokens=2, requests=1))


class Counting(TokenOverlapJudge):
    def __init__(self) -> None:
        super().__init__(min_tokens=1)
        self.calls = 0

    async def _judge(self, item: RelevanceItem) -> Judgment[bool]:
        self.calls += 1
        return await super()._judge(item)


ITEM = RelevanceItem(
    query="capital of France", expected_text="Paris", retrieved_text="Paris is the capital."
)


def test_primary_unscored_means_the_fallback_answers_and_says_why() -> None:
    judge = FallbackJudge(Primary("down"), Counting())
    judgment = judge.judge_sync(ITEM)
    assert judgment.scored and judgment.value is True
    assert judgment.fallback_used is True
    assert judgment.fallback_reason == "ConnectError: server at 127.0.0.1:11434 is down"
    assert judgment.judge == "token_overlap"  # who answered
    assert judgment.usage.requests == 1  # the failed primary's cost is kept


def test_primary_exception_is_contained_then_falls_back() -> None:
    judgment = FallbackJudge(Primary("raise"), Counting()).judge_sync(ITEM)
    assert judgment.value is True and judgment.fallback_used
    assert "failed validation" in (judgment.fallback_reason or "")


def test_scored_primary_is_kept_and_fallback_never_runs() -> None:
    fallback = Counting()
    judgment = FallbackJudge(Primary("ok"), fallback).judge_sync(ITEM)
    assert judgment.value is False and judgment.fallback_used is False and judgment.judge == "llm_stub"
    assert fallback.calls == 0


def test_both_unscored_stays_unscored_with_both_recorded() -> None:
    empty = RelevanceItem(query="q", expected_text="Paris", retrieved_text="  ")
    judgment = FallbackJudge(Primary("down"), TokenOverlapJudge()).judge_sync(empty)
    assert judgment.unscored and judgment.value is None
    assert judgment.fallback_used and "down" in (judgment.fallback_reason or "")
    assert "empty retrieved" in (judgment.unscored_reason or "")


def test_batch_mixes_primary_and_fallback_answers_in_order() -> None:
    class Flaky(Primary):
        async def _judge(self, item: RelevanceItem) -> Judgment[bool]:
            self.mode = "down" if "Rome" in item.retrieved_text else "ok"
            return await super()._judge(item)

    items = [ITEM, RelevanceItem(query="q", expected_text="Paris", retrieved_text="Rome")]
    first, second = FallbackJudge(Flaky("ok"), TokenOverlapJudge(min_tokens=1)).judge_batch_sync(items)
    assert (first.value, first.fallback_used) == (False, False)
    assert (second.value, second.fallback_used) == (False, True)


def test_identity_names_both_judges() -> None:
    judge = FallbackJudge(Primary("down"), ContainsJudge())
    assert judge.identity.name == "llm_stub|fallback:contains"
    assert "contains" in judge.identity.params
    item = CorrectnessItem(question="q", answer="It is Paris.", references=["paris"])
    assert FallbackJudge(Primary("down"), ContainsJudge()).judge_sync(item).value is True  # type: ignore[arg-type]
