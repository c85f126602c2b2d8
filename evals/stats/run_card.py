"""The judge card of a loaded predictions run: which items it reads and how long each one is.

People's label is the predictions' ``gold`` or, with a labels file, that file's (as ``estimate``
reads them); the judge's score is the one the estimates use (P(yes) where reported, else the 0/1
verdict). Unscored judgments have no score and are left out, and the card says how many.
"""

from __future__ import annotations

from collections.abc import Mapping

from ragjury.evals.io.human_labels import HumanLabel
from ragjury.evals.io.predictions import ItemRecord, PredictionRun
from ragjury.evals.stats.judge_card import CardItem, JudgeCard, judge_card
from ragjury.evals.stats.run_estimates import judge_score

PASSAGE_KEYS = ("passage", "text", "content")
"""Where a row without an answer (a relevance pair) keeps the passage that was judged."""


def judged_text(record: ItemRecord) -> tuple[str, str] | None:
    """(what, text): the answer, or for a relevance pair its passage; None when the row has neither."""
    if record.answer is not None:
        return "answer", record.answer
    for key in PASSAGE_KEYS:
        value = record.item.get(key)
        if isinstance(value, str):
            return "passage", value
    return None


def run_card(
    run: PredictionRun, labels: Mapping[str, HumanLabel] | None = None, *, by_system: bool = True
) -> JudgeCard | None:
    """The card of ``run``, or None: a score task, no item with both a label and a score, or
    labels other than 0/1."""
    if run.kind != "binary":
        return None
    items: list[CardItem] = []
    unscored = 0
    chances: set[float] = set()
    kinds: set[str] = set()
    for record in run.records:
        if labels is not None:
            human = labels.get(record.id)
            label = None if human is None else human.label
            if human is not None and human.inclusion_probability is not None:
                chances.add(human.inclusion_probability)
        else:
            label = None if record.gold is None else float(record.gold)
            if record.gold is not None and record.inclusion_probability is not None:
                chances.add(record.inclusion_probability)
        if label is None:
            continue
        score = judge_score(record)
        if score is None:
            unscored += 1
            continue
        if label not in (0.0, 1.0):
            return None
        text = judged_text(record)
        if text is not None:
            kinds.add(text[0])
        items.append(
            CardItem(
                system=(record.system or "all") if by_system else "all",
                score=score,
                verdict=int(bool(record.label)),
                label=int(label),
                words=len(text[1].split()) if text is not None else None,
                cluster=record.question or None,
            )
        )
    if not items:
        return None
    card = judge_card(items, length_of="passage" if kinds == {"passage"} else "answer")
    extra = []
    if unscored:
        extra.append(f"{unscored} labelled items unscored by the judge: left out of the card")
    if len(chances) > 1:  # unequal chances of being labelled
        extra.append("labels picked by label-plan: the card describes the labelled items, which favour those "
                     "the judge was unsure of, not each system as a whole")
    if extra:
        card = JudgeCard(card.n_labelled, card.length_of, card.systems, card.length, (*card.notes, *extra))
    return card


__all__ = ["judged_text", "run_card"]
