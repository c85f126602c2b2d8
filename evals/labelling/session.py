"""One person's labelling session over a labels file: which item comes next, and each act saved.

Why here and not in the page: the page and the terminal are two views of the same session, so
the order, the resume point, the share of items each person gets and the recheck live once.

- **Order**: shuffled per annotator from a seed (never sorted by the judge's confidence), so two
  people working at once rarely meet on an item only one of them should label.
- **Overlap**: a fixed share of items (``overlap``, chosen by a seeded hash of the item) goes to
  every annotator; any other item goes to whoever reaches it first (the file is re-read before each
  item, so a second person skips what the first has done).
- **Resume**: the next item is the first in this person's order they have not passed (labelled,
  marked unsure or skipped); once none is left, their rechecks, then their unsure and skipped items
  come back, in order, until each is labelled. Re-opening the file continues there.
- **Acts name the item** (system, id), never a place in the queue: the queue changes while a person
  reads (another annotator takes an item), so an act on an item no longer in this person's queue is
  refused (``ItemGone``), and one from a tab that saw an older state of the item is refused too
  (``StaleAct``: ``seen`` is the item's version, the number of this person's acts on it).
- **Recheck**: with ``recheck=K`` this person's first K labelled items come back at the end,
  unannounced; every act on a recheck screen (label, unsure, skip) is kept apart (``recheck``) and
  never touches the first label.
- **Durability**: ``act`` returns only after the act is appended and synced (``append_act``).
- **Reading**: the file is read from where the last read ended (new complete lines only), so the
  time per label does not grow with the file.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from ragjury.evals.io.label_acts import LabelAct, PersonState, append_act, now_iso, read_acts_from, replay
from ragjury.evals.labelling.items import LabelItem

Key = tuple[str | None, str]
NOBODY = PersonState()


LIST_FILTERS = ("all", "unlabelled", "unsure", "skipped", "disagree")
"""The jump list's filters: this person's own state of an item, or people who labelled it disagree."""


class ItemGone(Exception):
    """The item named by an act is not in this person's queue (another annotator took it)."""


class StaleAct(Exception):
    """The act was made on an older state of the item (another tab of the same person changed it)."""


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
    """Items labelled (and rechecks given); unsure and skipped ones are not done: they come back."""
    total: int
    state: PersonState | None
    finished: bool
    version: int = 0
    """This person's acts on the item so far: an act says which version it saw (``seen``)."""
    unsure: int = 0
    skipped: int = 0
    acts: int = 0
    """This person's acts in the file (an ``undo`` says how many it saw)."""


