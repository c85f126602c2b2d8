"""The public surface is declared: every public module says what it exports, and exports exist.

Why: ``from ragjury.x import *`` and documentation tools read ``__all__``; a module without it
exports whatever it happened to import. A name listed but missing is a broken promise.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("config", "evals", "rag_agent")


def public_modules() -> list[Path]:
    found = [ROOT / "cli.py"]
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            if path.name.startswith("_") and path.name != "__init__.py":
                continue
            found.append(path)
    return found


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("ragjury", *parts))


@pytest.mark.parametrize("path", public_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_public_module_declares_all(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    declared = [
        node
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and any(isinstance(t, ast.Name) and t.id == "__all__" for t in getattr(node, "targets", [getattr(node, "target", None)]))
    ]
    assert declared, f"{path.relative_to(ROOT)} has no __all__"


@pytest.mark.parametrize(
    "name",
    [module_name(p) for p in public_modules() if "adapters" not in p.parts and p.stem not in ("semantic", "embedders")],
)
def test_every_exported_name_exists(name: str) -> None:
    module = importlib.import_module(name)
    missing = [export for export in getattr(module, "__all__", []) if not hasattr(module, export)]
    assert not missing, f"{name}.__all__ lists names it does not define: {missing}"


@pytest.mark.parametrize("name", ["DatasetFiles", "evaluate_dataset_sync", "evaluate_dataset", "DatasetEvaluation"])
def test_the_python_api_names_load_from_the_top_level(name: str) -> None:
    import ragjury

    assert name in ragjury.__all__ and getattr(ragjury, name) is not None


def test_retired_names_still_load_for_one_release_with_a_warning() -> None:
    """Issue #30: a renamed class keeps its old name importable from ``ragjury``, warning, and
    the old name is neither exported nor listed (docs/glossary.md lists it)."""
    import ragjury

    assert ragjury._RETIRED
    for old, new in ragjury._RETIRED.items():
        with pytest.warns(DeprecationWarning, match=new):
            assert getattr(ragjury, old) is getattr(ragjury, new)
        assert old not in ragjury.__all__ and new in ragjury.__all__
