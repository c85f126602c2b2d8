"""A ``--judge`` value is parsed once (``judge_spec.parse``): each kind, and no other module reads a prefix."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ragjury.rag_agent.core import judge_spec
from ragjury.rag_agent.core.judge_spec import JudgeSpec, parse

ROOT = Path(judge_spec.__file__).resolve().parents[2]
"""The ``ragjury`` package root (``rag_agent/``, ``evals/``, ``commands/`` beside each other)."""


@pytest.mark.parametrize(("value", "kind", "field", "expected"), [
    ("llm", "builtin", "name", "llm"),
    ("contains", "builtin", "name", "contains"),
    ("auto", "auto", "name", "auto"),
    ("fitted:heads/head.json", "fitted", "path", "heads/head.json"),
    ("fitted: head.json ", "fitted", "path", "head.json"),
    ("rubric:C:/rubrics/cites.yaml", "rubric", "path", "C:/rubrics/cites.yaml"),
    ("rubric-text: The answer cites a source", "rubric-text", "text", "The answer cites a source"),
    ("python:pkg.mod:Factory", "plugin", "name", "pkg.mod:Factory"),
    ("evaluator:short_answer", "check", "name", "short_answer"),
    ("cross-encoder:/models/ce", "cross-encoder", "path", "/models/ce"),
])
def test_each_kind_is_parsed(value: str, kind: str, field: str, expected: str) -> None:
    spec = parse(value)
    assert (spec.kind, getattr(spec, field), spec.value) == (kind, expected, value)
    assert spec.members == () and spec.combine is None


def test_a_plugin_names_its_module_and_attribute() -> None:
    spec = parse("python:pkg.mod:Outer.factory")
    assert (spec.module, spec.attr) == ("pkg.mod", "Outer.factory")
    assert (parse("python:pkg").module, parse("python:pkg").attr) == ("pkg", "")
    assert parse("python:pkg:panel:a,b").kind == "plugin"  # a plug-in before any other word


def test_a_panel_holds_parsed_members_and_its_combine() -> None:
    spec = parse("panel:llm, cross-encoder:/models/ce ,rubric:C:/r.yaml,")
    assert (spec.kind, spec.combine, spec.prefix) == ("panel", "majority", "panel:")
    assert spec.member_names == ["llm", "cross-encoder:/models/ce", "rubric:C:/r.yaml"]
    assert [m.kind for m in spec.members] == ["builtin", "cross-encoder", "rubric"]
    assert spec.members[1].path == "/models/ce" and spec.members[2].path == "C:/r.yaml"
    assert spec.canonical == "panel:llm,cross-encoder:/models/ce,rubric:C:/r.yaml"
    assert spec.value == "panel:llm, cross-encoder:/models/ce ,rubric:C:/r.yaml,"  # the text as given
    assert spec.holds("cross-encoder") and not spec.holds("plugin")
    mean = parse("panel-mean:llm,semantic")
    assert (mean.kind, mean.combine, mean.member_names) == ("panel", "mean", ["llm", "semantic"])
    assert parse("panel:panel:a,b").members[0].kind == "panel"  # the catalogue refuses it, naming it


def test_own_criterion_kinds() -> None:
    assert all(parse(v).own_criterion for v in ("rubric:cites", "rubric-text:x", "evaluator:c", "python:m:F"))
    assert not any(parse(v).own_criterion for v in ("llm", "auto", "panel:a,b", "fitted:h.json", "cross-encoder:d"))


def test_specs_are_frozen_values() -> None:
    spec = parse("panel:a,b")
    assert spec == parse("panel:a,b") and hash(spec) == hash(parse("panel:a,b"))
    with pytest.raises(AttributeError):
        spec.kind = "builtin"  # type: ignore[misc]
    assert isinstance(spec.members[0], JudgeSpec)


PREFIX_CONSTANTS = {"AUTO", "PLUGIN_PREFIX", "PANEL_PREFIXES", "FITTED_PREFIX", "RUBRIC_PREFIX",
                    "RUBRIC_TEXT_PREFIX", "CROSS_ENCODER_PREFIX", "CHECK_NAME_PREFIX"}
PREFIX_LITERALS = ("rubric:", "fitted:", "panel:", "python:", "cross-encoder:", "evaluator:", "rubric-text:",
                   "panel-mean:")


def _reads_a_prefix(node: ast.AST) -> bool:
    """A ``startswith``/``removeprefix`` call whose argument holds a prefix constant or literal."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "removeprefix")):
        return False
    for arg in node.args:
        for sub in ast.walk(arg):
            if isinstance(sub, ast.Name) and sub.id in PREFIX_CONSTANTS:
                return True
            if isinstance(sub, ast.Attribute) and sub.attr in PREFIX_CONSTANTS:
                return True
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub.value.startswith(PREFIX_LITERALS):
                return True
    return False


def test_no_module_but_the_parser_reads_a_judge_prefix() -> None:
    parser = Path(judge_spec.__file__).resolve()
    found, scanned = [], 0
    for package in ("rag_agent", "evals", "commands"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.resolve() == parser:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            scanned += 1
            found += [f"{path.relative_to(ROOT)}:{node.lineno}" for node in ast.walk(tree) if _reads_a_prefix(node)]
    assert scanned > 50  # the packages were found
    assert not found, f"read the --judge value with judge_spec.parse, not a prefix: {found}"


def test_the_scan_catches_a_prefix_read() -> None:
    for code in ('name.startswith(PLUGIN_PREFIX)', 'name.startswith(("rubric:", "x"))',
                 'spec.removeprefix(judge_spec.RUBRIC_PREFIX)', 'n.startswith(tuple(PANEL_PREFIXES))'):
        assert any(_reads_a_prefix(node) for node in ast.walk(ast.parse(code))), code
    assert not any(_reads_a_prefix(node) for node in ast.walk(ast.parse('url.startswith("http")')))
