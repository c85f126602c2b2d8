"""A stuck request costs seconds, not the deadline (issue 35 item 10): in a pool [healthy, hung]
with a 60 s request deadline, a request unanswered after max(2 s, 4 × p95) also goes to the other
server and the first answer wins; the hung server, late each time, is backed off by its breaker."""

from __future__ import annotations

import time

from fake_endpoint_settings import pool_settings, some_items
from fake_endpoints import fake_endpoint

from ragjury.evals.runs.runner import run_judgments
from ragjury.rag_agent.judges.catalogue import build_judge
from ragjury.rag_agent.model.endpoints import HEDGE_FLOOR_S


async def test_a_hung_server_costs_a_hedge_delay_not_the_deadline() -> None:
    with fake_endpoint(latency_s=0.05) as healthy, fake_endpoint(hang=True) as hung:
        judge = build_judge("correctness", "llm", pool_settings([healthy.base_url, hung.base_url], timeout_s=60))
        started = time.perf_counter()
        judgments, stats = await run_judgments(judge, some_items(40), progress=False)
        elapsed = time.perf_counter() - started
    assert stats.judged == 40 and stats.unscored == 0, [j.unscored_reason for j in judgments if j.unscored]
    by_url = {entry["url"]: entry for entry in stats.endpoints}
    assert by_url[hung.base_url]["answered"] == 0 and by_url[hung.base_url]["late"] >= 1
    assert by_url[healthy.base_url]["hedges"] >= 1 and by_url[healthy.base_url]["answered"] >= 40
    # the healthy server alone needs about 1 s (40 × 0.05 s, 2 at a time); one hedge delay on top, with slack
    assert elapsed < 4 * (1.0 + HEDGE_FLOOR_S) + 8, f"{elapsed:.1f}s (the deadline is 60 s; bench/bench_hedge.py measures it)"
