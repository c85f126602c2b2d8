"""Resolve the name a user types after ``--judge`` for a task into a ready judge.

The judges themselves are declared beside their classes (``rag_agent.catalogue.judge_entry``);
this module adds what is not one class: plug-ins, panels and entries registered from Python.
``build_judge(task, name, settings)`` returns a ready judge; an unknown name is an error that
lists the valid names for that task. Judge modules are imported only when built, so a missing
optional dependency (sentence-transformers for ``semantic``) only matters to whoever asks for it.

Plug-in judges (tests, experiments): ``--judge python:package.module:Factory`` imports
``Factory`` and calls it as ``Factory(settings=settings, **opts)`` when it accepts ``settings``
(else ``Factory(**opts)``); the result must follow the ``Judge`` protocol and accept the task's
item type. ``register_judge`` adds a named entry from Python code.

Panels, for any task: ``--judge panel:A,B,C`` combines the judges A, B and C of that task by
majority vote (a tie is unscored, never a coin flip); ``--judge panel-mean:A,B,C`` by the mean
of their probabilities (a member's 0/1 label where its value carries none), positive from 0.5
(``build_judge(..., threshold=T)`` moves it). Members are built with their defaults; a member's
binary label is its value's label, a graded (0-3) one counted from grade 2. Each member's
verdict is kept in the panel's value (``rag_agent.panel.Panel``).

Model-free faithfulness: ``support`` (``SupportJudge``: the share of the answer's content
words the context supports) is the one to use without a model; ``token-overlap`` is Evret's
retrieval-matching rule, kept for comparison.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ragjury.config.settings import RagjurySettings, get_settings
from ragjury.rag_agent.core.protocol import Judge
from ragjury.rag_agent.judges import catalogue

JudgeFactory = Callable[..., Judge[Any, Any]]
"""``factory(settings, **opts) -> Judge``."""

PLUGIN_PREFIX = "python:"
PANEL_PREFIXES: dict[str, str] = {"panel:": "majority", "panel-mean:": "mean"}
"""``--judge panel:A,B,C`` (majority vote) and ``panel-mean:A,B,C`` (mean probability)."""
PANEL_HINT = "panel:A,B,C for a majority of judges, panel-mean:A,B,C for their mean probability"


class UnknownJudgeError(ValueError):
    """The ``--judge`` name is not valid for the task; the message lists those that are."""


@dataclass(frozen=True)
class JudgeEntry:
    """One resolved ``--judge`` name: how to build the judge, and what its values mean."""

    task: str
    name: str
    factory: JudgeFactory
    description: str
    scale: str = "binary"
    """``binary`` (bool labels), ``graded`` (0-3 int labels) or ``score`` (float in [0, 1])."""


def tasks() -> list[str]:
    """Every task some judge is declared for."""
    return catalogue.tasks()


def construct(factory: Callable[..., Any], settings: RagjurySettings, **opts: Any) -> Any:
    """Call ``factory`` with ``settings`` when it takes that parameter, and with ``opts``."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return factory(settings=settings, **opts)
    accepts_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    if "settings" in params or accepts_any:
        return factory(settings=settings, **opts)
    return factory(**opts)


