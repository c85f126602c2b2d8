"""The words of a ``--judge`` value beyond a judge's own name: ``auto``, panels and plug-ins,
and the one parser of that little language (``parse`` -> ``JudgeSpec``).

Why here, at the bottom: the catalogue resolves these words, but others need to recognise them
without importing it (a calibration file fitted on a panel takes no judge options). Nothing else
reads a prefix off a judge name: the catalogue, the report and criteria runs read ``parse(value)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AUTO = "auto"
PLUGIN_PREFIX = "python:"
PANEL_PREFIXES: dict[str, str] = {"panel:": "majority", "panel-mean:": "mean"}
"""``--judge panel:A,B,C`` (majority vote) and ``panel-mean:A,B,C`` (mean probability)."""
FITTED_PREFIX = "fitted:"
"""``--judge fitted:HEAD.json``: a head fitted on the user's labels by ``ragjury fit``."""
RUBRIC_PREFIX = "rubric:"
"""``--judge rubric:RUBRIC.yaml``: the user's own criterion in plain words (``judges.llm.rubric``)."""
RUBRIC_TEXT_PREFIX = "rubric-text:"
"""``--judge "rubric-text:The answer cites a source"`` (what ``--rubric TEXT`` gives): a one-line rubric."""
CROSS_ENCODER_PREFIX = "cross-encoder:"
"""``--judge cross-encoder:DIR``: a local sequence-classification checkpoint (config, weights,
tokenizer; ``model.onnx`` runs without torch) read as a text pair, giving P(yes)
(``judges.model_free.cross_encoder``). A panel splits its members on commas, so a folder whose path
holds a comma cannot be a panel member: link it under another name."""
CHECK_NAME_PREFIX = "evaluator:"
"""The judge name of a user's Python check (``CheckJudge``): ``evaluator:CHECK``."""


JudgeKind = Literal["builtin", "auto", "panel", "fitted", "rubric", "rubric-text", "plugin", "check", "cross-encoder"]

_PREFIXED: tuple[tuple[str, JudgeKind], ...] = (
    # The plug-in first: ``python:pkg:panel`` is a plug-in (the catalogue resolved it so before any other word).
    (PLUGIN_PREFIX, "plugin"),
    *((prefix, "panel") for prefix in PANEL_PREFIXES),
    (FITTED_PREFIX, "fitted"),
    (CROSS_ENCODER_PREFIX, "cross-encoder"),
    (RUBRIC_TEXT_PREFIX, "rubric-text"),
    (RUBRIC_PREFIX, "rubric"),
    (CHECK_NAME_PREFIX, "check"),
)
"""Each prefix and the kind it starts; no prefix is another's start, so the order only says precedence."""

OWN_CRITERION_KINDS: frozenset[str] = frozenset({"rubric", "rubric-text", "check", "plugin"})
"""Judges whose "yes" is the user's own criterion's, not the task's (a rubric, a Python check)."""


@dataclass(frozen=True)
class JudgeSpec:
    """A ``--judge`` value (or a judgment's judge name) parsed once.

    ``value`` is the text as given: what is displayed and what caches and outputs are keyed by.
    ``rest`` is what follows the prefix, as given (``""`` for a name without one); ``name`` is the
    judge's own name (a built-in's, ``auto``, a check's, a plug-in's ``module:Factory``); ``path``
    the file or folder of a fitted head, a rubric or a cross-encoder, stripped; ``text`` a one-line
    rubric's criterion, stripped; ``members`` a panel's judges (parsed, blanks dropped) and
    ``combine`` how it joins them (``majority`` or ``mean``).
    """

    value: str
    kind: JudgeKind
    prefix: str = ""
    rest: str = ""
    name: str = ""
    path: str | None = None
    text: str | None = None
    members: tuple[JudgeSpec, ...] = ()
    combine: str | None = None

    @property
    def member_names(self) -> list[str]:
        """A panel's members as written (stripped), in order."""
        return [member.value for member in self.members]

    @property
    def canonical(self) -> str:
        """The value with a panel's blanks dropped (``panel:a, b`` -> ``panel:a,b``): a panel's own name."""
        return self.prefix + ",".join(self.member_names) if self.kind == "panel" else self.value

    @property
    def module(self) -> str:
        """A plug-in's module (``python:MODULE:Factory``); ``""`` when absent."""
        return self.rest.partition(":")[0] if self.kind == "plugin" else ""

    @property
    def attr(self) -> str:
        """A plug-in's attribute path inside its module (``python:module:ATTR``); ``""`` when absent."""
        return self.rest.partition(":")[2] if self.kind == "plugin" else ""

    def holds(self, *kinds: str) -> bool:
        """Whether this judge, or a member of this panel, is of one of ``kinds``."""
        return self.kind in kinds or any(member.holds(*kinds) for member in self.members)

    @property
    def own_criterion(self) -> bool:
        """Whether its "yes" is the user's own criterion's (a rubric or a Python check)."""
        return self.kind in OWN_CRITERION_KINDS


def parse(value: str) -> JudgeSpec:
    """``value`` as a ``JudgeSpec``: the one place a prefix is read off a judge name. Total: a value
    it cannot place is a ``builtin`` name, and a prefix with nothing after it has an empty path or
    name (the catalogue refuses those with its own messages)."""
    value = str(value)
    for prefix, kind in _PREFIXED:
        if not value.startswith(prefix):
            continue
        rest = value[len(prefix):]
        if kind == "panel":
            members = tuple(parse(member.strip()) for member in rest.split(",") if member.strip())
            return JudgeSpec(value, kind, prefix, rest, members=members, combine=PANEL_PREFIXES[prefix])
        if kind in ("fitted", "cross-encoder", "rubric"):
            return JudgeSpec(value, kind, prefix, rest, path=rest.strip())
        if kind == "rubric-text":
            return JudgeSpec(value, kind, prefix, rest, text=rest.strip())
        return JudgeSpec(value, kind, prefix, rest, name=rest)
    return JudgeSpec(value, "auto" if value == AUTO else "builtin", name=value)


def is_panel(spec: str) -> bool:
    """Whether a ``--judge`` value names a panel of judges."""
    return parse(spec).kind == "panel"


__all__ = [
    "AUTO",
    "CHECK_NAME_PREFIX",
    "CROSS_ENCODER_PREFIX",
    "FITTED_PREFIX",
    "OWN_CRITERION_KINDS",
    "PANEL_PREFIXES",
    "PLUGIN_PREFIX",
    "RUBRIC_PREFIX",
    "RUBRIC_TEXT_PREFIX",
    "JudgeKind",
    "JudgeSpec",
    "is_panel",
    "parse",
]
