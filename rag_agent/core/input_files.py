"""Reading user files with errors that name the file, the line and the field.

Why: a user mistake (a missing file, a stray comma) must end in one line that says where and
what, never in a traceback. Every loader in ragjury raises ``InputError``; the CLI prints it.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # pydantic and the schemas load when a model is parsed, not when the CLI starts
    from pydantic import BaseModel, ValidationError

    from ragjury.rag_agent.core.schemas import RAGAnswer, SourceDocument

ModelT = TypeVar("ModelT", bound="BaseModel")


class InputError(ValueError):
    """A problem with user input, located as precisely as possible."""

    def __init__(
        self,
        source: str | Path,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
        row: int | None = None,
    ):
        """``line`` is a file's line number (as ``grep -n`` counts); ``row`` locates a record of
        something without lines, such as a DataFrame (its 0-based position, as ``df.iloc``)."""
        self.source = str(source)
        self.line = line
        self.row = row
        self.field = field
        self.message = message
        where = self.source + (f":{line}" if line is not None else "")
        where += f" row {row}" if row is not None else ""
        what = f"field '{field}': {message}" if field else message
        super().__init__(f"{where}: {what}")


BOM = "\ufeff"


def read_text(path: str | Path) -> str:
    """File contents, or standard input for ``-``, without a leading UTF-8 byte-order mark.

    Why ``utf-8-sig``: editors on Windows (and Excel's "CSV UTF-8") start files with a BOM. Kept,
    it glues itself to the first token: a JSON file no longer parses, and a TREC qrels file's
    first query id silently becomes ``"\\ufeffq1"``. Every reader goes through here, so all of
    them accept it.
    """
    if str(path) == "-":
        return sys.stdin.read().removeprefix(BOM)
    file = Path(path)
    check_regular(path)
    try:
        return file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(path, f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    except OSError as error:
        raise InputError(path, error.strerror or str(error)) from None


def check_regular(path: str | Path) -> None:
    """Refuse, in one line, what is not a regular file before reading it: a FIFO would hang, a device
    such as /dev/zero would read until memory runs out, a symbolic link loop is no "file not found"."""
    import errno
    import os
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise InputError(path, "is a symbolic link loop (it never reaches a file)") from None
        if error.errno in (errno.ENOENT, errno.ENOTDIR):
            raise InputError(path, "file not found") from None
        raise InputError(path, error.strerror or str(error)) from None
    if stat.S_ISDIR(mode):
        raise InputError(path, "is a directory, expected a file")
    if not stat.S_ISREG(mode):
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket"
        raise InputError(path, f"is {kind}, not a regular file: give a file")


def validation_message(error: ValidationError) -> tuple[str | None, str]:
    """The first problem of a pydantic error as (field path, message)."""
    first = error.errors()[0]
    loc = ".".join(str(part) for part in first.get("loc", ())) or None
    return loc, first.get("msg", "invalid value")


def parse_model(
    source: str | Path, data: object, model: type[ModelT], *, line: int | None = None, row: int | None = None
) -> ModelT:
    from pydantic import ValidationError

    try:
        return model.model_validate(data)
    except ValidationError as error:
        field, message = validation_message(error)
        raise InputError(source, message, line=line, field=field, row=row) from None


def split_lines(text: str) -> list[str]:
    """The lines of a text file, split on ``\\n`` only (a trailing ``\\r`` of CRLF files dropped).

    Why not ``str.splitlines``: it also splits on U+2028, U+2029, U+0085 and other characters that
    a JSON string may legally hold raw (``json.dumps(..., ensure_ascii=False)`` writes them so),
    which cut one valid record in two. Line numbers counted here are those of ``grep -n``.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def loads_json(text: str) -> Any:
    """``json.loads``, with nesting too deep for the parser reported as malformed JSON (a
    ``json.JSONDecodeError``, so every reader's one-line error applies) instead of a RecursionError."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, 0) from None
    except json.JSONDecodeError:
        raise
    except ValueError as error:  # a number past Python's digit limit (a 5,000-digit id): no JSON value we take
        found = re.search(r"has (\d+) digits", str(error))
        digits = f"a number of {int(found.group(1)):,} digits" if found else "a number too long to read"
        raise json.JSONDecodeError(f"{digits} (no id, label or score is that long)", text, 0) from None
    surrogate = _LONE_SURROGATE_ESCAPE.search(text)
    if surrogate is not None:  # an escaped half of a pair: valid JSON, but not text any output can hold
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise json.JSONDecodeError(
                f"a lone surrogate {surrogate.group(0)!s} is not a character (half of an escaped pair?)",
                text, surrogate.start(),
            ) from None
    return data


_LONE_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def iter_jsonl(path: str | Path, text: str | None = None) -> Iterator[tuple[int, object]]:
    """(line number, parsed object) for each non-blank line; a bad line names itself."""
    body = read_text(path) if text is None else text
    for number, raw in enumerate(split_lines(body), start=1):
        if not raw.strip():
            continue
        try:
            yield number, loads_json(raw)
        except json.JSONDecodeError as error:
            raise InputError(path, f"malformed JSON: {error.msg} (column {error.colno})", line=number) from None


def load_json_or_jsonl(path: str | Path) -> list[tuple[int | None, object]]:
    """A JSON array (or single object) or a JSONL file, as (line, item) pairs."""
    text = read_text(path)
    stripped = text.lstrip()
    if not stripped:
        raise InputError(path, "file is empty")
    if stripped.startswith("["):
        try:
            data = loads_json(text)
        except json.JSONDecodeError as error:
            raise InputError(path, f"malformed JSON: {error.msg}", line=error.lineno) from None
        return [(None, item) for item in data]
    try:
        return [(None, loads_json(text))]
    except json.JSONDecodeError:
        return list(iter_jsonl(path, text))


_SOURCE_ALIASES = {"docid": "id", "doc_id": "id", "text": "content", "contents": "content", "segment": "content"}


def _source_dict(data: object) -> object:
    if not isinstance(data, dict):
        return data
    mapped = {_SOURCE_ALIASES.get(key, key): value for key, value in data.items()}
    if "id" in mapped and not isinstance(mapped["id"], str):
        mapped["id"] = str(mapped["id"])
    return mapped


def load_sources(path: str | Path) -> list[SourceDocument]:
    """Sources from a JSON list or JSONL of ``{id, title, content}`` (``docid``/``text`` accepted)."""
    from ragjury.rag_agent.core.schemas import SourceDocument

    sources = []
    for index, (line, data) in enumerate(load_json_or_jsonl(path)):
        if not isinstance(data, dict):
            raise InputError(path, f"item {index} is {type(data).__name__}, expected an object", line=line)
        sources.append(parse_model(path, _source_dict(data), SourceDocument, line=line))
    return sources


def load_answer(path: str | Path) -> RAGAnswer:
    """A ``RAGAnswer`` from a JSON object, or the whole file as the answer text."""
    from ragjury.rag_agent.core.schemas import RAGAnswer

    text = read_text(path)
    if not text.strip():
        raise InputError(path, "answer is empty")
    if text.lstrip().startswith("{"):
        try:
            data = loads_json(text)
        except json.JSONDecodeError as error:
            raise InputError(path, f"malformed JSON: {error.msg}", line=error.lineno) from None
        return parse_model(path, data, RAGAnswer)
    return RAGAnswer(answer=text.strip())


__all__ = [
    "BOM",
    "InputError",
    "ModelT",
    "iter_jsonl",
    "load_answer",
    "load_json_or_jsonl",
    "load_sources",
    "loads_json",
    "parse_model",
    "read_text",
    "split_lines",
    "validation_message",
]
