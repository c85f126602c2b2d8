"""Dataset rows → judge items, per task, with a field mapping and errors that name file:line:field.

Files name the same thing differently (``reference`` / ``references`` / ``gold``), so each item
field lists the columns it is read from, first match wins; ``--map field=column`` covers the rest.
Rows come from ``evals.io.records`` and Ragas / DeepEval names from ``evals.io.peer_formats``;
gold labels are optional (with them, ``evaluate`` reports agreement).
"""

from __future__ import annotations

import math

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_origin

from pydantic import BaseModel

from ragjury.evals.io.peer_formats import InputMapping, resolve
from ragjury.evals.io.records import Record, decode_list_cell, records_of
from ragjury.rag_agent.core.input_files import InputError, parse_model
from ragjury.rag_agent.core.task_entry import GoldKind, TaskEntry
from ragjury.rag_agent.tasks.catalogue import dataset_tasks, entry

META_FIELDS: dict[str, tuple[str, ...]] = {
    "id": ("id", "qid", "question_id", "example_id", "_id"),
    "system": ("system", "model", "run", "system_name"),
}

BINARY_GOLD = (
    "label",
    "gold_label",
    "human_label",
    "is_correct",
    "correct",
    "faithful",
    "attributable",
    "human",
)
SCORE_GOLD = ("score", "human_score", "gold_score", "rating", "label")


FIELD_COLUMNS: dict[str, tuple[str, ...]] = {
    "question": ("question", "query", "prompt"),
    "answer": ("answer", "response", "prediction", "output", "generated_answer"),
    "references": (
        "references",
        "reference",
        "gold_answers",
        "gold_answer",
        "gold",
        "answers",
        "ground_truth",
        "ground_truths",
        "expected",
        "expected_answer",
    ),
    "contexts": ("contexts", "context", "knowledge", "passages", "passage", "documents", "sources"),
    "sources": ("sources", "contexts", "context", "passages", "documents"),
    "sources_used": ("sources_used", "citations"),
}
"""The columns an item field is read from, first present wins, in every task; a field not named
here is read from the column of its own name (``--map`` covers the rest)."""


@dataclass(frozen=True)
class TaskSpec:
    """How one task reads its rows: item type, columns per item field, and the gold label."""

    name: str
    item_type: type[BaseModel]
    columns: dict[str, tuple[str, ...]]
    required: tuple[str, ...]
    gold_columns: tuple[str, ...]
    gold_kind: GoldKind
    output_key: str = "label"
    """The predictions key of the judge's label: ``label`` (verdicts) or ``score``."""
    list_fields: tuple[str, ...] = ()
    """Item fields that hold lists; in text cells (CSV) they arrive as a JSON array string."""

    @property
    def mappable(self) -> tuple[str, ...]:
        return (*self.columns, *META_FIELDS, "label")


def spec_of(entry: TaskEntry) -> TaskSpec:
    """A declared task's ``TaskSpec``: its fields, which are required and which hold lists, from
    its item class; their columns from ``FIELD_COLUMNS``; the rest from its declaration."""
    if entry.gold not in ("binary", "score"):
        raise ValueError(f"task {entry.name}: gold must be binary or score, got {entry.gold!r}")
    fields = entry.item.model_fields  # type: ignore[attr-defined]
    return TaskSpec(
        name=entry.name,
        item_type=entry.item,
        columns={name: FIELD_COLUMNS.get(name, (name,)) for name in fields},
        required=tuple(name for name, info in fields.items() if info.is_required()),
        gold_columns=BINARY_GOLD if entry.gold == "binary" else SCORE_GOLD,
        gold_kind=entry.gold,
        output_key="label" if entry.gold == "binary" else "score",
        list_fields=tuple(
            name for name, info in fields.items() if name in FIELD_READERS or get_origin(info.annotation) is list
        ),
    )


