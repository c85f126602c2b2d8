"""People's labels: one type (``People``), one reader (``read_people``), one join (``join_people``).

Why one of each: the labels file is the input behind every figure "as people would judge it", and
when three readers turned it into three types and four places joined it to a run, the same two
files gave two answers (one reader kept the inclusion probabilities, the others dropped them).
Every form is read here once: a ``ragjury label`` acts file (by the several-annotator rule of
``label_acts``), ``{id, label}`` JSONL (a dataset, a filled plan, a predictions file's ``gold``),
CSV ``id,label[,system,inclusion_probability]``, or labels given in Python. Each label keeps its
inclusion probability, the annotators and their labels, the shown-judge flag and the fingerprint
of what it judged; the reader keeps ties, unsure and skipped counts. ``join_people`` is the only
place a label meets a judged record: it sets the record's ``gold`` and ``inclusion_probability``
and refuses a label given to another answer (its fingerprint differs).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ragjury.evals.io.label_acts import RULE, LabelAct, acts_of_text, adjudications, is_acts_row, replay
from ragjury.rag_agent.core.input_files import InputError, check_regular, iter_jsonl, read_text, split_lines

Key = tuple[str | None, str]
"""(system, id): a file may hold several systems whose ids repeat."""

MIN_INCLUSION = 1e-6
"""The smallest chance of having been picked a label may carry (a weight of a million labels)."""

LABEL_COLUMNS = ("id", "label", "system", "inclusion_probability", "fingerprint")
"""The columns of a CSV of labels: ``id`` and ``label`` needed, the rest optional."""

SEPARATOR = "/"
"""Between a config's name and an id in a run of two configs (``joined_runs``): ``A/q1``."""


def fingerprint(item: Mapping[str, Any] | None) -> str | None:
    """What a person saw, in 16 hex digits: a hash of the item's judged fields (question,
    references, answer; context; passage), NFC-normalised, keys sorted. None for no fields."""
    if not item:
        return None
    fields = {key: value for key, value in item.items() if value is not None and not key.startswith("_")}
    if not fields:
        return None
    text = unicodedata.normalize("NFC", json.dumps(fields, sort_keys=True, ensure_ascii=False, default=str))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def check_regular_file(path: str | Path) -> None:
    """Refuse what is not a regular file (a FIFO, /dev/zero, a link loop) in one line: the check
    every reader of user files makes (``input_files.check_regular``)."""
    if str(path) != "-":
        check_regular(path)


@dataclass(frozen=True)
class Label:
    """One item's people label, with everything the join and the figures need."""

    id: str
    system: str | None
    value: bool | float
    """In the task's kind: True/False for a yes/no task, a number for a graded one."""
    inclusion_probability: float | None = None
    annotators: tuple[tuple[str, bool | int], ...] = ()
    """(annotator, their label) for an acts file; empty for a file of one label per row."""
    shown_judge: bool = False
    fingerprint: str | None = None
    line: int = 0

    @property
    def key(self) -> Key:
        return (self.system, self.id)


@dataclass
class People:
    """Every label of one labels file (or of labels given in Python), and what was left out."""

    source: str
    kind: str
    """``binary`` (yes/no) or ``score`` (a grade): the task's, checked on every label."""
    labels: dict[Key, Label]
    form: str = "rows"
    """``acts`` (``ragjury label``), ``rows`` (JSONL), ``csv``, ``qrels`` (TREC) or ``python``."""
    annotators: list[str] = field(default_factory=list)
    ties: list[Key] = field(default_factory=list)
    unsure: int = 0
    skipped: int = 0
    shown_judge: int = 0
    unlabelled_rows: int = 0
    """Rows with an empty label (a half-filled plan)."""
    rows: int = 0
    acts: list[LabelAct] = field(default_factory=list)

    def counts(self) -> dict[str, object]:
        """What the reader kept and left out, for ``--json`` (``people`` block)."""
        return {
            "source": self.source, "form": self.form, "labels": len(self.labels), "annotators": self.annotators,
            "ties_left_out": len(self.ties), "unsure_left_out": self.unsure, "skipped_left_out": self.skipped,
            "shown_judge": self.shown_judge, "unlabelled_rows": self.unlabelled_rows,
            **({"rule": RULE} if self.form == "acts" else {}),
        }

    def qrels(self) -> dict[str, dict[str, int]]:
        """People's grades of a TREC qrels file as ``{qid: {docid: grade}}`` (``form == "qrels"``: each
        label's id is ``QID DOCID``), what the relevance commands join on."""
        out: dict[str, dict[str, int]] = {}
        for label in self.labels.values():
            qid, docid = label.id.split(QRELS_SEPARATOR, 1)
            out.setdefault(qid, {})[docid] = int(label.value)
        return out

    def notes(self) -> list[str]:
        """What the reader left out, in words (every trust command says it)."""
        out = []
        left = [f"{n:,} {what}" for n, what in ((len(self.ties), "tied between people"), (self.unsure, "unsure"),
                                                 (self.skipped, "skipped")) if n]
        if left:
            out.append(f"{self.source}: {len(self.labels):,} labels kept; left out {', '.join(left)}")
        if self.unlabelled_rows:
            out.append(f"{self.unlabelled_rows:,} of {self.rows:,} rows of {self.source} still unlabelled: the "
                       f"estimate uses the {self.rows - self.unlabelled_rows:,} labelled")
        return out


