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
- A value that is a pydantic model is stored with its class (``module:QualName``) and rebuilt
  as that class on lookup, so a cached ``JudgeScore`` comes back as a ``JudgeScore``; the
  envelope keeps its class too (a ``SampledJudgment`` keeps its votes).
- Agent answers (``kind="agent"``) share the file, so a resumed ``evaluate --agent`` run does
  not ask the agent again either.
- Leases let several processes share one cache without judging anything twice. Before judging,
  a run ``claim``s items: a row (key, owner, expiry) in ``leases``, taken in one ``BEGIN
  IMMEDIATE`` transaction, so two processes never both get one key. A second run on the same
  cache judges only items nobody holds and reads the others' results as they are committed
  (``get_many(fresh_since=...)``). Storing a judgment deletes its lease; a run ``renew``s its
  leases while it works and ``release``s them when it stops; a run killed with SIGKILL leaves
  leases that expire (after ``ttl_s``) and are then claimed by whoever is still running.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import json
import os
import socket
import sqlite3
import sys
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

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

LEASE_TTL_S = 60.0
"""How long a claim holds without renewal; a run renews its claims every third of it."""


def new_lease_owner() -> str:
    """A lease owner id unique to one run: host, process and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def holder_alive(owner: str) -> bool:
    """False when ``owner`` (see ``new_lease_owner``) is a process of this host that has ended,
    so its leases need not be waited out (a run killed with SIGKILL); True when unsure."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return True
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists (e.g. another user's): alive
    return True

_LOOKUP_CHUNK = 500
"""SQLite limits the number of bound parameters; look keys up in chunks of this size.

The lookups say ``+kind = 'judgment'``: the unary ``+`` keeps SQLite from answering them through
the ``(kind, owner)`` index, which it prefers once the ``IN`` list is long and which then reads
every judgment in the file once per chunk (15,000 cached rows took 0.27 s instead of 0.05 s)."""


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
    return _class_name(type(value))


@functools.lru_cache(maxsize=256)
def _class_name(cls: type[BaseModel]) -> str:
    """``_type_name`` of a class, computed once per class (every row of a batch asks)."""
    origin = cls.__pydantic_generic_metadata__.get("origin")
    cls = origin or cls
    return f"{cls.__module__}:{cls.__qualname__}"


_PRE_NAMESPACE_PACKAGES = frozenset({"rag_agent", "evals", "config"})

_MOVED_MODULES: dict[str, str] = {
    "ragjury.rag_agent.models": "ragjury.rag_agent.core.schemas",
    "ragjury.rag_agent.inputs": "ragjury.rag_agent.core.input_files",
    "ragjury.rag_agent._sync": "ragjury.rag_agent.core.sync",
    "ragjury.rag_agent.adapted": "ragjury.rag_agent.judges.combined.adapted",
    "ragjury.rag_agent.agent": "ragjury.rag_agent.agent.reference_agent",
    "ragjury.rag_agent.breaker": "ragjury.rag_agent.model.breaker",
    "ragjury.rag_agent.catalogue": "ragjury.rag_agent.judges.catalogue",
    "ragjury.rag_agent.deterministic": "ragjury.rag_agent.judges.model_free",
    "ragjury.rag_agent.deterministic._envelopes": "ragjury.rag_agent.judges.model_free.batch_envelopes",
    "ragjury.rag_agent.deterministic.contains": "ragjury.rag_agent.judges.model_free.contains",
    "ragjury.rag_agent.deterministic.embedders": "ragjury.rag_agent.judges.model_free.embedders",
    "ragjury.rag_agent.deterministic.non_llm": "ragjury.rag_agent.judges.model_free.non_llm",
    "ragjury.rag_agent.deterministic.score": "ragjury.rag_agent.judges.model_free.score",
    "ragjury.rag_agent.deterministic.semantic": "ragjury.rag_agent.judges.model_free.semantic",
    "ragjury.rag_agent.deterministic.support": "ragjury.rag_agent.judges.model_free.support",
    "ragjury.rag_agent.deterministic.token_overlap": "ragjury.rag_agent.judges.model_free.token_overlap",
    "ragjury.rag_agent.dry_model": "ragjury.rag_agent.model.dry_model",
    "ragjury.rag_agent.evaluators": "ragjury.rag_agent.judges.user_defined",
    "ragjury.rag_agent.fallback": "ragjury.rag_agent.judges.combined.fallback",
    "ragjury.rag_agent.health": "ragjury.rag_agent.judges.health",
    "ragjury.rag_agent.input_files": "ragjury.rag_agent.core.input_files",
    "ragjury.rag_agent.items": "ragjury.rag_agent.core.items",
    "ragjury.rag_agent.json_contract": "ragjury.evals.io.json_contract",
    "ragjury.rag_agent.judge": "ragjury.rag_agent.judges.llm.multi_dimension",
    "ragjury.rag_agent.labels": "ragjury.rag_agent.core.labels",
    "ragjury.rag_agent.llm": "ragjury.rag_agent.model.client",
    "ragjury.rag_agent.llm_judge": "ragjury.rag_agent.judges.llm.model_judge",
    "ragjury.rag_agent.logprobs": "ragjury.rag_agent.model.logprobs",
    "ragjury.rag_agent.panel": "ragjury.rag_agent.judges.combined.panel",
    "ragjury.rag_agent.prompting": "ragjury.rag_agent.core.prompting",
    "ragjury.rag_agent.protocol": "ragjury.rag_agent.core.protocol",
    "ragjury.rag_agent.results": "ragjury.rag_agent.core.results",
    "ragjury.rag_agent.retrieval": "ragjury.rag_agent.agent.retrieval",
    "ragjury.rag_agent.schemas": "ragjury.rag_agent.core.schemas",
    "ragjury.rag_agent.text": "ragjury.rag_agent.core.text",
    "ragjury.rag_agent.tracing": "ragjury.rag_agent.core.tracing",
    "ragjury.rag_agent.transport": "ragjury.rag_agent.model.transport",
    "ragjury.rag_agent.verdicts": "ragjury.rag_agent.judges.llm",
    "ragjury.rag_agent.verdicts.attribution": "ragjury.rag_agent.judges.llm.attribution",
    "ragjury.rag_agent.verdicts.base": "ragjury.rag_agent.judges.llm.verdict_base",
    "ragjury.rag_agent.verdicts.correctness": "ragjury.rag_agent.judges.llm.correctness",
    "ragjury.rag_agent.verdicts.faithfulness": "ragjury.rag_agent.judges.llm.faithfulness",
    "ragjury.rag_agent.verdicts.goal": "ragjury.rag_agent.judges.llm.goal",
    "ragjury.rag_agent.verdicts.relevance": "ragjury.rag_agent.judges.llm.relevance",
    "ragjury.rag_agent.verdicts.trace_format": "ragjury.rag_agent.judges.llm.trace_format",
}
"""Modules renamed since rows were written: a cached value still finds its class."""
_RENAMED_CLASSES: dict[str, str] = {
    "ragjury.rag_agent.judges.user_defined:EvaluationResult": "ragjury.rag_agent.judges.user_defined:EvaluatorOutcome",
}
"""Classes renamed since rows were written (``module:QualName``, after the module renames)."""


_VALUE_TYPE_PACKAGES: tuple[str, ...] = ("ragjury.rag_agent.core.", "ragjury.rag_agent.judges.", "ragjury.rag_agent.agent.")
"""Where ragjury's own value and envelope classes live: the only modules a cached row may import."""


@functools.lru_cache(maxsize=256)
def _import_model(type_name: str | None) -> type[BaseModel] | None:
    """The pydantic class a row names as ``module:QualName``, or None.

    A cache file is data, not code: a row may name one of ragjury's own classes (imported from
    ragjury's value-type packages only) or a class whose module is already loaded (a plug-in
    judge that is running); any other module name is never imported.
    """
    if not type_name:
        return None
    module_name, _, qualname = type_name.partition(":")
    if module_name.partition(".")[0] in _PRE_NAMESPACE_PACKAGES:
        # Written before ragjury had one namespace (``rag_agent.verdicts.base``): the same class now
        # lives under ``ragjury.``; importing the old name could load a stranger's ``config``.
        module_name = f"ragjury.{module_name}"
    module_name = _MOVED_MODULES.get(module_name, module_name)
    module_name, _, qualname = _RENAMED_CLASSES.get(f"{module_name}:{qualname}", f"{module_name}:{qualname}").partition(":")
    target: Any = sys.modules.get(module_name)
    try:
        if target is None:
            if not module_name.startswith(_VALUE_TYPE_PACKAGES):
                return None
            target = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError):
        return None  # the class moved: the plain data is still better than nothing
    return target if isinstance(target, type) and issubclass(target, BaseModel) else None


