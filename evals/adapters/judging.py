"""What every framework adapter needs: a judge's item from loose fields, a judgment's label and reason.

Each framework hands over different shapes, but all end in these two steps, done here once so an
item is built and a verdict explained the same way everywhere; items go through the same column
tables as ``ragjury evaluate`` (``evals.io.tasks``), Ragas and DeepEval names included.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, get_args

from pydantic import BaseModel

from ragjury.rag_agent.core.labels import label_of
from ragjury.rag_agent.core.protocol import JudgmentUnscored
from ragjury.rag_agent.core.results import Judgment

MAX_LISTED = 3
"""How many unsupported statements (or panel votes) a reason quotes before "and N more"."""


class ItemError(ValueError):
    """The fields handed to an adapter do not make the judge's item (which field, and why)."""


def item_type_of(judge: object) -> type[BaseModel] | None:
    """The item model ``judge`` takes, read from its generic base (``BaseJudge[CorrectnessItem,
    ...]``), or from the judge it wraps (a fallback's primary, a panel's first member)."""
    for cls in type(judge).__mro__:
        for base in getattr(cls, "__orig_bases__", ()):
            args = get_args(base)
            if args and isinstance(args[0], type) and issubclass(args[0], BaseModel):
                return args[0]
    primary = getattr(judge, "primary", None)  # FallbackJudge: primary and fallback share the item
    if primary is not None:
        return item_type_of(primary)
    members = getattr(judge, "members", None)
    if isinstance(members, list) and members:
        return item_type_of(members[0])
    return None


def task_of(item_type: type[BaseModel]) -> str | None:
    """The ``ragjury evaluate`` task whose rows hold ``item_type`` items (None for other items)."""
    from ragjury.evals.io.tasks import TASK_SPECS

    return next((name for name, spec in TASK_SPECS.items() if spec.item_type is item_type), None)


def fields_of(value: Any, *, role: str) -> dict[str, Any]:
    """The fields one framework value contributes: a mapping or a model as its fields, a plain
    string under ``role`` (``question`` for inputs, ``answer`` for an output, ``references`` for
    an expected output), a list of strings (an expected output) as ``references``."""
    if value is None:
        return {}
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, Mapping):
        return {str(key): item for key, item in value.items()}
    if isinstance(value, str):
        return {role: value}
    if isinstance(value, list | tuple) and role == "references":
        return {role: list(value)}
    answer = getattr(value, "answer", None)  # a RAG agent's response object
    if isinstance(answer, str):
        return {"answer": answer}
    raise ItemError(f"cannot read {role} from a {type(value).__name__}; pass item=... to build the item")


def build_item(
    judge: object, fields: Mapping[str, Any], *, task: str | None = None, where: str = "item"
) -> BaseModel:
    """The judge's item from ``fields``.

    ``task`` (``correctness`` / ``faithfulness`` / ``score``) says which item to build; by
    default it is read from the judge. Ragas and DeepEval names are recognised as in datasets.
    Items of other judges (relevance's ``RelevanceItem``, goal's ``GoalItem``) are validated
    from ``fields`` as they are.
    """
    from ragjury.evals.io.peer_formats import resolve
    from ragjury.evals.io.tasks import TASK_SPECS, row_to_task_row, task_spec
    from ragjury.rag_agent.core.input_files import InputError

    item_type = item_type_of(judge)
    name = task or (task_of(item_type) if item_type is not None else None)
    if name is None:
        if item_type is None:
            tasks = [f"'{known}'" for known in TASK_SPECS]
            raise ItemError(
                f"cannot tell which item {type(judge).__name__} judges: pass task={', '.join(tasks[:-1])} "
                f"or {tasks[-1]}, or item=... to build it"
            )
        try:
            return item_type.model_validate(dict(fields))
        except ValueError as error:
            raise ItemError(f"{where}: {error}") from None
    spec = task_spec(name)
    _, detected = resolve(spec.columns, fields.keys(), {})
    try:
        return row_to_task_row(spec, fields, source=where, line=None, mapping=detected).item
    except InputError as error:
        raise ItemError(re.sub(r"; use --map \S+", "", str(error))) from None


