"""``assert_judged``: a test assertion that a judge passes an item, with the judge's reason in the
failure message.

A RAG regression test wants one line, "this answer must be judged faithful", and on failure the
judge's why, not ``assert False``. A judge that cannot judge fails the test too, with its reason:
an unscored judgment is never a pass. Needs no extra: it raises plain ``AssertionError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from ragjury.evals.adapters.judging import Outcome, build_item
from ragjury.rag_agent.core.sync import run_sync


def _item(judge: Any, item: BaseModel | Mapping[str, Any], task: str | None) -> BaseModel:
    if isinstance(item, BaseModel):
        return item
    return build_item(judge, item, task=task or _rubric_task(judge, item))


def _rubric_task(judge: Any, fields: Mapping[str, Any]) -> str | None:
    """The task whose item carries what a rubric judge sees (it judges any task's item): a rubric
    that sees the context reads a faithfulness item, one that sees a reference a correctness item
    (docs/rubrics.md: ``assert_judged(judge, item)`` with a dict). None for other judges."""
    rubric = getattr(judge, "rubric", None)
    sees = getattr(rubric, "sees", None)
    if sees is None:
        return None
    if "context" in sees or ("reference" not in sees and any(k in fields for k in ("contexts", "context"))):
        return "faithfulness"
    return "correctness"


def check_outcome(outcome: Outcome, threshold: float | None) -> Outcome:
    """``outcome`` when it passes, else ``AssertionError`` with the judge's verdict and reason."""
    __tracebackhide__ = True
    if not outcome.scored:
        raise AssertionError(f"{outcome.judge} could not judge the item (unscored): {outcome.reason}")
    if threshold is None:
        label = outcome.label
        if not label:
            raise AssertionError(f"judged {label!r} by {outcome.judge}\nreason: {outcome.reason}")
    else:
        score = outcome.score
        if score < threshold:
            raise AssertionError(
                f"judged {score:.3f}, below the threshold {threshold:g}, by {outcome.judge}\n"
                f"reason: {outcome.reason}"
            )
    return outcome


async def assert_judged_async(
    judge: Any,
    item: BaseModel | Mapping[str, Any],
    threshold: float | None = None,
    *,
    task: str | None = None,
) -> Outcome:
    """Judge ``item`` and assert it passes; returns the outcome. Example::

        assert_judged(ContainsJudge(), CorrectnessItem(
            question="Who wrote Hamlet?", answer="William Shakespeare.", references=["Shakespeare"]))

    ``item`` is the judge's item, or a dict of fields named as in datasets (``question``,
    ``answer``, ``contexts``, or Ragas / DeepEval names). Without ``threshold`` the verdict must
    be true (a grade above 0); with one, ``evals.adapters.judging.score_of`` must reach it.
    """
    __tracebackhide__ = True
    _check_threshold(threshold)
    judgment = await judge.ajudge(_item(judge, item, task))
    return check_outcome(Outcome(judgment), threshold)


def assert_judged(
    judge: Any,
    item: BaseModel | Mapping[str, Any],
    threshold: float | None = None,
    *,
    task: str | None = None,
) -> Outcome:
    """The synchronous ``assert_judged_async`` (runs in a thread when a loop is running)."""
    __tracebackhide__ = True
    _check_threshold(threshold)
    judgment = run_sync(judge.ajudge(_item(judge, item, task)))
    return check_outcome(Outcome(judgment), threshold)


def _check_threshold(threshold: float | None) -> None:
    """NaN compares false with every score: a NaN threshold would pass (or fail) everything silently."""
    import math

    if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, int | float)
                                  or not math.isfinite(threshold)):
        raise ValueError(f"threshold must be a finite number, got {threshold!r}")
    if threshold is not None and threshold < 0:  # every score and grade is >= 0: a "no" would pass
        raise ValueError(f"threshold must be 0 or more (scores and grades are never below 0, so every verdict, "
                         f"a 'no' included, would pass), got {threshold!r}")


__all__ = ["assert_judged", "assert_judged_async", "check_outcome"]
