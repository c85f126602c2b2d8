"""``ragjury_scorer``: any ragjury judge as an Inspect (``inspect_ai``) scorer.

An Inspect eval of a RAG system gets ragjury's verdicts with the judge's reason as each score's
explanation. An unscored judgment is Inspect's own ``Score.unscored`` (left out of its metrics),
never an ``INCORRECT``. Needs the ``inspect`` extra (``pip install 'ragjury[inspect]'``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

try:
    from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, mean, scorer, stderr
    from inspect_ai.solver import TaskState
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "ragjury.evals.adapters.inspect needs inspect-ai: pip install 'ragjury[inspect]'"
    ) from error

from ragjury.evals.adapters.judging import Outcome, build_item

ItemBuilder = Callable[[TaskState, Target], Any]


def state_fields(state: TaskState, target: Target) -> dict[str, Any]:
    """The fields a sample gives the judge's item: its metadata, then the input text as
    ``question``, the completion as ``answer`` and the target(s) as ``references``."""
    fields: dict[str, Any] = dict(state.metadata or {})
    fields["question"] = state.input_text
    fields["answer"] = state.output.completion
    references = [text for text in target.target if text]
    if references:
        fields["references"] = references
    return fields


def unscored_score(reason: str, *, answer: str | None, metadata: dict[str, Any]) -> Score:
    """Inspect's own unscored score (NaN value), marked as the grader's failure where Inspect's
    ``Score`` has a ``reason`` field (0.3.246 and later)."""
    if "reason" in Score.model_fields:
        return Score.unscored(reason="grader_failed", answer=answer, explanation=reason, metadata=metadata)
    return Score.unscored(answer=answer, explanation=reason, metadata=metadata)


@scorer(metrics=[mean(), stderr()])
def ragjury_scorer(
    judge: Any,
    *,
    task: str | None = None,
    item: ItemBuilder | None = None,
    value: Literal["label", "score"] = "label",
) -> Scorer:
    """A scorer that judges each sample's completion with ``judge`` (mean: share judged correct).

    Example::

        task = Task(
            dataset=[Sample(input="Who wrote Hamlet?", target=["Shakespeare", "William Shakespeare"])],
            solver=my_rag_solver,
            scorer=ragjury_scorer(ContainsJudge()),
        )

    The item: the sample's input is the question, the completion the answer, the target(s) the
    references, the sample's metadata the rest by name (``contexts``, ``retrieval_context``, ...).
    ``item=lambda state, target: ...`` builds it yourself; ``task=`` names the item when the
    judge's type cannot be read from it. A verdict scores ``CORRECT`` / ``INCORRECT`` (other
    judges: their grade or score, or ``value="score"``); the metadata names judge, model and
    prompt version.
    """

    async def score(state: TaskState, target: Target) -> Score:
        if item is not None:
            judged_item = item(state, target)
        else:
            where = f"sample {state.sample_id!r}"
            judged_item = build_item(judge, state_fields(state, target), task=task, where=where)
        judgment = await judge.ajudge(judged_item)
        outcome = Outcome(judgment)
        answer = state.output.completion
        metadata: dict[str, Any] = {
            "judge": judgment.judge,
            "model": judgment.model,
            "prompt_version": judgment.prompt_version,
            "fallback_used": judgment.fallback_used,
        }
        if not outcome.scored:
            return unscored_score(outcome.reason, answer=answer, metadata=metadata)
        label = outcome.label
        result: str | int | float | bool
        if value == "score":
            result = outcome.score
        elif isinstance(label, bool):
            result = CORRECT if label else INCORRECT
        else:
            result = label
        return Score(value=result, answer=answer, explanation=outcome.reason, metadata=metadata)

    return score


__all__ = ["ragjury_scorer", "state_fields", "unscored_score"]
