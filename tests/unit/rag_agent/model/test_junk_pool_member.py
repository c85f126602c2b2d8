"""#54 item 27: a pool member answering well-formed junk (a chat completion whose content is no
output the judge can read) kept the run: [ok, banana] left 96 of 100 unscored, exit 0, both
members "answered, 0 failed", the healthy one idle. Now junk counts against that member's breaker
and the request moves to a server that answers readably."""

from __future__ import annotations

from fake_endpoints import fake_endpoint

from ragjury.config.settings import RagjurySettings
from ragjury.evals.runs.runner import run_judgments
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.judges.catalogue import build_judge
from ragjury.rag_agent.model.endpoints import PooledModel


async def test_a_member_answering_junk_hands_its_items_to_the_healthy_one() -> None:
    with fake_endpoint(latency_s=0.01) as ok, fake_endpoint(latency_s=0.0, content="banana") as junk:
        settings = RagjurySettings(_env_file=None, base_url=f"{junk.base_url},{ok.base_url}", judge_model="phi3:mini",
                                   http_retries=0, timeout_s=10, breaker_failures=3, concurrency=2)
        judge = build_judge("correctness", "llm", settings)
        assert isinstance(judge.model, PooledModel)
        items = [CorrectnessItem(question=f"q{i}", answer=f"a{i}", references=[f"r{i}"]) for i in range(40)]
        judgments, stats = await run_judgments(judge, items, cache=None, progress=False)
    unscored = [j.unscored_reason for j in judgments if j.unscored]
    assert not unscored, unscored[:3]
    by_url = {entry["url"]: entry for entry in stats.endpoints}
    assert by_url[junk.base_url]["unreadable"] >= 1
    assert by_url[ok.base_url]["answered"] >= 40  # the healthy member judged every item
    assert junk.received < 40  # its breaker opened: it was not asked for every item


async def test_with_every_member_answering_junk_the_items_are_unscored_with_what_came_back() -> None:
    with fake_endpoint(content="banana") as one, fake_endpoint(content="banana") as two:
        settings = RagjurySettings(_env_file=None, base_url=f"{one.base_url},{two.base_url}", judge_model="phi3:mini",
                                   http_retries=0, timeout_s=10, breaker_failures=3, retries=0)
        judge = build_judge("correctness", "llm", settings)
        judgments, _ = await run_judgments(judge, [CorrectnessItem(question="q", answer="a", references=["r"])],
                                           cache=None, progress=False)
    assert judgments[0].unscored and judgments[0].unscored_reason
