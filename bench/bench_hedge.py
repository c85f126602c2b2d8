"""A stuck request costs a hedge delay, not the deadline: [healthy, hung] against healthy alone.

Fake OpenAI-compatible servers (``tests/fake_endpoints.py``): a healthy one answering in
``--latency`` seconds (4 slots) and a hung one that takes every request and never answers. The
correctness ``llm`` judge runs ``--items`` items at ``--concurrency`` per server with a 120 s
request deadline (the default), first on the healthy server alone, then on the pool of both.
Target (issue 35 item 10): the pool within 2 × the healthy server's own time + one hedge delay
(``HEDGE_FLOOR_S``, the delay while the pool's p95 is small), every item scored once.

Run:  .venv/bin/python bench/bench_hedge.py [--items 100] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fake_endpoint_settings import pool_settings, some_items  # noqa: E402
from fake_endpoints import fake_endpoint  # noqa: E402

from ragjury.evals.runs.runner import run_judgments  # noqa: E402
from ragjury.rag_agent.judges.catalogue import build_judge  # noqa: E402
from ragjury.rag_agent.model.endpoints import HEDGE_FACTOR, HEDGE_FLOOR_S  # noqa: E402


async def timed(urls: list[str], items: int, concurrency: int) -> tuple[float, object]:
    judge = build_judge("correctness", "llm", pool_settings(urls, timeout_s=120, concurrency=concurrency))
    started = time.perf_counter()
    _, stats = await run_judgments(judge, some_items(items), progress=False)
    return time.perf_counter() - started, stats


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.2f}; {args.items} items, healthy latency {args.latency} s, concurrency "
          f"{args.concurrency} per server, deadline 120 s, hedge after max({HEDGE_FLOOR_S} s, {HEDGE_FACTOR} × p95)")
    with fake_endpoint(latency_s=args.latency) as healthy:
        alone, stats = await timed([healthy.base_url], args.items, args.concurrency)
        print(f"healthy alone: {alone:.1f} s, {stats.scored} scored")  # type: ignore[attr-defined]
    with fake_endpoint(latency_s=args.latency) as healthy, fake_endpoint(hang=True) as hung:
        pooled, stats = await timed([healthy.base_url, hung.base_url], args.items, args.concurrency)
        by_url = {e["url"]: e for e in stats.endpoints}  # type: ignore[attr-defined]
    target = 2 * alone + HEDGE_FLOOR_S
    print(f"[healthy, hung]: {pooled:.1f} s, {stats.scored} scored, {stats.unscored} unscored "  # type: ignore[attr-defined]
          f"(target <= {target:.1f} s: {'met' if pooled <= target else 'NOT met'}); hedges to the healthy server "
          f"{by_url[healthy.base_url]['hedges']}, late on the hung one {by_url[hung.base_url]['late']}")


if __name__ == "__main__":
    asyncio.run(main())
