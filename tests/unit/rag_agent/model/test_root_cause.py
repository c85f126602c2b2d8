"""A request stopped by its deadline is told as the timeout, never as the cancel scope that
implemented it (issue 27, item 16: "CancelledError: Cancelled via cancel scope 7fcf…")."""

from __future__ import annotations

import asyncio

from ragjury.rag_agent.model.unreachable import root_cause


def _timed_out() -> BaseException:
    try:
        try:
            raise asyncio.CancelledError("Cancelled via cancel scope 7fcf00000000")
        except asyncio.CancelledError:
            raise TimeoutError()  # noqa: B904 - the cancellation as its context is the point
    except TimeoutError as error:
        return error


def test_a_deadline_is_told_as_the_timeout_not_the_cancel_scope() -> None:
    error = _timed_out()
    assert isinstance(error.__context__, asyncio.CancelledError)
    assert root_cause(error) == "TimeoutError"


def test_the_innermost_message_is_still_the_cause() -> None:
    try:
        try:
            raise ConnectionRefusedError(111, "Connect call failed")
        except ConnectionRefusedError as inner:
            raise OSError("outer") from inner
    except OSError as error:
        assert root_cause(error).startswith("ConnectionRefusedError: ")
