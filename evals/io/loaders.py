"""Loaders for evaluation inputs: TREC qrels and runs, topics, passages, TREC RAG runs, JSONL datasets.

Every file a user points ragjury at must fail the same way, with one line naming the file, the
line and the field (``rag_agent.core.input_files.InputError``), never a traceback from deep inside
a metric. Formats are TREC's, as described in ``shared/benchmarks/PROVENANCE.md``.
"""

from __future__ import annotations

import glob
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragjury.rag_agent.core.input_files import (
    InputError,
    iter_jsonl,
    read_text,
    split_lines,
    validation_message,
)


Qrels = dict[str, dict[str, int]]
"""qid -> docid -> graded relevance label (the TREC convention: 0 not relevant, higher is better)."""

RUN_SUFFIXES: tuple[str, ...] = (".trec", ".run")
"""File names that ``find_run_files`` (and so ``load_runs``) picks up in a folder."""


@dataclass(frozen=True)
class Run(Mapping[str, list[tuple[str, float]]]):
    """A ranked retrieval run: ``name`` and, per query, ``(docid, score)`` best first.

    A ``Run`` is a read-only mapping ``qid -> [(docid, score), ...]`` so metrics accept it and a
    plain dict alike. Loaded from a TREC file, the order is the file's rank column: that is the
    order the system produced. trec_eval instead re-sorts by score (ties by docid descending),
    which differs when a file rounds its scores into ties; ``evals.stats.metrics`` offers both
    (``trec_order=True`` reproduces trec_eval exactly).
    """

    name: str
    rankings: dict[str, list[tuple[str, float]]] = field(default_factory=dict)

    def __getitem__(self, qid: str) -> list[tuple[str, float]]:
        return self.rankings[qid]

    def __iter__(self) -> Iterator[str]:
        return iter(self.rankings)

    def __len__(self) -> int:
        return len(self.rankings)

    def docids(self, qid: str) -> list[str]:
        """The ranked docids of one query (empty when the run has none for it)."""
        return [docid for docid, _ in self.rankings.get(qid, [])]


_COLUMN_SEPARATOR = re.compile(r"[ \t\r\f\v]+")
"""TREC columns are separated by ASCII white space, as trec_eval reads them: ``str.split()`` would
also split on U+0085, U+2028 or a no-break space inside a docid."""


def _fields(path: str | Path, number: int, raw: str, expected: int, what: str) -> list[str]:
    parts = [part for part in _COLUMN_SEPARATOR.split(raw) if part]
    if len(parts) != expected:
        raise InputError(path, f"expected {expected} columns ({what}), found {len(parts)}", line=number)
    return parts


def _nonempty_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    text = read_text(path)
    if not text.strip():
        raise InputError(path, "file is empty")
    for number, raw in enumerate(split_lines(text), start=1):
        if raw.strip():
            yield number, raw


def load_qrels(path: str | Path) -> Qrels:
    """TREC qrels ``qid iter docid grade`` as ``{qid: {docid: grade}}``: a judge's (``agreement
    --judged``), or pairs to judge (``relevance --pairs``). People's grades given as labels are read
    by ``evals.io.people.read_people`` (the labels type), through the same rows (``qrels_rows``).
    """
    from ragjury.evals.io.people import qrels_rows

    qrels: Qrels = {}
    for _number, qid, docid, grade in qrels_rows(path, read_text(path)):
        qrels.setdefault(qid, {})[docid] = grade
    return qrels


def load_run(path: str | Path) -> Run:
    """A TREC run ``qid Q0 docid rank score tag``; the run is named by its tag column.

    Each query's documents are ordered by the rank column (file order among equal ranks).
    """
    ranked: dict[str, list[tuple[int, int, str, float]]] = {}
    seen: dict[str, set[str]] = {}
    name: str | None = None
    for number, raw in _nonempty_lines(path):
        qid, _q0, docid, rank_text, score_text, tag = _fields(
            path, number, raw, 6, "qid Q0 docid rank score tag"
        )
        try:
            rank = int(rank_text)
        except ValueError:
            raise InputError(
                path, f"rank must be an integer, got {rank_text!r}", line=number, field="rank"
            ) from None
        try:
            score = float(score_text)
        except ValueError:
            raise InputError(
                path, f"score must be a number, got {score_text!r}", line=number, field="score"
            ) from None
        if not math.isfinite(score):
            raise InputError(path, f"score must be finite, got {score_text!r}", line=number, field="score")
        docs = seen.setdefault(qid, set())
        if docid in docs:
            raise InputError(
                path, f"document {docid} appears twice for query {qid}", line=number, field="docid"
            )
        docs.add(docid)
        name = name or tag
        ranked.setdefault(qid, []).append((rank, number, docid, score))
    rankings = {qid: [(docid, score) for _, _, docid, score in sorted(rows)] for qid, rows in ranked.items()}
    return Run(name=name or Path(path).stem, rankings=rankings)