@functools.lru_cache(maxsize=256)
def _envelope_class(judgment_type: str | None) -> type[Judgment[Any]]:
    """The envelope class a row names (``Judgment`` when it names none, or one that is gone),
    parametrised with ``Any`` when generic."""
    envelope_cls = _import_model(judgment_type)
    if envelope_cls is None or not issubclass(envelope_cls, Judgment):
        envelope_cls = Judgment
    if envelope_cls.__pydantic_generic_metadata__.get("parameters"):
        envelope_cls = envelope_cls[Any]  # type: ignore[index]
    return envelope_cls  # type: ignore[return-value]


def _judgment_from_payload(payload: str, value_type: str | None, judgment_type: str | None) -> Judgment[Any]:
    """Rebuild a stored judgment: its value as its own model class, and the envelope as its own
    class (e.g. a ``SampledJudgment`` keeps its votes). A plain value (bool, number, dict) is
    validated straight from the JSON text (pydantic-core parses it: several times faster)."""
    envelope_cls = _envelope_class(judgment_type)
    value_cls = _import_model(value_type)
    if value_cls is None:
        return envelope_cls.model_validate_json(payload)
    data = json.loads(payload)
    if data.get("value") is not None:
        data["value"] = value_cls.model_validate(data["value"])
    return envelope_cls.model_validate(data)


