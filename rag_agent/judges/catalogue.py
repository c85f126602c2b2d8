"""The one place a ``--judge`` name becomes a judge: declared judges, ``auto``, panels, plug-ins.

Judges declare themselves with ``@judge_entry`` beside their class (``rag_agent.core.judge_entry``),
so adding a judge is one new file. The catalogue first reads those decorators from the judge
packages' source text, so listings and ``--help`` import no judge module (nor pydantic-ai), and
imports only the module of the judge asked for. Every door (CLI, evals, Python API) resolves here.
"""

from __future__ import annotations

import ast
import importlib
import sys
import inspect
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragjury.rag_agent.core import judge_entry as declarations
from ragjury.rag_agent.core.judge_entry import CatalogueEntry
from ragjury.rag_agent.core.judge_spec import (
    AUTO,
    CROSS_ENCODER_PREFIX,
    FITTED_PREFIX,
    PANEL_PREFIXES,
    PLUGIN_PREFIX,
    RUBRIC_PREFIX,
    JudgeSpec,
    parse,
)
from ragjury.rag_agent.core.labels import binarizer
from ragjury.rag_agent.core.source_declarations import literal_calls

if TYPE_CHECKING:
    from ragjury.config.settings import RagjurySettings
    from ragjury.rag_agent.core.protocol import Judge

JUDGE_PACKAGES: tuple[str, ...] = ("ragjury.rag_agent.judges.model_free", "ragjury.rag_agent.judges.llm")
"""Packages whose modules may declare judges (model-free names are listed first)."""

PANEL_HINT = "panel:A,B,C for a majority of judges, panel-mean:A,B,C for their mean probability"
TASK_ORDER: tuple[str, ...] = ("relevance", "correctness", "faithfulness", "score", "goal")
"""How listings order the tasks; a task only a new judge declares comes after these."""

JUDGE_RULE = (
    "auto (the default of evaluate, verdict, judge-evaluate and ask) is the task's default LLM judge (*) "
    "with its model-free judge answering each item the model fails on, counted as fallback_used; any "
    "name is that judge alone and never falls back (a failed item is unscored), and a model-free one "
    "never calls a model. A model name or base URL the server refuses stops every one of them (exit 2)."
)
"""The one statement of defaults and fallback: ``ragjury judges`` prints it, docs quote it."""

JudgeFactory = Callable[..., "Judge[Any, Any]"]
"""``factory(settings, **opts) -> Judge``."""


class UnknownJudgeError(ValueError):
    """The ``--judge`` name is not valid for the task; the message lists those that are."""


# -- what the source text declares ---------------------------------------------------------------


@dataclass(frozen=True)
class Declaration:
    """What the source text says of one judge, read without importing its module."""

    module: str
    description: str
    default: bool
    scale: str = "binary"
    uses_model: bool = False
    fallback: str | None = None
    adapt: str | None = None
    uses_embeddings: bool = False
    aliases: tuple[str, ...] = ()
    """Retired names that still resolve to this judge; listings show the name only."""


def _declarations(source: str, module: str) -> Iterator[tuple[tuple[str, str], Declaration]]:
    """Every ``@judge_entry("task", "name", "description", ...)`` with literal arguments."""
    for literal, keywords in literal_calls(source, "judge_entry"):
        if len(literal) < 2 or not isinstance(literal[0], str) or not isinstance(literal[1], str):
            continue
        task, name = literal[0], literal[1]
        description = literal[2] if len(literal) > 2 else keywords.get("description", "")
        aliases = keywords.get("aliases")
        yield (task, name), Declaration(
            module,
            str(description or ""),
            bool(keywords.get("default")),
            str(keywords.get("scale") or "binary"),
            bool(keywords.get("uses_model")),
            keywords.get("fallback") if isinstance(keywords.get("fallback"), str) else None,
            keywords.get("adapt") if isinstance(keywords.get("adapt"), str) else None,
            bool(keywords.get("uses_embeddings")),
            tuple(a for a in aliases if isinstance(a, str)) if isinstance(aliases, tuple | list) else (),
        )


