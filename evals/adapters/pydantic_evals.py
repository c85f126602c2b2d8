"""``RagjuryEvaluator``: any ragjury judge as a pydantic-evals ``Evaluator``.

A pydantic-evals suite gets ragjury's verdicts with the judge's reason in its report. An unscored
judgment raises ``JudgmentUnscored``, recorded as an evaluator failure with the reason, never a
failed assertion or a 0. Needs the ``pydantic-evals`` extra (``pip install 'ragjury[pydantic-evals]'``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

try:
    from pydantic_evals.evaluators import EvaluationReason, Evaluator, EvaluatorContext
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "ragjury.evals.adapters.pydantic_evals needs pydantic-evals: pip install 'ragjury[pydantic-evals]'"
    ) from error

from ragjury.evals.adapters.judging import Outcome, build_item, fields_of
from ragjury.rag_agent.core.protocol import JudgmentUnscored


def context_fields(ctx: EvaluatorContext[Any, Any, Any]) -> dict[str, Any]:
    """The fields a case gives the judge's item: metadata first, then inputs (a string is the
    question), the output (a string is the answer) and the expected output (the references);
    a later one wins where two name the same field."""
    fields: dict[str, Any] = {}
    if isinstance(ctx.metadata, dict):
        fields.update(ctx.metadata)
    fields.update(fields_of(ctx.inputs, role="question"))
    fields.update(fields_of(ctx.output, role="answer"))
    fields.update(fields_of(ctx.expected_output, role="references"))
    return fields


@dataclass(repr=False)
class RagjuryEvaluator(Evaluator[Any, Any, Any]):
    """A ragjury judge (``rag_agent.core.protocol.Judge``) run on each case's output. Example::

        dataset = Dataset(
            cases=[Case(inputs="Who wrote Hamlet?", expected_output=["Shakespeare"])],
            evaluators=[RagjuryEvaluator(ContainsJudge())],
        )
        report = dataset.evaluate_sync(my_rag_task)  # the task returns the answer text

    The item is built from the case (``evals.adapters.judging.build_item``): a string input
    is the question, a string output the answer, the expected output the reference(s); a dict
    (or model) input, output or metadata gives its fields by name. The result is an
    ``EvaluationReason``: the verdict (or grade, score, or ``value="score"``) with the reason.
    """

    judge: Any
    task: str | None = None
    """``correctness``, ``faithfulness`` or ``score``: which item to build (default: the judge's)."""
    item: Callable[[EvaluatorContext[Any, Any, Any]], Any] | None = None
    """Builds the judge's item from the context, instead of the field names above."""
    name: str | None = None
    """The evaluation's name in reports (default: the judge's name)."""
    value: Literal["label", "score"] = "label"
    """``label``: the verdict (bool) or the value's label; ``score``: ``score_of`` the value."""

    def get_default_evaluation_name(self) -> str:
        return self.name or str(self.judge.identity.name)

    def build_serialization_arguments(self) -> dict[str, Any]:
        """The judge by its identity (a judge object is not serialisable, its identity is what
        makes two judgments comparable): name, model, prompt version and parameters where set."""
        identity = self.judge.identity
        arguments: dict[str, Any] = {"judge": identity.name}
        for name in ("model", "prompt_version", "params"):
            if getattr(identity, name):
                arguments[name] = getattr(identity, name)
        if self.task is not None:
            arguments["task"] = self.task
        if self.value != "label":
            arguments["value"] = self.value
        return arguments

    async def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> EvaluationReason:
        if self.item is not None:
            item = self.item(ctx)
        else:
            where = f"case {ctx.name!r}" if ctx.name else "case"
            item = build_item(self.judge, context_fields(ctx), task=self.task, where=where)
        outcome = Outcome(await self.judge.ajudge(item))
        if not outcome.scored:
            raise JudgmentUnscored(outcome.reason)
        result = outcome.label if self.value == "label" else outcome.score
        return EvaluationReason(value=result, reason=outcome.reason)


__all__ = ["RagjuryEvaluator", "context_fields"]