def find_run_files(patterns: str | Path | Sequence[str | Path]) -> list[Path]:
    """The TREC run files named by paths, globs (``runs/*.trec``) and folders (their ``*.trec`` /
    ``*.run``), in the order given (a glob's and a folder's sorted), each file once.

    Why one function: ``relevance --runs`` and ``agreement --runs`` (through ``load_runs``) must
    read the same files from the same argument, and fail the same way when there are none.
    """
    items = [patterns] if isinstance(patterns, str | Path) else list(patterns)
    files: list[Path] = []
    for pattern in map(str, items):
        matches = sorted(glob.glob(pattern)) if any(ch in pattern for ch in "*?[") else [pattern]
        if not matches:
            raise InputError(pattern, "no run file matches this pattern")
        for match in matches:
            path = Path(match)
            if path.is_dir():
                found = sorted(p for p in path.iterdir() if p.suffix in RUN_SUFFIXES)
                if not found:
                    raise InputError(
                        path, f"no run files ({', '.join('*' + s for s in RUN_SUFFIXES)}) in this folder"
                    )
                files.extend(found)
            elif not path.exists():
                raise InputError(path, "file not found")
            else:
                files.append(path)
    return list(dict.fromkeys(files))


def load_runs(path: str | Path | Sequence[str | Path]) -> dict[str, Run]:
    """Every run of ``find_run_files(path)`` (a folder, one run file, a glob), keyed by run name.

    Two files with the same tag keep apart by file name, so no run silently replaces another.
    """
    runs: dict[str, Run] = {}
    for file in find_run_files(path):
        run = load_run(file)
        key = run.name if run.name not in runs else file.stem
        if key in runs:
            raise InputError(file, f"a run named {key!r} was already loaded from another file")
        runs[key] = run if key == run.name else Run(name=key, rankings=run.rankings)
    return runs


def _text_field(path: str | Path, number: int, row: Mapping[str, object], names: Sequence[str]) -> str:
    for name in names:
        if name in row:
            value = row[name]
            if isinstance(value, bool) or not isinstance(value, str | int):
                raise InputError(
                    path, f"expected a string, got {type(value).__name__}", line=number, field=name
                )
            return str(value)
    raise InputError(path, f"missing (expected one of: {', '.join(names)})", line=number, field=names[0])


def _jsonl_rows(path: str | Path) -> Iterator[tuple[int, Mapping[str, object]]]:
    found = False
    for number, row in iter_jsonl(path):
        if not isinstance(row, dict):
            raise InputError(path, f"expected a JSON object, got {type(row).__name__}", line=number)
        found = True
        yield number, row
    if not found:
        raise InputError(path, "file is empty")


def trec_id(path: str | Path, number: int | None, field: str, value: str) -> str:
    """An id that goes into a TREC file (qrels, runs, leaderboards), whose columns are split on
    whitespace: one with whitespace or a control character in it would forge lines or columns."""
    if not value or any(char.isspace() or not char.isprintable() for char in value):
        raise InputError(path, f"{value!r} cannot be a TREC id (empty, whitespace or control characters)",
                         line=number, field=field)
    return value


def _load_keyed_text(
    path: str | Path, key_names: Sequence[str], text_names: Sequence[str], what: str
) -> dict[str, str]:
    result: dict[str, str] = {}
    for number, row in _jsonl_rows(path):
        key = trec_id(path, number, key_names[0], _text_field(path, number, row, key_names))
        text = _text_field(path, number, row, text_names)
        if key in result:
            raise InputError(path, f"duplicate {what} {key!r}", line=number, field=key_names[0])
        result[key] = text
    return result


TOPIC_FORMATS: tuple[str, ...] = ("auto", "rag", "ragtime", "dragun")
"""The TREC AutoJudge kit's topic formats (``judge_settings.topic_format`` of a workflow.yml)."""