def _label_value(source: str, line: int, raw: object, kind: str, name: str, *, acts: bool) -> bool | float:
    """A label in the task's kind. An acts file's grade (an integer 0-3, ``label --graded``) is
    refused on a yes/no task and a yes/no on a graded one; a rows file takes the datasets' words."""
    if acts:
        if kind == "binary" and not isinstance(raw, bool):
            raise InputError(source, f"a grade ({raw!r}) given to a yes/no task: label this task without --graded",
                             line=line, field=name)
        if kind != "binary" and isinstance(raw, bool):
            raise InputError(source, f"a yes/no label ({str(raw).lower()}) given to a graded task: label it with "
                             "--graded", line=line, field=name)
        return raw if isinstance(raw, bool) else float(raw)  # type: ignore[arg-type]
    from ragjury.evals.io.tasks import parse_gold

    try:
        return parse_gold(raw, kind)  # type: ignore[arg-type]
    except ValueError as error:
        raise InputError(source, str(error), line=line, field=name) from None


def _probability(source: str, line: int, raw: object) -> float:
    name = "inclusion_probability"
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        raise InputError(source, f"expected a number in (0, 1], got {raw!r}", line=line, field=name)
    if not 0 < raw <= 1:
        raise InputError(source, f"expected a probability in (0, 1], got {raw!r}", line=line, field=name)
    if raw < MIN_INCLUSION:  # its weight 1/p would overflow the estimate's arithmetic (and mean nothing)
        raise InputError(source, f"{raw!r} is below {MIN_INCLUSION:g}: a label this unlikely to be drawn would weigh "
                         f"{1 / raw:.3g} others; check the column (label-plan writes it)", line=line, field=name)
    return float(raw)


def _text(row: Mapping[str, Any], name: str) -> str | None:
    value = row.get(name)
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) and value != "" else None


def _csv_rows(source: str, text: str) -> Iterable[tuple[int, dict[str, Any]]]:
    """(line, row) of a CSV with a header; an empty cell is no value; a header without ``id`` and
    ``label`` names the columns found and the ones expected."""
    import csv
    import io

    try:
        reader = csv.DictReader(io.StringIO(text))
        found = [name for name in (reader.fieldnames or []) if name is not None]
        missing = [name for name in ("id", "label") if name not in found]
        if missing:
            raise InputError(source, f"the header has no {' or '.join(repr(m) for m in missing)} column: found "
                             f"{', '.join(found) or 'nothing'}; expected {', '.join(LABEL_COLUMNS[:2])}[, "
                             f"{', '.join(LABEL_COLUMNS[2:])}]", line=1)
        for row in reader:
            clean: dict[str, Any] = {k: (v if v != "" else None) for k, v in row.items() if k is not None}
            raw = clean.get("inclusion_probability")
            if isinstance(raw, str):
                try:
                    clean["inclusion_probability"] = float(raw)
                except ValueError:
                    pass  # _probability names the line and the field
            yield reader.line_num, clean
    except csv.Error as error:
        raise InputError(source, f"not a CSV file: {error}") from None


def _people_field(row: Mapping[str, Any]) -> str:
    """``gold`` in a predictions row (its ``label`` is the judge's), else ``label`` (or ``gold``)."""
    if "judge" in row:
        return "gold"
    return "label" if "label" in row else "gold"


