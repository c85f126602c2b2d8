"""The labels file ``ragjury label`` writes: one JSON line per act of a person, appended and synced.

Why acts, not a table: a label is given, undone, changed, skipped or marked unsure, by one of
several people, some of them at once; an append-only log of acts loses nothing on a crash (each
line is written with one ``write`` under an exclusive lock and ``fsync``-ed before the page shows
the next item) and can be replayed into the state of any moment. Each line says who labelled,
when, in how many seconds, and whether the judge's verdict was on the screen (``shown_judge``).

Rows: ``{"id", "system", "act", "label", "annotator", "at", "seconds", "comment", "shown_judge",
"recheck"}``; ``act`` is ``label`` (``label`` true/false or a grade 0-3), ``unsure``, ``skip`` or
``undo`` (takes back this annotator's last act that was not undone).

The rule for several annotators (``people_labels``): each person's label of an item is their last
act on it that is not undone (a recheck never replaces a first label); unsure and skipped items
are left out; the item's label is the majority of the people who labelled it; a tie is left out
and counted. Labels given with the judge's verdict shown are refused unless allowed (they measure
the judge with its own help).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from ragjury.rag_agent.core.input_files import InputError, iter_jsonl

Act = Literal["label", "unsure", "skip", "undo"]
ACTS: tuple[str, ...] = ("label", "unsure", "skip", "undo")
LabelValue = bool | int


@dataclass(frozen=True)
class LabelAct:
    """One thing one person did to one item."""

    id: str
    act: Act
    annotator: str
    label: LabelValue | None = None
    system: str | None = None
    at: str = ""
    seconds: float | None = None
    comment: str | None = None
    shown_judge: bool = False
    recheck: bool = False
    inclusion_probability: float | None = None
    """The item's chance of having been picked, where it came from a label plan (``estimate`` weights by it)."""
    fingerprint: str | None = None
    """The hash of what the person saw (``people.fingerprint``), copied from the plan row: a trust
    command refuses the label where the prediction it joins judged another answer."""
    sequential: str | None = None
    """The decision of a sequential session (``label --until "B - A"``): the labels were gathered
    until it was settled, so only a confidence sequence is valid for them (``estimate`` says so)."""
    review: bool = False
    """An adjudication (``label --review``): it settles the item where people disagree or tie, and is
    never a vote (the rule: ``RULE``)."""
    line: int = field(default=0, compare=False)

    @property
    def key(self) -> tuple[str | None, str]:
        """(system, id): a file may hold several systems whose ids repeat."""
        return (self.system, self.id)

    def as_row(self) -> dict[str, Any]:
        row = asdict(self)
        row.pop("line")
        if row["fingerprint"] is None:
            row.pop("fingerprint")
        if row["sequential"] is None:
            row.pop("sequential")
        if not row["review"]:
            row.pop("review")
        return row


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def append_act(path: str | Path, act: LabelAct) -> None:
    """Append one act as one line, under an exclusive lock, and sync it to disk before returning.

    Two annotators' processes may append to one file at once: the lock keeps their lines whole.
    A last line cut by a crash (no newline) was never acknowledged: it is cut off before the new
    act is written, so it never becomes a middle line the readers refuse. A short ``write`` (a full
    disk, a file size limit) is undone and raised as ``OSError``: the act is not acknowledged.
    """
    data = (json.dumps(act.as_row(), ensure_ascii=False, allow_nan=False) + "\n").encode()
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = _cut_tail(fd, os.fstat(fd).st_size)
        written = os.write(fd, data)
        if written != len(data):
            os.ftruncate(fd, size)
            os.fsync(fd)
            raise OSError(errno.ENOSPC, f"short write to {path} ({written} of {len(data)} bytes): the act was not saved")
        os.fsync(fd)
    finally:
        os.close(fd)


def _cut_tail(fd: int, size: int) -> int:
    """Cut an unterminated last line (a write a crash or a short write left) off the file; the new size."""
    if not size or os.pread(fd, 1, size - 1) == b"\n":
        return size
    start = size
    while start > 0:
        step = min(65536, start)
        chunk = os.pread(fd, step, start - step)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            start = start - step + newline + 1
            break
        start -= step
    os.ftruncate(fd, start)
    return start


def _bool(raw: object) -> bool:
    return raw is True


def _label_value(path: str, line: int, raw: object) -> LabelValue:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, int) and 0 <= raw <= 3:
        return raw
    raise InputError(path, f"expected true, false or a grade 0-3, got {raw!r}", line=line, field="label")