@cache
def declared() -> dict[tuple[str, str], Declaration]:
    """``(task, name) -> Declaration`` of every judge in the judge packages (source read, nothing imported)."""
    root = Path(__file__).resolve().parents[2]  # the ragjury package folder
    index: dict[tuple[str, str], Declaration] = {}
    for package in JUDGE_PACKAGES:
        for path in sorted(root.joinpath(*package.split(".")[1:]).glob("*.py")):
            source = path.read_text(encoding="utf-8")
            if path.stem == "__init__" or "@judge_entry(" not in source:
                continue
            module = f"{package}.{path.stem}"
            for key, declaration in _declarations(source, module):
                if key in index and index[key].module != module:
                    # one broken drop-in must not break every command: the first declaration stays
                    _problem(f"{path}: judge '{key[1]}' of task {key[0]} is already declared in "
                             f"{index[key].module}; this one is ignored (rename it)")
                    continue
                index[key] = declaration
    from ragjury.rag_agent.tasks.catalogue import declared as declared_tasks

    known = declared_tasks()
    for (task, name), declaration in list(index.items()):
        if task not in known:  # a judge no command could ever call: said, not silently listed
            _problem(f"{declaration.module.replace('ragjury.', '').replace('.', '/')}.py: judge '{name}' declares "
                     f"task '{task}', which no @task_entry declares (tasks: {', '.join(known)}); it is left out")
            del index[(task, name)]
    return index


_SAID: set[str] = set()


def _problem(message: str) -> None:
    """A drop-in judge file the catalogue cannot use: said once per process on stderr, one line
    naming the file, while the rest of the catalogue keeps working."""
    if message not in _SAID:
        _SAID.add(message)
        sys.stderr.write(f"ragjury: {message}\n")


def current_name(task: str, name: str) -> str:
    """The name a judge of ``task`` answers to now, when ``name`` is one of its retired aliases
    (``deterministic`` -> ``heuristic`` for score); ``name`` itself otherwise. Read, not imported."""
    if (task, name) in declared() or (task, name) in declarations.ENTRIES:
        return name
    for (t, current), declaration in declared().items():
        if t == task and name in declaration.aliases:
            return current
    for (t, current), found in declarations.ENTRIES.items():
        if t == task and name in found.aliases:
            return current
    return name


def declared_model_free(task: str, name: str) -> bool:
    """Whether the source declares ``name`` a judge of ``task`` that calls no model (read, not
    imported); False for anything it does not declare (a panel, a plug-in)."""
    found = declared().get((task, current_name(task, name)))
    return found is not None and not found.uses_model


def one_token_path(task: str, spec: JudgeSpec) -> bool:
    """Whether a calibration of ``spec`` puts it on the one-token (logprobs) path it is fitted on:
    not a panel (its members keep their defaults), a cross-encoder (P(yes) as it is) or a judge
    that calls no model. Read from the source text: nothing imported."""
    return spec.kind not in ("panel", "cross-encoder") and not declared_model_free(task, spec.value)


def tasks() -> list[str]:
    """Every task some judge declares."""
    found = {task for task, _ in declared()} | {task for task, _ in declarations.ENTRIES}
    return [t for t in TASK_ORDER if t in found] + sorted(found - set(TASK_ORDER))


def default_name(task: str) -> str | None:
    """The task's default judge, the one ``auto`` is built on; ``None`` when none is marked."""
    return next((name for (t, name), d in declared().items() if t == task and d.default), None)


def names(task: str) -> list[str]:
    """The ``--judge`` names of ``task`` (``auto`` included where the task has a default judge)."""
    found = [name for t, name in declared() if t == task]
    found += [name for t, name in declarations.ENTRIES if t == task and name not in found]
    return [*found, AUTO] if found and default_name(task) is not None else found


judge_names = names


def entry(task: str, name: str) -> CatalogueEntry:
    """The entry of a declared judge (its module imported now), by its name or a retired alias;
    ``KeyError`` when undeclared."""
    name = current_name(task, name)
    key = (task, name)
    if key not in declarations.ENTRIES:
        declaration = declared().get(key)
        if declaration is None:
            raise KeyError(key)
        try:
            importlib.import_module(declaration.module)
        except (ImportError, SyntaxError) as error:
            where = declaration.module.replace("ragjury.", "").replace(".", "/") + ".py"
            raise UnknownJudgeError(f"{where}: judge '{name}' of task {task} cannot be loaded: "
                                    f"{type(error).__name__}: {error}") from None
        if key not in declarations.ENTRIES:
            raise KeyError(f"{declaration.module} names judge '{name}' of task {task} but did not register it")
    return declarations.ENTRIES[key]


