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


def decorator_calls(source: str, decorator: str) -> Iterator[str]:
    """The text of each ``decorator(...)`` call that decorates something in ``source`` (a line
    starting ``@decorator(``, so a docstring that shows one is not read), cut at its closing
    parenthesis by Python's own tokenizer (strings and comments handled)."""
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
                        yield "".join(text[: row - 1]) + text[row - 1][:column]
                        break
        except (tokenize.TokenError, IndentationError):
            continue


def literal_calls(source: str, decorator: str) -> Iterator[tuple[list[Any], dict[str, Any]]]:
    """The arguments of each ``@decorator(...)`` in ``source``: positional ones (``None`` where
    one is not a literal) and the keywords whose value is a literal (others left out)."""
    for text in decorator_calls(source, decorator):
        try:
            call = ast.parse(text, mode="eval").body
        except SyntaxError:
            continue
        if not isinstance(call, ast.Call):
            continue
        yield [_literal(arg) for arg in call.args], {
            kw.arg: value for kw in call.keywords if kw.arg and (value := _literal(kw.value)) is not None
        }


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return None


__all__ = ["decorator_calls", "literal_calls"]