def act_of_row(path: str, line: int, row: object) -> LabelAct:
    """One parsed act; bad input names the file, line and field."""
    if not isinstance(row, dict):
        raise InputError(path, f"expected a JSON object, got {type(row).__name__}", line=line)
    ident = row.get("id")
    if not isinstance(ident, str | int) or isinstance(ident, bool) or ident == "":
        raise InputError(path, f"expected a non-empty string, got {ident!r}", line=line, field="id")
    act = row.get("act")
    if act not in ACTS:
        raise InputError(path, f"expected one of {', '.join(ACTS)}, got {act!r}", line=line, field="act")
    annotator = row.get("annotator")
    if not isinstance(annotator, str) or not annotator:
        raise InputError(path, f"expected a name, got {annotator!r}", line=line, field="annotator")
    label = row.get("label")
    value = _label_value(path, line, label) if act == "label" else None
    system = row.get("system")
    seconds = row.get("seconds")
    comment = row.get("comment")
    return LabelAct(
        id=str(ident), act=act, annotator=annotator, label=value,
        system=str(system) if isinstance(system, str | int) and not isinstance(system, bool) else None,
        at=str(row.get("at") or ""),
        seconds=float(seconds) if isinstance(seconds, int | float) and not isinstance(seconds, bool) else None,
        comment=comment if isinstance(comment, str) else None,
        shown_judge=_bool(row.get("shown_judge")), recheck=_bool(row.get("recheck")),
        inclusion_probability=_probability(path, line, row.get("inclusion_probability")),
        fingerprint=row["fingerprint"] if isinstance(row.get("fingerprint"), str) else None,
        sequential=row["sequential"] if isinstance(row.get("sequential"), str) else None,
        review=_bool(row.get("review")), line=line,
    )


def _probability(path: str, line: int, raw: object) -> float | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 < raw <= 1:
        raise InputError(path, f"expected a probability in (0, 1], got {raw!r}", line=line, field="inclusion_probability")
    return float(raw)


def read_acts(path: str | Path) -> list[LabelAct]:
    """Every act in the file, in order. A last line cut by a crash (no newline, not JSON) is
    skipped: it was never acknowledged; any other bad line is an error naming it."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(name, f"cannot read the labels file: {error}") from None
    return acts_of_text(name, text)


def acts_of_text(name: str, text: str) -> list[LabelAct]:
    """Every act of an acts file's ``text`` (``name`` for errors). A last line cut by a crash (no
    newline, not JSON) is skipped; any other bad line is an error naming it."""
    lines = text.split("\n")
    acts: list[LabelAct] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as error:
            last = all(not rest.strip() for rest in lines[number:])
            if last and not text.endswith("\n"):
                continue  # a write cut by a crash: the page never acknowledged it
            raise InputError(name, f"not JSON: {error.msg}", line=number) from None
        acts.append(act_of_row(name, number, row))
    return acts


def read_acts_from(path: str | Path, offset: int = 0, lines: int = 0) -> tuple[list[LabelAct], int, int]:
    """The acts on the complete lines after byte ``offset`` (``lines`` lines before it), and the new
    offset and line count: a session reads only what was appended since its last read. An
    unterminated last line is left for the next read (a write in progress, or one a crash cut)."""
    name = str(path)
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            data = handle.read()
    except FileNotFoundError:
        return [], 0, 0
    except OSError as error:
        raise InputError(name, f"cannot read the labels file: {error}") from None
    end = data.rfind(b"\n") + 1
    acts: list[LabelAct] = []
    for raw in data[:end].split(b"\n")[:-1]:
        lines += 1
        if not raw.strip():
            continue
        try:
            row = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise InputError(name, f"not JSON: {error}", line=lines) from None
        acts.append(act_of_row(name, lines, row))
    return acts, offset + end, lines


def is_acts_row(row: Mapping[str, Any]) -> bool:
    """True for a row of a labels file written by ``ragjury label`` (it has ``act`` and ``annotator``)."""
    return "act" in row and "annotator" in row


def is_labels_file(path: str | Path) -> bool:
    """Whether ``path`` is a labels file of ``ragjury label`` (its first row is an act), as every
    reader of people's labels asks before choosing how to read it (a ``.csv`` file never is)."""
    if Path(path).suffix.lower() == ".csv":
        return False
    first = next(iter(iter_jsonl(path)), None)
    return first is not None and isinstance(first[1], dict) and is_acts_row(first[1])


@dataclass
class PersonState:
    """What one annotator has done to one item, after replaying their acts."""

    label: LabelValue | None = None
    unsure: bool = False
    skipped: bool = False
    shown_judge: bool = False
    seconds: float | None = None
    recheck_label: LabelValue | None = None
    rechecked: bool = False
    """A recheck act was given (a label, unsure or skip: kept apart from the first label)."""
    comment: str | None = None

    @property
    def done(self) -> bool:
        """Labelled, marked unsure or skipped: this person has passed this item."""
        return self.label is not None or self.unsure or self.skipped