def entries(task: str) -> list[CatalogueEntry]:
    """Every declared entry of ``task`` (imports their modules: for listings, not for ``--help``)."""
    return [entry(task, name) for t, name in declared() if t == task]


@cache
def _identity_names(module: str) -> dict[tuple[str, str], str]:
    """``(task, name) -> the class's own ``name = "..."``, for each ``@judge_entry`` class of
    ``module`` whose body sets it literally: read from the source, the module is not imported."""
    root = Path(__file__).resolve().parents[2]
    path = root.joinpath(*module.split(".")[1:]).with_suffix(".py")
    found: dict[tuple[str, str], str] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ClassDef) or (own := _literal_name(node)) is None:
            continue
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", None) == "judge_entry":
                literal = [arg.value for arg in decorator.args[:2] if isinstance(arg, ast.Constant)]
                if len(literal) == 2:
                    found[(literal[0], literal[1])] = own
    return found


def _literal_name(node: ast.ClassDef) -> str | None:
    """The string a class body assigns to ``name`` (``name = "contains"``), or None."""
    for statement in node.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
        value = getattr(statement, "value", None)
        if any(isinstance(t, ast.Name) and t.id == "name" for t in targets) and isinstance(value, ast.Constant):
            return value.value if isinstance(value.value, str) else None
    return None


def catalogue_names(task: str) -> dict[str, str]:
    """Judge identity name -> the ``--judge`` name it answers to in ``task``: ``answer_correctness``
    -> ``llm``, ``token_overlap[correctness]`` -> ``token-overlap``, ``deterministic_score`` ->
    ``heuristic``. Read from the judges' source (a model-free run imports no LLM judge); only
    a judge whose class does not set its ``name`` literally is imported to ask it."""
    names: dict[str, str] = {}
    for (t, name), declaration in declared().items():
        if t != task:
            continue
        loaded = declarations.ENTRIES.get((t, name))  # imported already, or registered from code
        if loaded is not None:
            own = getattr(loaded.target, "name", None)
        else:
            own = _identity_names(declaration.module).get((t, name))
        if own is None:
            try:
                own = getattr(entry(task, name).target, "name", None)
            except (KeyError, ImportError):  # an optional extra's judge: its name stays as it is
                continue
        if isinstance(own, str) and own:
            names.setdefault(f"{own}[{declaration.adapt}]" if declaration.adapt else own, name)
    for (t, name), found in list(declarations.ENTRIES.items()):
        own = getattr(found.target, "name", None)
        if t == task and (t, name) not in declared() and isinstance(own, str) and own:
            names.setdefault(f"{own}[{found.adapt}]" if found.adapt else own, name)
    return names


def catalogue_name(task: str | None, judge: str) -> str:
    """The name the user typed for the judge whose judgments say ``judge`` (the name itself where
    none matches: a plug-in, a panel, a task the catalogue does not know)."""
    if not task:
        return judge
    task = "relevance" if task == "relevance_graded" else task
    try:
        return catalogue_names(task).get(judge, judge)
    except UnknownJudgeError:
        return judge


def typed_names(task: str | None, stored: Iterable[str]) -> dict[str, str]:
    """``catalogue_name`` of each distinct name in ``stored`` (the judgments' ``judge``), the
    catalogue read once: for verdicts whose ``--judge`` name was not kept beside them."""
    stored = list(dict.fromkeys(stored))
    if not task or not stored:
        return {name: name for name in stored}
    task = "relevance" if task == "relevance_graded" else task
    try:
        known = catalogue_names(task)
    except UnknownJudgeError:
        known = {}
    return {name: known.get(name, name) for name in stored}