@dataclass
class TaskRow:
    """One dataset row ready to judge: the item plus what identifies and grades it."""

    id: str
    line: int | None
    item: BaseModel
    system: str | None = None
    gold: bool | float | None = None
    inclusion_probability: float | None = None
    """The chance ``gold`` (people's label, ``--labels``) had of being drawn, where a plan gave it."""


def task_spec(task: str) -> TaskSpec:
    try:
        return TASK_SPECS[task]
    except KeyError:
        raise ValueError(f"unknown task '{task}'; valid tasks: {', '.join(TASK_SPECS)}") from None


def parse_mapping(pairs: Iterable[str], task: str) -> dict[str, str]:
    """``["answer=response", ...]`` → ``{"answer": "response"}``; bad entries are a ValueError."""
    return _mapping_of(pairs, task, task_spec(task))


def _mapping_of(pairs: Iterable[str], task: str, spec: TaskSpec) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for pair in pairs:
        name, sep, column = pair.partition("=")
        name, column = name.strip(), column.strip()
        if not sep or not name or not column:
            raise ValueError(f"--map '{pair}' must look like field=column")
        if name not in spec.mappable:
            raise ValueError(
                f"--map: unknown field '{name}' for task {task}; fields: {', '.join(spec.mappable)}"
            )
        mapping[name] = column
    return mapping


def _pick(
    row: Mapping[str, Any],
    name: str,
    candidates: Sequence[str],
    mapping: Mapping[str, str],
    *,
    blank_is_missing: bool = False,
) -> tuple[str | None, Any]:
    """(column used, value) of ``name``: the mapped column, else the first candidate present.

    ``blank_is_missing``: an empty text cell counts as no value (CSV has no null).
    """

    def present(value: Any) -> bool:
        return value is not None and not (blank_is_missing and isinstance(value, str) and not value.strip())

    if name in mapping:
        column = mapping[name]
        value = row.get(column)
        return column, value if present(value) else None
    for column in candidates:
        if column in row and present(row[column]):
            return column, row[column]
    return None, None


def _text_list(value: Any) -> list[str]:
    """A string, a list of strings, or a list of ``{text|content|segment}`` objects → texts."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        texts = []
        for entry in value:
            if isinstance(entry, str):
                texts.append(entry)
            elif isinstance(entry, Mapping):
                text = next(
                    (entry[k] for k in ("text", "content", "contents", "segment") if k in entry), None
                )
                if not isinstance(text, str):
                    raise ValueError("each entry needs a 'text' or 'content' string")
                texts.append(text)
            else:
                raise ValueError(f"expected strings or objects, got {type(entry).__name__}")
        return texts
    raise ValueError(f"expected a string or a list, got {type(value).__name__}")


def _sources(value: Any) -> list[dict[str, Any]]:
    """Sources as ``SourceDocument`` dicts: strings get ids ``s1, s2, ...``."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise ValueError(f"expected a list of sources, got {type(value).__name__}")
    sources = []
    for number, entry in enumerate(value, start=1):
        if isinstance(entry, str):
            sources.append({"id": f"s{number}", "content": entry})
        elif isinstance(entry, Mapping):
            aliases = {
                "docid": "id",
                "doc_id": "id",
                "text": "content",
                "contents": "content",
                "segment": "content",
            }
            mapped = {aliases.get(k, k): v for k, v in entry.items()}
            mapped.setdefault("id", f"s{number}")
            mapped["id"] = str(mapped["id"])
            sources.append(mapped)
        else:
            raise ValueError(f"expected strings or objects, got {type(entry).__name__}")
    return sources


