"""Dataset records from every shape users bring: JSONL, JSON arrays, CSV/TSV, DataFrames, HF datasets.

One reader so that every shape fails the same way, naming file, line (``grep -n``'s count) or
table row (``df.iloc``'s) and field. pandas and ``datasets`` are never imported: their objects
are recognised by their type's module, so neither is needed unless the user already has one.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import re
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ragjury.rag_agent.core.input_files import InputError, iter_jsonl, loads_json, read_text

Reader = Literal["jsonl", "json", "csv", "tsv", "dataframe", "dataset", "records"]

JSON_WHITESPACE = " \t\n\r"


@dataclass(frozen=True)
class Record:
    """One dataset row and where it came from (``line`` in a file, or ``row`` in a table).

    ``text_cells``: every cell is text (CSV, DataFrames read from CSV), so a list column arrives
    as a string such as ``["a", "b"]`` and a missing value as an empty cell (``decode_list_cell``).
    """

    data: object
    line: int | None = None
    row: int | None = None
    text_cells: bool = False


@dataclass(frozen=True)
class RecordSource:
    """A dataset ready to read: the name errors use, how it is read, and its records (lazily)."""

    name: str
    reader: Reader
    records: Iterator[Record]


def _module_of(value: object) -> str:
    return type(value).__module__.split(".")[0]


def is_dataframe(value: object) -> bool:
    """A pandas DataFrame, recognised without importing pandas."""
    return _module_of(value) == "pandas" and hasattr(value, "to_dict") and hasattr(value, "columns")


def is_hf_dataset(value: object) -> bool:
    """A Hugging Face ``datasets.Dataset`` (or ``IterableDataset``), without importing datasets."""
    return (
        _module_of(value) == "datasets" and hasattr(value, "column_names") and not isinstance(value, Mapping)
    )


def plain(value: Any) -> Any:
    """A table cell as plain Python: NaN / ``pd.NA`` / ``NaT`` become None, numpy arrays lists,
    numpy scalars ints, floats and bools (``to_pandas()`` of a list column gives numpy arrays)."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        return plain(tolist())
    return value


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def decode_list_cell(value: str) -> list[Any] | None:
    """The list a text cell holds, or None when it holds none.

    Accepted: a JSON array (``["a", "b"]``, what the docs ask for) and a Python list literal
    (``['a', 'b']``, which is what ``DataFrame.to_csv`` writes for a list column). Only lists of
    strings and objects count: ``[1]`` or ``[citation needed]`` stay text, and a list that starts
    with a text but holds a number (``["Paris", 1]``) is an error, not one long reference.
    """
    text = value.strip()
    # '["…' or "['…" or '[{…' can only be meant as a list: one that does not parse is an error,
    # not one long reference that no answer would ever contain
    looks_like_a_list = re.match(r"\[\s*[\"'{]", text) is not None
    if not (text.startswith("[") and text.endswith("]")):
        if looks_like_a_list:
            raise ValueError(f"starts like a list but is not one (a quote or bracket missing?): {_clip(text)}")
        return None
    decoded: object
    try:
        decoded = loads_json(text)
    except json.JSONDecodeError:
        try:
            decoded = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            if looks_like_a_list:
                raise ValueError(f"starts like a list but is not one (a quote missing?): {_clip(text)}") from None
            return None
    if not isinstance(decoded, list):
        return None
    stray = next((index for index, entry in enumerate(decoded) if not isinstance(entry, str | dict)), None)
    if stray is None:
        return decoded
    if looks_like_a_list:  # '["Paris", "Lyon", 1]' is a list with a slip, not one long reference
        raise ValueError(
            f"a list of texts, but entry {stray + 1} is {decoded[stray]!r}, not a text (quote it): {_clip(text)}"
        )
    return None