def replay(acts: Iterable[LabelAct], *, review: bool = False) -> dict[str, dict[tuple[str | None, str], PersonState]]:
    """annotator → (system, id) → state. ``undo`` takes back that annotator's last live act.
    People's acts by default; ``review=True``: the adjudications (``label --review``) alone."""
    live: dict[str, list[LabelAct]] = {}
    for act in acts:
        if act.review != review:
            continue
        mine = live.setdefault(act.annotator, [])
        if act.act == "undo":
            if mine:
                mine.pop()
            continue
        mine.append(act)
    states: dict[str, dict[tuple[str | None, str], PersonState]] = {}
    for annotator, mine in live.items():
        table = states.setdefault(annotator, {})
        for act in mine:
            state = table.setdefault(act.key, PersonState())
            if act.comment:
                state.comment = act.comment
            if act.recheck:  # every recheck act is kept apart: it never touches the first label
                state.rechecked = True
                state.recheck_label = act.label if act.act == "label" else None
                continue
            if act.act == "label":
                state.label, state.unsure, state.skipped = act.label, False, False
                state.shown_judge, state.seconds = act.shown_judge, act.seconds
            elif act.act == "unsure":
                state.label, state.unsure, state.skipped = None, True, False
            elif act.act == "skip" and state.label is None:
                state.skipped = True
    return states


def adjudications(acts: Iterable[LabelAct]) -> dict[tuple[str | None, str], LabelValue]:
    """(system, id) → the adjudicated label (``label --review``): the last live review label of the
    item, whoever gave it; an adjudication undone, or marked unsure or skipped, settles nothing."""
    acts = list(acts)
    states = replay(acts, review=True)
    last: dict[tuple[str | None, str], str] = {}
    for act in acts:
        if act.review and act.act != "undo":
            state = states.get(act.annotator, {}).get(act.key)
            if state is not None and state.label is not None:
                last[act.key] = act.annotator
    return {key: states[who][key].label for key, who in last.items()}  # type: ignore[misc]


@dataclass
class PeopleLabels:
    """Each item's people label under the several-annotator rule, and what the rule left out."""

    labels: dict[tuple[str | None, str], LabelValue]
    annotators: list[str]
    ties: list[tuple[str | None, str]]
    unsure: int
    skipped: int
    shown_judge: int
    """Labels given with the judge's verdict shown (kept only where allowed)."""
    inclusion: dict[tuple[str | None, str], float] = field(default_factory=dict)
    """(system, id) → the item's inclusion probability, where the acts carry one."""


RULE = (
    "each person's last label of an item counts (undone acts and rechecks do not); unsure and skipped "
    "items are left out; an item's label is the majority of the people who labelled it; ties are left out; "
    "an adjudication (label --review) settles the item it names, tie or not"
)


def people_labels(
    acts: Iterable[LabelAct], *, allow_shown_judge: bool = False, path: str = "labels"
) -> PeopleLabels:
    """The labels a trust command reads, by the documented rule (``RULE``).

    Labels given with the judge's verdict shown are refused with an ``InputError`` unless
    ``allow_shown_judge``: a label that saw the verdict inflates that judge's measured agreement."""
    acts = list(acts)
    inclusion = {act.key: act.inclusion_probability for act in acts if act.inclusion_probability is not None}
    states = replay(acts)
    votes: dict[tuple[str | None, str], list[LabelValue]] = {}
    unsure = skipped = shown = 0
    for table in states.values():
        for key, state in table.items():
            if state.label is not None:
                if state.shown_judge:
                    shown += 1
                    if not allow_shown_judge:
                        continue
                votes.setdefault(key, []).append(state.label)
            elif state.unsure:
                unsure += 1
            elif state.skipped:
                skipped += 1
    if shown and not allow_shown_judge:
        raise InputError(
            path,
            f"{shown} label(s) were given with the judge's verdict shown (ragjury label --reveal); they would "
            "measure the judge with its own help. 'ragjury estimate --allow-shown-judge' counts them anyway; for "
            "the other commands, relabel those items without --reveal",
        )
    labels: dict[tuple[str | None, str], LabelValue] = {}
    ties: list[tuple[str | None, str]] = []
    settled = adjudications(acts)
    for key, values in votes.items():
        ranked = Counter(values).most_common()
        if key in settled:
            labels[key] = settled[key]
            continue
        if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            ties.append(key)
            continue
        labels[key] = ranked[0][0]
    return PeopleLabels(labels, sorted(states), ties, unsure, skipped, shown, inclusion)


__all__ = [
    "ACTS",
    "adjudications",
    "RULE",
    "LabelAct",
    "PeopleLabels",
    "PersonState",
    "act_of_row",
    "acts_of_text",
    "append_act",
    "is_acts_row",
    "is_labels_file",
    "now_iso",
    "people_labels",
    "read_acts",
    "read_acts_from",
    "replay",
]
