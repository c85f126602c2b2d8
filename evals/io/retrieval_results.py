"""A retriever's saved results against expected answer texts: one JSONL row a query.

The Evret and Ragas context-recall layout, ``{id, query, expected_answers, retrieved: [{doc_id,
text, score}]}``, so a retriever is evaluated from its output file without running it again;
errors name the file, the line and the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ragjury.rag_agent.core.input_files import InputError, iter_jsonl

QUERY_KEYS = ("query", "question", "user_input")
EXPECTED_KEYS = ("expected_answers", "expected", "reference_contexts", "references", "answers")
RETRIEVED_KEYS = ("retrieved", "retrieved_contexts", "results", "contexts")
ID_KEYS = ("id", "qid", "query_id")
TEXT_KEYS = ("text", "content", "page_content", "passage")
DOC_ID_KEYS = ("doc_id", "docid", "id")


@dataclass(frozen=True)
class RetrievedText:
    """One retrieved item: its id, its text, its score (rank order is the file's order)."""

    doc_id: str
    text: str
    score: float


@dataclass(frozen=True)
class RetrievalRow:
    """One query: what it asked, the texts a relevant item must match, what was retrieved."""

    id: str
    line: int
    query: str
    expected: list[str]
    retrieved: list[RetrievedText]


def _first(row: Mapping[str, object], keys: Sequence[str]) -> tuple[str, object]:
    for key in keys:
        if key in row and row[key] is not None:
            return key, row[key]
    return keys[0], None


def _texts(path: Path, line: int, field: str, value: object) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError(path, "expected a non-empty list of non-empty texts", line=line, field=field)
    return list(value)


def _retrieved(path: Path, line: int, field: str, value: object) -> list[RetrievedText]:
    if not isinstance(value, list):
        raise InputError(path, "expected a list of retrieved items", line=line, field=field)
    items: list[RetrievedText] = []
    for rank, entry in enumerate(value):
        where = f"{field}.{rank}"
        if isinstance(entry, str):  # a bare text: its rank is its id
            items.append(RetrievedText(doc_id=f"rank{rank + 1}", text=entry, score=0.0))
            continue
        if not isinstance(entry, Mapping):
            raise InputError(path, "expected an object {doc_id, text, score} or a text", line=line, field=where)
        text_key, text = _first(entry, TEXT_KEYS)
        if not isinstance(text, str):
            raise InputError(path, "missing or not a string", line=line, field=f"{where}.{text_key}")
        id_key, doc_id = _first(entry, DOC_ID_KEYS)
        if doc_id is None:
            doc_id = f"rank{rank + 1}"
        elif not isinstance(doc_id, str | int) or isinstance(doc_id, bool):
            raise InputError(path, f"expected a string, got {doc_id!r}", line=line, field=f"{where}.{id_key}")
        score = entry.get("score", 0.0)
        if not isinstance(score, int | float) or isinstance(score, bool):
            raise InputError(path, f"expected a number, got {score!r}", line=line, field=f"{where}.score")
        items.append(RetrievedText(doc_id=str(doc_id), text=text, score=float(score)))
    return items


def load_retrieval_results(path: str | Path) -> list[RetrievalRow]:
    """Every row of a retrieval results file, in file order; a repeated id is an error."""
    source = Path(path)
    rows: list[RetrievalRow] = []
    seen: set[str] = set()
    for line, data in iter_jsonl(source):
        if not isinstance(data, Mapping):
            raise InputError(source, f"expected a JSON object, got {type(data).__name__}", line=line)
        query_key, query = _first(data, QUERY_KEYS)
        if not isinstance(query, str) or not query.strip():
            raise InputError(source, f"missing (looked for: {', '.join(QUERY_KEYS)})", line=line, field=query_key)
        expected_key, expected = _first(data, EXPECTED_KEYS)
        if expected is None:
            raise InputError(source, f"missing (looked for: {', '.join(EXPECTED_KEYS)})", line=line,
                             field=expected_key)
        retrieved_key, retrieved = _first(data, RETRIEVED_KEYS)
        if retrieved is None:
            raise InputError(source, f"missing (looked for: {', '.join(RETRIEVED_KEYS)})", line=line,
                             field=retrieved_key)
        id_key, ident = _first(data, ID_KEYS)
        if ident is not None and (not isinstance(ident, str | int) or isinstance(ident, bool)):
            raise InputError(source, f"expected a string, got {ident!r}", line=line, field=id_key)
        row_id = str(ident) if ident is not None else f"line-{line}"
        if row_id in seen:
            raise InputError(source, f"duplicate id {row_id!r}", line=line, field=id_key)
        seen.add(row_id)
        rows.append(RetrievalRow(
            id=row_id,
            line=line,
            query=query,
            expected=_texts(source, line, expected_key, expected),
            retrieved=_retrieved(source, line, retrieved_key, retrieved),
        ))
    if not rows:
        raise InputError(source, "no rows in the file")
    return rows


__all__ = ["RetrievalRow", "RetrievedText", "load_retrieval_results"]