def verdict_names(task: str, name: str) -> tuple[str | None, str | None]:
    """What ``--judge name``'s verdicts are called for people, read forward from the declarations
    (no judge imported): a declared judge's ``name`` itself; for ``auto``, the default judge's
    name and, for the verdicts its fallback gave, the fallback's (``llm``, ``contains``); None
    for a panel, a plug-in or a fitted head, whose judgments' own names say it. A run stores
    them in its predictions, so a report never looks a judgment's name up here."""
    task = "relevance" if task == "relevance_graded" else task
    name = current_name(task, name)
    if name != AUTO:
        return (name, None) if (task, name) in declared() or (task, name) in declarations.ENTRIES else (None, None)
    default = default_name(task)
    if default is None:
        return None, None
    declaration = declared().get((task, default))
    return default, declaration.fallback if declaration is not None else None


def judge_names_help(task_names: Sequence[str]) -> str:
    """The ``--judge`` help of a command serving several tasks, from the same declarations:
    ``correctness: a, b, auto; faithfulness: ...``, then what every task accepts."""
    per_task = "; ".join(f"{task}: {', '.join(names(task))}" for task in task_names)
    return (f"{per_task}; any task: panel:A,B,C (majority), panel-mean:A,B,C (mean probability), "
            f"{PLUGIN_PREFIX}module:Name (your judge class or check); relevance, correctness, faithfulness: "
            f"{CROSS_ENCODER_PREFIX}DIR (a local classifier folder).")


# -- building ------------------------------------------------------------------------------------


def construct(factory: Callable[..., Any], settings: RagjurySettings, **opts: Any) -> Any:
    """Call ``factory`` with ``settings`` when it takes that parameter, and with ``opts``."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return factory(settings=settings, **opts)
    if "settings" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return factory(settings=settings, **opts)
    return factory(**opts)


def _build_declared(task: str, name: str, settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
    found = entry(task, name)
    judge = found.target(settings=settings, **opts) if found.takes_settings else found.target(**opts)
    if found.adapt is not None:
        from ragjury.rag_agent.judges.combined.adapted import adapted

        judge = adapted(judge, found.adapt)
    return judge  # type: ignore[no-any-return]


def fallback_of(task: str, name: str, settings: RagjurySettings) -> Judge[Any, Any] | None:
    """The model-free judge declared as ``name``'s fallback, built with its defaults and seen
    through the class's ``view_fallback`` where it offers one (so its values have the primary's
    type: a ``bool`` seen as a ``Verdict``); ``None`` when ``name`` has none."""
    found = entry(task, name)
    if found.fallback is None:
        return None
    fallback = _build_declared(task, found.fallback, settings)
    view = getattr(found.target, "view_fallback", None)
    return view(fallback) if view is not None else fallback  # type: ignore[no-any-return]


def with_fallback(task: str, name: str, settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
    """``name`` with its fallback standing in where it fails (``name`` alone when it has none)."""
    primary = _build_declared(task, name, settings, **opts)
    fallback = fallback_of(task, name, settings)
    if fallback is None:
        return primary
    from ragjury.rag_agent.judges.combined.fallback import FallbackJudge

    return FallbackJudge(primary, fallback)


RETIRED_CHOICE = "deterministic"
"""A one-item door's retired word for "the model-free judge ``auto`` falls back to" (issue #30):
still accepted, no longer listed; that judge's own name (``contains``, ``heuristic``) says it."""


def build_choice(task: str, name: str, choice: str | JudgeSpec, settings: RagjurySettings,
                 **opts: Any) -> Judge[Any, Any]:
    """``name`` as a one-item door offers it: ``llm`` the judge itself, ``auto`` the judge with its
    declared model-free fallback, and any other judge name of the task (``support``,
    ``contains``, a panel, a plug-in) as ``evaluate`` builds it -- seen through ``name``'s value
    type where ``name`` offers a view (its fallback alone included), so it prints alike. ``choice``:
    the command's ``--judge`` parsed once (a ``JudgeSpec``), or its words (parsed here, once)."""
    spec = choice if isinstance(choice, JudgeSpec) else parse(choice)
    choice = spec.value
    if choice == RETIRED_CHOICE and current_name(task, choice) == choice:
        choice = entry(task, name).fallback or ""
        if not choice:
            raise UnknownJudgeError(f"no model-free judge exists for {task}; use --judge llm or auto")
        spec = parse(choice)  # the fallback's own name, not the words given
    if current_name(task, choice) != choice:  # a retired name: today's
        choice = current_name(task, choice)
        spec = parse(choice)
    if choice not in ("llm", AUTO):
        if spec.kind == "plugin":
            return build_judge(task, spec, settings)
        chosen = resolve(task, spec)
        other = chosen.build(settings, **_model_opts(task, choice, opts))
        if choice == entry(task, name).fallback:  # the fallback alone: as ``auto`` shows it
            view = getattr(entry(task, name).target, "view_fallback", None)
            return view(other) if view is not None else other  # type: ignore[no-any-return]
        return other
    if choice == "llm":
        return _build_declared(task, name, settings, **opts)
    return with_fallback(task, name, settings, **opts)


