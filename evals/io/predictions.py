"""Predictions JSONL written and read back: one ``ItemRecord`` per judged item, its text and verdict.

A report must be rebuildable from the predictions file alone, without the dataset or the cache
(``ragjury report PRED.jsonl``), so each row carries its task and the item it judged. Rows
without the item's text still load (the text is absent); bad rows raise ``InputError``.
"""

from __future__ import annotations

import hashlib
import json
import math

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ragjury.evals.io.tasks import TASK_SPECS
from ragjury.rag_agent.core.input_files import InputError, iter_jsonl
from ragjury.rag_agent.core.judge_spec import JudgeSpec
from ragjury.rag_agent.core.labels import Label
from ragjury.rag_agent.core.results import Judgment

Kind = Literal["binary", "score"]
Outcome = Literal["tp", "tn", "fp", "fn", "unscored", "nogold", "scored"]

SCORE_TASKS = ("score",)


@dataclass(frozen=True)
class Statement:
    """One faithfulness statement and the judge's verdict on it."""

    text: str
    supported: bool
    reason: str = ""


@dataclass
class Prediction:
    """One dataset row's judgment and the label taken from it (None when unscored): what a run
    holds in memory, and writes as one predictions row (``as_dict``)."""

    id: str
    system: str | None
    gold: bool | float | None
    judgment: Judgment[Any]
    label: Label | None
    task: str | None = None
    item: Any = None
    """The judged item (``rag_agent.items``), written to the row so that a report can be
    rebuilt from the predictions file alone (``ragjury report``)."""
    judge_name: str | None = None
    """The ``--judge`` name of the judge that gave this verdict, as the user typed it (``llm``,
    not the judgment's ``answer_correctness``): a report shows it without asking the catalogue."""
    inclusion_probability: float | None = None
    """The chance ``gold`` (people's label) had of being drawn, where a label plan gave it."""

    def as_dict(self, output_key: str = "label", *, dumped: ItemRecord | None = None) -> dict[str, object]:
        """The predictions-JSONL row (``row_of``, the writer of the codec)."""
        return row_of(self, output_key, dumped=dumped)


@dataclass
class ItemRecord:
    """One judged item as the predictions file tells it."""

    id: str
    line: int
    label: bool | int | float | None
    gold: bool | int | float | None = None
    system: str | None = None
    task: str | None = None
    item: Mapping[str, Any] = field(default_factory=dict)
    value: Mapping[str, Any] = field(default_factory=dict)
    judge: str | None = None
    judge_name: str | None = None
    """The ``--judge`` name as typed (rows written before it was stored: None, ``judge`` is shown)."""
    model: str | None = None
    prompt_version: str | None = None
    fallback_used: bool = False
    fallback_reason: str | None = None
    unscored: bool = False
    unscored_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    requests: int = 0
    latency_s: float | None = None
    method: str | None = None
    cost_usd: float | None = None
    """The judgment's price where the row carries one (``usage.cost_usd`` or ``cost_usd``)."""
    inclusion_probability: float | None = None
    """The chance people's label (``gold``) had of being drawn, where a label plan gave it: the
    estimate weights the label by its inverse (``people.join_people`` sets both together)."""
    judged_answer: str | None = None
    """The short answer the verdict read where the judge reduced the answer first (``llm-guarded``);
    None: the answer itself was judged."""
    pair: str | None = None
    """What pairs this item with another run's (set when two runs are joined on the question);
    None: its question text, else its id."""

    # -- what the report shows --------------------------------------------------------------

    @property
    def question(self) -> str | None:
        value = self.item.get("question")
        return value if isinstance(value, str) else None

    @property
    def answer(self) -> str | None:
        value = self.item.get("answer")
        return value if isinstance(value, str) else None

    @property
    def references(self) -> list[str]:
        return _texts(self.item.get("references"))

    @property
    def contexts(self) -> list[str]:
        """Faithfulness contexts, or the score task's sources (``[id] content``)."""
        if "contexts" in self.item:
            return _texts(self.item.get("contexts"))
        sources = self.item.get("sources")
        if isinstance(sources, list):
            out = []
            for source in sources:
                if isinstance(source, Mapping):
                    ident = source.get("id")
                    content = str(source.get("content", ""))
                    out.append(f"[{ident}] {content}" if ident else content)
                elif isinstance(source, str):
                    out.append(source)
            return out
        return []

    @property
    def probability(self) -> float | None:
        """The judge's P(verdict = yes) where it reported one (logprob path)."""
        value = self.value.get("probability")
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    @property
    def reason(self) -> str | None:
        """Why: the verdict's reason (or JudgeScore's reasoning); for unscored items, why not."""
        if self.unscored:
            return self.unscored_reason
        for key in ("reason", "reasoning"):
            value = self.value.get(key)
            if isinstance(value, str) and value:
                return value
        return None

    @property
    def statements(self) -> list[Statement]:
        raw = self.value.get("statements")
        if not isinstance(raw, list):
            return []
        out = []
        for entry in raw:
            if isinstance(entry, Mapping) and isinstance(entry.get("statement"), str):
                out.append(
                    Statement(entry["statement"], bool(entry.get("verdict")), str(entry.get("reason") or ""))
                )
        return out

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def outcome(self, kind: Kind) -> Outcome:
        """tp / tn / fp / fn against the gold label (binary tasks); unscored; nogold; scored."""
        if self.unscored or self.label is None:
            return "unscored"
        if self.gold is None:
            return "nogold"
        if kind == "score":
            return "scored"
        judged, gold = bool(self.label), bool(self.gold)
        if judged and gold:
            return "tp"
        if not judged and not gold:
            return "tn"
        return "fp" if judged else "fn"


