"""Run a coroutine from synchronous code, even when an event loop is already running.

Why: the core is async, but notebooks and sync scripts call the thin sync wrappers, and a
notebook already has a running loop where ``asyncio.run`` would fail.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to completion and return its result.

    ``asyncio.run`` is called outside the ``except`` block on purpose: inside it, every exception the
    coroutine raises would carry the "no running event loop" RuntimeError as its ``__context__``,
    and failure reasons that walk the chain to its root would report that instead of the real cause.
    asyncio is imported here, not at module level: every command imports this module, and
    ``--help`` should not pay for the event loop machinery.
    """
    import asyncio
    import concurrent.futures

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        in_loop = False
    else:
        in_loop = True
    if not in_loop:
        return asyncio.run(_boxed(coroutine)).value
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _boxed(coroutine)).result().value


class _Box:
    """A result behind a constant repr. ``asyncio.run`` (3.11, 3.12) puts its SIGINT handler back
    through ``signal.signal``, whose enum conversion formats the handler it replaces: a partial
    holding the finished main task, whose repr holds the task's result: for a large result, an
    expensive repr made twice and thrown away."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "<run_sync result>"


async def _boxed(coroutine: Coroutine[Any, Any, T]) -> _Box:
    return _Box(await coroutine)