def parse_gold(value: Any, kind: GoldKind) -> bool | float:
    """A gold label: bool (true/false, yes/no, 1/0) or a float score."""
    if kind == "binary":
        if isinstance(value, bool):
            return value
        if isinstance(value, int | float) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in {"true", "yes", "1", "correct", "faithful"}:
            return True
        if isinstance(value, str) and value.strip().lower() in {
            "false",
            "no",
            "0",
            "incorrect",
            "unfaithful",
        }:
            return False
        raise ValueError(f"expected a boolean label (true/false, 1/0), got {value!r}")
    if isinstance(value, bool):
        return float(value)  # a good/bad judgment by people still correlates with a score
    if not isinstance(value, int | float | str):
        raise ValueError(f"expected a number, got {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"expected a number, got {value!r}") from None
    if not math.isfinite(number):  # NaN compares false with everything and fakes a correlation
        raise ValueError(f"expected a finite number, got {value!r}")
    if not 0.0 <= number <= 1.0:  # the score judges' scale: a 5 would read as "people 1.0 [1.0, 1.0]"
        raise ValueError(f"expected a score in [0, 1] (the score task's scale; rescale 1-5 labels first), got {value!r}")
    return number


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


FIELD_READERS: dict[str, Callable[[Any], Any]] = {
    "references": _text_list,
    "contexts": _text_list,
    "sources": _sources,
    "sources_used": _strings,
}
"""How a list field's cell becomes the item's value (a string, objects with a ``text``, ...);
a field not named here goes to the item class as it is."""

TASK_SPECS: dict[str, TaskSpec] = {name: spec_of(entry(name)) for name in dataset_tasks()}
"""Every task ``ragjury evaluate`` reads from a file, from the tasks' declarations (``@task_entry``)."""


def row_to_task_row(
    spec: TaskSpec,
    data: Any,
    *,
    source: str | Path,
    line: int | None,
    mapping: Mapping[str, str] | None = None,
    row: int | None = None,
    text_cells: bool = False,
) -> TaskRow:
    """Build the item, id, system and gold label of one row, or raise ``InputError`` naming the
    file, the line (or a table's ``row``) and the field.

    ``text_cells`` (CSV, DataFrames): a list field given as a JSON array string (or the Python
    list literal ``DataFrame.to_csv`` writes) is decoded, and an empty cell is a missing value,
    except in ``answer``, where it is an empty answer (judged unscored, as in JSONL).
    """
    mapping = mapping or {}
    at: dict[str, Any] = {"line": line, "row": row}
    if not isinstance(data, Mapping):
        raise InputError(source, f"expected a JSON object, got {type(data).__name__}", **at)
    fields: dict[str, Any] = {}
    for name, candidates in spec.columns.items():
        blank = text_cells and name != "answer"
        column, value = _pick(data, name, candidates, mapping, blank_is_missing=blank)
        if value is None:
            if name in spec.required:
                looked = mapping[name] if name in mapping else ", ".join(candidates)
                raise InputError(
                    source, f"missing (looked for: {looked}; use --map {name}=COLUMN)", field=name, **at
                )
            continue
        try:
            if text_cells and name in spec.list_fields and isinstance(value, str):
                decoded = decode_list_cell(value)
                value = decoded if decoded is not None else value
            if name in FIELD_READERS:
                value = FIELD_READERS[name](value)
        except ValueError as error:
            raise InputError(source, str(error), field=column, **at) from None
        fields[name] = value
    item = parse_model(source, fields, spec.item_type, line=line, row=row)

    id_column, row_id = _pick(data, "id", META_FIELDS["id"], mapping, blank_is_missing=text_cells)
    system_column, system = _pick(data, "system", META_FIELDS["system"], mapping, blank_is_missing=text_cells)
    for column, value in ((id_column, row_id), (system_column, system)):  # no "{'x': 1}" as a name
        if value is not None and (not isinstance(value, str | int | float) or isinstance(value, bool)):
            raise InputError(source, f"expected a string or a number, got {value!r}", field=column, **at)
        if isinstance(value, float) and not math.isfinite(value):  # 1e400 parses as inf: two would be one id
            raise InputError(source, "a number too large to be one (it reads as infinity): quote it", field=column, **at)
        if isinstance(value, str) and not value.strip() and not text_cells:  # a blank CSV cell is a missing one
            raise InputError(source, "an empty name: leave the field out, or give one", field=column, **at)
    gold_column, gold_value = _pick(data, "label", spec.gold_columns, mapping, blank_is_missing=text_cells)
    gold = None
    if gold_value is not None:
        try:
            gold = parse_gold(gold_value, spec.gold_kind)
        except ValueError as error:
            raise InputError(source, str(error), field=gold_column, **at) from None
    return TaskRow(
        id=str(row_id) if row_id is not None else (f"line-{line}" if line is not None else f"row-{row}"),
        line=line,
        item=item,
        system=str(system) if system is not None else None,
        gold=gold,
    )


DataSource = Any
"""What a dataset may be given as: a path (str or Path, ``-`` for stdin), a pandas DataFrame, a
``datasets.Dataset`` or an iterable of dicts (``evals.io.records.records_of``)."""


@dataclass
class TaskDataset:
    """The rows of a dataset and how its columns were read (``InputMapping``)."""

    rows: list[TaskRow]
    input_mapping: InputMapping
    unread_references: tuple[str, ...] = ()
    """Reference-answer columns of the first row that this task does not read (a score task's
    judges score against the sources): said, not silently dropped."""

    def unread_note(self, task: str) -> str | None:
        if not self.unread_references:
            return None
        columns = ", ".join(repr(c) for c in self.unread_references)
        return (f"note: --task {task} does not read {columns} (its judges score the answer against the sources, "
                "not a reference); to judge against references use --task correctness")


REFERENCE_COLUMNS = ("references", "reference", "ground_truth", "reference_answer", "expected_output", "gold_answer")
"""Columns that hold reference answers in ragjury's, Ragas' and DeepEval's datasets."""


def _first_row_columns(
    spec: TaskSpec, data: Mapping[str, Any], mapping: Mapping[str, str], text_cells: bool
) -> dict[str, str]:
    """``{field: column}`` that the first row's fields were read from (for the report)."""
    used: dict[str, str] = {}
    for name, candidates in (*spec.columns.items(), *META_FIELDS.items(), ("label", spec.gold_columns)):
        blank = text_cells and name != "answer"
        column, value = _pick(data, name, candidates, mapping, blank_is_missing=blank)
        if column is not None and value is not None:
            used[name] = column
    return used


def load_dataset(
    task: str, source: DataSource, *, mapping: Mapping[str, str] | None = None, limit: int | None = None,
    pairs: Iterable[str] = (),
) -> TaskDataset:
    """Rows of a dataset for ``task`` (the first ``limit`` when given), and the column mapping used:
    read, mapped and validated into the task's items in one pass, the task's declaration looked up once.

    Ragas and DeepEval column names are detected on the first row and applied to every row;
    ``mapping`` (or ``pairs``, ``--map``'s ``field=column`` strings, checked here) wins over them.
    A dataset with no rows, or duplicate ids, is an error: predictions are keyed by id.
    """
    spec = task_spec(task)
    explicit = {**dict(mapping or {}), **_mapping_of(pairs, task, spec)}
    opened = records_of(source)
    name = opened.name
    rows: list[TaskRow] = []
    seen: dict[str, Record] = {}
    effective: dict[str, str] = explicit
    info = InputMapping(reader=opened.reader, explicit=explicit)
    for record in opened.records:
        if limit is not None and len(rows) >= limit:
            break
        if not rows and isinstance(record.data, Mapping):
            peer, detected = resolve(spec.columns, record.data.keys(), explicit)
            effective = {**detected, **explicit}
            info = InputMapping(
                reader=opened.reader,
                format=peer.name if peer is not None else "ragjury",
                columns=_first_row_columns(spec, record.data, effective, record.text_cells),
                detected=detected,
                explicit=explicit,
            )
        row = row_to_task_row(
            spec,
            record.data,
            source=name,
            line=record.line,
            row=record.row,
            mapping=effective,
            text_cells=record.text_cells,
        )
        if row.id in seen:
            first = seen[row.id]
            where = f"line {first.line}" if first.line is not None else f"row {first.row}"
            raise InputError(
                name,
                f"duplicate id '{row.id}' (first on {where})",
                line=record.line,
                row=record.row,
                field="id",
            )
        seen[row.id] = record
        rows.append(row)
    if not rows:
        raise InputError(name, "no rows to evaluate")
    first = next(iter(seen.values()), None)
    unread: tuple[str, ...] = ()
    if first is not None and isinstance(first.data, Mapping) and not ({"references", "reference"} & set(spec.columns)):
        used = set(effective.values())
        unread = tuple(k for k in REFERENCE_COLUMNS if k in first.data and k not in used)
    return TaskDataset(rows, info, unread)


def load_task_rows(
    task: str, source: DataSource, *, mapping: Mapping[str, str] | None = None, limit: int | None = None
) -> list[TaskRow]:
    """The rows of ``load_dataset`` (for callers that do not report the mapping)."""
    return load_dataset(task, source, mapping=mapping, limit=limit).rows


def as_task_rows(task: str, rows: Sequence[TaskRow] | DataSource) -> Sequence[TaskRow]:
    """``rows`` as they are when they are already ``TaskRow``s, else loaded with ``load_dataset``:
    so ``evaluate_dataset`` takes a DataFrame or a ``datasets.Dataset`` as well."""
    if isinstance(rows, Sequence) and not isinstance(rows, str):
        if not rows or isinstance(rows[0], TaskRow):
            return rows
    return load_task_rows(task, rows)


@dataclass
class Question:
    """A question for the agent: ``{id?, question}`` or a topic ``{qid, query}``; references optional."""

    id: str
    question: str
    references: list[str] = field(default_factory=list)
    line: int | None = None


QUESTION_COLUMNS = ("question", "query", "title", "prompt", "user_input", "input")
"""Where ``evaluate --agent`` finds a question: ragjury's and TREC's names, then Ragas' and DeepEval's."""
QUESTION_REFERENCES = (*FIELD_COLUMNS["references"], "expected_output")


def load_questions(source: DataSource, *, limit: int | None = None) -> list[Question]:
    """Questions for ``evaluate --agent`` (JSONL, a JSON array, CSV, a DataFrame, ...)."""
    opened = records_of(source)
    path = opened.name
    questions: list[Question] = []
    for record in opened.records:
        if limit is not None and len(questions) >= limit:
            break
        data, at = record.data, {"line": record.line, "row": record.row}
        blank = record.text_cells
        if not isinstance(data, Mapping):
            raise InputError(path, f"expected a JSON object, got {type(data).__name__}", **at)
        _, text = _pick(data, "question", QUESTION_COLUMNS, {}, blank_is_missing=blank)
        if not isinstance(text, str) or not text.strip():
            raise InputError(
                path, f"missing or empty (looked for: {', '.join(QUESTION_COLUMNS)})", field="question", **at
            )
        id_columns = (*META_FIELDS["id"], "request_id", "topic_id")
        _, qid = _pick(data, "id", id_columns, {}, blank_is_missing=blank)
        _, refs = _pick(data, "references", QUESTION_REFERENCES, {}, blank_is_missing=blank)
        try:
            if blank and isinstance(refs, str):
                refs = decode_list_cell(refs) or refs
            references = _text_list(refs) if refs is not None else []
        except ValueError as error:
            raise InputError(path, str(error), field="references", **at) from None
        default_id = f"line-{record.line}" if record.line is not None else f"row-{record.row}"
        questions.append(
            Question(
                id=str(qid) if qid is not None else default_id,
                question=text,
                references=references,
                line=record.line,
            )
        )
    if not questions:
        raise InputError(path, "no questions")
    return questions


__all__ = [
    "FIELD_COLUMNS",
    "FIELD_READERS",
    "TASK_SPECS",
    "Question",
    "TaskDataset",
    "TaskRow",
    "TaskSpec",
    "as_task_rows",
    "load_dataset",
    "load_questions",
    "load_task_rows",
    "parse_gold",
    "parse_mapping",
    "row_to_task_row",
    "spec_of",
    "task_spec",
]