def topic_query(topic: Mapping[str, object], topic_format: str) -> str:
    """The query text of a TREC AutoJudge topic, chosen as the kit's ``extract_query`` chooses it:
    ``rag`` the title, ``dragun`` the body (else the title), ``ragtime`` title + problem statement +
    background, ``auto`` the body, else the ragtime text where there is a problem statement, else
    the title."""
    title = str(topic.get("title") or "")
    body = topic.get("body")
    ragtime = " ".join(
        str(part) for part in (title, topic.get("problem_statement"), topic.get("background")) if part
    ).strip()
    if topic_format == "dragun":
        return str(body) if body else title
    if topic_format == "rag":
        return title
    if topic_format == "ragtime":
        return ragtime
    if body:
        return str(body)
    if "problem_statement" in topic:
        return ragtime
    return title


def _kit_topics(path: str | Path, topic_format: str) -> dict[str, str]:
    """``request_id -> query`` of TREC AutoJudge topics; a repeated ``request_id`` keeps its last
    query, as the kit's own dictionary does."""
    topics: dict[str, str] = {}
    for number, row in _jsonl_rows(path):
        if row.get("request_id") is None:
            raise InputError(path, "missing", line=number, field="request_id")
        request_id = str(row["request_id"])
        if not request_id.strip():
            raise InputError(path, "missing", line=number, field="request_id")
        trec_id(path, number, "request_id", request_id)
        query = topic_query(row, topic_format)
        if not query.strip():
            raise InputError(path, "topic has no query text", line=number, field="title")
        topics[request_id] = query
    return topics


def load_topics(path: str | Path, topic_format: str | None = None) -> dict[str, str]:
    """Queries by id.

    Without ``topic_format``: ``topics.jsonl`` rows ``{qid, query}`` or TREC RAG
    ``{request_id, title}`` (a repeated id is an error), or a TSV file ``qid<TAB>query`` as
    MS MARCO ships them. With a ``topic_format`` (one of ``TOPIC_FORMATS``): TREC AutoJudge topics,
    keyed by ``request_id``, the query chosen by ``topic_query`` as the kit's non-LLM judge reads it.
    """
    if topic_format is not None:
        if topic_format not in TOPIC_FORMATS:
            raise ValueError(f"unknown topic format {topic_format!r} (known: {', '.join(TOPIC_FORMATS)})")
        return _kit_topics(path, topic_format)
    if Path(path).suffix.lower() == ".tsv":
        topics: dict[str, str] = {}
        for number, raw in _nonempty_lines(path):
            qid, sep, query = raw.partition("\t")
            if not sep or not query.strip():
                raise InputError(path, "expected 'qid<TAB>query'", line=number)
            trec_id(path, number, "qid", qid)
            if qid in topics:
                raise InputError(path, f"duplicate query id {qid!r}", line=number, field="qid")
            topics[qid] = query.strip()
        return topics
    return _load_keyed_text(
        path, ("qid", "request_id", "query_id", "id"), ("query", "title", "text"), "query id"
    )


def load_passages(path: str | Path) -> dict[str, str]:
    """Passage texts by docid from ``passages.jsonl`` (``{docid, text}``; common aliases accepted)."""
    return _load_keyed_text(
        path, ("docid", "doc_id", "id", "segment_id"), ("text", "contents", "segment", "content"), "docid"
    )


class RagResponse(BaseModel):
    """One sentence (or segment) of a TREC RAG answer with the references it cites."""

    model_config = ConfigDict(extra="ignore")

    text: str
    citations: list[int | str] = Field(default_factory=list)


class RagRunMetadata(BaseModel):
    model_config = ConfigDict(extra="allow")

    run_id: str
    topic_id: str
    team_id: str | None = None


class RagRunEntry(BaseModel):
    """One topic's answer in a TREC RAG JSONL run."""

    model_config = ConfigDict(extra="ignore")

    metadata: RagRunMetadata
    responses: list[RagResponse] = Field(default_factory=list)
    references: list[str] = Field(default_factory=list)

    @property
    def answer(self) -> str:
        """The whole answer: the response sentences joined with spaces."""
        return " ".join(response.text.strip() for response in self.responses if response.text.strip())


@dataclass(frozen=True)
class RagRun:
    """A TREC RAG run: its ``run_id`` and one entry per topic."""

    name: str
    answers: dict[str, RagRunEntry]