def _csv_records(path: str | Path, text: str, delimiter: str) -> Iterator[Record]:
    """Rows of a CSV/TSV file with a header line, as ``{column: cell}`` text records.

    A row with more cells than the header has columns is an error (a stray delimiter shifts
    every later column); a row with fewer lacks the last columns.
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header: list[str] | None = None
    next_line = 1
    while True:
        first_line = next_line
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            raise InputError(path, f"malformed CSV: {error}", line=first_line) from None
        next_line = reader.line_num + 1
        if not any(cell.strip() for cell in cells):
            continue
        if header is None:
            header = [cell.strip() for cell in cells]
            seen: set[str] = set()
            for position, name in enumerate(header, start=1):
                if not name:
                    raise InputError(path, f"header column {position} has no name", line=first_line)
                if name in seen:
                    raise InputError(path, "column named twice in the header", line=first_line, field=name)
                seen.add(name)
            continue
        if len(cells) > len(header):
            raise InputError(
                path,
                f"{len(cells)} cells but the header names {len(header)} columns (a stray delimiter, "
                "or a cell with the delimiter that is not quoted?)",
                line=first_line,
            )
        yield Record(dict(zip(header, cells, strict=False)), line=first_line, text_cells=True)
    if header is None:
        raise InputError(path, "file is empty")


def _skip_whitespace(text: str, index: int) -> int:
    while index < len(text) and text[index] in JSON_WHITESPACE:
        index += 1
    return index


def _json_array_records(path: str | Path, text: str) -> Iterator[Record]:
    """The elements of a JSON array, each with the line it starts on.

    Decoded element by element (``raw_decode``) so that an error inside record 900 of a
    pretty-printed file names its line, and every record knows its own.
    """
    decoder = json.JSONDecoder()
    index = _skip_whitespace(text, 0) + 1  # past the "["
    line, counted = 1, 0

    def line_at(position: int) -> int:
        nonlocal line, counted
        line += text.count("\n", counted, position)
        counted = position
        return line

    index = _skip_whitespace(text, index)
    if index < len(text) and text[index] == "]":
        index = _skip_whitespace(text, index + 1)
        if index < len(text):
            raise InputError(path, "malformed JSON: extra data after the array", line=line_at(index))
        return
    while True:
        start = line_at(index)
        try:
            value, index = decoder.raw_decode(text, index)
        except json.JSONDecodeError as error:
            raise InputError(
                path, f"malformed JSON: {error.msg} (column {error.colno})", line=error.lineno
            ) from None
        except RecursionError:  # a record nested deeper than the parser goes: bad input, as loads_json says
            raise InputError(path, "malformed JSON: nested too deeply", line=start) from None
        yield Record(value, line=start)
        index = _skip_whitespace(text, index)
        if index >= len(text):
            raise InputError(path, "malformed JSON: the array is not closed with ']'", line=line_at(index))
        if text[index] == ",":
            index = _skip_whitespace(text, index + 1)
            continue
        if text[index] == "]":
            index = _skip_whitespace(text, index + 1)
            if index < len(text):
                raise InputError(path, "malformed JSON: extra data after the array", line=line_at(index))
            return
        raise InputError(path, "malformed JSON: expected ',' or ']' after a record", line=line_at(index))


def _refuse_wrapped_rows(path: str | Path, whole: object) -> None:
    """A JSON object that holds the rows under a key (``{"data": [...]}``) is not one row: say
    what is expected instead of naming the first field the "row" lacks."""
    if not isinstance(whole, dict):
        return
    for key, value in whole.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            raise InputError(
                path,
                f"expected JSONL rows (one JSON object per line) or a JSON array of rows; this file is one object "
                f"holding {len(value):,} rows under {key!r}: write them one per line (e.g. jq -c '.{key}[]')",
                line=1,
            )


def _file_source(path: str | Path) -> RecordSource:
    name = str(path)
    suffix = Path(name).suffix.lower() if name != "-" else ""
    text = read_text(path)
    if suffix in (".csv", ".tsv"):
        reader: Reader = "csv" if suffix == ".csv" else "tsv"
        return RecordSource(name, reader, _csv_records(path, text, "," if suffix == ".csv" else "\t"))
    stripped = text.lstrip(JSON_WHITESPACE)
    if stripped.startswith("["):
        return RecordSource(name, "json", _json_array_records(path, text))
    if suffix == ".json" and stripped.startswith("{"):
        try:
            whole = loads_json(text)
        except json.JSONDecodeError:
            pass  # JSON Lines in a .json file: read line by line below
        else:
            first = len(text) - len(stripped)
            _refuse_wrapped_rows(path, whole)
            return RecordSource(name, "json", iter([Record(whole, line=text.count("\n", 0, first) + 1)]))
    return RecordSource(name, "jsonl", (Record(data, line=number) for number, data in iter_jsonl(path, text)))


def _table_rows(rows: Iterable[Any], *, text_cells: bool) -> Iterator[Record]:
    for position, data in enumerate(rows):
        cells = {str(key): plain(value) for key, value in data.items()} if isinstance(data, Mapping) else data
        yield Record(cells, row=position, text_cells=text_cells)


def records_of(source: object) -> RecordSource:
    """Open ``source`` for reading: a path (``-`` for standard input), a pandas DataFrame, a
    ``datasets.Dataset``, or an iterable of dicts. How a file is read follows its name and
    content: ``.csv`` / ``.tsv`` with a header line; a file starting with ``[`` as a JSON array;
    a ``.json`` file holding one object as that one record; anything else as JSON Lines."""
    if isinstance(source, str | Path):
        return _file_source(source)
    if is_dataframe(source):
        frame: Any = source
        if frame.columns.has_duplicates:
            twice = str(frame.columns[frame.columns.duplicated()][0])
            raise InputError("DataFrame", "column named twice", field=twice)
        rows = _table_rows(frame.to_dict(orient="records"), text_cells=True)
        return RecordSource("DataFrame", "dataframe", rows)
    if is_hf_dataset(source):
        dataset: Any = source
        return RecordSource("Dataset", "dataset", _table_rows(dataset, text_cells=False))
    if _module_of(source) == "datasets":
        raise InputError(
            type(source).__name__, "pick one split, e.g. dataset['train'] (a DatasetDict holds several)"
        )
    if isinstance(source, Iterable) and not isinstance(source, bytes | Mapping):
        return RecordSource("records", "records", _table_rows(source, text_cells=False))
    raise InputError(
        type(source).__name__,
        "expected a file path, a pandas DataFrame, a datasets.Dataset or a list of dicts",
    )


__all__ = [
    "Record",
    "RecordSource",
    "decode_list_cell",
    "is_dataframe",
    "is_hf_dataset",
    "plain",
    "records_of",
]