def _model_opts(task: str, name: str, opts: dict[str, Any]) -> dict[str, Any]:
    """The one-item door's options (``samples``, the LLM verdict's ``threshold``) go to a judge
    that calls a model; a model-free judge keeps its own fitted cut-off."""
    uses_model = declared().get((task, current_name(task, name)), Declaration("", "", False)).uses_model
    return opts if uses_model else {}


@dataclass(frozen=True)
class Resolved:
    """A ``--judge`` name resolved for a task: how to build it and what its values mean."""

    task: str
    name: str
    factory: JudgeFactory
    description: str
    scale: str = "binary"
    """``binary`` (bool labels), ``graded`` (0-3 int labels) or ``score`` (float in [0, 1])."""
    uses_model: bool = False
    verdict_names: tuple[str | None, str | None] = (None, None)
    """What its verdicts are called (``verdict_names``), answered with the rest when resolved, so a
    run asks the catalogue once: the name, and for ``auto`` its fallback's; None where the
    judgments' own names say it (a panel, a plug-in, a fitted head)."""

    def build(self, settings: RagjurySettings | None = None, **opts: Any) -> Judge[Any, Any]:
        from ragjury.config.settings import get_settings
        from ragjury.rag_agent.core.protocol import Judge

        judge = self.factory(settings or get_settings(), **opts)
        if not isinstance(judge, Judge):
            raise UnknownJudgeError(
                f"'{self.name}' is not a judge: it built a {type(judge).__name__}, which lacks a judge's "
                "'identity' attribute and 'ajudge()' method (see 'Your own judge' in docs/python-api.md)"
            )
        return judge


def _check_task(task: str) -> None:
    if task not in tasks():
        raise UnknownJudgeError(f"unknown task '{task}'; valid tasks: {', '.join(tasks())}")


def resolve(task: str, name: str | JudgeSpec) -> Resolved:
    """What ``--judge name`` means for ``task``: a declared judge, ``auto``, a panel or a plug-in;
    an unknown name is an ``UnknownJudgeError`` listing the valid ones. A command gives the
    ``JudgeSpec`` it parsed once; a string (the Python door) is parsed here."""
    spec = name if isinstance(name, JudgeSpec) else parse(name)
    name = spec.value
    if spec.kind == "plugin":
        return Resolved(task, name, _plugin_factory(spec, task), "plug-in judge", "binary")
    _check_task(task)
    if spec.kind == "panel":
        return _panel(task, spec)
    if spec.kind == "fitted":
        return _fitted(task, spec)
    if spec.kind == "cross-encoder":
        return _cross_encoder(task, spec)
    if spec.kind in ("rubric", "rubric-text"):
        return _rubric(task, spec)
    name = current_name(task, name)
    try:
        if name == AUTO:
            default = default_name(task)
            if default is None:
                raise KeyError((task, name))
            primary = entry(task, default)
            fallback = f", '{primary.fallback}' when the model fails" if primary.fallback else ""
            return Resolved(task, name, lambda settings, **opts: with_fallback(task, default, settings, **opts),
                            f"{primary.description}{fallback}", primary.scale, primary.uses_model,
                            verdict_names(task, name))
        found = entry(task, name)
    except KeyError:
        raise UnknownJudgeError(
            f"unknown judge '{name}' for task {task}; valid judges: {', '.join(names(task))}"
            f" (or {PLUGIN_PREFIX}module:Factory; {PANEL_HINT})"
        ) from None
    return Resolved(task, name, lambda settings, **opts: _build_declared(task, name, settings, **opts),
                    found.description, found.scale, found.uses_model, verdict_names(task, name))


