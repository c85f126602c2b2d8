"""The judgment cache: every judgment is written to SQLite the moment it completes.

Why: a batch run over thousands of items can be killed at any time (Ctrl-C, a crashed model
server, a power cut). Each completed judgment is committed on its own, so a re-run of the same
command looks every item up first and only judges what is missing: nothing judged twice,
nothing lost but the judgments that were in flight.

Design notes:

- The key is ``sha256(JudgeIdentity.key() + item JSON)``: the judge's name, model, prompt
  version and parameters, and the exact item. Changing any of these never reuses a judgment.
- WAL journal with ``synchronous=NORMAL``: a commit is one ``write()`` to the WAL file, cheap
  enough to do per judgment (tens of microseconds), and it survives the death of the process
  (SIGKILL included). Only an operating-system crash or power cut can lose the last few commits;
  pass ``durable=True`` (``synchronous=FULL``, one fsync per commit) when that matters more
  than speed.
- Unscored judgments are stored too (their reason and cost are worth keeping), but by default a
  lookup treats them as missing so that a re-run retries them: a run made while the model
  server was down must not freeze "unscored" forever. ``retry_unscored=False`` (CLI
  ``--no-retry-unscored``) returns them as they are.
- A value that is a pydantic model is stored with its class (``module:QualName``) and rebuilt
  as that class on lookup, so a cached ``JudgeScore`` comes back as a ``JudgeScore``; the
  envelope keeps its class too (a ``SampledJudgment`` keeps its votes).
- Agent answers (``kind="agent"``) share the file, so a resumed ``evaluate --agent`` run does
  not ask the agent again either.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from rag_agent.protocol import JudgeIdentity
from rag_agent.results import Judgment

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
"""

_LOOKUP_CHUNK = 500
"""SQLite limits the number of bound parameters; look keys up in chunks of this size."""


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


def _type_name(value: object) -> str | None:
    """``module:QualName`` of a pydantic model's class (of its generic origin when parametrised)."""
    if not isinstance(value, BaseModel):
        return None
    cls: type[BaseModel] = type(value)
    origin = cls.__pydantic_generic_metadata__.get("origin")
    cls = origin or cls
    return f"{cls.__module__}:{cls.__qualname__}"


def _import_model(type_name: str | None) -> type[BaseModel] | None:
    if not type_name:
        return None
    module_name, _, qualname = type_name.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError):
        return None  # the class moved: the plain data is still better than nothing
    return target if isinstance(target, type) and issubclass(target, BaseModel) else None


def _judgment_from_payload(payload: str, value_type: str | None, judgment_type: str | None) -> Judgment[Any]:
    """Rebuild a stored judgment: its value as its own model class, and the envelope as its own
    class (e.g. a ``SampledJudgment`` keeps its votes)."""
    data = json.loads(payload)
    value_cls = _import_model(value_type)
    if value_cls is not None and data.get("value") is not None:
        data["value"] = value_cls.model_validate(data["value"])
    envelope_cls = _import_model(judgment_type)
    if envelope_cls is None or not issubclass(envelope_cls, Judgment):
        envelope_cls = Judgment
    if envelope_cls.__pydantic_generic_metadata__.get("parameters"):
        envelope_cls = envelope_cls[Any]  # type: ignore[index]
    return envelope_cls.model_validate(data)


class JudgmentCache:
    """A SQLite file of judgments (and agent answers), keyed by judge identity and item.

    Every ``put`` commits at once. Calls are short and synchronous; they are safe to make from
    the event loop's callbacks (a commit in WAL mode is one small write) and from several
    threads (one connection, guarded by a lock).
    """

    def __init__(self, path: str | Path, *, retry_unscored: bool = True, durable: bool = False) -> None:
        self.path = Path(path)
        self.retry_unscored = retry_unscored
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30.0)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self._conn.executescript(_SCHEMA)
        self._conn.execute(
            "INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
        )

    # -- judgments -------------------------------------------------------------------------

    key = staticmethod(judgment_key)

    def get(self, key: str) -> Judgment[Any] | None:
        """The cached judgment under ``key``, or None (also None for an unscored one when
        ``retry_unscored`` is on)."""
        return self.get_many([key]).get(key)

    def get_many(self, keys: Sequence[str]) -> dict[str, Judgment[Any]]:
        """Cached judgments of ``keys`` (missing keys are absent from the result)."""
        found: dict[str, Judgment[Any]] = {}
        unique = list(dict.fromkeys(keys))
        with self._lock:
            for start in range(0, len(unique), _LOOKUP_CHUNK):
                chunk = unique[start : start + _LOOKUP_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    f"SELECT key, unscored, value_type, judgment_type, payload FROM entries "
                    f"WHERE kind = 'judgment' AND key IN ({marks})",
                    chunk,
                ).fetchall()
                for key, unscored, value_type, judgment_type, payload in rows:
                    if unscored and self.retry_unscored:
                        continue
                    found[key] = _judgment_from_payload(payload, value_type, judgment_type)
        return found

    def put(self, key: str, judgment: Judgment[Any], *, owner: str = "") -> None:
        """Store ``judgment`` under ``key`` and commit (replacing an older one)."""
        self.put_many([(key, judgment)], owner=owner)

    def put_many(self, entries: Iterable[tuple[str, Judgment[Any]]], *, owner: str = "") -> None:
        """Store several judgments in one transaction."""
        now = time.time()
        rows = [
            (
                key,
                "judgment",
                owner,
                int(j.unscored),
                _type_name(j.value),
                _type_name(j),
                j.model_dump_json(),
                now,
            )
            for key, j in entries
        ]
        if not rows:
            return
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                self._conn.executemany(
                    "INSERT OR REPLACE INTO entries"
                    " (key, kind, owner, unscored, value_type, judgment_type, payload, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    rows,
                )
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    # -- agent answers and other records ---------------------------------------------------

    def get_record(self, key: str, *, kind: str) -> dict[str, Any] | None:
        """A stored JSON record of ``kind`` (e.g. an agent answer), or None."""
        with self._lock:
            row = self._conn.execute(
                "SELECT payload FROM entries WHERE kind = ? AND key = ?", (kind, key)
            ).fetchone()
        return json.loads(row[0]) if row else None

    def put_record(self, key: str, record: dict[str, Any] | BaseModel, *, kind: str, owner: str = "") -> None:
        """Store a JSON record of ``kind`` and commit."""
        payload = record.model_dump_json() if isinstance(record, BaseModel) else json.dumps(record)
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO entries (key, kind, owner, unscored, value_type, payload, created_at)"
                " VALUES (?, ?, ?, 0, NULL, ?, ?)",
                (key, kind, owner, payload, time.time()),
            )

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
        with self._lock:
            return int(self._conn.execute(query, params).fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> JudgmentCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_cache(
    path: str | Path | None, *, enabled: bool = True, retry_unscored: bool = True
) -> JudgmentCache | None:
    """The cache a command uses, or None when caching is switched off (``--no-cache``)."""
    if not enabled or path is None:
        return None
    try:
        return JudgmentCache(path, retry_unscored=retry_unscored)
    except sqlite3.DatabaseError as error:
        from rag_agent.inputs import InputError

        raise InputError(path, f"not a usable ragjury cache ({error})") from None


__all__ = ["JudgmentCache", "item_json", "judgment_key", "open_cache"]
