"""Dataset rows → judge items, per task, with a field mapping and errors that name file:line:field.

Why a table of column names: the benchmark files and users' own files name the same thing
differently (``reference`` / ``references`` / ``gold``; ``context`` / ``contexts``). Each item field
lists the columns it is read from, first match wins, so the evouna-nq ``correctness.jsonl`` and
the begin-dev ``faithfulness.jsonl`` load without options; ``--map field=column`` covers the rest.

Gold labels (``label`` and friends) are optional: with them, ``evaluate`` reports agreement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from rag_agent.inputs import InputError, iter_jsonl, parse_model
from rag_agent.items import CorrectnessItem, FaithfulnessItem, ScoreItem

GoldKind = Literal["binary", "score"]

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

    @property
    def mappable(self) -> tuple[str, ...]:
        return (*self.columns, *META_FIELDS, "label")


TASK_SPECS: dict[str, TaskSpec] = {
    "correctness": TaskSpec(
        name="correctness",
        item_type=CorrectnessItem,
        columns={
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
                "expected",
                "expected_answer",
            ),
        },
        required=("question", "answer", "references"),
        gold_columns=BINARY_GOLD,
        gold_kind="binary",
    ),
    "faithfulness": TaskSpec(
        name="faithfulness",
        item_type=FaithfulnessItem,
        columns={
            "answer": ("answer", "response", "prediction", "output"),
            "contexts": ("contexts", "context", "knowledge", "passages", "passage", "documents", "sources"),
            "question": ("question", "query", "prompt"),
        },
        required=("answer", "contexts"),
        gold_columns=BINARY_GOLD,
        gold_kind="binary",
    ),
    "score": TaskSpec(
        name="score",
        item_type=ScoreItem,
        columns={
            "question": ("question", "query", "prompt"),
            "answer": ("answer", "response", "prediction", "output"),
            "sources": ("sources", "contexts", "context", "passages", "documents"),
            "sources_used": ("sources_used", "citations"),
        },
        required=("question", "answer"),
        gold_columns=SCORE_GOLD,
        gold_kind="score",
        output_key="score",
    ),
}


@dataclass
class TaskRow:
    """One dataset row ready to judge: the item plus what identifies and grades it."""

    id: str
    line: int | None
    item: BaseModel
    system: str | None = None
    gold: bool | float | None = None


def task_spec(task: str) -> TaskSpec:
    try:
        return TASK_SPECS[task]
    except KeyError:
        raise ValueError(f"unknown task '{task}'; valid tasks: {', '.join(TASK_SPECS)}") from None


def parse_mapping(pairs: Iterable[str], task: str) -> dict[str, str]:
    """``["answer=response", ...]`` → ``{"answer": "response"}``; bad entries are a ValueError."""
    spec = task_spec(task)
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
    row: Mapping[str, Any], name: str, candidates: Sequence[str], mapping: Mapping[str, str]
) -> tuple[str | None, Any]:
    """(column used, value) of ``name``: the mapped column, else the first candidate present."""
    if name in mapping:
        column = mapping[name]
        return (column, row[column]) if column in row else (column, None)
    for column in candidates:
        if column in row and row[column] is not None:
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
        return float(value)
    except ValueError:
        raise ValueError(f"expected a number, got {value!r}") from None


def row_to_task_row(
    spec: TaskSpec,
    data: Any,
    *,
    source: str | Path,
    line: int | None,
    mapping: Mapping[str, str] | None = None,
) -> TaskRow:
    """Build the item, id, system and gold label of one row, or raise ``InputError`` (file:line:field)."""
    mapping = mapping or {}
    if not isinstance(data, Mapping):
        raise InputError(source, f"expected a JSON object, got {type(data).__name__}", line=line)
    fields: dict[str, Any] = {}
    for name, candidates in spec.columns.items():
        column, value = _pick(data, name, candidates, mapping)
        if value is None:
            if name in spec.required:
                looked = mapping[name] if name in mapping else ", ".join(candidates)
                raise InputError(
                    source, f"missing (looked for: {looked}; use --map {name}=COLUMN)", line=line, field=name
                )
            continue
        try:
            if name in ("references", "contexts"):
                value = _text_list(value)
            elif name == "sources":
                value = _sources(value)
            elif name == "sources_used":
                value = [str(v) for v in value] if isinstance(value, list) else [str(value)]
        except ValueError as error:
            raise InputError(source, str(error), line=line, field=column) from None
        fields[name] = value
    item = parse_model(source, fields, spec.item_type, line=line)

    _, row_id = _pick(data, "id", META_FIELDS["id"], mapping)
    _, system = _pick(data, "system", META_FIELDS["system"], mapping)
    gold_column, gold_value = _pick(data, "label", spec.gold_columns, mapping)
    gold = None
    if gold_value is not None:
        try:
            gold = parse_gold(gold_value, spec.gold_kind)
        except ValueError as error:
            raise InputError(source, str(error), line=line, field=gold_column) from None
    return TaskRow(
        id=str(row_id) if row_id is not None else f"line-{line}",
        line=line,
        item=item,
        system=str(system) if system is not None else None,
        gold=gold,
    )


def load_task_rows(
    task: str, path: str | Path, *, mapping: Mapping[str, str] | None = None, limit: int | None = None
) -> list[TaskRow]:
    """Rows of a JSONL dataset for ``task`` (the first ``limit`` when given).

    A file with no rows, or duplicate ids, is an error: predictions are keyed by id.
    """
    spec = task_spec(task)
    rows: list[TaskRow] = []
    seen: dict[str, int | None] = {}
    for line, data in iter_jsonl(path):
        if limit is not None and len(rows) >= limit:
            break
        row = row_to_task_row(spec, data, source=path, line=line, mapping=mapping)
        if row.id in seen:
            raise InputError(
                path, f"duplicate id '{row.id}' (first on line {seen[row.id]})", line=line, field="id"
            )
        seen[row.id] = line
        rows.append(row)
    if not rows:
        raise InputError(path, "no rows to evaluate")
    return rows


@dataclass
class Question:
    """A question for the agent: ``{id?, question}`` or a topic ``{qid, query}``; references optional."""

    id: str
    question: str
    references: list[str] = field(default_factory=list)
    line: int | None = None


def load_questions(path: str | Path, *, limit: int | None = None) -> list[Question]:
    """Questions JSONL for ``evaluate --agent``."""
    questions: list[Question] = []
    for line, data in iter_jsonl(path):
        if limit is not None and len(questions) >= limit:
            break
        if not isinstance(data, Mapping):
            raise InputError(path, f"expected a JSON object, got {type(data).__name__}", line=line)
        _, text = _pick(data, "question", ("question", "query", "title", "prompt"), {})
        if not isinstance(text, str) or not text.strip():
            raise InputError(
                path, "missing or empty (looked for: question, query, title)", line=line, field="question"
            )
        _, qid = _pick(data, "id", (*META_FIELDS["id"], "request_id", "topic_id"), {})
        _, refs = _pick(data, "references", TASK_SPECS["correctness"].columns["references"], {})
        try:
            references = _text_list(refs) if refs is not None else []
        except ValueError as error:
            raise InputError(path, str(error), line=line, field="references") from None
        questions.append(
            Question(
                id=str(qid) if qid is not None else f"line-{line}",
                question=text,
                references=references,
                line=line,
            )
        )
    if not questions:
        raise InputError(path, "no questions")
    return questions


__all__ = [
    "TASK_SPECS",
    "Question",
    "TaskRow",
    "TaskSpec",
    "load_questions",
    "load_task_rows",
    "parse_gold",
    "parse_mapping",
    "row_to_task_row",
    "task_spec",
]
