"""Counts of the package's shape: modules, lines, function-level ``ragjury`` imports, and two-file
import circles closed only by ``TYPE_CHECKING`` imports (a module importing another at run time
while that one imports it back for typing).

Run:  .venv/bin/python bench/layout_counts.py [PACKAGE_ROOT]   (default: this checkout)
"""
import ast, sys
from pathlib import Path
root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
mods = {}
for p in root.rglob("*.py"):
    rel = p.relative_to(root)
    if rel.parts[0] in (".venv", "tests", "bench", "examples", ".ci", "build") or "site-packages" in str(rel):
        continue
    name = "ragjury." + ".".join(rel.with_suffix("").parts)
    if name.endswith(".__init__"): name = name[:-9]
    mods[name] = p
def imports(p):
    tree = ast.parse(p.read_text())
    runtime, typing_only, funclevel = set(), set(), 0
    def visit_one(child, in_tc, in_func):
        nonlocal funclevel
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in child.names] if isinstance(child, ast.Import) else [child.module or ""]
            for n in names:
                if n.startswith("ragjury"):
                    (typing_only if in_tc else runtime).add(n)
                    if in_func and not in_tc: funclevel += 1
        f = in_func or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            for c in child.body: visit_one(c, True, f)
            return
        for c in ast.iter_child_nodes(child):
            visit_one(c, in_tc, f)
    for c in ast.iter_child_nodes(tree):
        visit_one(c, False, False)
    return runtime, typing_only, funclevel
data = {m: imports(p) for m, p in mods.items()}
def resolve(n):
    while n and n not in mods:
        n = n.rsplit(".", 1)[0] if "." in n else ""
    return n
circ = set()
for a, (rt, tc, _) in data.items():
    for b in tc:
        b = resolve(b)
        if b and b != a and any(resolve(x) == a for x in data[b][0]):
            circ.add(tuple(sorted((a, b))))
print("modules", len(mods), "lines", sum(len(p.read_text().splitlines()) for p in mods.values()))
files_with = sum(1 for v in data.values() if v[2])
print("function-level ragjury imports", sum(v[2] for v in data.values()), "in", files_with, "files")
print("two-file circles closed by TYPE_CHECKING:", sorted(circ))