def register_judge(
    task: str, name: str, factory: JudgeFactory, description: str = "", *, scale: str = "binary"
) -> None:
    """Add (or replace) the judge ``name`` for ``task`` from Python code (``factory(settings, **opts)``)."""
    if task not in catalogue.tasks():
        raise ValueError(f"unknown task '{task}'; valid tasks: {', '.join(catalogue.tasks())}")

    def built(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
        return construct(factory, settings, **opts)  # type: ignore[no-any-return]

    built.__qualname__ = getattr(factory, "__qualname__", name)
    catalogue.register(task, name, built, description, scale=scale, takes_settings=True)  # type: ignore[arg-type]


def _check_task(task: str) -> None:
    if task not in catalogue.tasks():
        raise UnknownJudgeError(f"unknown task '{task}'; valid tasks: {', '.join(catalogue.tasks())}")


def judge_names(task: str) -> list[str]:
    """The ``--judge`` names valid for ``task`` (plug-ins and panels apart)."""
    _check_task(task)
    return catalogue.names(task)


def _catalogued(task: str, name: str) -> JudgeEntry:
    """A catalogue name (``auto`` included) as a resolved entry; its module is imported now."""
    if name == catalogue.AUTO:
        default = catalogue.default_name(task)
        primary = catalogue.entry(task, default) if default is not None else None
        if primary is None:
            raise KeyError((task, name))
        fallback = f", '{primary.fallback}' when the model fails" if primary.fallback else ""
        description, scale = f"{primary.description}{fallback}", primary.scale
    else:
        found = catalogue.entry(task, name)
        description, scale = found.description, found.scale

    def factory(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
        return catalogue.build(task, name, settings, **opts)

    return JudgeEntry(task, name, factory, description, scale)


def judge_entry(task: str, name: str) -> JudgeEntry:
    """The entry of ``name`` for ``task``: a catalogue judge, a plug-in or a panel."""
    if name.startswith(PLUGIN_PREFIX):
        return JudgeEntry(task, name, _plugin_factory(name), "plug-in judge", "binary")
    if name.startswith(tuple(PANEL_PREFIXES)):
        return _panel_entry(task, name)
    _check_task(task)
    try:
        return _catalogued(task, name)
    except KeyError:
        raise UnknownJudgeError(
            f"unknown judge '{name}' for task {task}; valid judges: {', '.join(judge_names(task))}"
            f" (or {PLUGIN_PREFIX}module:Factory; {PANEL_HINT})"
        ) from None


def _panel_entry(task: str, spec: str) -> JudgeEntry:
    """``panel:A,B,C`` / ``panel-mean:A,B,C``: every member checked now, built with the panel."""
    _check_task(task)
    prefix = next(p for p in PANEL_PREFIXES if spec.startswith(p))
    combine = PANEL_PREFIXES[prefix]
    members = [member.strip() for member in spec[len(prefix) :].split(",") if member.strip()]
    if len(members) < 2:
        raise UnknownJudgeError(
            f"panel '{spec}' needs at least two judges of task {task}, comma-separated"
            f" ({PANEL_HINT}); valid judges: {', '.join(judge_names(task))}"
        )
    if len(set(members)) != len(members):
        raise UnknownJudgeError(f"panel '{spec}' names a judge twice; each member must differ")
    nested = [member for member in members if member.startswith(tuple(PANEL_PREFIXES))]
    if nested:
        raise UnknownJudgeError(f"panel '{spec}': a panel cannot contain a panel ({nested[0]})")
    entries = [judge_entry(task, member) for member in members]  # an unknown member fails here
    name = prefix + ",".join(members)

    def factory(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
        from ragjury.rag_agent.core.labels import binarizer
        from ragjury.rag_agent.judges.combined.panel import Panel

        unknown = set(opts) - {"threshold"}
        if unknown:
            raise UnknownJudgeError(
                f"panel '{name}' takes only threshold=...; its members are built with their"
                f" defaults (got {', '.join(sorted(unknown))})"
            )
        return Panel(
            [entry.factory(settings) for entry in entries],
            combine=combine,  # type: ignore[arg-type]
            names=members,
            binarize=[binarizer(entry.scale) for entry in entries],
            name=name,
            **opts,
        )

    what = "majority" if combine == "majority" else "mean probability"
    return JudgeEntry(task, name, factory, f"{what} of {', '.join(members)}", "binary")


def _plugin_factory(spec: str) -> JudgeFactory:
    target = spec[len(PLUGIN_PREFIX) :]
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise UnknownJudgeError(
            f"plug-in judge '{spec}' must look like {PLUGIN_PREFIX}package.module:Factory"
        )

    def factory(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
        try:
            obj: Any = importlib.import_module(module_name)
            for part in attr.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError) as error:
            raise UnknownJudgeError(f"cannot load plug-in judge '{spec}': {error}") from None
        return construct(obj, settings, **opts)

    return factory


def build_judge(
    task: str, name: str, settings: RagjurySettings | None = None, **opts: Any
) -> Judge[Any, Any]:
    """The judge ``name`` for ``task``, built with ``settings`` (model, base URL, ...)."""
    entry = judge_entry(task, name)
    judge = entry.factory(settings or get_settings(), **opts)
    if not isinstance(judge, Judge):
        raise UnknownJudgeError(f"'{name}' did not build a judge (got {type(judge).__name__})")
    return judge


def describe(task: str) -> str:
    """``name (description)`` for ``--help`` texts, read from the judges' source (nothing imported)."""
    declared = catalogue.declared()
    named = [f"{name} ({declared[(t, name)].description})" for (t, name) in declared if t == task]
    default = catalogue.default_name(task)
    if default is not None:
        named.append(f"{catalogue.AUTO} ({default}, with its fallback)")
    return f"{'; '.join(named)}; {PANEL_HINT}"


__all__ = [
    "PANEL_PREFIXES",
    "PLUGIN_PREFIX",
    "JudgeEntry",
    "UnknownJudgeError",
    "build_judge",
    "construct",
    "describe",
    "judge_entry",
    "judge_names",
    "register_judge",
    "tasks",
]
