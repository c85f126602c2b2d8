"""Imports go only downward through the layers, and no module imports itself back.

Why: a reader should be able to learn ragjury from the bottom up (the envelope, the model client,
the judges, the runner, the reports, the commands) without meeting a call back into a layer above.
The graph counts every import, deferred ones inside functions included, and module names given to
``importlib`` as strings. ``if TYPE_CHECKING:`` imports (never run) may point up a layer, but they
count as edges of a circle: two modules that name each other's types are one concern split in two.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LAYERS: tuple[str, ...] = (
    "ragjury.config",
    "ragjury.rag_agent",
    "ragjury.evals",
    "ragjury.commands",
    "ragjury.cli",
)
"""The top-level folders, bottom first: each folder is one layer, so ``ls`` shows the architecture.
A module may import its own layer and the layers listed before it."""

INSIDE: dict[str, tuple[str, ...]] = {
    "ragjury.rag_agent": ("tracing", "core", "tasks", "model", "judges.model_free", "judges.llm", "judges.combined", "judges", "agent"),
    "ragjury.evals": ("io", "stats", "training", "runs", "results", "report", "pipelines", "labelling", "adapters"),
}
"""The order of the sub-packages inside a layer, bottom first, by the same rule."""

FACADES = frozenset({"ragjury", "ragjury.rag_agent", "ragjury.evals"})
"""Packages that only re-export names for users (on first use); nothing inside may import them."""


def module_files() -> dict[str, Path]:
    files = {"ragjury.cli": ROOT / "cli.py", "ragjury": ROOT / "__init__.py"}
    for folder in ("config", "rag_agent", "evals", "commands"):
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            files[".".join(("ragjury", *parts))] = path
    return files


def layer_of(module: str) -> tuple[int, int]:
    """(top-level layer, sub-package inside it): compared as a pair, so order inside a layer counts."""
    top = next((i for i, layer in enumerate(LAYERS) if module == layer or module.startswith(layer + ".")), -1)
    assert top >= 0, f"{module} belongs to no layer: add its folder to LAYERS"
    inner = INSIDE.get(LAYERS[top])
    if not inner or module == LAYERS[top]:
        return top, 0
    best = -1
    for index, sub in enumerate(inner):
        name = f"{LAYERS[top]}.{sub}"
        if (module == name or module.startswith(name + ".")) and (best < 0 or len(sub) > len(inner[best])):
            best = index
    assert best >= 0, f"{module} belongs to no sub-layer of {LAYERS[top]}: add it to INSIDE"
    return top, best


def _type_checking_blocks(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skipped.update(id(n) for n in ast.walk(child))
    return skipped


def imports_of(module: str, path: Path, known: set[str], *, type_checking: bool = False) -> set[str]:
    """The ragjury modules ``module`` imports, each resolved to the longest known module name: those
    it runs, or (``type_checking``) only those under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_blocks(tree)
    names: set[str] = set()
    for node in ast.walk(tree):
        if (id(node) in skipped) != type_checking:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
            names.add(node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("ragjury."):
            named = node.value.partition(":")[0]
            if named in known:  # "ragjury.x.y" or "ragjury.x.y:Name" for importlib; not "ragjury.judge" as a key
                names.add(named)
    found: set[str] = set()
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module and not module.startswith(name + "."):
            found.add(name)
        elif name and module.startswith(name + ".") and name in FACADES:
            found.add(name)  # a module importing its own facade package
    return found


def graph(*, type_checking: bool = False) -> dict[str, set[str]]:
    """Each module's imports that run; with ``type_checking``, its ``if TYPE_CHECKING:`` ones too."""
    files = module_files()
    known = set(files)
    edges = {module: imports_of(module, path, known) for module, path in files.items()}
    if type_checking:
        for module, path in files.items():
            edges[module] |= imports_of(module, path, known, type_checking=True)
    return edges


def test_imports_only_go_down_the_layers() -> None:
    upward = []
    for module, targets in sorted(graph().items()):
        if module in FACADES:
            continue
        for target in sorted(targets):
            if target in FACADES:
                upward.append(f"{module} -> {target} (a facade: import the defining module)")
            elif layer_of(target) > layer_of(module):
                upward.append(f"{module} -> {target}")
    assert not upward, "imports that go up a layer:\n" + "\n".join(upward)


def cycles_of(graph_edges: dict[str, set[str]]) -> list[list[str]]:
    """The import circles (strongly connected components of more than one module), each sorted."""
    edges = {m: {t for t in ts if t not in FACADES} for m, ts in graph_edges.items() if m not in FACADES}
    # strongly connected components (Tarjan), iterative enough for a few hundred modules
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return cycles


def test_no_import_cycles() -> None:
    cycles = cycles_of(graph(type_checking=True))
    assert not cycles, "modules that import each other (deferred and TYPE_CHECKING imports included):\n" + "\n".join(
        " <-> ".join(c) for c in cycles
    )


def test_the_check_sees_a_type_checking_circle(tmp_path: Path) -> None:
    """A circle made only of ``if TYPE_CHECKING:`` imports is a circle: the two modules still know
    each other, whatever runs."""
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ragjury.evals.io.b import B\n",
                 encoding="utf-8")
    b.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ragjury.evals.io.a import A\n",
                 encoding="utf-8")
    known = {"ragjury.evals.io.a", "ragjury.evals.io.b"}
    files = {"ragjury.evals.io.a": a, "ragjury.evals.io.b": b}
    runs = {m: imports_of(m, p, known) for m, p in files.items()}
    typed = {m: imports_of(m, p, known, type_checking=True) for m, p in files.items()}
    assert cycles_of(runs) == []
    assert cycles_of({m: runs[m] | typed[m] for m in files}) == [sorted(known)]