@dataclass
class LabelSession:
    """One annotator's session over ``items``, saving acts to ``out``."""

    items: list[LabelItem]
    out: Path
    annotator: str
    seed: int = 0
    overlap: float = 1.0
    recheck: int = 0
    sequential: str | None = None
    """``label --until``'s decision, written into every act (the labels were gathered sequentially)."""
    review: bool = False
    """``label --review``: the queue is the items people disagree on, and every act is an
    adjudication (``review``), never a vote."""
    started: float = field(default_factory=time.monotonic)
    _states: dict[str, dict[Key, PersonState]] = field(default_factory=dict, init=False)
    _reviews: dict[str, dict[Key, PersonState]] = field(default_factory=dict, init=False)
    _acts: list[LabelAct] = field(default_factory=list, init=False)
    _read: tuple[int, int] = field(default=(-1, -1), init=False)
    _offset: int = field(default=0, init=False)
    _lines: int = field(default=0, init=False)
    _versions: dict[Key, int] = field(default_factory=dict, init=False)
    _cache: dict[str, list[Key]] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.overlap <= 1.0:
            raise ValueError(f"overlap must be a share in [0, 1], got {self.overlap}")
        self.by_key = {item.key: item for item in self.items}
        order = list(self.items)
        random.Random(f"{self.seed}:{self.annotator}").shuffle(order)
        self.order: list[Key] = [item.key for item in order]
        if self.review:
            self.recheck = 0
        self.shared = {key for key in self.order if _unit(self.seed, f"{key[0]}\x00{key[1]}") < self.overlap}
        self.refresh()

    # -- reading the file --------------------------------------------------------------------------
    def refresh(self) -> None:
        """Read what was appended to the labels file since the last read (another annotator, or a
        resumed session): complete lines from the offset where the last read ended."""
        try:
            stat = self.out.stat()
            mark = (stat.st_size, stat.st_mtime_ns)
        except FileNotFoundError:
            mark = (0, 0)
        if mark == self._read:
            return
        if mark[0] < self._offset:  # the file was replaced or cut: read it again from the start
            self._offset, self._lines, self._acts, self._versions = 0, 0, [], {}
            self._reviews = {}
        new, self._offset, self._lines = read_acts_from(self.out, self._offset, self._lines)
        if new:
            self._acts.extend(new)
            for act in new:
                if act.annotator == self.annotator and act.review == self.review:
                    self._versions[act.key] = self._versions.get(act.key, 0) + 1
            self._states = replay(self._acts)
            self._reviews = replay(self._acts, review=True)
            self._cache = {}
        self._read = mark

    @property
    def mine(self) -> dict[Key, PersonState]:
        return (self._reviews if self.review else self._states).get(self.annotator, {})

    def people_on(self, key: Key) -> list[tuple[str, object]]:
        """(annotator, label) of the people who labelled ``key`` (not the adjudications)."""
        return [(name, table[key].label) for name, table in sorted(self._states.items())
                if key in table and table[key].label is not None]

    def _disagree(self, key: Key) -> bool:
        return len({label for _, label in self.people_on(key)}) > 1

    def _taken_by_other(self, key: Key) -> bool:
        return key not in self.shared and any(
            name != self.annotator and table.get(key, PersonState()).done for name, table in self._states.items()
        )

    def queue(self) -> list[Key]:
        """This annotator's items, in their order: shared ones and the others nobody else has done."""
        if "queue" not in self._cache:  # kept until the file changes
            mine = self.mine
            if self.review:  # the items people disagree on (and those this person already settled)
                self._cache["queue"] = [key for key in self.order if key in mine or self._disagree(key)]
            else:
                self._cache["queue"] = [key for key in self.order if key in mine or not self._taken_by_other(key)]
        return self._cache["queue"]

    def _recheck_keys(self) -> list[Key]:
        """This person's first ``recheck`` labelled items, in the order they labelled them."""
        if not self.recheck:
            return []
        if "rechecks" in self._cache:
            return self._cache["rechecks"]
        first: list[Key] = []
        for act in self._acts:
            if act.annotator == self.annotator and act.act == "label" and not act.recheck and act.key not in first:
                first.append(act.key)
        live = [key for key in first if self.mine.get(key, PersonState()).label is not None]
        self._cache["rechecks"] = live[: self.recheck]
        return self._cache["rechecks"]

    # -- screens -----------------------------------------------------------------------------------
    def _mine_count(self) -> int:
        return sum(self._versions.values())

    def screen(self, position: int | None = None, *, after: int | None = None) -> Screen:
        """The screen at ``position`` of this person's queue (rechecks after it), or the next one to do:
        the first item not passed, then a pending recheck, then the next unsure or skipped item after
        ``after`` (the position just acted on)."""
        self.refresh()
        queue = self.queue()
        mine = self.mine
        states = [mine.get(key, NOBODY) for key in queue]
        fresh = [i for i, state in enumerate(states) if not state.done]
        reopen = [i for i, state in enumerate(states) if state.done and state.label is None]
        rechecks = self._recheck_keys()
        pending = [key for key in rechecks if not mine[key].rechecked]
        labelled = sum(1 for state in states if state.label is not None)
        total = len(queue) + len(rechecks)
        done = labelled + len(rechecks) - len(pending)
        counts = {"version": 0, "unsure": sum(1 for s in states if s.unsure),
                  "skipped": sum(1 for s in states if s.skipped and s.label is None), "acts": self._mine_count()}
        finished = not fresh and not pending and not reopen
        end = Screen(len(queue), None, False, done, total, None, True, **counts)
        if position is None:
            if fresh:
                position = fresh[0]
            elif pending:
                position = len(queue) + rechecks.index(pending[0])
            elif reopen:
                position = next((i for i in reopen if after is None or i > after), reopen[0])
            else:
                return end
        limit = len(queue) + (0 if fresh else len(rechecks))
        if position < 0 or position >= limit:
            if finished or not queue:
                return end
            position = max(0, min(position, len(queue) - 1))
        if position < len(queue):
            key = queue[position]
            counts["version"] = self._versions.get(key, 0)
            return Screen(position, self.by_key[key], False, done, total, mine.get(key), False, **counts)
        key = rechecks[position - len(queue)]
        counts["version"] = self._versions.get(key, 0)
        return Screen(position, self.by_key[key], True, done, total, None, False, **counts)

    def act(
        self,
        target: Key | int | None,
        act: str,
        *,
        recheck: bool = False,
        seen: int | None = None,
        label: bool | int | None = None,
        seconds: float | None = None,
        comment: str | None = None,
        shown_judge: bool = False,
    ) -> Screen:
        """Save one act on the item ``target`` names (synced before returning) and give the next screen.

        ``target`` is the item's (system, id) as shown; an int is a position of this person's queue
        (in-process callers only: the page and the terminal name the item). ``recheck`` says the
        item was shown as a recheck; ``seen`` is the item's version the screen showed (for ``undo``:
        the person's act count). Raises ``ItemGone`` where the item is not in this person's queue,
        ``StaleAct`` where ``seen`` is out of date. ``undo`` takes back this person's last act wherever
        it was and shows that item again."""
        self.refresh()
        if act == "undo":
            if seen is not None and seen != self._mine_count():
                raise StaleAct("your labels changed in another tab or window since this page was drawn")
            last = next((a for a in reversed(self._live_mine()) if a.act != "undo"), None)
            if last is None:
                return self.screen()
            append_act(self.out, LabelAct(id=last.id, system=last.system, act="undo", annotator=self.annotator,
                                          at=now_iso(), review=self.review))
            self.refresh()
            queue = self.queue()
            if last.recheck and last.key in self._recheck_keys():
                return self.screen(len(queue) + self._recheck_keys().index(last.key))
            if last.key in queue:
                return self.screen(queue.index(last.key))
            return self.screen()
        if isinstance(target, int):
            shown = self.screen(target)
            if shown.item is None:
                return shown
            key, recheck = shown.item.key, shown.recheck
        elif target is None or target not in self.by_key:
            raise ItemGone(f"no item {target!r} in this session")
        else:
            key = target
        queue = self.queue()
        if recheck:
            if key not in self._recheck_keys() or any(not self.mine.get(k, NOBODY).done for k in queue):
                raise ItemGone("this item is not a recheck of yours now")
        elif key not in queue:
            taker = next((name for name, table in sorted(self._states.items())
                          if name != self.annotator and table.get(key, NOBODY).done), "another annotator")
            raise ItemGone(f"{taker} labelled this item first; it is theirs (nothing was saved)")
        if seen is not None and seen != self._versions.get(key, 0):
            raise StaleAct("this item was changed in another tab or window since this page was drawn")
        item = self.by_key[key]
        if seconds is not None and (not math.isfinite(seconds) or seconds < 0):
            seconds = None
        append_act(self.out, LabelAct(
            id=item.id, system=item.system, act=act, annotator=self.annotator,  # type: ignore[arg-type]
            label=label if act == "label" else None, at=now_iso(),
            seconds=None if seconds is None else round(float(seconds), 3), comment=comment or None,
            shown_judge=shown_judge, recheck=recheck, inclusion_probability=item.inclusion_probability,
            fingerprint=item.fingerprint, sequential=self.sequential, review=self.review,
        ))
        self.refresh()
        queue = self.queue()
        return self.screen(after=queue.index(key) if key in queue else None)

    def listing(self, which: str = "all") -> list[dict[str, object]]:
        """This person's queue as a jump list, filtered (``LIST_FILTERS``): each entry's position, id,
        system, a short text and this person's own state; never the judge's verdict (blind)."""
        self.refresh()
        mine = self.mine
        rows: list[dict[str, object]] = []
        for position, key in enumerate(self.queue()):
            state = mine.get(key, NOBODY)
            own = ("unsure" if state.unsure else "skipped" if state.skipped and state.label is None else
                   "labelled" if state.label is not None else "unlabelled")
            if which == "disagree":
                if not self._disagree(key):
                    continue
            elif which != "all" and own != which:
                continue
            item = self.by_key[key]
            text = " ".join(item.fields[0][1].split()) if item.fields else ""
            rows.append({"position": position, "id": item.id, "system": item.system,
                         "text": text[:80] + ("…" if len(text) > 80 else ""), "state": own})
        return rows

    def _live_mine(self) -> list[LabelAct]:
        live: list[LabelAct] = []
        for act in self._acts:
            if act.annotator != self.annotator or act.review != self.review:
                continue
            if act.act == "undo":
                if live:
                    live.pop()
            else:
                live.append(act)
        return live

    def elapsed(self) -> float:
        return time.monotonic() - self.started


__all__ = ["LIST_FILTERS", "ItemGone", "LabelSession", "Screen", "StaleAct"]
