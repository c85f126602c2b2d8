"""What a person labels: items read from a label plan, a predictions file or a dataset, judge apart.

Why the judge is kept apart: people shown a model's verdict adopt it (Schroeder et al., ACL 2025),
which inflates the measured quality of that same model. So an item's text (``fields``) and the
judge's verdict (``judge``) are separate objects here; the page and the terminal receive only the
fields, and the verdict leaves the server only after that item is labelled, and only with ``--reveal``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragjury.evals.io.people import fingerprint
from ragjury.rag_agent.core.input_files import InputError, iter_jsonl

QUESTIONS: dict[str, str] = {
    "correctness": "Does the answer give the same answer as at least one reference answer (any wording)?",
    "faithfulness": "Is every factual claim of the answer stated in the context, or does it follow directly from it?",
    "relevance": "Does the passage answer the query, or hold information a searcher clearly needs for it?",
    "relevance-graded": "How relevant is the passage to the query? 0 irrelevant · 1 related, does not answer · "
                        "2 answers partly · 3 answers exactly",
}
"""The question each task puts to the labeller, in plain words (the task's judge asks the same)."""

TEXT_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "correctness": (("question", "Question"), ("references", "Reference answers"), ("answer", "Answer")),
    "faithfulness": (("contexts", "Context"), ("question", "Question"), ("answer", "Answer")),
    "relevance": (("query", "Query"), ("retrieved_text", "Passage")),
}
"""The fields each task's judge reads, in the order a person reads them."""

ALIASES: dict[str, tuple[str, ...]] = {
    "question": ("question", "query", "prompt"),
    "query": ("query", "question"),
    "answer": ("answer", "response", "prediction", "output"),
    "references": ("references", "reference", "gold_answers", "ground_truth"),
    "contexts": ("contexts", "context", "passages", "knowledge"),
    "retrieved_text": ("retrieved_text", "passage", "text", "document"),
}
META = {"id", "system", "label", "gold", "inclusion_probability", "fingerprint", "predictions", "judge_label", "judge_probability", "task",
        "judge", "judge_name", "value", "unscored", "unscored_reason", "score"}


@dataclass(frozen=True)
class JudgeVerdict:
    """The judge's verdict on an item: never sent before the item is labelled."""

    label: bool | int | float | None
    probability: float | None = None


@dataclass(frozen=True)
class LabelItem:
    """One item to label: who it is, what a person reads, and (apart) what the judge said."""

    id: str
    system: str | None
    fields: tuple[tuple[str, str], ...]
    """(heading, text) pairs, in reading order: the only part of an item that reaches a screen."""
    judge: JudgeVerdict | None = None
    inclusion_probability: float | None = None
    fingerprint: str | None = None
    """The hash of the judged fields (``evals.io.people.fingerprint``): the plan row's, or a
    predictions row's item's; each act copies it, so a label knows which answer it judged."""

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.system, self.id)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [str(part.get("content", part)) if isinstance(part, dict) else str(part) for part in value]
        return "\n\n".join(f"[{i}] {part}" if len(parts) > 1 else part for i, part in enumerate(parts, 1))
    return str(value)


def _pick(row: Mapping[str, Any], field: str) -> Any:
    for name in ALIASES.get(field, (field,)):
        if row.get(name) not in (None, "", []):
            return row[name]
    return None


def infer_task(row: Mapping[str, Any]) -> str | None:
    """The task of an item row that does not name it, from the fields it has."""
    task = row.get("task")
    if isinstance(task, str):
        return task
    if _pick(row, "references") is not None:
        return "correctness"
    if _pick(row, "contexts") is not None:
        return "faithfulness"
    if _pick(row, "retrieved_text") is not None and _pick(row, "query") is not None:
        return "relevance"
    return None