def dump_judgment(judgment: Judgment[Any]) -> str:
    """A judgment as one JSON text that ``load_judgment`` rebuilds with its own classes (as the
    cache stores it): how judgments travel from a Ray worker to the driver."""
    return json.dumps([_type_name(judgment.value), _type_name(judgment), judgment.model_dump_json()])


def load_judgment(text: str) -> Judgment[Any]:
    """The judgment ``dump_judgment`` wrote."""
    value_type, judgment_type, payload = json.loads(text)
    return _judgment_from_payload(payload, value_type, judgment_type)


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


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


class JudgmentCache:
    """A SQLite file of judgments (and agent answers), keyed by judge identity and item.

    Every ``put`` commits at once, every ``put_many`` in one transaction. Calls are short and
    synchronous; they are safe to make from the event loop's callbacks (a commit in WAL mode is
    one small write) and from several threads (one connection, guarded by a lock).
    """

    def __init__(self, path: str | Path, *, retry_unscored: bool = True, durable: bool = False) -> None:
        self.path = Path(path)
        self.retry_unscored = retry_unscored
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        with self._locked():
            self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30.0)
            self._conn.text_factory = _text  # a damaged row decodes to garbage and is judged again
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            self._conn.executescript(_SCHEMA)
            self._conn.execute(
                "INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )

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
            for start in range(0, len(unique), _LOOKUP_CHUNK):
                chunk = unique[start : start + _LOOKUP_CHUNK]
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
                        found[key] = _judgment_from_payload(payload, value_type, judgment_type)
                    except (ValueError, TypeError):
                        malformed.append(key)
            if malformed:  # judged again, not fatal: gone, so that no one waits for it as done
                self._conn.executemany("DELETE FROM entries WHERE key = ?", [(key,) for key in malformed])
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

    # -- leases: several processes on one cache ----------------------------------------------

    def claim(
        self,
        keys: Sequence[str],
        *,
        owner: str,
        ttl_s: float = LEASE_TTL_S,
        limit: int | None = None,
        fresh_since: float | None = None,
    ) -> tuple[list[str], list[str]]:
        """Claim ``keys`` for ``owner``, in order, until ``limit`` are claimed.

        Returns ``(claimed, skipped)``: ``skipped`` are keys held by another owner (an unexpired
        lease) or already judged (a stored judgment that ``get_many(fresh_since=...)`` returns).
        Together they are a prefix of ``keys``; the keys after it were not looked at. A key whose
        lease expired, or whose holder is a process of this host that has ended, is claimed like
        a free one. One ``BEGIN IMMEDIATE`` transaction: of two processes claiming the same key,
        exactly one gets it.
        """
        claimed: list[str] = []
        skipped: list[str] = []
        unique = list(dict.fromkeys(keys))
        if not unique:
            return claimed, skipped
        with self._locked():
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                now = time.time()
                for start in range(0, len(unique), _LOOKUP_CHUNK):
                    chunk = unique[start : start + _LOOKUP_CHUNK]
                    marks = ",".join("?" * len(chunk))
                    holders = self._conn.execute(
                        f"SELECT key, owner FROM leases WHERE key IN ({marks}) AND owner != ? AND expires_at > ?",
                        [*chunk, owner, now],
                    ).fetchall()
                    alive: dict[str, bool] = {}
                    held = {
                        key
                        for key, holder in holders
                        if alive.setdefault(holder, holder_alive(holder))
                    }
                    done = {
                        key
                        for key, unscored, created_at in self._conn.execute(
                            f"SELECT key, unscored, created_at FROM entries "
                            f"WHERE +kind = 'judgment' AND key IN ({marks})",
                            chunk,
                        )
                        if not unscored
                        or not self.retry_unscored
                        or (fresh_since is not None and created_at >= fresh_since)
                    }
                    take: list[str] = []
                    for key in chunk:
                        if limit is not None and len(claimed) + len(take) >= limit:
                            break
                        if key in held or key in done:
                            skipped.append(key)
                        else:
                            take.append(key)
                    self._conn.executemany(
                        "INSERT OR REPLACE INTO leases (key, owner, expires_at) VALUES (?, ?, ?)",
                        [(key, owner, now + ttl_s) for key in take],
                    )
                    claimed.extend(take)
                    if limit is not None and len(claimed) >= limit:
                        break
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
        return claimed, skipped

    def renew(self, owner: str, *, ttl_s: float = LEASE_TTL_S) -> int:
        """Extend every lease ``owner`` holds by ``ttl_s`` from now; returns how many."""
        with self._locked():
            cursor = self._conn.execute(
                "UPDATE leases SET expires_at = ? WHERE owner = ?", (time.time() + ttl_s, owner)
            )
            return cursor.rowcount

    def release(self, owner: str, keys: Sequence[str] | None = None) -> None:
        """Give up ``owner``'s leases (all of them, or those of ``keys``)."""
        with self._locked():
            if keys is None:
                self._conn.execute("DELETE FROM leases WHERE owner = ?", (owner,))
                return
            self._conn.execute("BEGIN")  # one commit for all the keys, not one per key
            try:
                self._conn.executemany(
                    "DELETE FROM leases WHERE key = ? AND owner = ?", [(key, owner) for key in keys]
                )
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def leases(self, *, owner: str | None = None) -> dict[str, tuple[str, float]]:
        """Current leases: ``{key: (owner, expires_at)}`` (diagnostics and tests)."""
        query, params = "SELECT key, owner, expires_at FROM leases", []
        if owner is not None:
            query, params = query + " WHERE owner = ?", [owner]
        with self._locked():
            return {key: (who, expires) for key, who, expires in self._conn.execute(query, params)}

    # -- agent answers and other records ---------------------------------------------------

    def get_record(self, key: str, *, kind: str) -> dict[str, Any] | None:
        """A stored JSON record of ``kind`` (e.g. an agent answer), or None."""
        with self._locked():
            row = self._conn.execute(
                "SELECT payload FROM entries WHERE kind = ? AND key = ?", (kind, key)
            ).fetchone()
        return json.loads(row[0]) if row else None

    def put_record(self, key: str, record: dict[str, Any] | BaseModel, *, kind: str, owner: str = "") -> None:
        """Store a JSON record of ``kind`` and commit."""
        payload = record.model_dump_json() if isinstance(record, BaseModel) else json.dumps(record)
        with self._locked():
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
        with self._locked():
            return int(self._conn.execute(query, params).fetchone()[0])

    def close(self) -> None:
        with self._locked():
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
    return JudgmentCache(path, retry_unscored=retry_unscored)


__all__ = [
    "LEASE_TTL_S",
    "CacheUnusable",
    "JudgmentCache",
    "holder_alive",
    "dump_judgment",
    "item_json",
    "load_judgment",
    "judgment_key",
    "new_lease_owner",
    "open_cache",
]
