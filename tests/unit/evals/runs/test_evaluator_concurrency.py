"""User-defined checks run ``-j`` at a time through the batch runner (issue 26, 3.3): an
async check concurrently on the loop, a sync one in worker threads, and each judgment is
stored (and the progress advanced) as it ends, not when the whole batch is done."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.runner import run_judgments
from ragjury.rag_agent.judges.user_defined import CheckRow, CheckJudge, check

ROWS = [CheckRow(output=f"answer number {i}") for i in range(48)]
SLEEP_S = 0.05  # one at a time: 48 x 0.05 = 2.4 s; 8 at a time: 0.3 s


@check
async def slow_async(row: CheckRow) -> bool:
    await asyncio.sleep(SLEEP_S)
    return "number" in row.output


@check
def slow_sync(row: CheckRow) -> bool:
    time.sleep(SLEEP_S)
    return "number" in row.output


@pytest.mark.parametrize("check", [slow_async, slow_sync], ids=["async", "sync"])
def test_evaluators_run_j_at_a_time_and_report_as_they_end(check: object, tmp_path: Path) -> None:
    judge = CheckJudge(check)  # type: ignore[arg-type]
    stored_while_running: list[int] = []
    cache = JudgmentCache(tmp_path / "cache.sqlite")
    put_many = cache.put_many

    def counting_put_many(entries, **kwargs):  # type: ignore[no-untyped-def]
        stored_while_running.append(len(entries))
        return put_many(entries, **kwargs)

    cache.put_many = counting_put_many  # type: ignore[method-assign]
    started = time.perf_counter()
    result = asyncio.run(run_judgments(judge, ROWS, cache=cache, concurrency=8, progress=False))
    took = time.perf_counter() - started
    assert all(j.value is not None and j.value.pass_ for j in result.judgments)
    assert took < 1.5, f"{took:.2f}s: the rows ran one at a time"  # serial: 2.4 s
    assert len(stored_while_running) >= 4  # stored (and shown) in several steps, not once at the end
