"""The judgment cache: judgments are written to SQLite as they complete.

Why: a batch run over thousands of items can be killed at any time (Ctrl-C, a crashed model
server, a power cut). Completed judgments are committed as they come (``evals.runner``: each
model judgment on its own, a vectorised model-free judge's chunk in one ``put_many``
transaction), so a re-run of the same command looks every item up first and only judges what is
missing: nothing judged twice, nothing lost but the judgments that were in flight.

Design notes:

- The key is ``sha256(JudgeIdentity.key() + item JSON)``: the judge's name, model, prompt
  version and parameters, and the exact item. Changing any of these never reuses a judgment.
- WAL journal with ``synchronous=NORMAL``: a commit is one ``write()`` to the WAL file, cheap
  enough to do per model judgment (tens of microseconds; for 15,000 rows of a model-free judge,
  per-row commits were most of the run's time: those go in batches), and it survives the death
  of the process (SIGKILL included). Only an operating-system crash or power cut can lose the
  last few commits; pass ``durable=True`` (``synchronous=FULL``, one fsync per commit) when
  that matters more than speed.
- Unscored judgments are stored too (their reason and cost are worth keeping), but by default a
  lookup treats them as missing so that a re-run retries them: a run made while the model
  server was down must not freeze "unscored" forever. ``retry_unscored=False`` (CLI
  ``--no-retry-unscored``) returns them as they are.
- A value that is a pydantic model is stored with its class's tag (``evals.runs.cache_codec``)
  and rebuilt as that class on lookup, so a cached ``JudgeScore`` comes back as a ``JudgeScore``;
  the envelope keeps its class too (a ``SampledJudgment`` keeps its votes). A row naming anything
  but a declared value type, or that no longer validates, is judged again (``unreadable`` counts them).
- Agent answers are judgments of the agent (``AgentRun``), so a resumed ``evaluate --agent`` run
  does not ask the agent again either.
- Leases let several processes share one cache without judging anything twice
  (``evals.runs.cache_leases``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ragjury.evals.runs.cache_codec import UnreadableRow, UntaggedValue, decode, tag_of
from ragjury.evals.runs.cache_leases import LOOKUP_CHUNK, Leases
from ragjury.rag_agent.core.input_files import InputError
from ragjury.rag_agent.core.protocol import JudgeIdentity
from ragjury.rag_agent.core.results import Judgment

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    owner TEXT NOT NULL,
    unscored INTEGER NOT NULL DEFAULT 0,
    value_type TEXT,
    judgment_type TEXT,
    payload TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_owner ON entries (kind, owner);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS leases (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS leases_owner ON leases (owner);
"""


def item_json(item: object) -> str:
    """A stable JSON text of an item: pydantic's ``model_dump_json`` or sorted-key JSON."""
    if isinstance(item, BaseModel):
        return item.model_dump_json()
    return json.dumps(item, sort_keys=True, ensure_ascii=False, default=str)


def judgment_key(identity: JudgeIdentity | str, item: object) -> str:
    """The cache key of ``item`` judged by the judge with ``identity``."""
    ident = identity.key() if isinstance(identity, JudgeIdentity) else identity
    digest = hashlib.sha256()
    digest.update(ident.encode("utf-8"))
    digest.update(b"\x00")
    digest.update(item_json(item).encode("utf-8"))
    return digest.hexdigest()


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")



OPEN_ATTEMPTS = 40
"""Tries to set up a cache another process is setting up at the same moment (about 40 s in all)."""

class CacheUnusable(InputError):
    """The cache file cannot be read or written: damaged, not a cache, or its disk is full."""

    def __init__(self, path: str | Path, error: sqlite3.DatabaseError) -> None:
        super().__init__(path, f"the judgment cache cannot be used ({error}): {_advice(error)}")


def _advice(error: sqlite3.DatabaseError) -> str:
    """What to do, by cause: deleting is advice only for a damaged cache, never for a file that
    is no cache at all (it may be the user's data) or for a full disk (deleting would not help)."""
    text = str(error).lower()
    if "not a database" in text:
        return "it is not a ragjury cache (your data?): pass --cache with a new file's path, or --no-cache"
    if "full" in text:
        return "its disk is full: free some space, or pass --cache with a file on another disk, or --no-cache"
    return "pass --cache with another file, or --no-cache, or delete this damaged cache to start afresh"


