"""One person's labelling session: a shuffled order, resume, overlap between people, rechecks."""

from __future__ import annotations

from pathlib import Path

from ragjury.evals.io.label_acts import read_acts
from ragjury.evals.labelling.items import JudgeVerdict, LabelItem
from ragjury.evals.labelling.session import LabelSession


def items(n: int) -> list[LabelItem]:
    # the judge's probability rises with the id: an order sorted by confidence would show it
    return [LabelItem(f"i{k:03d}", None, (("Answer", f"text {k}"),), JudgeVerdict(k % 2 == 0, k / n)) for k in range(n)]


def label_all(session: LabelSession) -> list[str]:
    seen = []
    screen = session.screen()
    while not screen.finished:
        assert screen.item is not None
        seen.append(screen.item.id)
        screen = session.act(screen.position, "label", label=True, seconds=0.1)
    return seen


def test_the_order_is_shuffled_not_sorted_by_the_judge(tmp_path: Path) -> None:
    session = LabelSession(items(50), tmp_path / "l.jsonl", "ana")
    shown = [session.by_key[key].judge.probability for key in session.order]  # type: ignore[union-attr]
    assert shown != sorted(shown) and shown != sorted(shown, reverse=True)


def test_reopening_resumes_at_the_first_item_not_labelled(tmp_path: Path) -> None:
    out = tmp_path / "l.jsonl"
    first = LabelSession(items(10), out, "ana")
    screen = first.screen()
    for _ in range(4):
        screen = first.act(screen.position, "label", label=False)
    again = LabelSession(items(10), out, "ana").screen()
    assert again.position == 4 and again.done == 4 and again.item == screen.item


def test_undo_shows_the_item_again_and_its_label_is_gone(tmp_path: Path) -> None:
    session = LabelSession(items(5), tmp_path / "l.jsonl", "ana")
    screen = session.screen()
    labelled = screen.item
    screen = session.act(screen.position, "label", label=True)
    screen = session.act(screen.position, "undo")
    assert screen.item == labelled and screen.done == 0


def test_overlap_gives_a_share_to_both_and_the_rest_to_one(tmp_path: Path) -> None:
    out = tmp_path / "l.jsonl"
    ana = LabelSession(items(200), out, "ana", overlap=0.2, seed=3)
    bob = LabelSession(items(200), out, "bob", overlap=0.2, seed=3)
    assert ana.shared == bob.shared and 25 <= len(ana.shared) <= 55
    # two people at once: alternate one act each until both are done
    a, b = ana.screen(), bob.screen()
    while not (a.finished and b.finished):
        if not a.finished:
            a = ana.act(a.position, "label", label=True)
        if not b.finished:
            b = bob.act(b.position, "label", label=False)
    acts = read_acts(out)
    by_item: dict[str, set[str]] = {}
    for act in acts:
        by_item.setdefault(act.id, set()).add(act.annotator)
    assert len(by_item) == 200  # every item labelled
    both = {i for i, who in by_item.items() if len(who) == 2}
    assert {key[1] for key in ana.shared} <= both
    assert len(both - {key[1] for key in ana.shared}) <= 6  # the rest went to one (rare races aside)


def test_recheck_brings_the_first_items_back_at_the_end(tmp_path: Path) -> None:
    out = tmp_path / "l.jsonl"
    session = LabelSession(items(6), out, "ana", recheck=2)
    seen = label_all(session)
    assert len(seen) == 8 and seen[6:] == seen[:2]
    rechecks = [a for a in read_acts(out) if a.recheck]
    assert [a.id for a in rechecks] == seen[:2]
