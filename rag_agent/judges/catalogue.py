"""The judge catalogue: every judge declares its entry beside its class, with ``@judge_entry``.

Why beside the class: adding a judge should be its file and its prompt, nothing else. The
decorator records what the rest of ragjury needs to know -- the task it judges, the name a
user types after ``--judge``, its scale, how its value becomes a label, and the model-free
judge that stands in when the model fails -- and the CLI, ``evals.registry`` and the Python
API all resolve names here.

Why the catalogue reads source before importing it: importing every judge module would load
pydantic-ai (and optional extras such as sentence-transformers) for a model-free run or a
``--help``. So the catalogue first reads the judge packages' source text for ``@judge_entry``
decorators (their ``task`` and ``name`` must be literal strings), learns which module holds
which judge, and imports only the module of the judge asked for; importing it runs the
decorator, which records the full entry.

    @judge_entry("correctness", "llm", "LLM verdict", uses_model=True, fallback="contains", default=True)
    class CorrectnessJudge(...): ...

``auto``: for a task whose ``default`` entry declares a ``fallback``, ``auto`` is that judge
with the fallback standing in where it fails; with no fallback, ``auto`` is the default judge.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from ragjury.rag_agent.core.labels import Label, label_of

if TYPE_CHECKING:
    from ragjury.config.settings import RagjurySettings
    from ragjury.rag_agent.core.protocol import Judge

Scale = Literal["binary", "graded", "score"]
"""``binary`` (bool labels), ``graded`` (0-3 int labels) or ``score`` (float in [0, 1])."""

Adapter = Literal["correctness", "faithfulness"]
"""A relevance-style judge (``JudgmentContext`` items) answering another task (see ``adapted``)."""

JUDGE_PACKAGES: tuple[str, ...] = ("ragjury.rag_agent.judges.model_free", "ragjury.rag_agent.judges.llm")
"""Packages whose modules may declare judges: model-free ones in ``deterministic``, LLM judges in
``verdicts`` (listed in this order: model-free names first)."""
JUDGE_MODULES: tuple[str, ...] = ()
"""Single modules that declare judges (``JudgeLLM``)."""

AUTO = "auto"

JudgeT = TypeVar("JudgeT")


@dataclass(frozen=True)
class CatalogueEntry:
    """What one ``--judge`` name of one task is: how to build it and what its values mean."""

    task: str
    name: str
    target: Callable[..., Any]
    """The judge class (or a factory function) the decorator sat on."""
    description: str
    scale: Scale = "binary"
    uses_model: bool = False
    """An LLM judge (listings say so; ``--dry-run`` and preflight checks care)."""
    takes_settings: bool = False
    """Built with ``settings=RagjurySettings`` (model, server, budgets); true for every LLM judge."""
    fallback: str | None = None
    """The name of the model-free judge of the same task that ``auto`` falls back to."""
    default: bool = False
    """The task's default judge: ``auto`` resolves to it."""
    adapt: Adapter | None = None
    label: Callable[[object], Label | None] = field(default=label_of)
    """The label of a value this judge produced; the ``Labelled`` protocol unless told otherwise."""

    @property
    def module(self) -> str:
        return self.target.__module__


_ENTRIES: dict[tuple[str, str], CatalogueEntry] = {}
_RUNTIME: set[tuple[str, str]] = set()
"""Keys registered from Python code; a judge module imported later does not replace them."""


def judge_entry(
    task: str,
    name: str,
    description: str,
    *,
    scale: Scale = "binary",
    uses_model: bool = False,
    takes_settings: bool | None = None,
    fallback: str | None = None,
    default: bool = False,
    adapt: Adapter | None = None,
    label: Callable[[object], Label | None] = label_of,
) -> Callable[[JudgeT], JudgeT]:
    """Declare the decorated judge class (or factory) as ``--judge name`` for ``task``.

    Stack the decorator to offer one judge under several tasks (``adapt`` says how a
    relevance-style judge reads the other task's items). ``task`` and ``name`` must be literal
    strings: the catalogue finds them in the source text before importing the module.
    """

    def declare(target: JudgeT) -> JudgeT:
        key = (task, name)
        if key in _RUNTIME:  # replaced from Python code (``register``): that one stands
            return target
        previous = _ENTRIES.get(key)
        if (
            previous is not None
            and previous.target is not target
            and _qualname(previous.target) != _qualname(target)
        ):
            raise ValueError(
                f"judge '{name}' of task {task} is declared twice: {_qualname(previous.target)} and {_qualname(target)}"
            )
        _ENTRIES[key] = CatalogueEntry(
            task=task,
            name=name,
            target=target,  # type: ignore[arg-type]
            description=description,
            scale=scale,
            uses_model=uses_model,
            takes_settings=uses_model if takes_settings is None else takes_settings,
            fallback=fallback,
            default=default,
            adapt=adapt,
            label=label,
        )
        return target

    return declare


