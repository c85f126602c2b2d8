"""Which judges each evaluation task can use, by the name a user types after ``--judge``.

``build_judge(task, name, settings)`` returns a ready judge; an unknown name is an error that
lists the valid names for that task. Judge classes are imported only when built, so a missing
optional dependency (sentence-transformers for ``semantic``) only matters to whoever asks for it.

Plug-in judges (tests, experiments): ``--judge python:package.module:Factory`` imports
``Factory`` and calls it as ``Factory(settings=settings, **opts)`` when it accepts ``settings``
(else ``Factory(**opts)``); the result must follow the ``Judge`` protocol and accept the task's
item type. ``register_judge`` adds a named entry from Python code.

Adapters let a relevance-style judge (``JudgmentContext``) answer other tasks: for correctness
the answer is the "retrieved" text and each reference the "expected" text (the answer counts as
correct when it matches any reference); for faithfulness the answer is the "expected" text,
looked for in its joined contexts. Adapted judges keep vectorised batches vectorised.

Panels, for any task: ``--judge panel:A,B,C`` combines the registered judges A, B and C of that
task by majority vote (a tie is unscored, never a coin flip); ``--judge panel-mean:A,B,C`` by
the mean of their probabilities (a member's 0/1 label where its value carries none), positive
from 0.5 (``build_judge(..., threshold=T)`` moves it). Members are built with their defaults;
a member's binary label is ``label_of`` its value, a graded (0-3) one counted from grade 2.
Each member's verdict is kept in the panel's value (``rag_agent.panel.Panel``).

Model-free faithfulness: ``support`` (``SupportJudge``: the share of the answer's content
words the context supports) is the one to use without a model; ``token-overlap`` is Evret's
retrieval-matching rule, kept for comparison.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic

from ragjury.config.settings import RagjurySettings, get_settings
from ragjury.rag_agent.items import CorrectnessItem, FaithfulnessItem, JudgmentContext
from ragjury.rag_agent.protocol import BaseJudge, ItemT, Judge, JudgeIdentity, ResultCallback, ValueT
from ragjury.rag_agent.results import Judgment

TASKS: tuple[str, ...] = ("relevance", "correctness", "faithfulness", "score")

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
    """One registry entry: how to build the judge, and what its values mean."""

    task: str
    name: str
    factory: JudgeFactory
    description: str
    scale: str = "binary"
    """``binary`` (bool labels), ``graded`` (0-3 int labels) or ``score`` (float in [0, 1])."""


def label_of(value: object) -> bool | int | float | None:
    """The comparable label of a judgment's value.

    A value with a ``.label`` (binary verdicts: bool, graded relevance: 0-3) gives that; a
    ``JudgeScore`` gives its ``overall_score``; bool/int/float values are used as they are.
    """
    if value is None:
        return None
    if isinstance(value, bool | int | float):
        return value
    label = getattr(value, "label", None)
    if isinstance(label, bool | int | float):
        return label
    overall = getattr(value, "overall_score", None)
    if isinstance(overall, int | float):
        return float(overall)
    for name in ("grade", "score", "relevant", "verdict"):
        attr = getattr(value, name, None)
        if isinstance(attr, bool | int | float):
            return attr
    raise TypeError(f"cannot take a label from a {type(value).__name__} value")


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


def _lazy(module: str, attr: str, *, uses_settings: bool) -> JudgeFactory:
    """A factory that imports ``module.attr`` only when called.

    ``uses_settings``: the class takes ``settings: RagjurySettings`` (the LLM judges). The
    deterministic ones take none (``NonLLMJudge``'s ``settings`` is its own ``NonLLMSettings``),
    so only ``opts`` reach them.
    """

    def factory(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
        target = getattr(importlib.import_module(module), attr)
        return target(settings=settings, **opts) if uses_settings else target(**opts)

    factory.__qualname__ = f"{module}.{attr}"
    return factory


# -- adapters ------------------------------------------------------------------------------


class AdaptedJudge(BaseJudge[ItemT, ValueT], Generic[ItemT, ValueT]):
    """Judge ``ItemT`` items with a judge of ``JudgmentContext`` items.

    ``to_contexts(item)`` gives one or more contexts; the first scored judgment with the highest
    label wins ("matches any reference"), and the item is unscored only when all are.
    """

    def __init__(
        self,
        inner: Judge[JudgmentContext, ValueT],
        to_contexts: Callable[[ItemT], Sequence[JudgmentContext]],
        *,
        adapter: str,
    ) -> None:
        self.inner = inner
        self.to_contexts = to_contexts
        self.adapter = adapter
        self.name = f"{inner.identity.name}[{adapter}]"
        self.concurrency = getattr(inner, "concurrency", 4)

    @property
    def identity(self) -> JudgeIdentity:
        inner = self.inner.identity
        return JudgeIdentity(
            name=self.name, model=inner.model, prompt_version=inner.prompt_version, params=inner.params
        )

    def _combine(self, judgments: Sequence[Judgment[ValueT]]) -> Judgment[ValueT]:
        """The best-labelled scored judgment (costs summed), or unscored when none scored."""
        usage = sum((j.usage for j in judgments[1:]), judgments[0].usage) if judgments else None
        scored = [j for j in judgments if j.scored]
        if not scored:
            reason = judgments[0].unscored_reason if judgments else "no context to judge"
            return self.unscored(reason or "unscored", usage=usage)
        best = max(scored, key=lambda j: _rank(label_of(j.value)))
        return best.model_copy(update={"judge": self.name, "usage": usage or best.usage})

    async def _judge(self, item: ItemT) -> Judgment[ValueT]:
        return self._combine([await self.inner.ajudge(context) for context in self.to_contexts(item)])

    async def ajudge_batch(
        self, items: Sequence[ItemT], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[ValueT]]:
        """All contexts of all items in one inner batch (keeps a vectorised judge vectorised)."""
        spans: list[tuple[int, int]] = []
        flat: list[JudgmentContext] = []
        for item in items:
            contexts = list(self.to_contexts(item))
            spans.append((len(flat), len(flat) + len(contexts)))
            flat.extend(contexts)
        inner = await self.inner.ajudge_batch(flat)
        results = []
        for index, (start, stop) in enumerate(spans):
            judgment = self._combine(inner[start:stop])
            results.append(judgment)
            if on_result is not None:
                on_result(index, judgment)  # type: ignore[arg-type]
        return results


def _rank(label: bool | int | float | None) -> float:
    return float(label) if label is not None else float("-inf")


def correctness_contexts(item: CorrectnessItem) -> list[JudgmentContext]:
    """The answer against each reference: correct when it matches any."""
    return [
        JudgmentContext(query=item.question, retrieved_text=item.answer, expected_text=reference)
        for reference in item.references
    ]


def faithfulness_contexts(item: FaithfulnessItem) -> list[JudgmentContext]:
    """The answer is the text that must be found (``expected_text``) in its joined contexts."""
    return [
        JudgmentContext(
            query=item.question or "", retrieved_text="\n\n".join(item.contexts), expected_text=item.answer
        )
    ]


def _adapted(
    module: str, attr: str, to_contexts: Callable[[Any], Sequence[JudgmentContext]], adapter: str
) -> JudgeFactory:
    inner_factory = _lazy(module, attr, uses_settings=False)

    def factory(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
        return AdaptedJudge(inner_factory(settings, **opts), to_contexts, adapter=adapter)

    return factory


def _correctness_auto(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
    from ragjury.rag_agent.fallback import FallbackJudge

    llm = _lazy("ragjury.rag_agent.verdicts.correctness", "CorrectnessJudge", uses_settings=True)(settings, **opts)
    contains = _lazy("ragjury.rag_agent.deterministic.contains", "ContainsJudge", uses_settings=False)(settings)
    return FallbackJudge(llm, contains)


def _score(choice: str) -> JudgeFactory:
    def factory(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
        from ragjury.rag_agent.factory import score_judge

        return score_judge(choice, settings)  # type: ignore[arg-type]

    return factory


_DET = "ragjury.rag_agent.deterministic"
_VERDICTS = "ragjury.rag_agent.verdicts"

_REGISTRY: dict[str, dict[str, JudgeEntry]] = {task: {} for task in TASKS}


def register_judge(
    task: str, name: str, factory: JudgeFactory, description: str = "", *, scale: str = "binary"
) -> None:
    """Add (or replace) the judge ``name`` for ``task``."""
    if task not in _REGISTRY:
        raise ValueError(f"unknown task '{task}'; valid tasks: {', '.join(TASKS)}")
    _REGISTRY[task][name] = JudgeEntry(task, name, factory, description, scale)


for _name, _module, _attr, _llm, _scale, _desc in (
    (
        "token-overlap",
        f"{_DET}.token_overlap",
        "TokenOverlapJudge",
        False,
        "binary",
        "token overlap, query/passage",
    ),
    ("semantic", f"{_DET}.semantic", "SemanticJudge", False, "binary", "embedding similarity"),
    ("non-llm", f"{_DET}.non_llm", "NonLLMJudge", False, "graded", "deterministic graded relevance 0-3"),
    (
        "llm",
        f"{_VERDICTS}.relevance",
        "RelevanceVerdictJudge",
        True,
        "binary",
        "LLM verdict: relevant or not",
    ),
    (
        "llm-graded",
        f"{_VERDICTS}.relevance",
        "GradedRelevanceJudge",
        True,
        "graded",
        "LLM grade 0-3 (UMBRELA)",
    ),
):
    register_judge("relevance", _name, _lazy(_module, _attr, uses_settings=_llm), _desc, scale=_scale)

register_judge(
    "correctness",
    "contains",
    _lazy(f"{_DET}.contains", "ContainsJudge", uses_settings=False),
    "a reference occurs in the answer",
)
register_judge(
    "correctness",
    "llm",
    _lazy(f"{_VERDICTS}.correctness", "CorrectnessJudge", uses_settings=True),
    "LLM verdict",
)
register_judge("correctness", "auto", _correctness_auto, "LLM verdict, 'contains' when the model fails")
register_judge(
    "correctness",
    "token-overlap",
    _adapted(f"{_DET}.token_overlap", "TokenOverlapJudge", correctness_contexts, "correctness"),
    "token overlap of answer and a reference",
)
register_judge(
    "correctness",
    "semantic",
    _adapted(f"{_DET}.semantic", "SemanticJudge", correctness_contexts, "correctness"),
    "embedding similarity of answer and a reference",
)
register_judge(
    "faithfulness",
    "llm",
    _lazy(f"{_VERDICTS}.faithfulness", "FaithfulnessJudge", uses_settings=True),
    "LLM claim check",
)
register_judge(
    "faithfulness",
    "llm-attribution",
    _lazy(f"{_VERDICTS}.attribution", "AttributionJudge", uses_settings=True),
    "LLM verdict on the whole answer, P(supported) from one token",
)
register_judge(
    "faithfulness",
    "token-overlap",
    _adapted(f"{_DET}.token_overlap", "TokenOverlapJudge", faithfulness_contexts, "faithfulness"),
    "token overlap of answer and context",
)
register_judge(
    "faithfulness",
    "support",
    _lazy(f"{_DET}.support", "SupportJudge", uses_settings=False),
    "model-free default: share of the answer's content words the context supports",
)
register_judge("score", "llm", _score("llm"), "JudgeLLM, five dimensions", scale="score")
register_judge("score", "deterministic", _score("deterministic"), "heuristic JudgeScore", scale="score")
register_judge("score", "auto", _score("auto"), "JudgeLLM, heuristic when the model fails", scale="score")


def judge_names(task: str) -> list[str]:
    """The ``--judge`` names valid for ``task``."""
    if task not in _REGISTRY:
        raise ValueError(f"unknown task '{task}'; valid tasks: {', '.join(TASKS)}")
    return list(_REGISTRY[task])


def judge_entry(task: str, name: str) -> JudgeEntry:
    """The registry entry of ``name`` for ``task`` (plug-ins get an ad-hoc entry)."""
    if name.startswith(PLUGIN_PREFIX):
        return JudgeEntry(task, name, _plugin_factory(name), "plug-in judge", "binary")
    if name.startswith(tuple(PANEL_PREFIXES)):
        return _panel_entry(task, name)
    entries = _REGISTRY.get(task)
    if entries is None:
        raise UnknownJudgeError(f"unknown task '{task}'; valid tasks: {', '.join(TASKS)}")
    if name not in entries:
        raise UnknownJudgeError(
            f"unknown judge '{name}' for task {task}; valid judges: {', '.join(entries)}"
            f" (or {PLUGIN_PREFIX}module:Factory; {PANEL_HINT})"
        )
    return entries[name]


def _panel_entry(task: str, spec: str) -> JudgeEntry:
    """``panel:A,B,C`` / ``panel-mean:A,B,C``: every member checked now, built with the panel."""
    if task not in _REGISTRY:
        raise UnknownJudgeError(f"unknown task '{task}'; valid tasks: {', '.join(TASKS)}")
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
        from ragjury.rag_agent.panel import Panel, binarizer

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
    """``name: description`` lines for ``--help`` texts."""
    named = "; ".join(f"{e.name} ({e.description})" for e in _REGISTRY[task].values())
    return f"{named}; {PANEL_HINT}"


__all__ = [
    "PANEL_PREFIXES",
    "TASKS",
    "AdaptedJudge",
    "JudgeEntry",
    "UnknownJudgeError",
    "build_judge",
    "construct",
    "correctness_contexts",
    "describe",
    "faithfulness_contexts",
    "judge_entry",
    "judge_names",
    "label_of",
    "register_judge",
]
