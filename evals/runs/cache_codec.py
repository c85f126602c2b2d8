"""A judgment as stored data and back: JSON plus the tags of its value and envelope classes.

Why: a cached ``JudgeScore`` must come back as a ``JudgeScore`` (a ``SampledJudgment`` with its
votes), yet a cache file is data, not code. Classes are named by the stable tags they declare
(``rag_agent.core.value_tags``), and only a tagged class is ever built from a row; any other name
makes the row unreadable, so it is judged again rather than trusted or crashed on. Rows written
before tags (``module:QualName``) still read, through a frozen table of the class names they used.
"""

from __future__ import annotations

import functools
import importlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ragjury.rag_agent.core import value_tags
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.source_declarations import declarations

_TAG_SOURCES: tuple[str, ...] = ("rag_agent", "evals/runs")
"""Folders of the ragjury package whose modules may declare value tags (read before importing)."""

_LEGACY_CLASSES: dict[str, str] = {
    "Judgment": "judgment",
    "SampledJudgment": "sampled_judgment",
    "AgentRun": "agent_run",
    "JudgeScore": "judge_score",
    "RAGAnswer": "rag_answer",
    "PanelVerdict": "panel_verdict",
    "Verdict": "correctness_verdict",
    "FaithfulnessResult": "faithfulness_result",
    "SupportScore": "support_score",
    "StackScore": "stack_score",
    "RelevanceVerdict": "relevance_verdict",
    "RelevanceGrade": "relevance_grade",
    "GoalResult": "goal_result",
    "EvaluatorOutcome": "evaluator_outcome",
    "EvaluationResult": "evaluator_outcome",  # its name in user_defined.py (evaluators.py) before the rename
}
"""Frozen: the class names that rows written before tags (``module:QualName``) carry, and the tag
each became. Code moves never change it again; a row naming any other class is unreadable."""
_LEGACY_PACKAGES = ("ragjury.", "rag_agent.", "evals.", "config.")
"""Where those rows' module names start (``rag_agent.`` etc.: before ragjury had one namespace)."""

class UnreadableRow(ValueError):
    """A stored judgment names a class that is not a declared value type, or does not validate."""


class UntaggedValue(ValueError):
    """A judgment's value (or envelope) is a pydantic class that declares no ``@value_tag``."""


@functools.cache
def declared_tags() -> dict[str, tuple[str, str]]:
    """``tag -> (module, class name)`` of every ``@value_tag`` in ragjury's source (nothing imported)."""
    root = Path(__file__).resolve().parents[2]  # the ragjury package folder
    found: dict[str, tuple[str, str]] = {}
    for folder in _TAG_SOURCES:
        for path in sorted(root.joinpath(folder).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            if "@value_tag(" not in source:
                continue
            parts = path.relative_to(root).with_suffix("").parts
            module = ".".join(("ragjury", *parts[: -1 if parts[-1] == "__init__" else None]))
            for args, _keywords, name in declarations(source, "value_tag"):
                if isinstance(args[:1] and args[0], str) and name is not None:
                    found[args[0]] = (module, name)
    return found


def tag_of(model: object) -> str | None:
    """The tag stored for ``model``'s class; None for a plain value (bool, number, dict)."""
    if not isinstance(model, BaseModel):
        return None
    tag = value_tags.tag_of(type(model))
    if tag is None:
        raise UntaggedValue(f"{type(model).__qualname__} declares no @value_tag: the cache cannot rebuild it")
    return tag


@functools.lru_cache(maxsize=256)
def model_class(stored: str) -> type[BaseModel]:
    """The class a row names (a tag, or an old ``module:QualName``); ``UnreadableRow`` for any
    name that is not a declared value type: such a class is never imported nor built."""
    module, colon, qualname = stored.partition(":")
    tag = stored
    if colon:
        if not module.startswith(_LEGACY_PACKAGES) or qualname not in _LEGACY_CLASSES:
            raise UnreadableRow(f"the cached row names {stored!r}, not a value type")
        tag = _LEGACY_CLASSES[qualname]
    if tag not in value_tags.TAGGED and tag in declared_tags():
        importlib.import_module(declared_tags()[tag][0])  # a ragjury module that declares it
    found = value_tags.TAGGED.get(tag)
    if found is None:
        raise UnreadableRow(f"the cached row names {stored!r}, not a value type")
    return found


@functools.lru_cache(maxsize=256)
def _envelope_class(stored: str | None) -> type[Judgment[Any]]:
    """The envelope class a row names (``Judgment`` when none), parametrised with ``Any``."""
    envelope_cls = Judgment if stored is None else model_class(stored)
    if not issubclass(envelope_cls, Judgment):
        raise UnreadableRow(f"the cached row's envelope {stored!r} is not a judgment")
    if envelope_cls.__pydantic_generic_metadata__.get("parameters"):
        envelope_cls = envelope_cls[Any]  # type: ignore[index]
    return envelope_cls  # type: ignore[return-value]


def decode(payload: str, value_type: str | None, judgment_type: str | None) -> Judgment[Any]:
    """Rebuild a stored judgment, its value and envelope as their own classes; ``UnreadableRow``
    when a name is not a value type or the data does not validate (the row is judged again).
    A plain value is validated straight from the JSON text (pydantic-core: several times faster)."""
    try:
        envelope_cls = _envelope_class(judgment_type)
        if value_type is None:
            return envelope_cls.model_validate_json(payload)
        value_cls = model_class(value_type)
        data = json.loads(payload)
        if data.get("value") is not None:
            data["value"] = value_cls.model_validate(data["value"])
        return envelope_cls.model_validate(data)
    except UnreadableRow:
        raise
    except (ImportError, ValueError, TypeError, AttributeError, RecursionError) as error:
        raise UnreadableRow(f"the cached row does not validate: {error}") from None


def dump_judgment(judgment: Judgment[Any]) -> str:
    """A judgment as one JSON text that ``load_judgment`` rebuilds with its own classes (as the
    cache stores it): how judgments travel from a Ray worker to the driver."""
    return json.dumps([tag_of(judgment.value), tag_of(judgment), judgment.model_dump_json()])


def load_judgment(text: str) -> Judgment[Any]:
    """The judgment ``dump_judgment`` wrote."""
    value_type, judgment_type, payload = json.loads(text)
    return decode(payload, value_type, judgment_type)


__all__ = [
    "UnreadableRow",
    "UntaggedValue",
    "decode",
    "declared_tags",
    "dump_judgment",
    "load_judgment",
    "model_class",
    "tag_of",
]