def _from_rows(source: str, rows: Iterable[tuple[int, object]], kind: str, form: str) -> People:
    labels: dict[Key, Label] = {}
    total = empty = 0
    for line, row in rows:
        if not isinstance(row, dict):
            raise InputError(source, f"expected a JSON object, got {type(row).__name__}", line=line)
        ident = row.get("id")
        if not isinstance(ident, str | int) or isinstance(ident, bool) or ident == "":
            problem = "missing" if ident is None else "an empty id" if ident == "" else f"expected a string, got {ident!r}"
            raise InputError(source, problem, line=line, field="id")
        name = _people_field(row)
        if "judge" not in row and name in row:
            total += 1
        raw = row.get(name)
        if raw is None:
            empty += "judge" not in row and name in row
            continue
        value = _label_value(source, line, raw, kind, name, acts=False)
        probability = row.get("inclusion_probability")
        probability = None if probability is None else _probability(source, line, probability)
        label = Label(str(ident), _text(row, "system"), value, probability, fingerprint=_text(row, "fingerprint"),
                      line=line)
        previous = labels.get(label.key)
        if previous is not None and previous.value != value:
            raise InputError(source, f"id {ident!r} labelled {_shown(previous.value)} on line {previous.line} and "
                             f"{_shown(value)} here", line=line, field=name)
        labels[label.key] = label
    return People(source, kind, labels, form=form, unlabelled_rows=empty, rows=total)


def _shown(value: bool | float) -> str:
    return str(value).lower() if isinstance(value, bool) else f"{value:g}"


def people_of_acts(acts: Sequence[LabelAct], kind: str, *, source: str = "labels",
                   allow_shown_judge: bool = False) -> People:
    """The several-annotator rule (``label_acts.RULE``) over ``acts``: each person's last live label;
    unsure and skipped left out; the majority per item; ties left out and counted. Labels given with
    the judge's verdict shown are refused unless ``allow_shown_judge``; a grade on a yes/no task
    (or the other way round) is refused naming its line."""
    for act in acts:
        if act.act == "label" and act.label is not None:
            _label_value(source, act.line, act.label, kind, "label", acts=True)
    inclusion = {act.key: act.inclusion_probability for act in acts if act.inclusion_probability is not None}
    printed = {act.key: act.fingerprint for act in acts if getattr(act, "fingerprint", None)}
    lines: dict[Key, int] = {}
    for act in acts:
        if act.act == "label":
            lines[act.key] = act.line
    states = replay(acts)
    votes: dict[Key, list[tuple[str, bool | int, bool]]] = {}
    unsure = skipped = shown = 0
    for annotator, table in sorted(states.items()):
        for key, state in table.items():
            if state.label is not None:
                if state.shown_judge:
                    shown += 1
                    if not allow_shown_judge:
                        continue
                votes.setdefault(key, []).append((annotator, state.label, state.shown_judge))
            elif state.unsure:
                unsure += 1
            elif state.skipped:
                skipped += 1
    if shown and not allow_shown_judge:
        raise InputError(source, f"{shown} label(s) were given with the judge's verdict shown (ragjury label "
                         "--reveal); they would measure the judge with its own help. --allow-shown-judge counts them "
                         "anyway (every trust command takes it), or relabel those items without --reveal")
    labels: dict[Key, Label] = {}
    ties: list[Key] = []
    settled = adjudications(acts)  # label --review: an adjudication settles its item, tie or not
    for key, given in votes.items():
        ranked = Counter(value for _, value, _ in given).most_common()
        if key in settled:
            value = settled[key]
        elif len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            ties.append(key)
            continue
        else:
            value = ranked[0][0]
        labels[key] = Label(key[1], key[0], value if isinstance(value, bool) else float(value), inclusion.get(key),
                            tuple((name, v) for name, v, _ in given), any(s for _, _, s in given), printed.get(key),
                            lines.get(key, 0))
    return People(source, kind, labels, form="acts", annotators=sorted(states), ties=sorted(ties, key=str),
                  unsure=unsure, skipped=skipped, shown_judge=shown, acts=list(acts))


TREC_COLUMNS = re.compile(r"[ \t\r\f\v]+")
"""TREC columns are separated by ASCII white space, as trec_eval reads them (``loaders._COLUMN_SEPARATOR``)."""