def register(
    task: str,
    name: str,
    target: Callable[..., Any],
    description: str = "",
    *,
    scale: Scale = "binary",
    takes_settings: bool = True,
) -> None:
    """Add (or replace) a judge from Python code at run time (not from a judge package's source)."""
    _ENTRIES[(task, name)] = CatalogueEntry(
        task=task,
        name=name,
        target=target,
        description=description,
        scale=scale,
        takes_settings=takes_settings,
    )
    _RUNTIME.add((task, name))


def _qualname(target: object) -> str:
    return f"{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', repr(target))}"


# -- discovery -----------------------------------------------------------------------------------------------


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


def _literal(node: ast.expr | None, fallback: object) -> object:
    return node.value if isinstance(node, ast.Constant) else fallback


def _decorator_calls(source: str) -> Iterator[str]:
    """The text of each ``judge_entry(...)`` call that decorates something in ``source``.

    Why not ``ast.parse`` of the whole module: the CLI's ``--help`` reads every judge module's
    declarations, and parsing only the decorator calls made reading them about three times
    cheaper than parsing ~20 modules whole (64 ms to 22 ms, import of the catalogue included). Strings are skipped while matching parentheses."""
    marker = "@judge_entry("
    start = source.find(marker)
    while start >= 0:
        index, depth, quote = start + len(marker), 1, ""
        while index < len(source) and depth:
            char = source[index]
            if quote:
                if char == "\\":
                    index += 1
                elif source.startswith(quote, index):
                    index += len(quote) - 1
                    quote = ""
            elif char in "\"'":
                quote = source[index : index + 3] if source[index : index + 3] in ('"""', "'''") else char
                index += len(quote) - 1
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
            index += 1
        line_start = source.rfind("\n", 0, start) + 1
        if not source[line_start:start].strip():  # a decorator line, not a mention in a docstring
            yield source[start + 1 : index]
        start = source.find(marker, index)


def _declarations(source: str, module: str) -> list[tuple[tuple[str, str], Declaration]]:
    """Every ``@judge_entry("task", "name", "description", ..., default=...)`` in a module's source."""
    found: list[tuple[tuple[str, str], Declaration]] = []
    for text in _decorator_calls(source):
        try:
            decorator = ast.parse(text, mode="eval").body
        except SyntaxError:
            continue
        if not isinstance(decorator, ast.Call) or len(decorator.args) < 2:
            continue
        task, name = (_literal(arg, None) for arg in decorator.args[:2])
        if not isinstance(task, str) or not isinstance(name, str):
            continue
        keywords = {kw.arg: kw.value for kw in decorator.keywords if kw.arg}
        description = _literal(
            decorator.args[2] if len(decorator.args) > 2 else keywords.get("description"), ""
        )
        literal = {key: _literal(value, None) for key, value in keywords.items()}
        found.append(
            (
                (task, name),
                Declaration(
                    module,
                    str(description),
                    bool(literal.get("default")),
                    str(literal.get("scale") or "binary"),
                    bool(literal.get("uses_model")),
                    fb if isinstance(fb := literal.get("fallback"), str) else None,
                    ad if isinstance(ad := literal.get("adapt"), str) else None,
                ),
            )
        )
    return found


def _module_files() -> list[tuple[str, Path]]:
    """``(module name, source file)`` of every module that may declare judges."""
    root = Path(__file__).resolve().parents[2]  # the ragjury package folder
    files: list[tuple[str, Path]] = []
    for package in JUDGE_PACKAGES:
        folder = root.joinpath(*package.split(".")[1:])
        if folder.is_dir():
            files.extend(
                (f"{package}.{path.stem}", path)
                for path in sorted(folder.glob("*.py"))
                if path.stem != "__init__"
            )
    for module in JUDGE_MODULES:
        path = root.joinpath(*module.split(".")[1:]).with_suffix(".py")
        if path.is_file():
            files.append((module, path))
    return files