def _text(value: object) -> str:
    return " ".join(str(value).split())


def reason_of(value: object) -> str | None:
    """Why the judge decided as it did, from its value: the verdict's reason (or a JudgeScore's
    reasoning); for statement-level faithfulness, which statements the context does not support
    and why; for a panel, each member's vote; for the model-free support judge, the answer's
    words the context lacks. None when the value carries no explanation (``contains``)."""
    for attribute in ("reason", "reasoning"):
        text = getattr(value, attribute, None)
        if isinstance(text, str) and text.strip():
            return text.strip()
    statements = getattr(value, "statements", None)
    if isinstance(statements, list) and statements:
        failed = [s for s in statements if not getattr(s, "verdict", True)]
        head = f"{len(statements) - len(failed)} of {len(statements)} statements supported"
        if not failed:
            return head
        quoted = [f'"{_text(s.statement)}" ({_text(s.reason)})' for s in failed[:MAX_LISTED]]
        more = f" and {len(failed) - MAX_LISTED} more" if len(failed) > MAX_LISTED else ""
        return f"{head}; not supported: {'; '.join(quoted)}{more}"
    votes = getattr(value, "votes", None)
    if isinstance(votes, tuple | list) and votes and hasattr(votes[0], "label"):
        parts = [
            f"{vote.name}: {vote.label}" if vote.label is not None else f"{vote.name}: no vote"
            for vote in votes
        ]
        return "panel votes: " + ", ".join(parts)
    unsupported = getattr(value, "unsupported", None)
    if isinstance(unsupported, tuple | list) and all(isinstance(word, str) for word in unsupported):
        if not unsupported:
            return "every content word of the answer is in the context"
        return "answer words the context lacks: " + ", ".join(unsupported[:20])
    return None


def score_of(value: object) -> float:
    """A number to hold against a threshold: a faithfulness score (share of supported
    statements), a JudgeScore's ``overall_score``, a grade, or 1.0 / 0.0 for a binary verdict."""
    for attribute in ("score", "overall_score"):
        number = getattr(value, attribute, None)
        if isinstance(number, int | float) and not isinstance(number, bool):
            return float(number)
    label = label_of(value)
    if label is None:
        raise TypeError(f"no score in a {type(value).__name__} value")
    return float(label)


@dataclass(frozen=True)
class Outcome:
    """One judgment as a framework reads it: its label, a score, the reason, and who judged."""

    judgment: Judgment[Any]

    @property
    def scored(self) -> bool:
        return self.judgment.scored

    @property
    def judge(self) -> str:
        """Who judged: the judge, its model and prompt version, as one short string."""
        j = self.judgment
        parts = [j.judge] + [part for part in (j.model, j.prompt_version) if part]
        return parts[0] + (f" ({', '.join(parts[1:])})" if len(parts) > 1 else "")

    @property
    def label(self) -> bool | int | float:
        """The verdict (bool), grade (int) or score (float); raises ``JudgmentUnscored``."""
        self._require_scored()
        label = label_of(self.judgment.value)
        assert label is not None
        return label

    @property
    def score(self) -> float:
        """``score_of`` the value; raises ``JudgmentUnscored``."""
        self._require_scored()
        return score_of(self.judgment.value)

    @property
    def reason(self) -> str:
        """The judge's reason, or why it could not score, or (for judges that give none, such
        as ``contains``) a sentence saying so; a fallback's use is appended."""
        j = self.judgment
        if j.unscored:
            return j.unscored_reason or "unscored (no reason recorded)"
        text = reason_of(j.value) or f"{self.judge} gives no reason beyond its verdict"
        if j.fallback_used:
            text += f" [verdict by the fallback judge; the first judge failed: {j.fallback_reason}]"
        return text

    def _require_scored(self) -> None:
        if self.judgment.unscored:
            raise JudgmentUnscored(self.reason)


__all__ = ["ItemError", "Outcome", "build_item", "fields_of", "item_type_of", "reason_of", "score_of"]
