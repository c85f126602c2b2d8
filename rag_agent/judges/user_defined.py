"""User-defined checks (the Patronus pattern), run in the same batch pipeline as judges.

Why: every team has checks no library ships ("mentions the product name", "under 80 words",
"matches our JSON schema"). Write them as a subclass or a decorated function, and
``CheckJudge`` turns them into a judge: same envelope, same batch runner, same cache,
unscored with the reason when they raise.

A subclass::

    class MentionsPrice(Check):
        pass_threshold = 0.5

        def evaluate(self, row: CheckRow) -> CheckOutcome:
            hits = sum(word in row.output for word in ("$", "EUR", "price"))
            return CheckOutcome(score_raw=hits / 3, tags={"hits": str(hits)})

A function::

    @check(name="short_answer")
    def short_answer(row: CheckRow) -> bool:
        return len(row.output.split()) <= 80

    judge = CheckJudge(short_answer)
    judgments = judge.judge_batch_sync([CheckRow(output="...", gold_answer="...")])

``evaluate`` returns ``bool`` (pass/fail; score 1.0/0.0), a number (a raw score, passed when
it reaches ``pass_threshold``), or a ``CheckOutcome``. Raise to say "cannot evaluate this
row": the judgment is then unscored with your message, never a silent fail.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, overload

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragjury.rag_agent.core.judge_spec import CHECK_NAME_PREFIX
from ragjury.rag_agent.core.needs import NOTHING, Needs
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity, ResultCallback
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.value_tags import value_tag
from ragjury.rag_agent.core.sync import run_sync
from ragjury.rag_agent.core.text import split_sentences
from ragjury.rag_agent.judges.model_free.embedders import (
    CachingEmbedder,
    Embedder,
    EmbedderUnavailable,
    default_embedder,
    normalise_rows,
)


class CheckRow(BaseModel):
    """What a check sees: the evaluated output and whatever the dataset has around it."""

    model_config = ConfigDict(extra="ignore")

    output: str = Field(description="The text being evaluated (an answer, a summary, ...)")
    gold_answer: str | None = Field(
        default=None, description="The reference answer, when the dataset has one"
    )
    question: str | None = None
    context: list[str] = Field(default_factory=list, description="Retrieved passages or other context")

    @field_validator("context", mode="before")
    @classmethod
    def _one_string_is_one_passage(cls, value: object) -> object:
        if value is None:
            return []
        return [value] if isinstance(value, str) else value


@value_tag("evaluator_outcome")
class CheckOutcome(BaseModel):
    """What one user check concluded about one row: a raw score, pass/fail, free-form tags.

    (Not ``evals.dataset_evaluation.DatasetEvaluation``, which is a whole finished dataset run.)

    ``pass_`` is ``"pass"`` in JSON. When a check gives only ``score_raw`` and has a
    ``pass_threshold``, ``pass_`` is filled in as ``score_raw >= pass_threshold``.
    """

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    score_raw: float | None = None
    pass_: bool | None = Field(default=None, alias="pass")
    tags: dict[str, str] = Field(default_factory=dict)
    explanation: str | None = None

    @property
    def label(self) -> bool | float | None:
        """What the pipeline aggregates: pass/fail when known, else the raw score."""
        return self.pass_ if self.pass_ is not None else self.score_raw


RawResult = bool | int | float | CheckOutcome
"""What ``Check.evaluate`` may return."""


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class Check(ABC):
    """Base class of user-defined checks: implement ``evaluate`` (or ``aevaluate`` for I/O).

    Set ``name`` (default: the class name in snake case), ``version`` (bump it when the logic
    changes: it is part of every judgment's identity and cache key) and ``pass_threshold``.
    Override ``aevaluate_batch`` to evaluate many rows at once (see the embedding check).
    """

    name: str = ""
    version: str = "1"
    pass_threshold: float | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__dict__.get("name"):
            cls.name = _snake(cls.__name__)

    @property
    def model(self) -> str | None:
        """The model a check uses, if any (recorded in judgments)."""
        return None

    def needs(self) -> Needs:
        """The breakers and embedders the check's calls go through (``core.needs``): none
        unless it says so; its judge declares them for it."""
        return NOTHING

    @abstractmethod
    def evaluate(self, row: CheckRow) -> RawResult:
        """Judge one row: ``bool``, a raw score, or a ``CheckOutcome``; raise to leave it unscored."""

    async def aevaluate(self, row: CheckRow) -> RawResult:
        """Async form; the default runs ``evaluate`` in a worker thread, so a slow sync check does
        not hold the event loop and ``-j`` of them run at once. Override for network or disk work."""
        return await in_thread(self.evaluate, row)

    @property
    def vectorised(self) -> bool:
        """Whether this check judges a batch in one pass (it overrides ``aevaluate_batch``);
        otherwise rows are evaluated one by one, ``-j`` at a time, each reported as it ends."""
        return type(self).aevaluate_batch is not Check.aevaluate_batch

    async def aevaluate_batch(self, rows: Sequence[CheckRow]) -> list[RawResult | Exception]:
        """One result (or the exception it raised) per row, in order."""
        out: list[RawResult | Exception] = []
        for row in rows:
            try:
                out.append(await self.aevaluate(row))
            except (SystemExit, KeyboardInterrupt) as raised:  # that row's reason, not the run's end
                out.append(CheckStopped.of(self, raised))
            except Exception as error:  # noqa: BLE001 - one failing row must not end the batch
                out.append(error)
        return out

    def to_result(self, raw: RawResult) -> CheckOutcome:
        """Normalise what ``evaluate`` returned into a ``CheckOutcome``."""
        if isinstance(raw, (bool, np.bool_)):
            return CheckOutcome(score_raw=1.0 if raw else 0.0, pass_=bool(raw))
        if isinstance(raw, (int, float, np.integer, np.floating)):
            raw = CheckOutcome(score_raw=float(raw))
        if isinstance(raw, CheckOutcome) and raw.score_raw is not None and not math.isfinite(raw.score_raw):
            raise ValueError(f"check {self.name!r} returned the score {raw.score_raw}: not a finite number")
        if not isinstance(raw, CheckOutcome):
            raise TypeError(
                f"check {self.name!r} returned {type(raw).__name__}; expected bool, a number "
                "or CheckOutcome"
            )
        if raw.pass_ is None and raw.score_raw is not None and self.pass_threshold is not None:
            return raw.model_copy(update={"pass_": raw.score_raw >= self.pass_threshold})
        if raw.pass_ is None and raw.score_raw is None:
            raise ValueError(f"check {self.name!r} returned neither score_raw nor pass")
        return raw


CheckFunction = Callable[[CheckRow], RawResult | Awaitable[RawResult]]


class FunctionCheck(Check):
    """A check made from a plain (sync or async) function by ``@check``."""

    def __init__(
        self,
        func: CheckFunction,
        *,
        name: str | None = None,
        pass_threshold: float | None = None,
        version: str = "1",
    ) -> None:
        self.func = func
        self.name = name or func.__name__
        self.pass_threshold = pass_threshold
        self.version = version
        self.__doc__ = func.__doc__

    def evaluate(self, row: CheckRow) -> RawResult:
        result = self.func(row)
        if inspect.isawaitable(result):
            return run_sync(_await(result))
        return result

    async def aevaluate(self, row: CheckRow) -> RawResult:
        """An async function is awaited on the loop; a sync one runs in a worker thread."""
        if inspect.iscoroutinefunction(self.func):
            return await self.func(row)
        result = await in_thread(self.func, row)
        return await result if inspect.isawaitable(result) else result

    def __call__(self, row: CheckRow) -> RawResult | Awaitable[RawResult]:
        return self.func(row)


async def _await(awaitable: Awaitable[RawResult]) -> RawResult:
    return await awaitable


@overload
def check(func: CheckFunction, /) -> FunctionCheck: ...
@overload
def check(
    *, name: str | None = None, pass_threshold: float | None = None, version: str = "1"
) -> Callable[[CheckFunction], FunctionCheck]: ...


class CheckStopped(RuntimeError):
    """A check raised ``SystemExit`` (``sys.exit()``, ``exit()``) or ``KeyboardInterrupt``: that
    row's unscored reason, never the run's end (#54 item 26: ``sys.exit()`` in a check ended the
    whole run with exit 0 and nothing written). asyncio re-raises both out of the event loop from
    any task they cross, so they are turned into this before they reach one (``stopped_as_error``)."""

    @classmethod
    def of(cls, check: object, raised: BaseException) -> CheckStopped:
        name = getattr(check, "name", None) or getattr(check, "__name__", None) or "check"
        what = (f"called sys.exit({raised.code!r})" if isinstance(raised, SystemExit)
                else f"raised {type(raised).__name__}")
        return cls(f"check {name!r} {what}: a check cannot end the run, so this row is unscored")


async def stopped_as_error(check: object, awaitable: Awaitable[Any]) -> Any:
    """``awaitable``, with a ``SystemExit`` or ``KeyboardInterrupt`` it raises as ``CheckStopped``."""
    try:
        return await awaitable
    except (SystemExit, KeyboardInterrupt) as raised:
        raise CheckStopped.of(check, raised) from None


def in_thread(func: Callable[[CheckRow], Any], row: CheckRow) -> asyncio.Future[Any]:
    """``func(row)`` in a daemon thread of its own, as a future of the running loop.

    Why not ``asyncio.to_thread``: its pool is joined when the loop closes and again when Python
    exits, so one check stuck in a loop or a socket kept Ctrl-C and SIGTERM waiting for it (a run
    under ``timeout 200`` lasted 14 minutes). A daemon thread is left behind instead: the deadline
    (``CheckJudge.timeout_s``) unscores the row and the run ends."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():  # cancelled: the deadline passed or the run was stopped
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def target() -> None:
        try:
            result, error = func(row), None
        except (SystemExit, KeyboardInterrupt) as raised:  # never set on a future: asyncio re-raises them
            result, error = None, CheckStopped.of(func, raised)
        except BaseException as raised:  # noqa: BLE001 - handed to the awaiting row, which unscores it
            result, error = None, raised
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:  # the loop is closed: the run ended without this row
            pass

    threading.Thread(target=target, name=f"ragjury-check-{getattr(func, '__name__', 'check')}", daemon=True).start()
    return future


def check(
    func: CheckFunction | None = None,
    /,
    *,
    name: str | None = None,
    pass_threshold: float | None = None,
    version: str = "1",
) -> FunctionCheck | Callable[[CheckFunction], FunctionCheck]:
    """Make a ``Check`` of a function ``(row: CheckRow) -> bool | float | CheckOutcome``.

    Use bare (``@check``) or with options (``@check(name="x", pass_threshold=0.5)``).
    The decorated name is a ``Check``; it still calls the function when called.
    """

    def wrap(inner: CheckFunction) -> FunctionCheck:
        return FunctionCheck(inner, name=name, pass_threshold=pass_threshold, version=version)

    return wrap(func) if func is not None else wrap


DEFAULT_CHECK_TIMEOUT_S = 60.0
"""A check's deadline on one row unless the settings say otherwise (``check_timeout_s``)."""


class CheckJudge(BaseJudge[CheckRow, CheckOutcome]):
    """Any ``Check`` as a judge: envelopes, batching, unscored-with-reason on errors."""

    def __init__(self, check: Check, *, timeout_s: float = DEFAULT_CHECK_TIMEOUT_S) -> None:
        if not isinstance(check, Check):
            raise TypeError(
                f"expected a Check, got {type(check).__name__} (decorate functions with @check)"
            )
        self.check = check
        self.name = f"{CHECK_NAME_PREFIX}{check.name}"
        self.timeout_s = timeout_s
        """Deadline of the check on one row (a vectorised check: per row of its batch)."""

    def needs(self) -> Needs:
        return self.check.needs()

    @property
    def identity(self) -> JudgeIdentity:
        ev = self.check
        return JudgeIdentity(
            name=self.name,
            model=ev.model,
            prompt_version=f"{ev.name}@{ev.version}",
            params=f"pass_threshold={ev.pass_threshold}",
        )

    def _wrap(
        self, raw: RawResult | BaseException, started: float | None = None
    ) -> Judgment[CheckOutcome]:
        if isinstance(raw, CheckStopped):
            return self.unscored(str(raw), started=started)
        if isinstance(raw, BaseException):
            return self.unscored(f"{type(raw).__name__}: {raw}", started=started)
        try:
            return self.scored(self.check.to_result(raw), started=started)
        except (TypeError, ValueError) as error:
            return self.unscored(str(error), started=started)

    def _late(self, rows: int = 1) -> str:
        return (f"check {self.check.name!r} did not finish within {self.timeout_s * rows:g} s (--check-timeout, "
                "$RAGJURY_CHECK_TIMEOUT_S): unscored, and left running in the background")

    async def _judge(self, item: CheckRow) -> Judgment[CheckOutcome]:
        started = time.perf_counter()
        try:
            raw = await asyncio.wait_for(stopped_as_error(self.check, self.check.aevaluate(item)), self.timeout_s)
        except TimeoutError:
            return self.unscored(self._late(), started=started)
        except CheckStopped as stopped:
            return self.unscored(str(stopped), started=started)
        return self._wrap(raw, started)

    async def ajudge_batch(
        self, items: Sequence[CheckRow], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[CheckOutcome]]:
        """The check's own batch method where it has one (vectorised); otherwise row by row,
        ``concurrency`` (``-j``) at a time, ``on_result`` as each ends so progress moves."""
        if not self.check.vectorised:
            return await super().ajudge_batch(items, on_result=on_result)
        started = time.perf_counter()
        try:
            raws: list[RawResult | Exception] = await asyncio.wait_for(
                stopped_as_error(self.check, self.check.aevaluate_batch(items)), self.timeout_s * max(1, len(items)))
        except TimeoutError:
            raws = [TimeoutError(self._late(len(items)))] * len(items)
        except Exception as error:  # noqa: BLE001 - a failing batch leaves every row unscored with the reason
            raws = [error] * len(items)
        if len(raws) != len(items):
            mismatch = ValueError(
                f"{self.check.name}.aevaluate_batch returned {len(raws)} results for {len(items)} rows"
            )
            raws = [mismatch] * len(items)
        share = (time.perf_counter() - started) / max(1, len(items))
        out: list[Judgment[CheckOutcome]] = []
        for index, raw in enumerate(raws):
            judgment = self._wrap(raw)
            judgment.latency_s = share
            out.append(judgment)
            if on_result is not None:
                on_result(index, judgment)  # type: ignore[arg-type]
        return out


def row_of(item: object) -> CheckRow:
    """A task item (correctness, faithfulness, score, relevance) as the row a check reads:
    the answer (or retrieved passage) is the ``output``, the first reference the ``gold_answer``."""
    if isinstance(item, CheckRow):
        return item
    output = getattr(item, "answer", None)
    if output is None:
        output = getattr(item, "retrieved_text", "")
    references = getattr(item, "references", None) or []
    gold = references[0] if references else getattr(item, "expected_text", None)
    context = getattr(item, "contexts", None)
    if context is None:
        context = [getattr(source, "content", str(source)) for source in getattr(item, "sources", None) or []]
    question = getattr(item, "question", None) or getattr(item, "query", None)
    return CheckRow(output=str(output), gold_answer=gold, question=question, context=list(context))


class TaskCheckJudge(CheckJudge):
    """A check judging a task's items (``evaluate --judge python:module:MyEvaluator``): each
    item is read as a ``CheckRow`` first, so one check serves every task.

    A task's verdict must be one its files can hold: for a pass/fail task a raw score with no
    ``pass_threshold`` is no verdict, and for a score task a score outside [0, 1] is none either;
    such a row is unscored, naming the check, never written as a label of 7.5."""

    scale: str = "binary"

    def _wrap(self, raw: RawResult | BaseException, started: float | None = None) -> Judgment[CheckOutcome]:
        judgment = super()._wrap(raw, started)
        outcome = judgment.value
        if outcome is None or outcome.pass_ is not None:
            return judgment
        score = outcome.score_raw
        name = self.check.name
        if self.scale == "binary":
            return self.unscored(f"check {name!r} returned the score {score:g} and has no pass_threshold: a pass/fail "
                                 "task needs one (@check(pass_threshold=...)) or a bool", started=started)
        if score is not None and not 0.0 <= score <= 1.0:
            return self.unscored(f"check {name!r} returned the score {score:g}, outside the task's [0, 1]",
                                 started=started)
        return judgment

    async def _judge(self, item: Any) -> Judgment[CheckOutcome]:
        return await super()._judge(row_of(item))

    async def ajudge_batch(
        self, items: Sequence[Any], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[CheckOutcome]]:
        return await super().ajudge_batch([row_of(item) for item in items], on_result=on_result)


def as_judge_if_check(obj: object, *, scale: str = "binary", timeout_s: float | None = None,
                      **opts: Any) -> TaskCheckJudge | None:
    """A judge for ``obj`` when it is a check (an instance, a decorated function, or an
    ``Check`` subclass, built with ``opts``); ``None`` for anything else. ``scale``: the task's
    (``binary`` or ``score``), which says what a raw score may be."""
    if isinstance(obj, type) and issubclass(obj, Check):
        obj = obj(**opts)
    if not isinstance(obj, Check):
        return None
    judge = TaskCheckJudge(obj, timeout_s=timeout_s or DEFAULT_CHECK_TIMEOUT_S)
    judge.scale = scale
    return judge


class EmbeddingSimilarityCheck(Check):
    """BERTScore-style similarity of the output to the gold answer, with sentence embeddings.

    BERTScore greedily matches each token of one text to its most similar token of the other;
    this does the same with sentences: precision = mean over output sentences of their best
    cosine with a gold sentence, recall = mean over gold sentences of their best cosine with
    an output sentence, ``score_raw`` = F1. A verbose answer that contains the gold answer
    keeps a high recall and loses some precision. Passes at ``pass_threshold`` (default 0.7,
    a paraphrase level for all-MiniLM-L6-v2). Tags: ``precision``, ``recall``.
    """

    name = "embedding_similarity"
    version = "1"

    def __init__(self, embedder: Embedder | None = None, *, pass_threshold: float = 0.7) -> None:
        inner = embedder or default_embedder()
        self.embedder: Embedder = inner if isinstance(inner, CachingEmbedder) else CachingEmbedder(inner)
        self.pass_threshold = pass_threshold

    @property
    def model(self) -> str | None:
        return self.embedder.model

    def needs(self) -> Needs:
        return Needs(embedders=(self.embedder,))

    def evaluate(self, row: CheckRow) -> RawResult:
        result = run_sync(self.aevaluate_batch([row]))[0]
        if isinstance(result, Exception):
            raise result
        return result

    async def aevaluate(self, row: CheckRow) -> RawResult:
        result = (await self.aevaluate_batch([row]))[0]
        if isinstance(result, Exception):
            raise result
        return result

    @staticmethod
    def _segments(text: str) -> list[str]:
        return split_sentences(text) or ([text.strip()] if text.strip() else [])

    async def aevaluate_batch(self, rows: Sequence[CheckRow]) -> list[RawResult | Exception]:
        """Every sentence of every row embedded in one pass; a similarity matrix per row."""
        out: list[RawResult | Exception] = [ValueError("not evaluated")] * len(rows)
        plans: list[tuple[int, list[int], list[int]]] = []
        index: dict[str, int] = {}
        for i, row in enumerate(rows):
            if not row.gold_answer or not row.gold_answer.strip():
                out[i] = ValueError("row has no gold_answer: nothing to compare the output with")
                continue
            if not row.output.strip():
                out[i] = ValueError("empty output: nothing to compare")
                continue
            left = [index.setdefault(s, len(index)) for s in self._segments(row.output)]
            right = [index.setdefault(s, len(index)) for s in self._segments(row.gold_answer)]
            plans.append((i, left, right))
        if not plans:
            return out
        try:
            unit = normalise_rows(np.asarray(await self.embedder.aembed(list(index)), dtype=np.float32))
        except EmbedderUnavailable as error:
            failure = EmbedderUnavailable(f"embedder unavailable: {error}")
            for i, _, _ in plans:
                out[i] = failure
            return out
        for i, left, right in plans:
            sims = unit[left] @ unit[right].T
            precision = float(sims.max(axis=1).mean())
            recall = float(sims.max(axis=0).mean())
            f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
            out[i] = CheckOutcome(
                score_raw=round(f1, 6), tags={"precision": f"{precision:.4f}", "recall": f"{recall:.4f}"}
            )
        return out


__all__ = [
    "TaskCheckJudge",
    "as_judge_if_check",
    "row_of",
    "EmbeddingSimilarityCheck",
    "CheckRow",
    "Check",
    "CheckFunction",
    "CheckJudge",
    "CheckOutcome",
    "FunctionCheck",
    "RawResult",
    "check",
]