@cache
def declared() -> dict[tuple[str, str], Declaration]:
    """``(task, name) -> Declaration`` of every judge in the judge packages (source read, nothing imported)."""
    index: dict[tuple[str, str], Declaration] = {}
    for module, path in _module_files():
        source = path.read_text(encoding="utf-8")
        if "judge_entry(" not in source:
            continue
        for key, declaration in _declarations(source, module):
            if key in index and index[key].module != module:
                raise ValueError(
                    f"judge '{key[1]}' of task {key[0]} is declared in {index[key].module} and in {module}"
                )
            index[key] = declaration
    return index


TASK_ORDER: tuple[str, ...] = ("relevance", "correctness", "faithfulness", "score", "goal")
"""How listings order the tasks; a task only a new judge declares comes after these."""


def tasks() -> list[str]:
    """Every task some judge declares."""
    found = {task for task, _ in declared()}
    return [t for t in TASK_ORDER if t in found] + sorted(found - set(TASK_ORDER))


def names(task: str) -> list[str]:
    """The ``--judge`` names of ``task`` (``auto`` included where the task has a default judge)."""
    found = list(
        dict.fromkeys(
            [*(name for t, name in declared() if t == task), *(n for t, n in _ENTRIES if t == task)]
        )
    )
    if found and default_name(task) is not None:
        found.append(AUTO)
    return found


def default_name(task: str) -> str | None:
    """The task's default judge, the one ``auto`` is built on; ``None`` when none is marked."""
    for (t, name), declaration in declared().items():
        if t == task and declaration.default:
            return name
    return None


def entry(task: str, name: str) -> CatalogueEntry:
    """The entry of a declared judge (its module imported now); ``KeyError`` when undeclared."""
    key = (task, name)
    if key not in _ENTRIES:
        declaration = declared().get(key)
        if declaration is None:
            raise KeyError(key)
        module = declaration.module
        importlib.import_module(module)
        if key not in _ENTRIES:
            raise KeyError(f"{module} names judge '{name}' of task {task} but did not register it")
    return _ENTRIES[key]


def entries(task: str) -> list[CatalogueEntry]:
    """Every declared entry of ``task`` (imports their modules: for listings, not for ``--help``)."""
    return [entry(task, name) for t, name in declared() if t == task]


def build(task: str, name: str, settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
    """The judge ``name`` of ``task``, built with ``settings`` (LLM judges) and ``opts``;
    ``auto`` is the task's default judge ``with_fallback``. ``KeyError`` when not declared."""
    if name == AUTO:
        default = default_name(task)
        if default is None:
            raise KeyError((task, name))
        return with_fallback(task, default, settings, **opts)
    found = entry(task, name)
    judge = found.target(settings=settings, **opts) if found.takes_settings else found.target(**opts)
    if found.adapt is not None:
        from ragjury.rag_agent.judges.combined.adapted import adapted

        judge = adapted(judge, found.adapt)
    return judge  # type: ignore[no-any-return]


def fallback_of(task: str, name: str, settings: RagjurySettings) -> Judge[Any, Any] | None:
    """The model-free judge that stands in for ``name`` (its declared ``fallback``, built with its
    defaults), seen through the class's ``view_fallback(judge)`` where it offers one so that the
    fallback's values have the primary's type (a ``bool`` seen as a ``Verdict``); ``None`` if none."""
    found = entry(task, name)
    if found.fallback is None:
        return None
    fallback = build(task, found.fallback, settings)
    view = getattr(found.target, "view_fallback", None)
    return view(fallback) if view is not None else fallback  # type: ignore[no-any-return]


def with_fallback(task: str, name: str, settings: RagjurySettings, **opts: Any) -> Judge[Any, Any]:
    """``name`` with its fallback standing in where it fails (``name`` alone when it has none)."""
    primary = build(task, name, settings, **opts)
    fallback = fallback_of(task, name, settings)
    if fallback is None:
        return primary
    from ragjury.rag_agent.judges.combined.fallback import FallbackJudge

    return FallbackJudge(primary, fallback)


__all__ = [
    "AUTO",
    "JUDGE_MODULES",
    "JUDGE_PACKAGES",
    "TASK_ORDER",
    "CatalogueEntry",
    "Declaration",
    "Scale",
    "build",
    "declared",
    "default_name",
    "entries",
    "entry",
    "fallback_of",
    "judge_entry",
    "names",
    "register",
    "tasks",
    "with_fallback",
]
