"""Human labels given apart from the predictions: ``{"id", "label"}`` rows, for ``estimate``.

A dataset file with ``id`` and ``label`` columns works as is, and so does what ``label-plan``
wrote once people filled its ``label`` column (its ``inclusion_probability`` comes along, so the
estimate can weight each label by how likely it was to be picked). A predictions file works too,
but only through its ``gold``: its ``label`` is the judge's verdict, and reading it as people's
would let the judge certify itself. Rows left unlabelled (``label`` null or absent) are skipped;
anything else that is not a label of the task (0/1 and the datasets' words for a binary task,
a finite number for a score) is bad input.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragjury.evals.io.label_acts import is_labels_file, people_labels, read_acts
from ragjury.evals.io.tasks import GoldKind, parse_gold
from ragjury.rag_agent.core.input_files import InputError, iter_jsonl


@dataclass(frozen=True)
class HumanLabel:
    id: str
    label: float
    inclusion_probability: float | None = None
    line: int = 0


def _label(path: str, line: int, raw: object, name: str, kind: GoldKind) -> float:
    """A label in the task's vocabulary (``parse_gold``); 0.5, 5 or -1 is not a binary label."""
    try:
        return float(parse_gold(raw, kind))
    except ValueError as error:
        raise InputError(path, str(error), line=line, field=name) from None


MIN_INCLUSION = 1e-6
"""The smallest chance of having been picked that ``estimate`` takes (a weight of a million labels)."""


def _probability(path: str, line: int, raw: object) -> float:
    """A chance of having been picked: a number in (0, 1]; a word or a bool is no probability."""
    name = "inclusion_probability"
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        raise InputError(path, f"expected a number in (0, 1], got {raw!r}", line=line, field=name)
    if not 0 < raw <= 1:
        raise InputError(path, f"expected a probability in (0, 1], got {raw!r}", line=line, field=name)
    if raw < MIN_INCLUSION:  # its weight 1/p would overflow the estimate's arithmetic (and mean nothing)
        raise InputError(path, f"{raw!r} is below {MIN_INCLUSION:g}: a label this unlikely to be drawn would weigh "
                         f"{1 / raw:.3g} others; check the column (label-plan writes it)", line=line, field=name)
    return float(raw)


def _people_field(row: Mapping[str, Any]) -> str:
    """Which field holds people's label: ``gold`` in a predictions row (its ``label`` is the
    judge's), else ``label`` (or ``gold`` where a dataset has no ``label``)."""
    if "judge" in row:
        return "gold"
    return "label" if "label" in row else "gold"


