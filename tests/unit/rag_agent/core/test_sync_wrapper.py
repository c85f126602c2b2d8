"""The sync wrapper must not leak its own "no running event loop" probe into failures' chains."""

from __future__ import annotations

import asyncio

import pytest

from ragjury.rag_agent.core.sync import run_sync


async def _refused() -> None:
    raise ConnectionRefusedError(111, "Connect call failed")


def test_errors_from_run_sync_carry_no_event_loop_probe_as_context() -> None:
    with pytest.raises(ConnectionRefusedError) as caught:
        run_sync(_refused())
    assert caught.value.__context__ is None  # was RuntimeError("no running event loop")


def test_run_sync_inside_a_running_loop_returns_the_result() -> None:
    async def outer() -> int:
        async def seven() -> int:
            return 7

        return run_sync(seven())

    assert asyncio.run(outer()) == 7