@dataclass
class PredictionRun:
    """All records of one predictions file, with what the report needs to know about the run."""

    name: str
    path: str
    records: list[ItemRecord]
    kind: Kind
    task: str | None
    output_key: str
    duplicates: int = 0
    """Rows whose (system, id) appeared earlier in the file (the later one is kept, the count is shown)."""
    conflicting: tuple[str, int] | None = None
    """The first id repeated with another verdict, system or answer, and its line (``report A B`` refuses it)."""
    header: dict[str, Any] | None = None
    """How the run was made (``read_run_header``: judge, identity, data digest, stats), read from
    the file beside the predictions; None where there is none."""

    @property
    def has_text(self) -> bool:
        return any(record.item for record in self.records)

    def by_id(self) -> dict[str, ItemRecord]:
        """The records by id (the last of a repeated id), made once per list of records; a file whose
        ids repeat under several systems is split by system before anything pairs on the id."""
        made = self.__dict__.get("_by_id")
        if made is None or made[0] is not self.records or made[1] != len(self.records):
            made = (self.records, len(self.records), {record.id: record for record in self.records})
            self.__dict__["_by_id"] = made
        return made[2]


def _texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) if not isinstance(v, Mapping) else str(v.get("text") or v.get("content") or v) for v in value]
    return []


def _mapping(value: object) -> bool:
    """A JSON object (a dict, as every parsed or written row holds, checked first: it is cheaper)."""
    return type(value) is dict or isinstance(value, Mapping)


def _int(row: Mapping[str, Any], key: str) -> int:
    value = row.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _optional_str(path: str, line: int, row: Mapping[str, Any], key: str) -> str | None:
    value = row.get(key)
    if value is None or value.__class__ is str:  # the common case first: every record reads eight
        return value
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise InputError(path, f"expected a string, got {type(value).__name__}", line=line, field=key)
    return str(value)


def _label(path: str, line: int, row: Mapping[str, Any], key: str, kind: Kind) -> bool | float | None:
    """A verdict or gold label as its task writes it: true/false for a binary task, a finite
    number for a score task, or null; anything else (NaN, 0.7 as a verdict) is bad input."""
    value = row.get(key)
    if value is None:
        return None
    if kind == "binary":
        if isinstance(value, bool):
            return value
        raise InputError(path, f"expected true, false or null, got {value!r}", line=line, field=key)
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    raise InputError(path, f"expected a finite number or null, got {value!r}", line=line, field=key)


