"""``--help`` that reads at 80 columns: prose reflows, examples stay whole, flags show no type.

Why this module: the command docstrings are hard-wrapped at the source's line length, and typer
keeps every single newline inside a paragraph, so at 80 columns each source line wraps on its own
into ragged text. Here a docstring becomes paragraphs (one line each, wrapped by rich at any
width), examples are kept line by line and re-broken with `` \\`` continuations so each line fits
and still runs when pasted. Options get short metavars (``PATH``, ``N``, ``TEXT``) so the help
column is wide enough to show every word whole, and flags get none (typer prints ``<bool>``);
number ranges read ``0..1``.

``apply(app)`` installs this on every command and group of a typer app; ``cli.py`` calls it.
"""

from __future__ import annotations

import inspect
import re
from enum import Enum
from pathlib import PurePath
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup
from typer.models import DefaultPlaceholder

EXAMPLE_WIDTH = 76
"""Longest example line: 80 columns less typer's one-column margin each side and some air."""

_COMMAND_START = re.compile(r"^(ragjury|python|pip|ollama|cat|echo)\b")
_BULLET = re.compile(r"^(- |\* |\d+\. )")
_OPTION_START = re.compile(r"-{1,2}[A-Za-z]")
_CONTINUATION = " \\"
"""Characters a shell line continuation ends with (stripped before lines are joined again)."""
_CHOICES_MAX = 16
"""Choices longer than this (joined with ``|``) show the option's name instead; the help lists them."""


def reflow(doc: str | None) -> str | None:
    """A docstring as paragraphs rich can wrap: prose joined, lists and examples line by line."""
    if not doc:
        return doc
    paragraphs = re.split(r"\n\s*\n", inspect.cleandoc(doc))
    return "\n\n".join(_reflow_paragraph(paragraph) for paragraph in paragraphs)


def _reflow_paragraph(paragraph: str) -> str:
    lines = paragraph.split("\n")
    if lines[0].startswith((" ", "\t", "#")):
        return "\n".join(_example_lines(lines))
    out: list[str] = []
    for line in lines:
        stripped = line.strip()
        if out and not _BULLET.match(stripped):
            out[-1] = f"{out[-1]} {stripped}"
        else:
            out.append(stripped)
    return "\n".join(out)


def _example_lines(lines: list[str]) -> list[str]:
    """Commands joined with their continuation lines, then broken before options to fit."""
    commands: list[tuple[str, str]] = []  # (indent, text); a comment is its own entry
    for line in lines:
        stripped = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        starts = _COMMAND_START.match(stripped) or stripped.startswith("#") or not commands
        if starts or commands[-1][1].startswith("#"):
            commands.append((indent, stripped))
        else:
            previous_indent, previous = commands[-1]
            commands[-1] = (previous_indent, f"{previous.rstrip(_CONTINUATION)} {stripped}")
    out: list[str] = []
    for indent, text in commands:
        out.extend(_break_command(indent, text) if not text.startswith("#") else [f"{indent}{text}"])
    return out


def _break_command(indent: str, text: str) -> list[str]:
    """``text`` in lines of at most ``EXAMPLE_WIDTH``, broken before an option, `` \\`` continued."""
    comment = ""
    if "  # " in text:
        text, comment = (part.strip() for part in text.split("  # ", 1))
    chunks = _option_chunks(text.rstrip(_CONTINUATION))
    lines = [f"{indent}{chunks[0]}"]
    for chunk in chunks[1:]:
        if len(lines[-1]) + 1 + len(chunk) + 2 <= EXAMPLE_WIDTH:
            lines[-1] = f"{lines[-1]} {chunk}"
        else:
            lines[-1] += " \\"
            lines.append(f"{indent}    {chunk}")
    if comment:
        lines.insert(0, f"{indent}# {comment}")
    return lines


def _option_chunks(text: str) -> list[str]:
    """``text`` cut at the spaces before each option (``-x``, ``--name``), never inside quotes."""
    chunks = [""]
    quote = ""
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == " " and _OPTION_START.match(text, index + 1):
            chunks.append("")
            continue
        if char == " " and not quote and not chunks[-1]:
            continue  # runs of spaces between chunks
        chunks[-1] += char
    return [chunk.rstrip() for chunk in chunks if chunk.strip()]


def _metavar(param: Any) -> str | None:
    """A short metavar for an option typer would show as ``<bool>`` or ``<int range>``;
    ``None`` to keep what it has (arguments, and options given a metavar)."""
    if not isinstance(param, typer.core.TyperOption) or param.metavar is not None:
        return None
    if getattr(param, "is_flag", False):
        return ""
    annotation = _annotation(param)
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        choices = "|".join(str(member.value) for member in annotation)
        return choices if len(choices) <= _CHOICES_MAX else param.name.upper()
    if isinstance(annotation, type) and issubclass(annotation, PurePath):
        return "PATH"
    if annotation is int:
        return "N"
    if annotation is float:
        return "NUMBER"
    return "TEXT"


def _annotation(param: Any) -> Any:
    """The declared Python type of an option (the element type of a list), across typer versions."""
    descriptor = getattr(param, "type_descriptor", None)
    annotation = getattr(descriptor, "annotation", None)
    args = getattr(annotation, "__args__", None)
    if args and getattr(annotation, "__origin__", None) is list:
        return args[0]
    return annotation


def _compact_range(low: float | None, high: float | None) -> str:
    """``0..1``, ``>=1``: typer's ``0.0<=x<=1.0`` widens the type column and narrows the help."""
    if low is not None and high is not None:
        return f"{low:g}..{high:g}"
    return f">={low:g}" if low is not None else f"<={high:g}"


def _tidy_params(params: list[Any]) -> None:
    """Short metavars, and compact ranges where this typer shows ranges (it reads them from
    ``_get_number_range_help_str``; other versions simply never call the replacement)."""
    for param in params:
        metavar = _metavar(param)
        if metavar is not None:
            param.metavar = metavar
        low, high = getattr(param, "min", None), getattr(param, "max", None)
        if hasattr(param, "_get_number_range_help_str") and (low is not None or high is not None):
            compact = _compact_range(low, high)
            param._get_number_range_help_str = lambda compact=compact: compact


class _HelpConventions:
    """Help that reflows and options with short metavars, for commands and groups alike."""

    params: list[Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["help"] = reflow(kwargs.get("help"))
        super().__init__(*args, **kwargs)
        _tidy_params(self.params)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            _tidy_params([option])
        return option


class HelpCommand(_HelpConventions, TyperCommand):
    """A typer command whose help reflows and whose options show short metavars."""


class HelpGroup(_HelpConventions, TyperGroup):
    """A typer group (``ragjury``, ``ragjury verdict``) with the same help conventions."""


def _unset(cls: object) -> bool:
    """No class of our own chosen: ``None``, typer's placeholder for "the default", or typer's
    default class itself (which ``app.command()`` fills in)."""
    return cls in (None, TyperCommand, TyperGroup) or isinstance(cls, DefaultPlaceholder)


def apply(app: typer.Typer) -> None:
    """Use ``HelpCommand`` / ``HelpGroup`` for every command and group of ``app``, recursively,
    where no other class was chosen."""
    if _unset(app.info.cls):
        app.info.cls = HelpGroup
    for command in app.registered_commands:
        if _unset(command.cls):
            command.cls = HelpCommand
    for group in app.registered_groups:
        if _unset(group.cls):
            group.cls = HelpGroup
        if group.typer_instance is not None:
            apply(group.typer_instance)


__all__ = ["EXAMPLE_WIDTH", "HelpCommand", "HelpGroup", "apply", "reflow"]
