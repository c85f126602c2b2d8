"""Leases: several processes share one judgment cache without judging anything twice.

Why: two runs on one cache (a CI job and a person, or ``evaluate`` started twice) must not pay
for the same judgment twice. Before judging, a run ``claim``s items: a row (key, owner, expiry)
in ``leases``, taken in one ``BEGIN IMMEDIATE`` transaction, so two processes never both get one
key. The others read its judgment when it is stored (``get_many(fresh_since=...)``); storing a
judgment deletes its lease; a run ``renew``s its leases while it works and ``release``s them when
it stops; a run killed with SIGKILL leaves leases that expire (after ``ttl_s``), or that are taken
at once when their holder is a process of this host that has ended.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import time
import uuid
from collections.abc import Sequence
from typing import Protocol

LEASE_TTL_S = 60.0
"""How long a claim holds without renewal; a run renews its claims every third of it."""

LOOKUP_CHUNK = 500
"""SQLite limits the number of bound parameters; look keys up in chunks of this size.

The lookups say ``+kind = 'judgment'``: the unary ``+`` keeps SQLite from answering them through
the ``(kind, owner)`` index, which it prefers once the ``IN`` list is long and which then reads
every judgment in the file once per chunk (15,000 cached rows took 0.27 s instead of 0.05 s)."""


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


class _Store(Protocol):
    _conn: sqlite3.Connection
    retry_unscored: bool

    def _locked(self) -> contextlib.AbstractContextManager[None]: ...


class Leases:
    """The lease half of ``JudgmentCache`` (it shares the store's connection and lock)."""

    def claim(
        self: _Store,
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
                for start in range(0, len(unique), LOOKUP_CHUNK):
                    chunk = unique[start : start + LOOKUP_CHUNK]
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

    def renew(self: _Store, owner: str, *, ttl_s: float = LEASE_TTL_S) -> int:
        """Extend every lease ``owner`` holds by ``ttl_s`` from now; returns how many."""
        with self._locked():
            cursor = self._conn.execute(
                "UPDATE leases SET expires_at = ? WHERE owner = ?", (time.time() + ttl_s, owner)
            )
            return cursor.rowcount

    def release(self: _Store, owner: str, keys: Sequence[str] | None = None) -> None:
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

    def leases(self: _Store, *, owner: str | None = None) -> dict[str, tuple[str, float]]:
        """Current leases: ``{key: (owner, expires_at)}`` (diagnostics and tests)."""
        query, params = "SELECT key, owner, expires_at FROM leases", []
        if owner is not None:
            query, params = query + " WHERE owner = ?", [owner]
        with self._locked():
            return {key: (who, expires) for key, who, expires in self._conn.execute(query, params)}


__all__ = ["LEASE_TTL_S", "LOOKUP_CHUNK", "Leases", "holder_alive", "new_lease_owner"]