def _check_probability(path: str, line: int, raw: object) -> None:
    """A judge's P(yes) is a finite number in [0, 1] (or absent): NaN would make every statistic
    built on it NaN ("effective sample size nan of nan") and pass silently."""
    if raw is None:
        return
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw) or not 0 <= raw <= 1:
        raise InputError(path, f"expected a probability in [0, 1], got {raw!r}", line=line, field="value.probability")


def infer_task(row: Mapping[str, Any]) -> str | None:
    """The task of a row that does not name it: ``score`` rows carry a score, faithfulness items
    contexts, correctness items references (None when the row says nothing)."""
    task = row.get("task")
    if isinstance(task, str):
        return task
    if "score" in row and "label" not in row:
        return "score"
    item = row.get("item")
    if isinstance(item, Mapping):
        if "contexts" in item:
            return "faithfulness"
        if "references" in item:
            return "correctness"
        if "sources" in item:
            return "score"
    return None


def row_of(prediction: Prediction, output_key: str = "label", *, dumped: ItemRecord | None = None) -> dict[str, object]:
    """The writer: ``prediction`` as its predictions-JSONL row (id, system, task, label or score,
    gold, the value's details, the envelope with ``judge_name`` when known, and last the judged
    item). ``dumped``: this prediction's record, whose value and item are already in JSON form
    (it was read from this row), so they are not dumped a second time."""
    row: dict[str, object] = {"id": prediction.id}
    if prediction.system is not None:
        row["system"] = prediction.system
    if prediction.task is not None:
        row["task"] = prediction.task
    row[output_key] = prediction.label
    if prediction.gold is not None:
        row["gold"] = prediction.gold
        if prediction.inclusion_probability is not None:
            row["inclusion_probability"] = prediction.inclusion_probability
    judgment = prediction.judgment
    value = judgment.value
    if value is not None and hasattr(value, "model_dump"):
        row["value"] = dumped.value if dumped is not None else value.model_dump(mode="json")
    row.update(judgment.envelope())
    if prediction.judge_name is not None:
        row["judge_name"] = prediction.judge_name
    item = prediction.item
    if item is not None:
        if hasattr(item, "model_dump"):
            row["item"] = dumped.item if dumped is not None else item.model_dump(mode="json")
        else:
            row["item"] = item
    return row


