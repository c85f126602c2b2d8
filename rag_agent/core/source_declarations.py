"""Decorator calls read from source text: how ``@judge_entry`` and ``@task_entry`` are found
without importing the module they sit in.

Why from the text: ``ragjury --help`` and listings must know every judge and task at once, and
importing them would pull in pydantic and the model clients. The decorators take literal
arguments, so the text says all a listing needs; the module is imported only when used.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from typing import Any


_DECORATED = re.compile(r"[^\n]*\n(?:[ \t]*@[^\n]*\n)*[ \t]*(?:async[ \t]+)?(?:class|def)[ \t]+(\w+)")
"""After a decorator call: the rest of its line, any other decorators, then the name declared."""


def decorator_calls(source: str, decorator: str) -> Iterator[str]:
    """The text of each ``decorator(...)`` call that decorates something in ``source`` (a line
    starting ``@decorator(``, so a docstring that shows one is not read), cut at its closing
    parenthesis by Python's own tokenizer (strings and comments handled)."""
    for text, _name in _calls(source, decorator):
        yield text


def _calls(source: str, decorator: str) -> Iterator[tuple[str, str | None]]:
    """Each ``@decorator(...)`` call's text and the name of the class or function it decorates."""
    pattern = re.compile(rf"^[ \t]*@{re.escape(decorator)}\(", re.MULTILINE)
    for match in pattern.finditer(source):
        start = match.end() - len(decorator) - 1
        depth = 0
        lines = io.StringIO(source[start:]).readline
        try:
            for token in tokenize.generate_tokens(lines):
                if token.type == tokenize.OP and token.string in "([{":
                    depth += 1
                elif token.type == tokenize.OP and token.string in ")]}":
                    depth -= 1
                    if depth == 0:
                        row, column = token.end
                        text = source[start:].splitlines(keepends=True)
                        call = "".join(text[: row - 1]) + text[row - 1][:column]
                        declared = _DECORATED.match(source, start + len(call))
                        yield call, declared.group(1) if declared else None
                        break
        except (tokenize.TokenError, IndentationError):
            continue


def literal_calls(source: str, decorator: str) -> Iterator[tuple[list[Any], dict[str, Any]]]:
    """The arguments of each ``@decorator(...)`` in ``source``: positional ones (``None`` where
    one is not a literal) and the keywords whose value is a literal (others left out)."""
    for args, keywords, _name in declarations(source, decorator):
        yield args, keywords


def declarations(source: str, decorator: str) -> Iterator[tuple[list[Any], dict[str, Any], str | None]]:
    """Each ``@decorator(...)`` in ``source``: its literal arguments (as ``literal_calls``) and
    the name of the class or function it decorates (None where the text does not say). The one
    reader of declarations in source text: judges, tasks and the cache's value tags."""
    for text, name in _calls(source, decorator):
        try:
            call = ast.parse(text, mode="eval").body
        except SyntaxError:
            continue
        if not isinstance(call, ast.Call):
            continue
        yield [_literal(arg) for arg in call.args], {
            kw.arg: value for kw in call.keywords if kw.arg and (value := _literal(kw.value)) is not None
        }, name


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return None


__all__ = ["declarations", "decorator_calls", "literal_calls"]
