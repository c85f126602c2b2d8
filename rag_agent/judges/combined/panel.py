"""Panel: several judges of one task decide together, by majority vote or mean probability.

Small, different judges err partly independently, so together they can agree with people better
than any one, and recording each member's vote shows where they disagree. Unscored members do not
vote; fewer than half scored, or a majority tie, leaves the panel unscored, never a coin flip.
The identity joins every member's, so a cached panel judgment dies with any member's change.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ragjury.rag_agent.core.call_memo import inside
from ragjury.rag_agent.core.labels import binary_label
from ragjury.rag_agent.core.needs import Needs, needs_of_all
from ragjury.rag_agent.core.protocol import BaseJudge, ItemT, Judge, JudgeIdentity, ResultCallback
from ragjury.rag_agent.core.results import Judgment, Usage
from ragjury.rag_agent.core.value_tags import value_tag

__all__ = [
    "COMBINE_METHODS",
    "Binarize",
    "Combine",
    "MemberVote",
    "Panel",
    "PanelVerdict",
    "probability_of",
]

Combine = Literal["majority", "mean"]
COMBINE_METHODS: tuple[str, ...] = ("majority", "mean")

Binarize = Callable[[Any], bool | None]
"""A member's value -> its binary label (``rag_agent.core.labels.binarizer`` of its scale)."""

PROBABILITY_FIELDS: tuple[str, ...] = ("probability", "p_true", "p_relevant")
"""Where a member's value may carry P(label = True), in order of preference."""

def probability_of(value: object) -> float | None:
    """P(label = True) where the value carries one (``probability``, ``p_true``, ``p_relevant``)."""
    for name in PROBABILITY_FIELDS:
        found = getattr(value, name, None)
        if isinstance(found, int | float) and not isinstance(found, bool) and 0.0 <= found <= 1.0:
            return float(found)
    return None


class MemberVote(BaseModel):
    """One member's part in a panel judgment."""

    model_config = ConfigDict(frozen=True)

    name: str
    label: bool | None = Field(description="its binary label; None when it did not vote")
    probability: float | None = Field(default=None, ge=0.0, le=1.0, description="P(True) where it gave one")
    unscored_reason: str | None = Field(default=None, description="why it did not vote")
    fallback_used: bool = False


@value_tag("panel_verdict")
class PanelVerdict(BaseModel):
    """The panel's label, the mean it came from, and every member's vote."""

    model_config = ConfigDict(frozen=True)

    label: bool
    mean: float = Field(
        ge=0.0, le=1.0, description="majority: share of voters saying True; mean: mean probability of voters"
    )
    combine: Combine
    threshold: float = Field(ge=0.0, le=1.0, description="mean: label = mean >= threshold")
    votes: tuple[MemberVote, ...]

    @property
    def voters(self) -> int:
        return sum(vote.label is not None for vote in self.votes)