def _rows(path: str | Path):  # type: ignore[no-untyped-def]
    """(line, row) of a JSONL file, or of a CSV file with a header (``id,label[,system,inclusion_probability]``):
    a spreadsheet's labels as they are. A CSV's empty cell is no label; its probability is a number."""
    if Path(path).suffix.lower() != ".csv":
        yield from iter_jsonl(path)
        return
    import csv

    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            if not reader.fieldnames or "id" not in reader.fieldnames:
                raise InputError(str(path), "a CSV of labels needs a header row with 'id' and 'label' columns", line=1)
            for row in reader:
                clean: dict[str, Any] = {k: (v if v != "" else None) for k, v in row.items() if k is not None}
                raw = clean.get("inclusion_probability")
                if isinstance(raw, str):
                    try:
                        clean["inclusion_probability"] = float(raw)
                    except ValueError:
                        pass  # _probability names the line and the field
                yield reader.line_num, clean
    except UnicodeDecodeError as error:
        raise InputError(str(path), f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    except csv.Error as error:
        raise InputError(str(path), f"not a CSV file: {error}") from None


def system_key(system: object, ident: str) -> str:
    """A label's id in a joined run of two configs (``joined_runs``): ``SYSTEM/ID``, unless it is one already."""
    if not isinstance(system, str) or not system or ident.startswith(f"{system}/"):
        return ident
    return f"{system}/{ident}"


def _from_acts(name: str, kind: GoldKind, allow_shown_judge: bool, by_system: bool = False) -> dict[str, HumanLabel]:
    """A labels file of ``ragjury label``: its acts under the several-annotator rule (``label_acts.RULE``)."""
    people = people_labels(read_acts(name), allow_shown_judge=allow_shown_judge, path=name)
    out: dict[str, HumanLabel] = {}
    for (system, ident), value in people.labels.items():
        ident = system_key(system, ident) if by_system else ident
        label = float(value) if kind == "score" or not isinstance(value, bool) else float(value)
        previous = out.get(ident)
        if previous is not None and previous.label != label:
            raise InputError(name, f"id {ident!r} is labelled under two systems ({system!r} and another) with "
                             "different labels: give each system's items unique ids")
        out[ident] = HumanLabel(ident, label, people.inclusion.get((system, ident)))
    if not out:
        raise InputError(name, "no labels yet (every item is unlabelled, unsure, skipped or tied): label some items first")
    return out


def load_human_labels(
    path: str | Path, kind: GoldKind = "binary", *, allow_shown_judge: bool = False, by_system: bool = False
) -> dict[str, HumanLabel]:
    """id → label; a repeated id with a different label is an error (which one is right?).

    A labels file written by ``ragjury label`` (rows with ``act`` and ``annotator``) is read by the
    several-annotator rule; its labels given with the judge shown are refused unless ``allow_shown_judge``.
    ``by_system``: the labels of two joined configs, keyed ``SYSTEM/ID`` where a row names its system."""
    name = str(path)
    out: dict[str, HumanLabel] = {}
    if is_labels_file(path):
        return _from_acts(name, kind, allow_shown_judge, by_system)
    for line, row in _rows(path):
        if not isinstance(row, dict):
            raise InputError(name, f"expected a JSON object, got {type(row).__name__}", line=line)
        ident = row.get("id")
        if not isinstance(ident, str | int) or isinstance(ident, bool) or ident == "":
            problem = "missing" if ident is None else "an empty id" if ident == "" else f"expected a string, got {ident!r}"
            raise InputError(name, problem, line=line, field="id")
        field = _people_field(row)
        raw = row.get(field)
        if raw is None:
            continue
        if by_system:
            ident = system_key(row.get("system"), str(ident))
        label = _label(name, line, raw, field, kind)
        probability = row.get("inclusion_probability")
        if probability is not None:
            probability = _probability(name, line, probability)
        previous = out.get(str(ident))
        if previous is not None and previous.label != label:
            raise InputError(
                name, f"id {ident!r} labelled {previous.label:g} on line {previous.line} and {label:g} here", line=line, field=field
            )
        out[str(ident)] = HumanLabel(str(ident), label, probability, line)
    if not out:
        raise InputError(name, "no labelled rows (every 'label' is empty, or a predictions file without 'gold'): label some items first")
    return out


def relabelled(
    items: Sequence[Any], labels: str | Path, kind: GoldKind, where: str | Path, *, allow_shown_judge: bool = False
) -> list[Any]:
    """``items`` (dataclasses with ``id`` and ``gold``: dataset rows, predictions records) with each
    gold replaced by people's label of its id (``load_human_labels``), None where people gave none.
    ``InputError`` naming ``labels`` when no id matches an item of ``where``."""
    from dataclasses import replace

    human = load_human_labels(labels, kind, allow_shown_judge=allow_shown_judge)
    if not {item.id for item in items} & set(human):
        raise InputError(str(labels), f"no id in this file matches an item of {where}")
    return [replace(item, gold=_gold(human[item.id].label, kind) if item.id in human else None) for item in items]


def _gold(label: float, kind: GoldKind) -> bool | float:
    return bool(label) if kind == "binary" else label


def with_people_labels(run: Any, labels: str | Path, *, allow_shown_judge: bool = False) -> Any:
    """``run`` (a ``PredictionRun``) with people's labels in place of its gold (``relabelled``)."""
    from dataclasses import replace

    records = relabelled(run.records, labels, run.kind, run.path, allow_shown_judge=allow_shown_judge)
    return replace(run, records=records)


def with_config_labels(runs: Sequence[Any], names: Sequence[str], labels: str | Path, *,
                       allow_shown_judge: bool = False) -> list[Any]:
    """Two configs' runs, each with people's labels of its own answers in place of its gold: a
    label keyed ``CONFIG/ID`` (or given with a ``system`` column) goes to that config only; a bare
    id goes to the run that has it, and is refused where both runs have it (whose answer was it?)."""
    from dataclasses import replace

    human = load_human_labels(labels, runs[0].kind, allow_shown_judge=allow_shown_judge, by_system=True)
    ids = [{record.id for record in run.records} for run in runs]
    both = ids[0] & ids[1]
    out = []
    for run, name in zip(runs, names):
        records = []
        for record in run.records:
            found = human.get(f"{name}/{record.id}")
            if found is None and record.id in human:
                if record.id in both:
                    raise InputError(str(labels), f"id {record.id!r} is in both runs and its label names no config: "
                                     f"key it {names[0]}/{record.id} or {names[1]}/{record.id} (or add a 'system' "
                                     "column), as 'label-plan A B' writes them")
                found = human[record.id]
            records.append(replace(record, gold=None if found is None else _gold(found.label, run.kind)))
        out.append(replace(run, records=records))
    if not any(record.gold is not None for run in out for record in run.records):
        raise InputError(str(labels), f"no label matches an item of {runs[0].path} or {runs[1].path} (ids are keyed "
                         f"{names[0]}/ID and {names[1]}/ID, or carry a 'system' column)")
    return out


__all__ = ["HumanLabel", "system_key", "load_human_labels", "relabelled", "with_config_labels", "with_people_labels"]
