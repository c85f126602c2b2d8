"""The column names of Ragas and DeepEval datasets, recognised so their files load without ``--map``.

Users of Ragas or DeepEval already have datasets in those tools' shapes. A format is recognised
by a column only it uses; its mapping then applies to the whole file and is said out loud
(``InputMapping.describe``), and an explicit ``--map field=column`` always wins over it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PeerFormat:
    """One tool's column names: per ragjury field, the tool's columns (first present wins), and
    the columns that identify a file as this tool's."""

    name: str
    label: str
    columns: dict[str, tuple[str, ...]]
    signatures: tuple[frozenset[str], ...]
    """The format is recognised when every column of any one of these sets is present."""

    def matches(self, keys: Collection[str]) -> int:
        """How many of this format's columns ``keys`` has, 0 when no signature is complete."""
        if not any(signature <= set(keys) for signature in self.signatures):
            return 0
        return len({column for columns in self.columns.values() for column in columns} & set(keys))

    def mapping(self, fields: Collection[str], keys: Collection[str]) -> dict[str, str]:
        """``{ragjury field: column}`` for the ``fields`` a task reads whose column is in ``keys``."""
        found: dict[str, str] = {}
        for name in fields:
            column = next((c for c in self.columns.get(name, ()) if c in keys), None)
            if column is not None:
                found[name] = column
        return found


RAGAS = PeerFormat(
    name="ragas",
    label="Ragas",
    columns={
        "question": ("user_input",),
        "answer": ("response",),
        "contexts": ("retrieved_contexts",),
        "sources": ("retrieved_contexts",),
        "references": ("reference",),
    },
    signatures=(frozenset({"user_input"}), frozenset({"retrieved_contexts"})),
)

DEEPEVAL = PeerFormat(
    name="deepeval",
    label="DeepEval",
    columns={
        "question": ("input",),
        "answer": ("actual_output",),
        "contexts": ("retrieval_context", "context"),
        "sources": ("retrieval_context", "context"),
        "references": ("expected_output",),
    },
    signatures=(
        frozenset({"actual_output"}),
        frozenset({"retrieval_context"}),
        frozenset({"input", "expected_output"}),
    ),
)

PEER_FORMATS: tuple[PeerFormat, ...] = (RAGAS, DEEPEVAL)


def detect(keys: Collection[str]) -> PeerFormat | None:
    """The peer format whose columns ``keys`` (a row's column names) use, None for neither; when
    both match (a file mixing them), the one with more of its columns present."""
    scored = [(peer.matches(keys), index, peer) for index, peer in enumerate(PEER_FORMATS)]
    best = max(scored, key=lambda entry: (entry[0], -entry[1]))
    return best[2] if best[0] > 0 else None


@dataclass(frozen=True)
class InputMapping:
    """Which columns a dataset's fields were read from, and why: a detected peer format, the
    user's ``--map``, or ragjury's own names. Printed on stderr and put in ``--json``."""

    reader: str
    format: str = "ragjury"
    columns: dict[str, str] = field(default_factory=dict)
    """``{field: column}`` as read from the first row (every field the row had)."""
    detected: dict[str, str] = field(default_factory=dict)
    """The columns the detected peer format supplied (after ``--map`` overrides)."""
    explicit: dict[str, str] = field(default_factory=dict)
    """``--map`` entries."""

    @property
    def peer(self) -> PeerFormat | None:
        return next((peer for peer in PEER_FORMATS if peer.name == self.format), None)

    def describe(self) -> str | None:
        """One line naming the detected format and its columns; None when nothing was detected."""
        peer = self.peer
        if peer is None or not self.detected:
            return None
        pairs = ", ".join(f"{name}={column}" for name, column in self.detected.items())
        given = ", ".join(f"{name}={column}" for name, column in self.explicit.items())
        also = f"; from --map: {given}" if given else " (--map FIELD=COLUMN overrides)"
        return f"input mapping: {peer.label} columns {pairs}{also}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "reader": self.reader,
            "format": self.format,
            "columns": dict(self.columns),
            "detected": dict(self.detected),
            "map": dict(self.explicit),
        }


def resolve(
    fields: Collection[str], keys: Collection[str], explicit: Mapping[str, str]
) -> tuple[PeerFormat | None, dict[str, str]]:
    """The detected peer format (if any) and the columns it supplies for ``fields``, leaving out
    the fields the user mapped explicitly."""
    peer = detect(keys)
    if peer is None:
        return None, {}
    found = peer.mapping(fields, keys)
    return peer, {name: column for name, column in found.items() if name not in explicit}


__all__ = ["DEEPEVAL", "PEER_FORMATS", "RAGAS", "InputMapping", "PeerFormat", "detect", "resolve"]