class Panel(BaseJudge[ItemT, PanelVerdict]):
    """Judges of one task, combined by majority or mean probability. Example::

        panel = Panel([ContainsJudge(), token_overlap_for_correctness, llm_correctness])
        judgment = panel.judge_sync(item)  # .value.label, .value.votes[i].label ...

    ``names`` label the members in votes and identity (default: each member's identity name,
    numbered when repeated); ``binarize`` gives one label function per member (default
    ``binary_label``; the registry passes one per member's scale).
    """

    def __init__(
        self,
        members: Sequence[Judge[ItemT, Any]],
        *,
        combine: Combine = "majority",
        threshold: float = 0.5,
        names: Sequence[str] | None = None,
        binarize: Sequence[Binarize] | None = None,
        name: str | None = None,
    ) -> None:
        if len(members) < 2:
            raise ValueError(f"a panel needs at least 2 members, got {len(members)}")
        if combine not in COMBINE_METHODS:
            raise ValueError(f"combine must be one of {', '.join(COMBINE_METHODS)}, got {combine!r}")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be within [0, 1], got {threshold}")
        if names is not None and len(names) != len(members):
            raise ValueError(f"{len(names)} names for {len(members)} members")
        if binarize is not None and len(binarize) != len(members):
            raise ValueError(f"{len(binarize)} binarize functions for {len(members)} members")
        self.members = list(members)
        self.combine: Combine = combine
        self.threshold = float(threshold)
        self.member_names = list(names) if names is not None else _unique([m.identity.name for m in members])
        if len(set(self.member_names)) != len(self.member_names):
            raise ValueError(f"member names must differ: {self.member_names}")
        self.binarize: list[Binarize] = (
            list(binarize) if binarize is not None else [binary_label] * len(members)
        )
        prefix = "panel" if combine == "majority" else "panel-mean"
        self.name = name or f"{prefix}({','.join(self.member_names)})"
        self.concurrency = max(getattr(m, "concurrency", 4) for m in members)

    @property
    def identity(self) -> JudgeIdentity:
        identities = [member.identity for member in self.members]
        models = sorted({i.model for i in identities if i.model})
        keys = ";".join(f"{name}={i.key()}" for name, i in zip(self.member_names, identities))
        return JudgeIdentity(
            name=self.name,
            model=",".join(models) or None,
            prompt_version="panel@1.0",
            params=f"combine={self.combine},threshold={self.threshold:g},members=[{keys}]",
        )

    def needs(self) -> Needs:
        return needs_of_all(self.members)

    # -- combining ---------------------------------------------------------------------------

    def _vote(self, index: int, judgment: Judgment[Any]) -> MemberVote:
        name = self.member_names[index]
        if not judgment.scored:
            return MemberVote(name=name, label=None, unscored_reason=judgment.unscored_reason or "unscored")
        try:
            label = bool(self.binarize[index](judgment.value))
        except (TypeError, ValueError) as error:
            return MemberVote(name=name, label=None, unscored_reason=f"no binary label: {error}")
        return MemberVote(
            name=name,
            label=label,
            probability=probability_of(judgment.value),
            fallback_used=judgment.fallback_used,
        )

    def combine_judgments(self, judgments: Sequence[Judgment[Any]]) -> Judgment[PanelVerdict]:
        """One panel judgment from the members' judgments of one item (in member order)."""
        usage = sum((j.usage for j in judgments), Usage())
        latency = sum(j.latency_s for j in judgments)
        votes = tuple(self._vote(i, j) for i, j in enumerate(judgments))
        voters = [vote for vote in votes if vote.label is not None]
        reason: str | None = None
        value: PanelVerdict | None = None
        if 2 * len(voters) < len(votes):
            reason = f"only {len(voters)} of {len(votes)} members scored (fewer than half): {_tally(votes)}"
        elif self.combine == "majority":
            yes = sum(bool(vote.label) for vote in voters)
            if 2 * yes == len(voters):
                reason = f"no majority, {yes} for and {len(voters) - yes} against: {_tally(votes)}"
            else:
                value = PanelVerdict(
                    label=2 * yes > len(voters),
                    mean=yes / len(voters),
                    combine="majority",
                    threshold=self.threshold,
                    votes=votes,
                )
        else:
            points = [
                vote.probability if vote.probability is not None else float(bool(vote.label))
                for vote in voters
            ]
            mean = sum(points) / len(points)
            value = PanelVerdict(
                label=mean >= self.threshold, mean=mean, combine="mean", threshold=self.threshold, votes=votes
            )
        judgment: Judgment[PanelVerdict] = (
            self.scored(value, usage=usage)
            if value is not None
            else self.unscored(reason or "unscored", usage=usage)
        )
        judgment.latency_s = latency
        models = [j for j, member in zip(judgments, self.members) if member.identity.model]
        judgment.recalled = bool(models) and all(j.recalled for j in models)  # every model call from the cache
        if value is not None:
            partial = self._partial_reason(votes)
            if partial is not None:  # counted, gated (--max-fallback) and reported like a fallback
                judgment.fallback_used = True
                judgment.fallback_reason = partial
        return judgment

    def _partial_reason(self, votes: Sequence[MemberVote]) -> str | None:
        """Why a scored panel verdict is not the whole panel's: members that did not vote, or that
        voted through their own fallback; None when every member voted as itself."""
        missing = [vote for vote in votes if vote.label is None or vote.fallback_used]
        if not missing:
            return None
        model_members = {
            name for name, member in zip(self.member_names, self.members) if member.identity.model
        }
        model_missing = model_members and model_members <= {vote.name for vote in missing}
        lead = "panel without its model members" if model_missing else "partial panel"
        parts = [
            f"{vote.name} {'did not vote' if vote.label is None else 'voted through its fallback'}"
            + (f" ({vote.unscored_reason})" if vote.unscored_reason else "")
            for vote in missing
        ]
        return f"{lead}: " + "; ".join(parts)

    # -- the judge protocol ------------------------------------------------------------------

    async def _judge(self, item: ItemT) -> Judgment[PanelVerdict]:
        judgments = await asyncio.gather(*(member.ajudge(item) for member in self.members))
        return self.combine_judgments(judgments)

    async def ajudge_batch(
        self, items: Sequence[ItemT], *, on_result: ResultCallback | None = None
    ) -> list[Judgment[PanelVerdict]]:
        """Every member judges the whole batch with its own ``ajudge_batch``, side by side."""
        started = time.perf_counter()
        with inside(self.identity):  # members take the model calls the run's cache holds (call_memo)
            outcomes = await asyncio.gather(
                *(member.ajudge_batch(items) for member in self.members), return_exceptions=True
            )
        columns: list[list[Judgment[Any]]] = []
        for member, outcome in zip(self.members, outcomes):
            if isinstance(outcome, asyncio.CancelledError):
                raise outcome
            if isinstance(outcome, BaseException):
                # One member's failure must not end the batch: it is unscored on every item.
                failed = Judgment[Any](
                    judge=member.identity.name,
                    unscored=True,
                    unscored_reason=f"{type(outcome).__name__}: {outcome}",
                    latency_s=(time.perf_counter() - started) / max(1, len(items)),
                )
                columns.append([failed] * len(items))
            else:
                columns.append(list(outcome))
        results: list[Judgment[PanelVerdict]] = []
        for index in range(len(items)):
            judgment = self.combine_judgments([column[index] for column in columns])
            results.append(judgment)
            if on_result is not None:
                on_result(index, judgment)  # type: ignore[arg-type]
        return results


def _tally(votes: Sequence[MemberVote]) -> str:
    """``a=True, b=False, c=unscored (reason)``: the votes, for an unscored panel's reason."""
    parts = []
    for vote in votes:
        if vote.label is None:
            parts.append(f"{vote.name}=unscored ({vote.unscored_reason})")
        else:
            parts.append(f"{vote.name}={vote.label}")
    return ", ".join(parts)


def _unique(names: Sequence[str]) -> list[str]:
    """Names numbered from their second occurrence: ``a, a#2, b``."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out
