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


def test_an_act_names_its_item_and_an_item_another_took_is_refused(tmp_path: Path) -> None:
    """#54 item 16: ana's screen shows an item, bob takes it, ana's key must not label another item."""
    import pytest

    from ragjury.evals.labelling.session import ItemGone

    out = tmp_path / "l.jsonl"
    ana = LabelSession(items(40), out, "ana", overlap=0.2, seed=3)
    bob = LabelSession(items(40), out, "bob", overlap=0.2, seed=3)
    shown = ana.screen()
    while shown.item.key in ana.shared:  # type: ignore[union-attr]
        shown = ana.act(shown.item.key, "label", label=True)  # type: ignore[union-attr]
    bob.act(shown.item.key, "label", label=False)  # type: ignore[union-attr]
    before = read_acts(out)
    with pytest.raises(ItemGone, match="bob labelled this item first"):
        ana.act(shown.item.key, "label", label=True)  # type: ignore[union-attr]
    assert read_acts(out) == before  # nothing written for ana, and no other item labelled


def test_a_stale_tab_does_not_override_a_label(tmp_path: Path) -> None:
    """#54 item 8: two tabs saw version 0 of the item; the second act on it is refused."""
    import pytest

    from ragjury.evals.labelling.session import StaleAct

    out = tmp_path / "l.jsonl"
    tab1, tab2 = LabelSession(items(5), out, "ana"), LabelSession(items(5), out, "ana")
    seen1, seen2 = tab1.screen(), tab2.screen()
    assert seen1.item == seen2.item and seen1.version == seen2.version == 0
    tab1.act(seen1.item.key, "label", label=True, seen=seen1.version)  # type: ignore[union-attr]
    with pytest.raises(StaleAct):
        tab2.act(seen2.item.key, "label", label=False, seen=seen2.version)  # type: ignore[union-attr]
    assert [a.label for a in read_acts(out)] == [True]
    fresh = tab2.screen(seen2.position)
    assert fresh.version == 1 and fresh.state.label is True  # type: ignore[union-attr]


def test_unsure_on_a_recheck_keeps_the_first_label(tmp_path: Path) -> None:
    """#54 item 19: every act on a recheck screen is kept apart."""
    from ragjury.evals.io.label_acts import replay

    out = tmp_path / "l.jsonl"
    session = LabelSession(items(3), out, "ana", recheck=1)
    screen = session.screen()
    first = screen.item
    for _ in range(3):
        screen = session.act(screen.item.key, "label", label=True)  # type: ignore[union-attr]
    assert screen.recheck and screen.item == first
    screen = session.act(first.key, "unsure", recheck=True)  # type: ignore[union-attr]
    state = replay(read_acts(out))["ana"][first.key]  # type: ignore[union-attr]
    assert state.label is True and not state.unsure and state.rechecked
    assert screen.finished


def test_unsure_and_skipped_items_come_back_until_labelled(tmp_path: Path) -> None:
    """#54 item 7: 'finished' only when nothing is left unlabelled, unsure or skipped."""
    session = LabelSession(items(4), tmp_path / "l.jsonl", "ana")
    screen = session.screen()
    kinds = ["unsure", "skip", "label", "label"]
    passed = []
    for kind in kinds:
        passed.append(screen.item.key)  # type: ignore[union-attr]
        screen = session.act(screen.item.key, kind, label=True if kind == "label" else None)  # type: ignore[union-attr]
    assert not screen.finished and screen.item.key == passed[0] and screen.unsure == 1 and screen.skipped == 1  # type: ignore[union-attr]
    screen = session.act(passed[0], "label", label=False)
    assert not screen.finished and screen.item.key == passed[1]  # type: ignore[union-attr]
    screen = session.act(passed[1], "label", label=True)
    assert screen.finished and screen.done == 4
    again = LabelSession(items(4), tmp_path / "l.jsonl", "ana").screen()
    assert again.finished


def test_the_session_reads_only_what_was_appended(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """#55 item 5: each refresh parses the new lines only; a second annotator's acts still appear."""
    import ragjury.evals.labelling.session as session_module

    out = tmp_path / "l.jsonl"
    ana = LabelSession(items(30), out, "ana", overlap=0.0)
    bob = LabelSession(items(30), out, "bob", overlap=0.0)
    screen = ana.screen()
    for _ in range(10):
        screen = ana.act(screen.item.key, "label", label=True)  # type: ignore[union-attr]
    parsed: list[int] = []
    real = session_module.read_acts_from

    def counting(path, offset=0, lines=0):  # type: ignore[no-untyped-def]
        acts, end, count = real(path, offset, lines)
        parsed.append(len(acts))
        return acts, end, count

    monkeypatch.setattr(session_module, "read_acts_from", counting)
    bob_first = bob.screen().item
    bob.act(bob_first.key, "label", label=False)  # type: ignore[union-attr]
    screen = ana.act(screen.item.key, "label", label=True)  # type: ignore[union-attr]
    assert max(parsed) <= 10 and parsed[-1] == 1  # never the whole file again
    assert bob_first.key not in ana.queue() or bob_first.key in ana.mine  # type: ignore[union-attr]
