"""One protocol for every judge, LLM or model-free, so the batch pipeline, the cache and
the fallback wrapper treat them alike.

A judge maps an item to a ``Judgment`` envelope. The async methods are the core; the
``*_sync`` methods are thin wrappers. ``ajudge_batch`` runs with bounded concurrency by
default; model-free judges override it with vectorised code.
"""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, runtime_checkable

import ragjury.rag_agent.tracing as tracing
from ragjury.rag_agent.core.call_memo import NESTED, shared_with
from ragjury.rag_agent.core.needs import NOTHING, Needs
from ragjury.rag_agent.core.results import Judgment, Usage
from ragjury.rag_agent.core.sync import run_sync

ItemT = TypeVar("ItemT")
ValueT = TypeVar("ValueT")
ItemT_contra = TypeVar("ItemT_contra", contravariant=True)
ValueT_co = TypeVar("ValueT_co", covariant=True)

ResultCallback = Callable[[int, "Judgment[object]"], None]
"""Called as ``callback(index, judgment)`` when each item of a batch completes (progress, caching)."""


@dataclass(frozen=True)
class JudgeIdentity:
    """What makes two judgments comparable: judge, model, prompt version and parameters.

    It is part of every cache key, so changing any of these never reuses a stale judgment.
    """

    name: str
    model: str | None = None
    prompt_version: str | None = None
    params: str = ""

    def key(self) -> str:
        return f"{self.name}|{self.model or '-'}|{self.prompt_version or '-'}|{self.params}"


class JudgmentUnscored(RuntimeError):
    """Raised by the plain ``bool``/``int`` conveniences when the judge could not score:
    they have no way to say "unscored" in their return type, and must never guess."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"judgment unscored: {reason}")
        self.reason = reason


@runtime_checkable
class Judge(Protocol[ItemT_contra, ValueT_co]):
    """The structural protocol: anything with these members can sit in the pipeline."""

    @property
    def identity(self) -> JudgeIdentity: ...

    async def ajudge(self, item: ItemT_contra) -> Judgment[ValueT_co]: ...

    async def ajudge_batch(
        self, items: Sequence[ItemT_contra], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[ValueT_co]]: ...


class BaseJudge(ABC, Generic[ItemT, ValueT]):
    """Shared behaviour: envelope construction, exception containment, batching, sync wrappers."""

    name: str = "judge"
    concurrency: int = 4

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(name=self.name)

    def needs(self) -> Needs:
        """The model servers' breakers and the embedders this judge's calls go through
        (``core.needs``): nothing, unless the judge says so; a composite adds up its parts'."""
        return NOTHING

    def __repr__(self) -> str:
        """What a notebook shows for a judge: its name, model and prompt version (the identity
        its judgments carry), not ``<... object at 0x...>``."""
        try:
            who = self.identity
        except Exception as error:  # noqa: BLE001 - a repr must never raise
            return f"<{type(self).__name__} (identity unavailable: {type(error).__name__})>"
        parts = [f"name={who.name!r}", f"model={who.model!r}", f"prompt_version={who.prompt_version!r}"]
        if who.params:
            parts.append(f"params={who.params!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def from_cache(self, judgment: Judgment[ValueT]) -> Judgment[ValueT]:
        """A judgment read back under this judge's identity (the cache, a run's call memo), as this
        judge gives it: as it is here; a judge whose key leaves out a setting that only changes
        how the model's answer is read (a cut-off on P("1")) applies it again."""
        return judgment

    @abstractmethod
    async def _judge(self, item: ItemT) -> Judgment[ValueT]:
        """Judge one item; may raise, ``ajudge`` turns any exception into an unscored judgment."""

    async def ajudge(self, item: ItemT) -> Judgment[ValueT]:
        """Judge one item. Never raises for a judging failure: any exception of ``_judge`` becomes
        an unscored judgment whose reason names it (one bad item must not end a batch).

        While tracing is on (``rag_agent.tracing``) the judgment is a span named after the judge
        and its prompt version, the parent of the model calls made for it. ``_judge`` is awaited
        here directly: no layer between the envelope and the judge's own code."""
        identity = self.identity
        memo = shared_with(identity)  # call_memo: a nested model judge takes what the run paid for
        if memo is not None:
            kept = memo.recall(identity, item)
            if kept is not None:  # a model call this run's cache already holds: no call now
                return self.from_cache(kept.replicate(usage=Usage(), latency_s=0.0, recalled=True))
        span = tracing.judgment_span(identity) if tracing.active() else nullcontext(None)
        nested = NESTED.set(identity.key())
        try:
            with span as record:
                started = time.perf_counter()
                try:
                    judgment = await self._judge(item)
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # noqa: BLE001 - containment is the point
                    judgment = self.unscored(f"{type(error).__name__}: {error}", started=started)
                else:
                    if judgment.latency_s == 0.0:
                        judgment = judgment.replicate(latency_s=time.perf_counter() - started)
                if record is not None:
                    record(judgment)
        finally:
            NESTED.reset(nested)
        if memo is not None and not judgment.unscored:
            memo.keep(identity, item, judgment)
        return judgment

    async def ajudge_batch(
        self, items: Sequence[ItemT], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[ValueT]]:
        """Judge many items with at most ``concurrency`` in flight; results keep input order."""
        semaphore = asyncio.Semaphore(max(1, self.concurrency))

        async def one(index: int, item: ItemT) -> Judgment[ValueT]:
            async with semaphore:
                judgment = await self.ajudge(item)
            if on_result is not None:
                on_result(index, judgment)  # type: ignore[arg-type]
            return judgment

        return list(await asyncio.gather(*(one(i, item) for i, item in enumerate(items))))

    def judge_sync(self, item: ItemT) -> Judgment[ValueT]:
        return run_sync(self.ajudge(item))

    def judge_batch_sync(self, items: Sequence[ItemT]) -> list[Judgment[ValueT]]:
        return run_sync(self.ajudge_batch(items))

    def scored(
        self,
        value: ValueT,
        *,
        started: float | None = None,
        usage: Usage | None = None,
        attempts: int = 1,
        method: str | None = None,
    ) -> Judgment[ValueT]:
        """A scored judgment stamped with this judge's identity (and how its value was read)."""
        identity = self.identity
        return Judgment(
            value=value,
            judge=identity.name,
            model=identity.model,
            prompt_version=identity.prompt_version,
            latency_s=(time.perf_counter() - started) if started is not None else 0.0,
            usage=usage or Usage(),
            attempts=attempts,
            method=method,
        )

    def unscored(
        self,
        reason: str,
        *,
        started: float | None = None,
        usage: Usage | None = None,
        attempts: int = 1,
        method: str | None = None,
    ) -> Judgment[ValueT]:
        """An unscored judgment: no value, the reason why, and whatever it cost."""
        identity = self.identity
        return Judgment(
            judge=identity.name,
            model=identity.model,
            prompt_version=identity.prompt_version,
            latency_s=(time.perf_counter() - started) if started is not None else 0.0,
            usage=usage or Usage(),
            unscored=True,
            unscored_reason=reason,
            attempts=attempts,
            method=method,
        )

    def scored_or_unscored(
        self, value: ValueT | None, reason: str | None, *, started: float | None = None
    ) -> Judgment[ValueT]:
        """``scored(value)``, or ``unscored(reason)`` where a model-free rule found no value."""
        if value is None:
            return self.unscored(reason or "unscored", started=started)
        return self.scored(value, started=started)


__all__ = ["BaseJudge", "ItemT", "Judge", "JudgeIdentity", "JudgmentUnscored", "ResultCallback", "ValueT"]