def test_the_layer_table_knows_every_folder() -> None:
    for module in module_files():
        if module not in FACADES:
            layer_of(module)  # raises for a module outside every layer


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The graph must see imports inside functions and importlib strings, or it proves nothing."""
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ragjury.evals.runs.runner import run_judgments\n"
        "def f():\n    from ragjury.commands.evaluate import register\n"
        "LAZY = 'ragjury.evals.report.page:write_html'\n",
        encoding="utf-8",
    )
    known = {"ragjury.commands.evaluate", "ragjury.evals.report.page", "ragjury.evals.runs.runner"}
    found = imports_of("ragjury.rag_agent.core.m", source, known)
    assert found == {"ragjury.commands.evaluate", "ragjury.evals.report.page"}
    assert layer_of("ragjury.commands.evaluate") > layer_of("ragjury.rag_agent.core.m")


CONCERNS: dict[str, tuple[str, ...]] = {
    "ragjury.evals.runs.runner": ("ragjury.rag_agent.judges",),
    "ragjury.evals.runs.ray_executor": ("ragjury.rag_agent.judges",),
    "ragjury.evals.stats.calibration": ("ragjury.rag_agent.judges",),
}
"""Modules that ask a judge what it needs (``needs()``) or are told by their caller, and so import
no concrete judge, embedder or the catalogue: the runner, the Ray executor, the calibration fit."""

COMMANDS_THROUGH_COMMON = ("ragjury.rag_agent.model.breaker", "ragjury.rag_agent.model.preflight",
                           "ragjury.rag_agent.model.unreachable")
"""What the commands reach only through ``commands._common`` (one check of the servers, one
wording of an unreachable server), never a copy each."""


def test_runner_ray_and_calibration_import_no_judge() -> None:
    edges = graph()
    crossing = [
        f"{module} -> {target}"
        for module, banned in CONCERNS.items()
        for target in sorted(edges[module])
        if any(target == b or target.startswith(b + ".") for b in banned)
    ]
    assert not crossing, "cross-concern imports:\n" + "\n".join(crossing)


def test_commands_reach_the_breaker_through_one_module() -> None:
    edges = graph()
    direct = [
        f"{module} -> {target}"
        for module, targets in sorted(edges.items())
        if module.startswith("ragjury.commands.") and module != "ragjury.commands._common"
        for target in sorted(targets)
        if target in COMMANDS_THROUGH_COMMON
    ]
    assert not direct, "commands importing the breaker themselves:\n" + "\n".join(direct)