def _fields(task: str, row: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    spec = TEXT_FIELDS.get(task)
    if spec is None:  # a rubric or another task: every text field the row has, in its order
        return tuple((name, text) for name, value in row.items()
                     if name not in META and (text := _text(value)) is not None and not isinstance(value, bool | int | float))
    out = []
    for name, heading in spec:
        text = _text(_pick(row, name))
        if text is not None:
            out.append((heading, text))
    return tuple(out)


def _check_task(name: str, line: int, task: str, body: Mapping[str, Any], named: str | None, said: str | None) -> None:
    """``--task`` must fit the file: a row naming another task, or one without the field the task
    judges (a correctness file labelled as relevance would show no passage), is refused."""
    if named is not None and named != task:
        raise InputError(name, f"--task {task}: this row is a {named} item", line=line, field="task")
    spec = TEXT_FIELDS.get(task)
    judged = spec[-1][0] if spec else None
    if judged is not None and _pick(body, judged) is None:
        looks = f" (its fields are a {said} item's)" if said and said != task else ""
        raise InputError(name, f"--task {task}: this row has no {judged!r} to judge{looks}", line=line, field=judged)


def _number(raw: Any) -> float | None:
    return float(raw) if isinstance(raw, int | float) and not isinstance(raw, bool) else None


def load_items(path: str | Path, task: str | None = None) -> tuple[str, list[LabelItem]]:
    """The task and the items of a label plan, a predictions file or a dataset (JSONL).

    A plan's ``judge_label`` and a predictions row's ``label`` are the judge's verdict (kept apart);
    a dataset has no judge. A file whose task cannot be told needs ``--task``."""
    name = str(path)
    items: list[LabelItem] = []
    seen: dict[tuple[str | None, str], int] = {}
    found_task = task
    for line, row in iter_jsonl(path):
        if not isinstance(row, dict):
            raise InputError(name, f"expected a JSON object, got {type(row).__name__}", line=line)
        ident = row.get("id")
        if not isinstance(ident, str | int) or isinstance(ident, bool) or ident == "":
            raise InputError(name, "missing" if ident is None else f"expected a non-empty string, got {ident!r}",
                             line=line, field="id")
        system = row.get("system")
        system = str(system) if isinstance(system, str | int) and not isinstance(system, bool) else None
        body: Mapping[str, Any] = row.get("item") if isinstance(row.get("item"), dict) else row
        if "judge" in row:  # a predictions row: its label is the judge's
            judge = JudgeVerdict(row.get("label", row.get("score")), _number((row.get("value") or {}).get("probability")))
        elif "judge_label" in row:  # a label plan
            judge = JudgeVerdict(row.get("judge_label"), _number(row.get("judge_probability")))
        else:
            judge = None
        said = infer_task({**body, **({"task": row["task"]} if "task" in row else {})})
        row_task = found_task or said
        if row_task is None:
            raise InputError(name, "cannot tell the task from this row's fields: pass --task", line=line)
        if task is not None:
            _check_task(name, line, task, body, row.get("task") if isinstance(row.get("task"), str) else None, said)
        found_task = found_task or row_task
        fields = _fields(found_task, body)
        if not fields:
            raise InputError(name, f"no text to label for task {found_task!r} in this row", line=line)
        key = (system, str(ident))
        if key in seen:
            raise InputError(name, f"duplicate id {ident!r}" + (f" under system {system!r}" if system else "")
                             + f" (first on line {seen[key]})", line=line, field="id")
        seen[key] = line
        probability = row.get("inclusion_probability")
        printed = row.get("fingerprint") if isinstance(row.get("fingerprint"), str) else (
            fingerprint(row["item"]) if "judge" in row and isinstance(row.get("item"), dict) else None)
        items.append(LabelItem(str(ident), system, fields, judge, _number(probability), printed))
    if not items:
        raise InputError(name, "no items to label")
    return found_task or "correctness", items


def items_of_runs(paths: list[Path]) -> tuple[str, list[LabelItem]]:
    """The items of one file (``load_items``) or of several configs' predictions files, each keyed
    ``NAME/ID`` under system NAME, the names ``label-plan``/``report``/``estimate`` give the same
    files (two: ``config_names``; more: ``run_names``), so labels join to each run's own answers."""
    if len(paths) == 1:
        return load_items(paths[0])
    from types import SimpleNamespace

    from ragjury.evals.io.joined_runs import SEPARATOR, config_names
    from ragjury.evals.io.predictions import run_names

    loaded = [load_items(path) for path in paths]
    tasks = {task for task, _ in loaded}
    if len(tasks) > 1:
        raise InputError(str(paths[1]), f"is a {loaded[1][0]} run but {paths[0]} is a {loaded[0][0]} run: label "
                         "runs of one task together")
    for path, (_, items) in zip(paths, loaded):
        if any(item.judge is None for item in items):
            raise InputError(str(path), "is not a predictions file ('ragjury evaluate --out'): several files are "
                             "configs' runs, labelled side by side")
        named = sorted({str(item.system) for item in items if item.system is not None})
        if len(named) > 1:
            raise InputError(str(path), f"holds {len(named)} systems ({', '.join(named[:4])}): give one config "
                             "per file")
    if len(paths) == 2:
        names = config_names(paths, [SimpleNamespace(records=items) for _, items in loaded])  # type: ignore[misc]
    else:
        names = run_names(paths)
    out = [LabelItem(f"{name}{SEPARATOR}{item.id}", name, item.fields, item.judge, item.inclusion_probability,
                     item.fingerprint)
           for name, (_, items) in zip(names, loaded) for item in items]
    return loaded[0][0], out


def question_for(task: str, graded: bool, criterion: str | None = None) -> str:
    """The question always on screen: the rubric's criterion where given, else the task's."""
    if criterion:
        return criterion
    if task == "relevance" and graded:
        return QUESTIONS["relevance-graded"]
    return QUESTIONS.get(task, "Does the item meet the criterion?")


__all__ = ["QUESTIONS", "JudgeVerdict", "LabelItem", "infer_task", "items_of_runs", "load_items", "question_for"]