def qrels_rows(path: str | Path, text: str) -> Iterator[tuple[int, str, str, int]]:
    """(line, qid, docid, grade) of each row of TREC qrels ``text`` (``path`` names it in errors).

    A repeated (qid, docid) pair is an error rather than a silent last-wins: two different
    grades for one pair means the file is not what the user thinks it is.
    """
    if not text.strip():
        raise InputError(path, "file is empty")
    seen: set[tuple[str, str]] = set()
    for number, raw in enumerate(split_lines(text), start=1):
        if not raw.strip():
            continue
        columns = [part for part in TREC_COLUMNS.split(raw) if part]
        if len(columns) != 4:
            raise InputError(path, f"expected 4 columns (qid iter docid grade), found {len(columns)}", line=number)
        qid, _iteration, docid, grade_text = columns
        try:
            grade = int(grade_text)
        except ValueError:
            raise InputError(
                path, f"grade must be an integer, got {grade_text!r}", line=number, field="grade"
            ) from None
        if (qid, docid) in seen:
            raise InputError(
                path, f"duplicate judgment for query {qid} document {docid}", line=number, field="docid"
            )
        seen.add((qid, docid))
        yield number, qid, docid, grade


QRELS_GRADES = range(0, 4)
"""The grades of TREC relevance qrels as people's labels (TREC/UMBRELA 0-3)."""

QRELS_SEPARATOR = " "
"""Between a qrels row's query and document ids in its label's id (TREC ids hold no white space)."""


def is_qrels(path: str | Path, text: str) -> bool:
    """A TREC qrels file (``qid iter docid grade``): neither CSV nor JSON, four columns on its first row."""
    if Path(path).suffix.lower() in (".csv", ".jsonl", ".json"):
        return False
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return bool(first) and first[0] not in "{[" and len(first.split()) == 4


def people_of_qrels(source: str, text: str, kind: str) -> People:
    """People's grades of a TREC qrels file, each a label of id ``QID DOCID``: a 0-3 grade, so a yes/no
    task refuses them as it refuses an acts file's grade; a grade outside 0-3 (a -1 "unjudged", a 4)
    is refused (file, line, field) rather than read as relevance."""
    labels: dict[Key, Label] = {}
    try:
        rows = list(qrels_rows(source, text))
    except InputError as error:  # a row of too few or too many columns: its line, and the columns as the field
        if error.field is not None or error.line is None:
            raise
        raise InputError(source, error.message, line=error.line, field="columns") from None
    for number, qid, docid, grade in rows:
        if kind == "binary":
            raise InputError(source, f"TREC qrels hold relevance grades (0-3), given to a yes/no task: give them to a "
                             "relevance command (agreement, calibrate, fit or train --task relevance)", line=number,
                             field="grade")
        if grade not in QRELS_GRADES:
            raise InputError(source, f"grade must be 0, 1, 2 or 3 (TREC relevance), got {grade}", line=number,
                             field="grade")
        ident = f"{qid}{QRELS_SEPARATOR}{docid}"
        labels[(None, ident)] = Label(ident, None, float(grade), line=number)
    return People(source, kind, labels, form="qrels", rows=len(labels))


def read_people(path: str | Path, kind: str = "binary", *, allow_shown_judge: bool = False) -> People:
    """Every label of a labels file, in any form, read once (the file is opened once).

    ``kind``: the task's (``binary`` or ``score``); a label of the other kind is refused naming its
    file, line and field. A file with no label at all is an error (label some items first). TREC qrels
    (``qid iter docid grade``) are people's relevance grades (``people_of_qrels``)."""
    source = str(path)
    check_regular_file(path)
    text = read_text(path)
    if Path(path).suffix.lower() == ".csv":
        people = _from_rows(source, _csv_rows(source, text), kind, "csv")
    elif is_qrels(path, text):  # TREC qrels: people's relevance grades
        people = people_of_qrels(source, text, kind)
    else:
        rows = list(iter_jsonl(path, text))
        if rows and isinstance(rows[0][1], dict) and is_acts_row(rows[0][1]):
            people = people_of_acts(acts_of_text(source, text), kind, source=source, allow_shown_judge=allow_shown_judge)
            if not people.labels:
                raise InputError(source, "no labels yet (every item is unlabelled, unsure, skipped or tied): label "
                                 "some items first")
            return people
        people = _from_rows(source, rows, kind, "rows")
    if not people.labels:
        raise InputError(source, "no labelled rows (every 'label' is empty, or a predictions file without 'gold'): "
                         "label some items first")
    return people


