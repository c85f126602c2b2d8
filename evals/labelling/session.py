"""One person's labelling session over a labels file: which item comes next, and each act saved.

Why here and not in the page: the page and the terminal are two views of the same session, so
the order, the resume point, the share of items each person gets and the recheck live once.

- **Order**: shuffled per annotator from a seed (never sorted by the judge's confidence), so two
  people working at once rarely meet on an item only one of them should label.
- **Overlap**: a fixed share of items (``overlap``, chosen by a seeded hash of the item) goes to
  every annotator; any other item goes to whoever reaches it first (the file is re-read before each
  item, so a second person skips what the first has done).
- **Resume**: the next item is the first in this person's order they have not labelled, marked
  unsure or skipped; re-opening the file continues there.
- **Recheck**: with ``recheck=K`` this person's first K labelled items come back at the end,
  unannounced; the second label is kept apart (``recheck``) and measures their own consistency.
- **Durability**: ``act`` returns only after the act is appended and synced (``append_act``).
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from ragjury.evals.io.label_acts import LabelAct, PersonState, append_act, now_iso, read_acts, replay
from ragjury.evals.labelling.items import LabelItem

Key = tuple[str | None, str]


def _unit(seed: int, text: str) -> float:
    digest = hashlib.sha256(f"{seed}:{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass
class Screen:
    """What one screen shows: an item (text only, never the judge), where it is, and the progress."""

    position: int
    item: LabelItem | None
    recheck: bool
    done: int
    total: int
    state: PersonState | None
    finished: bool


@dataclass
class LabelSession:
    """One annotator's session over ``items``, saving acts to ``out``."""

    items: list[LabelItem]
    out: Path
    annotator: str
    seed: int = 0
    overlap: float = 1.0
    recheck: int = 0
    started: float = field(default_factory=time.monotonic)
    _states: dict[str, dict[Key, PersonState]] = field(default_factory=dict, init=False)
    _acts: list[LabelAct] = field(default_factory=list, init=False)
    _read: tuple[int, int] = field(default=(-1, -1), init=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.overlap <= 1.0:
            raise ValueError(f"overlap must be a share in [0, 1], got {self.overlap}")
        self.by_key = {item.key: item for item in self.items}
        order = list(self.items)
        random.Random(f"{self.seed}:{self.annotator}").shuffle(order)
        self.order: list[Key] = [item.key for item in order]
        self.shared = {key for key in self.order if _unit(self.seed, f"{key[0]}\x00{key[1]}") < self.overlap}
        self.refresh()

    # -- reading the file --------------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read the labels file where it changed (another annotator, or a resumed session)."""
        try:
            stat = self.out.stat()
            mark = (stat.st_size, stat.st_mtime_ns)
        except FileNotFoundError:
            mark = (0, 0)
        if mark == self._read:
            return
        self._acts = read_acts(self.out)
        self._states = replay(self._acts)
        self._read = mark

    @property
    def mine(self) -> dict[Key, PersonState]:
        return self._states.get(self.annotator, {})

    def _taken_by_other(self, key: Key) -> bool:
        return key not in self.shared and any(
            name != self.annotator and table.get(key, PersonState()).done for name, table in self._states.items()
        )

    def queue(self) -> list[Key]:
        """This annotator's items, in their order: shared ones and the others nobody else has done."""
        mine = self.mine
        return [key for key in self.order if key in mine or not self._taken_by_other(key)]

    def _recheck_keys(self) -> list[Key]:
        """This person's first ``recheck`` labelled items, in the order they labelled them."""
        if not self.recheck:
            return []
        first: list[Key] = []
        for act in self._acts:
            if act.annotator == self.annotator and act.act == "label" and not act.recheck and act.key not in first:
                first.append(act.key)
        live = [key for key in first if self.mine.get(key, PersonState()).label is not None]
        return live[: self.recheck]

    # -- screens -----------------------------------------------------------------------------------
    def screen(self, position: int | None = None) -> Screen:
        """The screen at ``position`` of this person's queue (rechecks after it), or the next undone one."""
        self.refresh()
        queue = self.queue()
        mine = self.mine
        rechecks = self._recheck_keys()
        done = sum(1 for key in queue if mine.get(key, PersonState()).done)
        pending_rechecks = [key for key in rechecks if mine[key].recheck_label is None]
        all_done = done == len(queue)
        total = len(queue) + len(rechecks)
        done_total = done + len(rechecks) - len(pending_rechecks)
        if position is None:
            position = next((i for i, key in enumerate(queue) if not mine.get(key, PersonState()).done), None)
            if position is None and pending_rechecks:
                position = len(queue) + rechecks.index(pending_rechecks[0])
        if position is None or position < 0 or position >= len(queue) + (len(rechecks) if all_done else 0):
            if all_done and not pending_rechecks:
                return Screen(len(queue), None, False, done_total, total, None, True)
            position = max(0, min(position or 0, len(queue) - 1))
        if position < len(queue):
            key = queue[position]
            return Screen(position, self.by_key[key], False, done_total, total, mine.get(key), False)
        key = rechecks[position - len(queue)]
        return Screen(position, self.by_key[key], True, done_total, total, None, False)

    def act(
        self,
        position: int,
        act: str,
        *,
        label: bool | int | None = None,
        seconds: float | None = None,
        comment: str | None = None,
        shown_judge: bool = False,
    ) -> Screen:
        """Save one act on the item at ``position`` (synced before returning) and give the next screen.

        ``undo`` takes back this person's last act wherever it was and shows that item again."""
        self.refresh()
        if act == "undo":
            last = next((a for a in reversed(self._live_mine()) if a.act != "undo"), None)
            if last is None:
                return self.screen(position)
            append_act(self.out, LabelAct(id=last.id, system=last.system, act="undo", annotator=self.annotator,
                                          at=now_iso()))
            self.refresh()
            queue = self.queue()
            if last.key in queue:
                return self.screen(queue.index(last.key))
            return self.screen()
        current = self.screen(position)
        if current.item is None:
            return current
        item = current.item
        append_act(self.out, LabelAct(
            id=item.id, system=item.system, act=act, annotator=self.annotator,  # type: ignore[arg-type]
            label=label if act == "label" else None, at=now_iso(),
            seconds=None if seconds is None else round(float(seconds), 3), comment=comment or None,
            shown_judge=shown_judge, recheck=current.recheck, inclusion_probability=item.inclusion_probability,
            fingerprint=item.fingerprint,
        ))
        self.refresh()
        return self.screen()

    def _live_mine(self) -> list[LabelAct]:
        live: list[LabelAct] = []
        for act in self._acts:
            if act.annotator != self.annotator:
                continue
            if act.act == "undo":
                if live:
                    live.pop()
            else:
                live.append(act)
        return live

    def elapsed(self) -> float:
        return time.monotonic() - self.started


__all__ = ["LabelSession", "Screen"]
