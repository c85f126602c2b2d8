"""Model calls a run has already paid for, offered to the judges nested inside another judge.

Why: a calibrated, fitted, panel or ``auto`` judge asks its inner ``llm`` judge the very question
a plain ``llm`` run asked. The run's cache holds that judgment under the inner judge's identity
and the item, so the inner judge takes it instead of calling the model again: the cache key is
the model call, not the outer judge. Only nested judges look it up (the runner looked up the
run's own judge already), only judges that call a model, and only scored judgments are shared. A
judgment read back cost nothing in this run, so its usage is zero here.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ragjury.rag_agent.core.results import Judgment


class Identity(Protocol):
    """What this module reads of a judge's identity (``protocol.JudgeIdentity``), said as a
    Protocol so that ``protocol``, which imports this module, is not imported back (no circle)."""

    @property
    def model(self) -> str | None: ...

    def key(self) -> str: ...


class CallMemo(Protocol):
    """Where a run keeps its judgments (the cache, in ``evals.runs``), seen from a judge."""

    def recall(self, identity: Identity, item: object) -> Judgment[Any] | None: ...

    def keep(self, identity: Identity, item: object, judgment: Judgment[Any]) -> None: ...


MEMO: ContextVar[CallMemo | None] = ContextVar("ragjury_call_memo", default=None)
NESTED: ContextVar[str | None] = ContextVar("ragjury_nested_judge", default=None)
"""Inside a judge's ``_judge`` (or a composite's batch), that judge's identity key: any other
judge called there is nested. A wrapper of the same identity (the empty-answer guard) is not."""


def shared_with(identity: Identity) -> CallMemo | None:
    """The memo a judge of ``identity`` may recall from and keep in, or None: a nested judge that
    calls a model, under another judge's identity, in a run that shares its cache."""
    memo = MEMO.get()
    enclosing = NESTED.get()
    if memo is None or enclosing is None or identity.model is None or enclosing == identity.key():
        return None
    return memo


@contextmanager
def inside(identity: Identity) -> Iterator[None]:
    """Judges called in the block are nested in the judge of ``identity`` (a composite's batch)."""
    token = NESTED.set(identity.key())
    try:
        yield
    finally:
        NESTED.reset(token)


@contextmanager
def sharing(memo: CallMemo | None) -> Iterator[None]:
    """Offer ``memo`` to every nested judge called inside the block (None: nothing shared)."""
    token = MEMO.set(memo)
    try:
        yield
    finally:
        MEMO.reset(token)


__all__ = ["MEMO", "NESTED", "CallMemo", "inside", "shared_with", "sharing"]
