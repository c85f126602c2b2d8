"""A hung server in a pool (it takes the connection and never answers): each request there has a
deadline of its own, so its timeout moves the item to a live server and counts against the hung
one; after a few timeouts its breaker takes it out and the rest finish on the others in seconds."""

from __future__ import annotations

import time

from fake_endpoint_settings import pool_settings, some_items
from fake_endpoints import fake_endpoint

from ragjury.evals.runs.runner import run_judgments
from ragjury.rag_agent.judges.catalogue import build_judge


async def test_a_hung_server_s_items_move_and_it_is_taken_out() -> None:
    with fake_endpoint(latency_s=0.01) as healthy, fake_endpoint(hang=True) as hung:
        judge = build_judge("correctness", "llm", pool_settings([healthy.base_url, hung.base_url], timeout_s=1))
        started = time.perf_counter()
        judgments, stats = await run_judgments(judge, some_items(30), progress=False)
        elapsed = time.perf_counter() - started
        sent_to_hung = hung.received
    assert stats.judged == 30 and stats.unscored == 0, [j.unscored_reason for j in judgments if j.unscored]
    by_url = {entry["url"]: entry for entry in stats.endpoints}
    assert by_url[hung.base_url]["answered"] == 0
    assert 1 <= by_url[hung.base_url]["failures"] == by_url[hung.base_url]["moved"] == sent_to_hung
    assert sent_to_hung <= 2 + 2  # the breaker (2 failures) took it out: only requests in flight followed
    assert by_url[healthy.base_url]["answered"] >= 30  # every item (the first few take two requests)
    assert elapsed < 8, f"{elapsed:.1f}s for 30 items with one hung server of two"


async def test_a_server_answering_html_or_foreign_json_loses_its_items_to_a_healthy_one() -> None:
    """HTTP 200 with an HTML page (a proxy's error page) or JSON of another API is no completion:
    the server's failure, counted against its breaker, and the item moves (issue 44 item 12)."""
    for kind in ("html", "json"):
        with fake_endpoint(latency_s=0.01) as healthy, fake_endpoint(garbage=kind) as broken:
            judge = build_judge("correctness", "llm", pool_settings([broken.base_url, healthy.base_url], timeout_s=5))
            judgments, stats = await run_judgments(judge, some_items(100), progress=False)
            sent_to_broken = broken.received
        assert stats.unscored == 0, (kind, [j.unscored_reason for j in judgments if j.unscored][:3])
        by_url = {entry["url"]: entry for entry in stats.endpoints}
        assert by_url[broken.base_url]["answered"] == 0 and by_url[broken.base_url]["moved"] == sent_to_broken
        assert 1 <= sent_to_broken <= 8  # its breaker took it out after a few
        assert by_url[healthy.base_url]["answered"] >= 100
