"""How many judgments of a run are unscored, and why: the figure ``--max-unscored`` gates.

Why: every gate is computed on the scored judgments only. With 70 % unscored, a kappa on the
other 30 % describes the items the judge could handle, not the data; an unscored item is never
counted as a 0.0 either. So the share unscored is gated like the fallback share, and the
summary says it in one line that stands out, with its commonest reasons.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ragjury.evals.results.formatting import percent

TOP_REASONS = 3
"""Reasons shown in the summary line and the gate failure."""


def reason_kind(reason: str | None) -> str:
    """The part of an unscored reason that names its kind, without the item's details: up to its
    first ``": "`` (``model server answered HTTP 500: boom`` -> ``model server answered HTTP 500``)."""
    text = " ".join((reason or "no reason given").split())
    kind = text.split(": ", 1)[0]
    return kind if len(kind) <= 100 else kind[:97] + "..."


@dataclass(frozen=True)
class UnscoredShare:
    """``count`` unscored judgments of ``total``, with the commonest kinds of reason."""

    count: int
    total: int
    reasons: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, judgments: Iterable[Any]) -> UnscoredShare:
        """Counted over ``judgments`` (objects with ``unscored`` and ``unscored_reason``)."""
        listed = list(judgments)
        kinds = Counter(reason_kind(j.unscored_reason) for j in listed if j.unscored)
        return cls(sum(kinds.values()), len(listed), tuple(kinds.most_common(TOP_REASONS)))

    @property
    def share(self) -> float:
        return self.count / self.total if self.total else 0.0

    def reasons_text(self) -> str:
        """``HTTP 500 ×60; invalid output ×10`` (the commonest kinds, most frequent first)."""
        return "; ".join(f"{kind} ×{n:,}" for kind, n in self.reasons)

    def describe(self) -> str:
        """``70 of 100 judgments unscored (70 %): model server answered HTTP 500 ×70``."""
        why = f": {self.reasons_text()}" if self.reasons else ""
        return f"{self.count:,} of {self.total:,} judgments unscored ({percent(self.share)}){why}"


def max_unscored_limit(max_unscored: float | None, *, gated: bool) -> float | None:
    """The unscored share a run may have: ``--max-unscored`` when given, else 0 for a gated run
    (any ``--fail-under``) and no limit otherwise.

    Why 0 by default, as ``--max-fallback``: a gate is a claim about the data, and any unscored
    item is a hole in it that the gate cannot see; an item the judge could not score is often a
    hard one, so even a few bias the figures. A run that accepts some passes the share it
    accepts (``--max-unscored 0.02``), said in its command line where a reviewer sees it.
    """
    if max_unscored is not None:
        return max_unscored
    return 0.0 if gated else None


def unscored_failure(
    unscored: UnscoredShare, limit: float | None, *, explicit: bool, stage: str | None = None
) -> str | None:
    """The gate-failure message when more than ``limit`` of the judgments are unscored, else None."""
    if limit is None or unscored.count == 0 or unscored.count <= limit * unscored.total + 1e-9:
        return None
    setting = f"--max-unscored {limit:g}" + ("" if explicit else ", the default with --fail-under")
    prefix = f"{stage}: " if stage else ""
    return (
        f"{prefix}{unscored.describe()} ({setting}); the gates measure only the "
        f"{unscored.total - unscored.count:,} scored. Pass --max-unscored 1 to accept that."
    )


__all__ = ["TOP_REASONS", "UnscoredShare", "max_unscored_limit", "reason_kind", "unscored_failure"]