def build_judge(task: str, name: str | JudgeSpec, settings: RagjurySettings | None = None,
                **opts: Any) -> Judge[Any, Any]:
    """The judge ``name`` for ``task``, built with ``settings`` (model, base URL, ...) and ``opts``."""
    return resolve(task, name).build(settings, **opts)


def _panel(task: str, parsed: JudgeSpec) -> Resolved:
    """``panel:A,B,C`` / ``panel-mean:A,B,C``: every member checked now, built with the panel."""
    spec, combine, members = parsed.value, parsed.combine, parsed.member_names
    if len(members) < 2:
        raise UnknownJudgeError(
            f"panel '{spec}' needs at least two judges of task {task}, comma-separated"
            f" ({PANEL_HINT}); valid judges: {', '.join(names(task))}"
        )
    if len(set(members)) != len(members):
        raise UnknownJudgeError(f"panel '{spec}' names a judge twice; each member must differ")
    nested = [member.value for member in parsed.members if member.kind == "panel"]
    if nested:
        raise UnknownJudgeError(f"panel '{spec}': a panel cannot contain a panel ({nested[0]})")
    parts = [resolve(task, member) for member in parsed.members]  # parsed with the panel; an unknown member fails here
    name = parsed.canonical

    def factory(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
        from ragjury.rag_agent.judges.combined.panel import Panel

        unknown = set(opts) - {"threshold"}
        if unknown:
            raise UnknownJudgeError(
                f"panel '{name}' takes only threshold=...; its members are built with their"
                f" defaults (got {', '.join(sorted(unknown))})"
            )
        return Panel(
            [part.build(settings) for part in parts],
            combine=combine,  # type: ignore[arg-type]
            names=members,
            binarize=[binarizer(part.scale) for part in parts],
            name=name,
            **opts,
        )

    what = "majority" if combine == "majority" else "mean probability"
    return Resolved(task, name, factory, f"{what} of {', '.join(members)}", "binary",
                    any(part.uses_model for part in parts))


def _fitted(task: str, parsed: JudgeSpec) -> Resolved:
    """``fitted:HEAD.json``: the head is read and checked now, so a wrong file fails before judging."""
    from ragjury.rag_agent.judges.model_free.fitted import FittedJudge, HeadError, load_head

    spec, path = parsed.value, parsed.path or ""
    if not path:
        raise UnknownJudgeError(f"'{spec}' names no head file: use {FITTED_PREFIX}HEAD.json (written by `ragjury fit`)")
    try:
        head = load_head(path, task)
    except HeadError as error:
        raise UnknownJudgeError(str(error)) from None

    if task == "relevance":
        def relevance_factory(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
            from ragjury.rag_agent.judges.combined.fitted_relevance import FittedRelevanceJudge

            try:
                return FittedRelevanceJudge(path, settings, threshold=opts.get("threshold"))
            except HeadError as error:
                raise UnknownJudgeError(str(error)) from None

        return Resolved(task, spec, relevance_factory, f"a head fitted on {head.n} labels ({head.fitted_on}) over "
                        f"{', '.join(head.features)}", "binary", uses_model="llm_logit" in head.features)

    def factory(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
        del settings  # model-free signals: no model settings
        return FittedJudge(path, task=task, **opts)

    return Resolved(task, spec, factory, f"a head fitted on {head.n} labels ({head.fitted_on})", "binary")


def _cross_encoder(task: str, parsed: JudgeSpec) -> Resolved:
    """``cross-encoder:DIR``: the folder is read, loaded and run once on a probe pair now, so a
    folder whose files do not load fails before judging (one line naming the file)."""
    from ragjury.rag_agent.judges.model_free.cross_encoder import (
        CrossEncoderError,
        CrossEncoderJudge,
        load_cross_encoder,
    )

    spec, folder = parsed.value, parsed.path or ""
    if not folder:
        raise UnknownJudgeError(f"'{spec}' names no folder: use {CROSS_ENCODER_PREFIX}DIR (config.json, weights "
                                "and tokenizer.json, as save_pretrained or `ragjury train` writes them)")
    try:
        model = load_cross_encoder(folder, task=task)
    except CrossEncoderError as error:
        raise UnknownJudgeError(str(error)) from None

    def factory(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
        del settings  # a local model: no server settings
        unknown = set(opts) - {"threshold", "batch_size"}
        if unknown:
            raise UnknownJudgeError(f"'{spec}' takes only threshold=... and batch_size=... "
                                    f"(got {', '.join(sorted(unknown))})")
        try:
            return CrossEncoderJudge(folder, task=task, **opts)
        except CrossEncoderError as error:
            raise UnknownJudgeError(str(error)) from None

    return Resolved(task, spec, factory, model.description, "binary")


def _task_scale(task: str) -> str:
    """``score`` for a task whose labels are [0, 1] scores, else ``binary`` (what a check's raw score may be)."""
    from ragjury.rag_agent.tasks.catalogue import declared as declared_tasks

    found = declared_tasks().get(task)
    return "score" if found is not None and getattr(found, "gold", "binary") == "score" else "binary"


def _rubric(task: str, parsed: JudgeSpec) -> Resolved:
    """``rubric:RUBRIC.yaml``: the file is read and checked now, so a bad rubric fails before judging
    (one line naming the file and field). No model-free fallback exists for a user's criterion."""
    from ragjury.rag_agent.judges.llm.rubric import Rubric, RubricJudge

    spec = parsed.value
    if parsed.kind == "rubric-text":
        text = parsed.text or ""
        if len(text) < 3:
            raise UnknownJudgeError(f"'{spec}' states no criterion: --rubric \"The answer cites a source\"")
        rubric = Rubric.inline(text)
    else:
        path = parsed.path or ""
        if not path:
            raise UnknownJudgeError(f"'{spec}' names no rubric file: use {RUBRIC_PREFIX}RUBRIC.yaml")
        rubric = Rubric.from_file(path)

    def factory(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
        return RubricJudge(rubric, settings=settings, **opts)

    return Resolved(task, spec, factory, f"rubric '{rubric.name}': {rubric.criterion[:60]}", "binary", True)


def _plugin_factory(parsed: JudgeSpec, task: str = "") -> JudgeFactory:
    """``python:package.module:Factory``: ``Factory(settings=..., **opts)`` (or without settings)."""
    spec, module_name, attr = parsed.value, parsed.module, parsed.attr
    if not module_name or not attr:
        raise UnknownJudgeError(f"plug-in judge '{spec}' must look like {PLUGIN_PREFIX}package.module:Factory")

    def factory(settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
        import os
        import sys

        # The current folder is where a user's checks file sits (as pytest's rootdir): a console
        # script does not put it on sys.path, so `python:mychecks:fn` next to mychecks.py failed.
        here = os.getcwd()
        if here not in sys.path and "" not in sys.path:
            sys.path.append(here)
        try:
            obj: Any = importlib.import_module(module_name)
            for part in attr.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError) as error:
            raise UnknownJudgeError(f"cannot load plug-in judge '{spec}': {error} (modules are found on "
                                    f"PYTHONPATH and in the current folder, {here})") from None
        from ragjury.rag_agent.judges.user_defined import as_judge_if_check

        evaluator_judge = as_judge_if_check(obj, scale=_task_scale(task), timeout_s=settings.check_timeout_s, **opts)
        if evaluator_judge is not None:
            return evaluator_judge
        if not callable(obj):
            raise UnknownJudgeError(f"plug-in judge '{spec}' is a {type(obj).__name__}, not a judge class or factory")
        try:
            return construct(obj, settings, **opts)  # type: ignore[no-any-return]
        except TypeError as error:
            raise UnknownJudgeError(f"plug-in judge '{spec}' could not be built: {error}") from None

    return factory


__all__ = [
    "one_token_path",
    "catalogue_name",
    "catalogue_names",
    "typed_names",
    "verdict_names",
    "AUTO",
    "JUDGE_PACKAGES",
    "CROSS_ENCODER_PREFIX",
    "FITTED_PREFIX",
    "JUDGE_RULE",
    "PANEL_PREFIXES",
    "PLUGIN_PREFIX",
    "RETIRED_CHOICE",
    "TASK_ORDER",
    "Declaration",
    "Resolved",
    "UnknownJudgeError",
    "build_choice",
    "build_judge",
    "construct",
    "current_name",
    "declared",
    "declared_model_free",
    "default_name",
    "entries",
    "entry",
    "fallback_of",
    "judge_names_help",
    "judge_names",
    "names",
    "resolve",
    "tasks",
    "with_fallback",
]