def record_of(path: str, line: int, row: object, output_key: str) -> ItemRecord:
    """The reader: one predictions row → ``ItemRecord``; a row that is not one names the field."""
    if not _mapping(row):
        raise InputError(path, f"expected a JSON object, got {type(row).__name__}", line=line)
    if "faithful_judgment" in row or "score_judgment" in row or "correct_judgment" in row:
        raise InputError(
            path,
            "this is an 'evaluate --agent' answers file; report reads dataset predictions "
            "('evaluate --task ... --out')",
            line=line,
        )
    if "judge" not in row:
        raise InputError(
            path,
            "missing: not a predictions row (a dataset?); report reads what 'evaluate --task ... --out' writes",
            line=line,
            field="judge",
        )
    task = row.get("task")
    if task is not None and task not in TASK_SPECS:
        raise InputError(path, f"unknown task {task!r} (expected one of {', '.join(TASK_SPECS)})", line=line, field="task")
    ident = row.get("id")
    if not isinstance(ident, str | int) or isinstance(ident, bool):
        raise InputError(path, "missing" if ident is None else f"expected a string, got {ident!r}", line=line, field="id")
    unscored = row.get("unscored", False)
    if not isinstance(unscored, bool):
        raise InputError(path, f"expected true/false, got {unscored!r}", line=line, field="unscored")
    if output_key not in row and not unscored:
        raise InputError(path, "missing", line=line, field=output_key)
    item = row.get("item", {})
    if not _mapping(item):
        raise InputError(path, f"expected an object, got {type(item).__name__}", line=line, field="item")
    value = row.get("value", {})
    if not _mapping(value):
        value = {}
    _check_probability(path, line, value.get("probability"))
    usage = row.get("usage")
    if not _mapping(usage):
        usage = {}
    latency = row.get("latency_s")
    kind: Kind = "score" if output_key == "score" else "binary"
    label = None if unscored else _label(path, line, row, output_key, kind)
    return ItemRecord(
        id=str(ident),
        line=line,
        label=label,
        gold=_label(path, line, row, "gold", kind),
        inclusion_probability=_inclusion(path, line, row),
        system=_optional_str(path, line, row, "system"),
        task=infer_task(row),
        item=item,
        value=value,
        judge=_optional_str(path, line, row, "judge"),
        judge_name=_optional_str(path, line, row, "judge_name"),
        model=_optional_str(path, line, row, "model"),
        prompt_version=_optional_str(path, line, row, "prompt_version"),
        fallback_used=row.get("fallback_used") is True,
        fallback_reason=_optional_str(path, line, row, "fallback_reason"),
        unscored=unscored or label is None,
        unscored_reason=_optional_str(path, line, row, "unscored_reason")
        or ("no label in the row" if label is None and not unscored else None),
        input_tokens=_int(usage, "input_tokens"),  # type: ignore[arg-type]
        output_tokens=_int(usage, "output_tokens"),  # type: ignore[arg-type]
        requests=_int(usage, "requests"),  # type: ignore[arg-type]
        latency_s=float(latency) if isinstance(latency, int | float) and not isinstance(latency, bool) else None,
        method=_optional_str(path, line, row, "method"),
        judged_answer=_optional_str(path, line, row, "judged_answer"),
        cost_usd=_cost(row, usage),  # type: ignore[arg-type]
    )


def _inclusion(path: str, line: int, row: Mapping[str, Any]) -> float | None:
    """The gold label's chance of having been drawn (a label plan's), where the row carries one."""
    raw = row.get("inclusion_probability")
    if raw is None or row.get("gold") is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 < raw <= 1:
        raise InputError(path, f"expected a probability in (0, 1], got {raw!r}", line=line, field="inclusion_probability")
    return float(raw)


def _cost(row: Mapping[str, Any], usage: Mapping[str, Any]) -> float | None:
    """A judgment's price in USD, where the row records one; anything else is no price."""
    for value in (usage.get("cost_usd"), row.get("cost_usd")):
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            return float(value)
    return None


def record_of_prediction(prediction: Prediction, line: int, output_key: str) -> ItemRecord:
    """The ``ItemRecord`` a predictions row of ``prediction`` reads back as: the writer's row, read
    by the reader (one codec, so a run just judged and its file read back hold the same records)."""
    return record_of("<run>", line, row_of(prediction, output_key), output_key)


def run_of_predictions(predictions: Sequence[Prediction], *, output_key: str, path: str, name: str) -> PredictionRun:
    """A finished run's ``PredictionRun``, from its predictions directly (``record_of_prediction``),
    with the ids, duplicates and conflicts a predictions file of them would read back with."""
    task = next((p.task for p in predictions), None)
    records = ((line, record_of_prediction(p, line, output_key)) for line, p in enumerate(predictions, start=1))
    return _run_of(records, path=path, name=name, output_key=output_key, task=task)