class JudgmentCache(Leases):
    """A SQLite file of judgments (an agent's answers among them), keyed by judge identity and item.

    Every ``put`` commits at once, every ``put_many`` in one transaction. Calls are short and
    synchronous; they are safe to make from the event loop's callbacks (a commit in WAL mode is
    one small write) and from several threads (one connection, guarded by a lock).
    """

    def __init__(self, path: str | Path, *, retry_unscored: bool = True, durable: bool = False) -> None:
        self.path = Path(path)
        self.retry_unscored = retry_unscored
        self.unreadable = 0
        """Rows found but not read back (a class that is not a value type, data that does not
        validate): treated as missing, so judged again, and counted here."""
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        with self._locked():
            self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30.0)
            self._conn.text_factory = _text  # a damaged row decodes to garbage and is judged again
            # Two processes opening one new cache at once: switching it to WAL (and creating the
            # tables) can answer "database is locked" at once, without SQLite's busy wait; try again.
            for attempt in range(OPEN_ATTEMPTS):
                try:
                    self._conn.execute("PRAGMA journal_mode=WAL")
                    self._conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
                    self._conn.executescript(_SCHEMA)
                    self._conn.execute(
                        "INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
                    )
                    break
                except sqlite3.OperationalError as error:
                    if "locked" not in str(error) or attempt == OPEN_ATTEMPTS - 1:
                        raise
                    time.sleep(0.05 * (attempt + 1))

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The connection's lock; an SQLite failure (a damaged file, a full disk) becomes one
        ``CacheUnusable`` naming the file and the way out, not a traceback mid-run."""
        with self._lock:
            try:
                yield
            except sqlite3.DatabaseError as error:
                raise CacheUnusable(self.path, error) from None

    # -- judgments -------------------------------------------------------------------------

    key = staticmethod(judgment_key)

    def get(self, key: str) -> Judgment[Any] | None:
        """The cached judgment under ``key``, or None (also None for an unscored one when
        ``retry_unscored`` is on)."""
        return self.get_many([key]).get(key)

    def get_many(self, keys: Sequence[str], *, fresh_since: float | None = None) -> dict[str, Judgment[Any]]:
        """Cached judgments of ``keys`` (missing keys are absent from the result).

        ``fresh_since`` (a ``time.time()``): also return unscored judgments stored since then,
        even when ``retry_unscored`` is on: another process judged them during this run, and
        judging them again now would only double the cost.
        """
        found: dict[str, Judgment[Any]] = {}
        malformed: list[str] = []
        unique = list(dict.fromkeys(keys))
        with self._locked():
            for start in range(0, len(unique), LOOKUP_CHUNK):
                chunk = unique[start : start + LOOKUP_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    f"SELECT key, unscored, value_type, judgment_type, payload, created_at FROM entries "
                    f"WHERE +kind = 'judgment' AND key IN ({marks})",
                    chunk,
                ).fetchall()
                for key, unscored, value_type, judgment_type, payload, created_at in rows:
                    if unscored and self.retry_unscored and (fresh_since is None or created_at < fresh_since):
                        continue
                    try:
                        found[key] = decode(payload, value_type, judgment_type)
                    except UnreadableRow:
                        malformed.append(key)
            if malformed:  # judged again, not fatal: gone, so that no one waits for it as done
                self.unreadable += len(malformed)
                self._conn.executemany("DELETE FROM entries WHERE key = ?", [(key,) for key in malformed])
        return found

    def put(self, key: str, judgment: Judgment[Any], *, owner: str = "") -> None:
        """Store ``judgment`` under ``key`` and commit (replacing an older one)."""
        self.put_many([(key, judgment)], owner=owner)

    def put_many(self, entries: Iterable[tuple[str, Judgment[Any]]], *, owner: str = "") -> None:
        """Store several judgments in one transaction. A judgment whose value (or envelope) is
        a pydantic class with no ``@value_tag`` is not stored: it could not be rebuilt as itself,
        so it is judged again next time."""
        now = time.time()
        rows = []
        for key, j in entries:
            try:
                tags = tag_of(j.value), tag_of(j)
            except UntaggedValue:
                continue
            rows.append((key, "judgment", owner, int(j.unscored), *tags, j.model_dump_json(), now))
        if not rows:
            return
        with self._locked():
            self._conn.execute("BEGIN")
            try:
                self._conn.executemany(
                    "INSERT OR REPLACE INTO entries"
                    " (key, kind, owner, unscored, value_type, judgment_type, payload, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    rows,
                )
                # The judgment is there now: nobody needs to hold its key any more.
                self._conn.executemany("DELETE FROM leases WHERE key = ?", [(row[0],) for row in rows])
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    # -- housekeeping ----------------------------------------------------------------------

    def count(self, *, kind: str = "judgment", owner: str | None = None, unscored: bool | None = None) -> int:
        """How many entries match (used by summaries and tests)."""
        query = "SELECT COUNT(*) FROM entries WHERE kind = ?"
        params: list[object] = [kind]
        if owner is not None:
            query += " AND owner = ?"
            params.append(owner)
        if unscored is not None:
            query += " AND unscored = ?"
            params.append(int(unscored))
        with self._locked():
            return int(self._conn.execute(query, params).fetchone()[0])

    def close(self) -> None:
        with self._locked():
            self._conn.close()

    def __enter__(self) -> JudgmentCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CacheMemo:
    """The run's cache as a ``call_memo.CallMemo``: a nested judge's model call is looked up under
    its own identity and item (the key a plain run of that judge writes) and kept there."""

    def __init__(self, cache: JudgmentCache) -> None:
        self.cache = cache

    def recall(self, identity: Any, item: object) -> Judgment[Any] | None:
        try:
            return self.cache.get(judgment_key(identity, item))
        except (sqlite3.Error, OSError, ValueError):  # a courtesy: the judge then calls its model
            return None

    def keep(self, identity: Any, item: object, judgment: Judgment[Any]) -> None:
        try:
            self.cache.put(judgment_key(identity, item), judgment, owner=identity.key())
        except (sqlite3.Error, OSError, ValueError):  # the run's own writes report a broken cache
            pass


def open_cache(
    path: str | Path | None, *, enabled: bool = True, retry_unscored: bool = True
) -> JudgmentCache | None:
    """The cache a command uses, or None when caching is switched off (``--no-cache``)."""
    if not enabled or path is None:
        return None
    return JudgmentCache(path, retry_unscored=retry_unscored)


__all__ = ["CacheMemo", "CacheUnusable", "JudgmentCache", "item_json", "judgment_key", "open_cache"]
