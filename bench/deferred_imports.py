"""Which function-level ``ragjury`` imports defer nothing: the check behind "a deferred import stays
only where importing it at the top would load a module the importer's path does not load today"
(``docs/layout.md``).

For every ``from ragjury... import`` / ``import ragjury...`` inside a function (not under
``TYPE_CHECKING``) of the package's modules (the repository root is the ``ragjury`` package:
``__init__.py``, ``cli.py``, ``commands/``, ``config/``, ``evals/``, ``rag_agent/``), a fresh
``python -c "import ragjury.X.Y"`` per module lists what importing the importer loads. The import is
*free* when every module it names (the ``from`` module, and any submodule imported by name) is
already loaded then: at the top of its module it would load nothing more, on any path that imports
the importer. Two more columns say why a free one may still have to stay in its function:

* ``cycle``: importing the target alone loads the importer, so at the top the two would import each
  other (whichever is imported first would meet the other half-made);
* ``patched``: a test replaces the imported name on its module (``monkeypatch.setattr``,
  ``mock.patch``), which a call-time lookup sees and a binding made at import time would not.

Prints one row per statement (file, line, target, free?, cycle, patched) and the totals; the
``kept`` column names free ones that stay (the ``KEPT`` table below, with the reason).

Run:  .venv/bin/python bench/deferred_imports.py [--free] [--jobs N]
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = (".venv", "tests", "bench", "examples", ".ci", "build", "docs", "out")

KEPT: dict[tuple[str, str], str] = {
    # (file, target) -> why a free deferred import stays in its function
    ("evals/stats/system_statistics.py", "ragjury.evals.stats.agreement"):
        "tests/unit/cli/test_run_shape.py counts the run's agreement by patching agreement.label_agreement",
}


@dataclass(frozen=True)
class Deferred:
    file: str
    line: int
    importer: str
    target: str  # the statement's module (for ``import a, b``: one row per name)
    modules: tuple[str, ...]  # what it would load: the module, and submodules imported by name
    names: tuple[str, ...]  # names bound from the module (empty for ``import ragjury.x``)


def package_modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in SKIP or "site-packages" in rel.parts or rel.name == "__main__.py":
            continue
        name = "ragjury." + ".".join(rel.with_suffix("").parts)
        mods[name.removesuffix(".__init__")] = path
    return mods


def deferred_imports(mods: dict[str, Path]) -> list[Deferred]:
    found: list[Deferred] = []
    for importer, path in mods.items():
        rel = str(path.relative_to(ROOT))

        def visit(node: ast.AST, in_func: bool) -> None:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                for child in node.orelse:
                    visit(child, in_func)
                return
            if in_func and isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ragjury") \
                    and not node.level:
                module = node.module or ""
                subs = tuple(f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in mods)
                found.append(Deferred(rel, node.lineno, importer, module, (module, *subs),
                                      tuple(a.name for a in node.names)))
            elif in_func and isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("ragjury"):
                        found.append(Deferred(rel, node.lineno, importer, alias.name, (alias.name,), ()))
            inner = in_func or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            for child in ast.iter_child_nodes(node):
                visit(child, inner)

        visit(ast.parse(path.read_text(), str(path)), False)
    return found


def loaded_by(module: str) -> frozenset[str] | None:
    """The ragjury modules a fresh interpreter holds after ``import module`` (None: it failed)."""
    code = (f"import sys, json; import {module}; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('ragjury'))))")
    with tempfile.TemporaryDirectory() as neutral:  # no checkout folder on sys.path[0]
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=neutral,
                              timeout=300)
    if done.returncode:
        return None
    return frozenset(json.loads(done.stdout.strip().splitlines()[-1]))


def patched_names() -> set[tuple[str, str]]:
    """(module, name) pairs that the tests replace on a module: ``monkeypatch.setattr(module, "name",
    ...)``, ``monkeypatch.setattr("pkg.module.name", ...)``, ``patch("pkg.module.name")``,
    ``patch.object(module, "name")``, with the test file's imports resolving a module's local name."""
    out: set[tuple[str, str]] = set()
    for path in (ROOT / "tests").rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        local: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        local[a.asname] = a.name
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    local[a.asname or a.name] = f"{node.module}.{a.name}"
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called not in ("setattr", "patch", "object", "delattr"):
                continue
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str) and "." in first.value:
                module, _, name = first.value.rpartition(".")
                out.add((module, name))
            elif len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
                owner = ast.unparse(first)
                head, _, rest = owner.partition(".")
                module = local.get(head, head) + (f".{rest}" if rest else "")
                out.add((module, node.args[1].value))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--free", action="store_true", help="print only the free ones")
    parser.add_argument("--jobs", type=int, default=4, help="subprocesses at a time (default 4)")
    args = parser.parse_args()
    mods = package_modules()
    found = deferred_imports(mods)
    wanted = sorted({d.importer for d in found} | {m for d in found for m in d.modules if m in mods})
    with ThreadPoolExecutor(args.jobs) as pool:
        loads = dict(zip(wanted, pool.map(loaded_by, wanted)))
    patched = patched_names()
    rows, free_n, kept_n, unknown = [], 0, 0, 0
    for d in found:
        by_importer = loads.get(d.importer)
        if by_importer is None:
            free, cycle = "?", "?"
            unknown += 1
        else:
            free = "free" if all(m in by_importer for m in d.modules) else "no"
            cycle = "cycle" if any(d.importer in (loads.get(m) or ()) for m in d.modules) else ""
        hit = sorted(n for n in d.names if (d.target, n) in patched)
        kept = KEPT.get((d.file, d.target), "")
        free_n += free == "free"
        kept_n += free == "free" and bool(kept or cycle or hit)
        if args.free and free != "free":
            continue
        rows.append((d.file, str(d.line), d.target, free, cycle, ",".join(hit), kept))
    head = ("file", "line", "target", "free?", "cycle", "patched", "kept")
    widths = [max(len(r[k]) for r in [head, *rows]) for k in range(len(head) - 1)]
    for r in [head, *rows]:
        print(("  ".join(cell.ljust(w) for cell, w in zip(r, widths)) + "  " + r[-1]).rstrip())
    files = len({d.file for d in found})
    print(f"\n{len(found)} function-level ragjury imports in {files} files; {free_n} free (the importer already "
          f"loads the target), {kept_n} of them with a reason to stay (cycle, patched by a test, or KEPT)"
          + (f"; {unknown} in modules that failed to import" if unknown else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