def _coerce_ids(row: Mapping[str, object]) -> Mapping[str, object]:
    metadata = row.get("metadata")
    if isinstance(metadata, dict):
        fixed = {
            k: str(v) if k in ("run_id", "topic_id") and isinstance(v, int) else v
            for k, v in metadata.items()
        }
        return {**row, "metadata": fixed}
    return row


def load_rag_run(path: str | Path) -> RagRun:
    """One TREC RAG JSONL run file; all lines must share one ``run_id``, one line per topic."""
    answers: dict[str, RagRunEntry] = {}
    name: str | None = None
    for number, row in _jsonl_rows(path):
        try:
            entry = RagRunEntry.model_validate(_coerce_ids(row))
        except ValidationError as error:
            where, message = validation_message(error)
            raise InputError(path, message, line=number, field=where) from None
        trec_id(path, number, "metadata.run_id", entry.metadata.run_id)
        trec_id(path, number, "metadata.topic_id", entry.metadata.topic_id)
        if name is None:
            name = entry.metadata.run_id
        elif entry.metadata.run_id != name:
            raise InputError(
                path,
                f"run_id {entry.metadata.run_id!r} differs from {name!r} earlier in the file",
                line=number,
                field="metadata.run_id",
            )
        if entry.metadata.topic_id in answers:
            raise InputError(
                path,
                f"topic {entry.metadata.topic_id!r} answered twice",
                line=number,
                field="metadata.topic_id",
            )
        answers[entry.metadata.topic_id] = entry
    return RagRun(name=name or Path(path).stem, answers=answers)


@dataclass(frozen=True)
class LabelRow:
    """One labelled (or predicted) row of a JSONL file, joined to others on ``id``."""

    line: int
    label: bool | int | None
    system: str | None = None


def _people_rows(path: str | Path) -> dict[str, LabelRow] | None:
    """A labels file of ``ragjury label`` read by the one reader of people's labels
    (``evals.io.people``, its several-annotator rule), or None when ``path`` is not one."""
    from ragjury.evals.io.label_acts import is_labels_file
    from ragjury.evals.io.people import label_rows, read_people_any

    if not is_labels_file(path):
        return None
    return {ident: LabelRow(line, value, system)  # type: ignore[arg-type]
            for ident, (line, value, system) in label_rows(read_people_any(path)).items()}


def load_labels(
    path: str | Path, *, allow_unscored: bool = False, field_name: str = "label"
) -> dict[str, LabelRow]:
    """``{id: LabelRow}`` from JSONL rows with ``id``, ``label`` (bool or int) and optional ``system``.

    Gold files need a label on every row. Prediction files (``allow_unscored=True``) may carry
    ``"label": null`` or ``"unscored": true``: an unscored prediction, kept as ``None``, never
    read as false.
    """
    rows: dict[str, LabelRow] = {}
    if not allow_unscored:
        people = _people_rows(path)
        if people is not None:
            return people
    for number, row in _jsonl_rows(path):
        key = _text_field(path, number, row, ("id",))
        if key in rows:
            raise InputError(
                path, f"duplicate id {key!r} (first on line {rows[key].line})", line=number, field="id"
            )
        unscored = row.get("unscored") is True
        if field_name not in row and not (allow_unscored and unscored):
            raise InputError(path, "missing", line=number, field=field_name)
        value = None if unscored else row.get(field_name)
        if value is None and not allow_unscored:
            raise InputError(
                path,
                "gold label must be true/false (or an integer grade), got null",
                line=number,
                field=field_name,
            )
        if value is not None and (isinstance(value, float) or not isinstance(value, bool | int)):
            raise InputError(
                path, f"expected true/false or an integer, got {value!r}", line=number, field=field_name
            )
        system = row.get("system")
        if system is not None and not isinstance(system, str | int):
            raise InputError(
                path, f"expected a string, got {type(system).__name__}", line=number, field="system"
            )
        rows[key] = LabelRow(number, value, None if system is None else str(system))
    return rows


__all__ = [
    "trec_id",
    "RUN_SUFFIXES",
    "TOPIC_FORMATS",
    "LabelRow",
    "Qrels",
    "RagResponse",
    "RagRun",
    "RagRunEntry",
    "RagRunMetadata",
    "Run",
    "find_run_files",
    "load_labels",
    "load_passages",
    "load_qrels",
    "load_rag_run",
    "load_run",
    "load_runs",
    "load_topics",
    "topic_query",
]