def _run_of(records: Iterable[tuple[int, ItemRecord]], *, path: str, name: str | None, output_key: str,
            task: str | None) -> PredictionRun:
    """The run of (line, record) pairs, keyed by (system, id): a repeated (system, id) keeps its
    last record, counted as a duplicate (the first whose verdict or answer differs is named as
    conflicting); the same id under two systems is two items."""
    kept: dict[tuple[str | None, str], ItemRecord] = {}
    duplicates = 0
    conflicting: tuple[str, int] | None = None
    for line, record in records:
        key = (record.system, record.id)  # one file may hold several systems whose ids repeat
        if key in kept:
            duplicates += 1
            before = kept.pop(key)
            if conflicting is None and (before.label, before.answer) != (record.label, record.answer):
                conflicting = (record.id, line)
        kept[key] = record
    kind: Kind = "score" if output_key == "score" else "binary"
    return PredictionRun(
        name=name or Path(path).stem,
        path=path,
        records=list(kept.values()),
        kind=kind,
        task=task,
        output_key=output_key,
        duplicates=duplicates,
        conflicting=conflicting,
    )


def run_of_rows(rows: Iterable[tuple[int, object]], *, path: str, name: str | None = None) -> PredictionRun:
    """A ``PredictionRun`` from (line, row) pairs: the output key (``label`` or ``score``) and
    the task are taken from the first row, every row is checked against them."""
    parsed: list[tuple[int, ItemRecord]] = []
    output_key: str | None = None
    task: str | None = None
    for line, row in rows:
        if output_key is None:
            if not isinstance(row, Mapping):
                raise InputError(path, f"expected a JSON object, got {type(row).__name__}", line=line)
            task = infer_task(row)
            output_key = "score" if task in SCORE_TASKS or ("score" in row and "label" not in row) else "label"
        record = record_of(path, line, row, output_key)
        if record.task is not None and task is not None and record.task != task:
            raise InputError(path, f"task {record.task!r} in a run of {task!r} rows: one task a file", line=line, field="task")
        parsed.append((line, record))
    if output_key is None:
        raise InputError(path, "no predictions in the file")
    return _run_of(parsed, path=path, name=name, output_key=output_key, task=task)


