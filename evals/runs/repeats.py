"""``evaluate --repeats K``: the same judge on the same items K times, and how stable its verdicts are.

Why: hosted models are not deterministic even at temperature 0, and a judge whose verdict on an
item changes from run to run measures noise as much as answers (DeepEval #3110/#3104, TruLens
#2741). Each repeat after the first is judged under its own cache key (the judge's identity with
``repeat=k``), so a resumed run keeps its repeats and repeat 0 is the plain run's own judgments.
Nothing is shared between repeats: the call memo is switched off inside a repeat, or every repeat
would read repeat 0's answers back. The figures: per item, the share of its scored verdicts equal to
its commonest one; over items, Fleiss' kappa across the repeats and the share of items whose
verdict changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ragjury.rag_agent.core.call_memo import sharing
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment


class Repeat(BaseJudge[Any, Any]):
    """``judge`` once more, as repeat ``k``: its identity with ``repeat=k`` (a cache key of its own)."""

    def __init__(self, judge: Any, k: int) -> None:
        self.inner, self.k = judge, k
        self.name = judge.identity.name
        self.concurrency = int(getattr(judge, "concurrency", 4) or 4)

    @property
    def identity(self) -> JudgeIdentity:
        own = self.inner.identity
        params = f"{own.params};repeat={self.k}" if own.params else f"repeat={self.k}"
        return JudgeIdentity(name=own.name, model=own.model, prompt_version=own.prompt_version, params=params)

    def needs(self) -> Any:
        from ragjury.rag_agent.core.needs import needs_of

        return needs_of(self.inner)

    async def _judge(self, item: Any) -> Judgment[Any]:
        with sharing(None):  # a repeat asks the model again: never repeat 0's answer read back
            return await self.inner.ajudge(item)

    async def ajudge_batch(self, items: Sequence[Any], *, on_result: Any = None) -> list[Judgment[Any]]:
        with sharing(None):
            return await self.inner.ajudge_batch(items, on_result=on_result)


def fleiss_kappa(ratings: Sequence[Sequence[object]]) -> float | None:
    """Fleiss' kappa of items each rated the same number of times (K >= 2); None when it is not
    defined (fewer than 2 items or ratings, or every rating one category)."""
    rows = [list(r) for r in ratings if len(r) >= 2]
    if len(rows) < 2 or len({len(r) for r in rows}) != 1:
        return None
    k = len(rows[0])
    categories = sorted({repr(v) for r in rows for v in r})
    counts = [Counter(repr(v) for v in r) for r in rows]
    total = len(rows) * k
    p_j = [sum(c[cat] for c in counts) / total for cat in categories]
    p_e = sum(p * p for p in p_j)
    if p_e >= 1.0:
        return None
    p_i = [(sum(n * n for n in c.values()) - k) / (k * (k - 1)) for c in counts]
    return (sum(p_i) / len(p_i) - p_e) / (1 - p_e)


def stability(labels: Sequence[Sequence[object | None]]) -> dict[str, Any]:
    """The figures of K repeats: ``labels[r][i]`` is repeat r's verdict on item i (None: unscored).
    Items scored in every repeat enter Fleiss' kappa and the changed share."""
    repeats = len(labels)
    per_item = list(zip(*labels, strict=True)) if labels else []
    full = [row for row in per_item if all(v is not None for v in row)]
    changed = sum(len({repr(v) for v in row}) > 1 for row in full)
    agreement = [max(Counter(repr(v) for v in row).values()) / len(row) for row in full]
    kappa = fleiss_kappa(full)
    return {
        "repeats": repeats,
        "items": len(per_item),
        "scored_in_every_repeat": len(full),
        "changed": changed,
        "changed_share": round(changed / len(full), 4) if full else None,
        "fleiss_kappa": None if kappa is None else round(kappa, 4),
        "mean_item_agreement": round(sum(agreement) / len(agreement), 4) if agreement else None,
        "item_agreement": [None if any(v is None for v in row)
                           else round(max(Counter(repr(v) for v in row).values()) / len(row), 4) for row in per_item],
    }


def stability_line(figures: dict[str, Any]) -> str:
    """One line for the terminal summary and the judge card."""
    kappa = figures["fleiss_kappa"]
    kappa_text = f"Fleiss' kappa {kappa:.3f}" if kappa is not None else "Fleiss' kappa — (one verdict throughout)"
    n = figures["scored_in_every_repeat"]
    share = figures["changed_share"]
    changed = f"{figures['changed']:,} of {n:,} items changed verdict ({share:.0%})" if n else "no item scored in every repeat"
    return f"stability over {figures['repeats']} repeats: {kappa_text}; {changed}"


__all__ = ["Repeat", "fleiss_kappa", "stability", "stability_line"]