def read_people_any(path: str | Path, *, allow_shown_judge: bool = False) -> People:
    """``read_people`` where the task is not known (``agreement``): yes/no labels, else grades."""
    try:
        return read_people(path, "binary", allow_shown_judge=allow_shown_judge)
    except InputError as error:
        if error.field not in ("label", "gold"):
            raise
    return read_people(path, "score", allow_shown_judge=allow_shown_judge)


def label_rows(people: People) -> dict[str, tuple[int, bool | int | float, str | None]]:
    """id -> (line, label, system): grades as integers where whole; an id labelled under two
    systems with two labels is refused (agreement joins on the id)."""
    out: dict[str, tuple[int, bool | int | float, str | None]] = {}
    for label in people.labels.values():
        value = label.value if isinstance(label.value, bool) or not float(label.value).is_integer() else int(label.value)
        previous = out.get(label.id)
        if previous is not None and previous[1] != value:
            raise InputError(people.source, f"id {label.id!r} is labelled under two systems with different labels: "
                             "give each system's items unique ids", line=label.line or None, field="id")
        out[label.id] = (label.line, value, label.system)
    return out


def people_of_python(labels: object, kind: str = "binary") -> People:
    """Labels given in Python: ``{id: label}`` or a list of ``{"id", "label"}`` dicts (``system``,
    ``inclusion_probability`` and ``fingerprint`` where known); a ``ValueError`` names the entry."""
    rows = ([{"id": key, "label": value} for key, value in labels.items()] if isinstance(labels, Mapping)
            else list(labels) if isinstance(labels, Sequence) and not isinstance(labels, str) else None)
    if rows is None:
        raise ValueError(f"labels: expected a path, a dict of id -> label or a list of {{'id', 'label'}} dicts, "
                         f"not {type(labels).__name__}")
    for number, row in enumerate(rows):
        if not isinstance(row, Mapping) or "id" not in row or "label" not in row:
            raise ValueError(f"labels[{number}]: expected a dict with 'id' and 'label', got {row!r}"[:200])
    try:
        people = _from_rows("labels", ((number, dict(row)) for number, row in enumerate(rows)), kind, "python")
    except InputError as error:
        raise ValueError(f"labels[{error.line}]: '{error.field}' {error.message}") from None
    if not people.labels:
        raise ValueError("labels: no labelled item (every label is None)")
    return people


def _gold(label: Label, kind: str) -> bool | float:
    return bool(label.value) if kind == "binary" else float(label.value)


def join_people(run: Any, people: People, *, configs: Sequence[str] | None = None) -> Any:
    """``run`` (a ``PredictionRun``) with people's labels in its records: each record's ``gold`` and
    ``inclusion_probability`` (None where people gave none). The one place labels meet judgments.

    A label matches a record on (system, id), then on the id alone; in a run of two configs
    (``configs``: their names, records ``CONFIG/ID``) also on (CONFIG, ID), and a bare id is refused
    where both configs have it. A label whose fingerprint differs from the record's (it was given
    to another answer) is refused in one line naming the file, line and ids. ``InputError`` when
    no label matches any record."""
    records = join_records(run.records, people, kind=run.kind, where=run.path, configs=configs,
                           matches="a prediction in")
    return replace(run, records=records)


def join_records(records: Sequence[Any], people: People, *, kind: str, where: str | Path,
                 configs: Sequence[str] | None = None, matches: str = "an item of") -> list[Any]:
    """``join_people`` over any records with ``id``, ``system``, ``gold`` and ``inclusion_probability``
    (predictions records, dataset rows); ``where`` names what they came from."""
    by_id: dict[str, list[Label]] = {}
    for label in people.labels.values():
        by_id.setdefault(label.id, []).append(label)
    bare: Counter[str] = Counter()
    if configs:
        for record in records:
            bare[_strip(record.id, record.system)] += 1
    matched = 0
    out = []
    for record in records:
        found = _find(people, by_id, record, configs, bare)
        if found is not None:
            _check_fingerprint(people, found, record, where)
            matched += 1
        out.append(replace(record, gold=None if found is None else _gold(found, kind),
                           inclusion_probability=None if found is None else found.inclusion_probability))
    if not matched:
        hint = (f" (the labels of two configs are keyed {configs[0]}/ID and {configs[1]}/ID, as 'label-plan A B' "
                "writes them, or carry a 'system' column naming the config)" if configs else "")
        raise InputError(people.source, f"no id in this file matches {matches} {where}{hint}")
    return out