def write_jsonl(path: str | Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """Write ``rows`` as JSONL to ``path`` atomically, so a kill never leaves half a file (the
    judgments themselves are in the cache already). Commands check the path before judging
    (``evals.io.atomic_io.check_output_paths``): never an input, its folder exists."""
    from ragjury.evals.io.atomic_io import open_atomic

    with open_atomic(Path(path)) as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def load_predictions(path: str | Path, *, name: str | None = None) -> PredictionRun:
    """Read a predictions JSONL (``ragjury evaluate --out``) into a ``PredictionRun``, with its run
    header where ``evaluate`` wrote one beside it."""
    run = run_of_rows(iter_jsonl(path), path=str(path), name=name)
    run.header = read_run_header(path)
    return run


def run_names(paths: Sequence[str | Path]) -> list[str]:
    """Short distinct names for runs: file stems, with the folder when two stems clash."""
    stems = [Path(p).stem for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    longer = [f"{Path(p).parent.name}/{Path(p).stem}" if Path(p).parent.name else Path(p).stem for p in paths]
    if len(set(longer)) == len(longer):
        return longer
    return [f"{name} #{number}" for number, name in enumerate(longer, start=1)]


# The run header: how a predictions file was made, written beside it as ``STEM.run.json``.
#
# Why here: a run's header is part of its predictions file (``load_predictions`` reads both). Why
# beside it: ``report A B`` must know whether two runs were judged alike (the same judge, model,
# prompt versions and options) before it reads B − A as the configs' difference; rows say which judge
# gave each verdict, not the options that shaped it, nor which data and labels went in. Inspect's
# ``EvalSpec``/``EvalStats`` travel with the samples for the same reason. A file beside the
# predictions (never a first line in them) keeps every reader of predictions JSONL, ragjury's and the
# user's own, working; a file without one keeps working too (``read_run_header`` gives None).

SUFFIX = ".run.json"
FORMAT = 1
COMPARED = ("task", "judge", "name", "model", "prompt_version", "params")
"""The fields two runs must share to be judged alike (``judge`` is the --judge words asked for;
``name``, ``model``, ``prompt_version`` and ``params`` the judge's identity, options included)."""


def header_path(predictions: str | Path) -> Path:
    """``out/preds.jsonl`` -> ``out/preds.run.json``."""
    path = Path(predictions)
    return path.with_name(path.stem + SUFFIX)


def digest(path: str | Path | None) -> dict[str, Any] | None:
    """A file's path and SHA-256 (None where there is no such regular file)."""
    if path is None:
        return None
    file = Path(path)
    if not file.is_file():
        return None
    sha = hashlib.sha256()
    with file.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return {"path": str(file), "sha256": sha.hexdigest()}


def spec_of(judge: JudgeSpec | str | None) -> dict[str, Any] | None:
    """The parsed ``--judge`` as the header keeps it: its kind, a panel's members and how it joins
    them, a file judge's path (None where the run carries no parsed spec: a run read back)."""
    if not isinstance(judge, JudgeSpec):
        return None
    return {"kind": judge.kind, "members": judge.member_names or None, "combine": judge.combine, "path": judge.path}


def make_header(*, task: str | None, judge: JudgeSpec | str | None, identity: Any, stats: Mapping[str, Any] | None,
                rows: int, data: str | Path | None = None, labels: str | Path | None = None,
                version: str | None = None) -> dict[str, Any]:
    """The header of a run: what was judged, by which judge (words, the parsed spec the command
    carried, and identity), from which data and labels (digests), and the run's statistics."""
    ident = {"name": getattr(identity, "name", None), "model": getattr(identity, "model", None),
             "prompt_version": getattr(identity, "prompt_version", None), "params": getattr(identity, "params", None)}
    return {"ragjury_run": FORMAT, "written_by": "ragjury evaluate", "ragjury_version": version, "task": task,
            "judge": judge.value if isinstance(judge, JudgeSpec) else judge, "judge_spec": spec_of(judge),
            "identity": ident, "data": digest(data), "labels": digest(labels), "rows": rows,
            "stats": dict(stats) if stats is not None else None}


def write_run_header(predictions: str | Path, header: Mapping[str, Any]) -> Path:
    """Write ``header`` beside ``predictions`` atomically; returns its path."""
    from ragjury.evals.io.atomic_io import write_text_atomic

    path = header_path(predictions)
    write_text_atomic(path, json.dumps(header, ensure_ascii=False, indent=1) + "\n")
    return path


def read_run_header(predictions: str | Path) -> dict[str, Any] | None:
    """The header beside ``predictions``, or None where there is none (or it is not ragjury's:
    a file of that name the user wrote is left alone and not read as a header)."""
    path = header_path(predictions)
    if not path.is_file():
        return None
    try:
        header = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(header, dict) or header.get("ragjury_run") != FORMAT:
        return None
    return header


def judged_as(header: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``COMPARED`` a header holds."""
    ident = header.get("identity") or {}
    return {"task": header.get("task"), "judge": header.get("judge"), **{k: ident.get(k) for k in COMPARED[2:]}}


def differences(first: Mapping[str, Any] | None, second: Mapping[str, Any] | None) -> list[str]:
    """How two runs were judged differently, one phrase a field (empty: alike, or a header missing)."""
    if first is None or second is None:
        return []
    a, b = judged_as(first), judged_as(second)
    words = {"task": "task", "judge": "--judge", "name": "judge", "model": "model", "prompt_version": "prompt versions",
             "params": "options"}
    return [f"{words[key]} {a[key] or '-'} vs {b[key] or '-'}" for key in COMPARED if a[key] != b[key]]


__all__ = [
    "COMPARED",
    "SUFFIX",
    "differences",
    "digest",
    "header_path",
    "judged_as",
    "make_header",
    "read_run_header",
    "spec_of",
    "write_run_header",
    "ItemRecord",
    "record_of_prediction",
    "run_of_predictions",
    "Kind",
    "Outcome",
    "Prediction",
    "PredictionRun",
    "Statement",
    "infer_task",
    "load_predictions",
    "record_of",
    "row_of",
    "run_names",
    "run_of_rows",
    "write_jsonl",
]