def join_configs(runs: Sequence[Any], names: Sequence[str], people: People, *, kind: str) -> list[Any]:
    """Several configs' runs, each with people's labels of its own answers: every record keyed
    ``CONFIG/ID`` (``system`` the config's name) and joined once (``join_records``), then handed back
    to its run with its label and inclusion probability."""
    keyed = [replace(record, id=f"{name}{SEPARATOR}{record.id}", system=name)
             for run, name in zip(runs, names, strict=True) for record in run.records]
    joined = join_records(keyed, people, kind=kind, where=" + ".join(str(run.path) for run in runs), configs=names)
    out, at = [], 0
    for run in runs:
        mine = joined[at:at + len(run.records)]
        at += len(run.records)
        out.append(replace(run, records=[replace(record, gold=new.gold, inclusion_probability=new.inclusion_probability)
                                         for record, new in zip(run.records, mine, strict=True)]))
    return out


def _strip(ident: str, system: str | None) -> str:
    prefix = f"{system}{SEPARATOR}" if system else ""
    return ident[len(prefix):] if prefix and ident.startswith(prefix) else ident


def _find(people: People, by_id: Mapping[str, list[Label]], record: Any, configs: Sequence[str] | None,
          bare: Counter[str]) -> Label | None:
    labels = people.labels
    found = labels.get((record.system, record.id))
    if found is not None:
        return found
    if configs:
        ident = _strip(record.id, record.system)
        found = labels.get((record.system, ident)) or labels.get((None, record.id))
        if found is not None:
            return found
        found = labels.get((None, ident))
        if found is not None and bare[ident] > 1:
            raise InputError(people.source, f"id {ident!r} is in both runs and its label names no config: key it "
                             f"{configs[0]}/{ident} or {configs[1]}/{ident} (or add a 'system' column), as "
                             "'label-plan A B' writes them", line=found.line or None)
        return found
    found = labels.get((None, record.id))
    if found is not None:
        return found
    same = by_id.get(record.id, [])
    if record.system is None and len(same) == 1:
        return same[0]
    return None


def _item_fields(record: Any) -> Mapping[str, Any] | None:
    item = getattr(record, "item", None)
    if hasattr(item, "model_dump"):
        return item.model_dump(mode="json")
    return item if isinstance(item, Mapping) else None


def _check_fingerprint(people: People, label: Label, record: Any, where: str | Path) -> None:
    """A label that carries a fingerprint must have judged this record's item."""
    if label.fingerprint is None:
        return
    printed = fingerprint(_item_fields(record))
    if printed is None or printed == label.fingerprint:
        return
    line = f":{label.line}" if label.line else ""
    at = f" line {record.line}" if getattr(record, "line", None) else ""
    raise InputError(f"{people.source}{line}", f"this label was given to another answer: label "
                     f"{label.system + SEPARATOR if label.system else ''}{label.id} (fingerprint {label.fingerprint}) "
                     f"does not match {where}{at}, id {record.id} (fingerprint {printed}): give the labels of this "
                     "run's plan")


def unmatched_note(people: People, run: Any) -> list[str]:
    """Labels no record took (left out), said with their count."""
    taken = sum(1 for record in run.records if record.gold is not None)
    left = len(people.labels) - taken
    return [f"{left:,} of {len(people.labels):,} labels in {people.source} match no prediction's id: left out"] if left > 0 else []


def certain_note(run: Any, source: str) -> list[str]:
    """Inclusion probabilities of 1 on every labelled row (picked for certain) while people did not
    label every item: the interval then counts no sampling error, which is then wrong; say it."""
    labelled = [record for record in run.records if record.gold is not None]
    if labelled and all(record.inclusion_probability == 1 for record in labelled) and len(labelled) < len(run.records):
        return [f"every labelled row in {source} has inclusion_probability 1 (picked for certain): the interval counts "
                "no sampling error, which holds only if people labelled every item; give the chances the rows had"]
    return []


__all__ = [
    "Key",
    "LABEL_COLUMNS",
    "Label",
    "MIN_INCLUSION",
    "People",
    "QRELS_GRADES",
    "certain_note",
    "check_regular_file",
    "fingerprint",
    "is_qrels",
    "join_configs",
    "join_people",
    "join_records",
    "label_rows",
    "read_people_any",
    "people_of_acts",
    "people_of_python",
    "people_of_qrels",
    "qrels_rows",
    "read_people",
    "unmatched_note",
]
