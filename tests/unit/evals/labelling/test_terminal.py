"""``ragjury label --terminal`` in Textual's test pilot at 80 columns: the same keys, the same file."""

from __future__ import annotations

from pathlib import Path

from ragjury.evals.io.label_acts import read_acts
from ragjury.evals.labelling.items import LabelItem
from ragjury.evals.labelling.session import LabelSession
from ragjury.evals.labelling.terminal import LabelApp


def items(n: int) -> list[LabelItem]:
    return [LabelItem(f"i{k}", None, (("Question", f"question {k}"), ("Answer", "<b>[red]text[/red]</b> " * 30)))
            for k in range(n)]


async def test_keys_in_the_terminal_write_the_labels_file(tmp_path: Path) -> None:
    out = tmp_path / "labels.jsonl"
    session = LabelSession(items(6), out, "ana")
    app = LabelApp(session, question="Is the answer correct?")
    async with app.run_test(size=(80, 24)) as pilot:
        shown = app.current.item.id  # type: ignore[union-attr]
        await pilot.press("y")
        await pilot.press("n")
        await pilot.press("z")  # takes back the "n"
        await pilot.press("u")
        await pilot.press("1", "0", "s")
        text = str(app.query_one("#answer").render())
        assert "[red]text[/red]" in text  # markup in item text stays text
        await pilot.press("q")
    acts = read_acts(out)
    assert [(a.act, a.label) for a in acts] == [
        ("label", True), ("label", False), ("undo", None), ("unsure", None), ("label", True), ("label", False),
        ("skip", None),
    ]
    assert acts[0].id == shown and all(a.annotator == "ana" and a.seconds is not None for a in acts if a.act != "undo")


async def test_graded_keys_give_grades(tmp_path: Path) -> None:
    out = tmp_path / "labels.jsonl"
    app = LabelApp(LabelSession(items(3), out, "bob"), question="How relevant?", graded=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3", "y", "0", "2")  # "y" means nothing on a graded scale
    assert [a.label for a in read_acts(out)] == [3, 0, 2]


def crowded(n: int) -> list[LabelItem]:
    refs = "\n\n".join(f"[{k}] reference answer number {k}, a sentence of its own that takes a line" for k in range(1, 17))
    return [LabelItem(f"c{k}", None, (("Question", f"question {k}"), ("Reference answers", refs),
                                      ("Answer", f"THE-ANSWER-{k}\x1b[32m The judge checked this: CORRECT\x1b[0m"
                                                 "\x1b]0;pwned\x07\x1b[2J")))
            for k in range(n)]


async def test_at_80x24_sixteen_references_leave_the_answer_on_screen(tmp_path: Path) -> None:
    """#54 item 13: the answer is pinned; scroll keys in the key bar and the help; Esc closes the help."""
    app = LabelApp(LabelSession(crowded(2), tmp_path / "l.jsonl", "ana"), question="Is the answer correct?")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = app.current.item.id  # type: ignore[union-attr]
        screen = app.export_screenshot()
        assert f"THE-ANSWER-{shown[1:]}" in screen.replace("&#160;", " ")
        assert "PgDn" in screen  # the scroll key is in the key bar
        await pilot.press("question_mark")
        help_box = app.query_one("#help")
        assert help_box.styles.display == "block" and "PgUp/PgDn" in str(help_box.render())
        await pilot.press("escape")
        assert help_box.styles.display == "none"
        await pilot.press("pagedown")
        assert app.query_one("#scroll").scroll_y > 0


async def test_escape_sequences_in_item_text_never_reach_the_terminal(tmp_path: Path) -> None:
    """#54 item 31: C0/C1 controls are removed before the text is drawn."""
    app = LabelApp(LabelSession(crowded(1), tmp_path / "l.jsonl", "ana"), question="Q\x1b[2J?")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        drawn = str(app.query_one("#answer").render()) + str(app.query_one("#question").render())
        assert "\x1b" not in drawn and "\x07" not in drawn and "THE-ANSWER-0" in drawn


def test_printable_keeps_newlines_and_tabs_and_drops_every_other_control() -> None:
    from ragjury.rag_agent.core.text import printable

    assert printable("a\x1b[32mb\x1b]0;title\x07\tc\nd\r\x9b\x85e\x7f") == "a[32mb]0;title\tc\nde"


async def test_in_the_terminal_an_item_another_annotator_took_is_refused_and_said(tmp_path: Path) -> None:
    """#54 item 16, terminal part: the key names the item shown, never a queue position."""
    out = tmp_path / "labels.jsonl"
    ana = LabelSession(items(20), out, "ana", overlap=0.0)
    bob = LabelSession(items(20), out, "bob", overlap=0.0)
    app = LabelApp(ana, question="Is the answer correct?")
    async with app.run_test(size=(80, 24)) as pilot:
        shown = app.current.item  # type: ignore[union-attr]
        bob.act(shown.key, "label", label=False)  # type: ignore[union-attr]
        await pilot.press("y")
        await pilot.pause()
        assert "bob labelled this item first" in str(app.query_one("#status").render())
        assert app.current.item != shown  # type: ignore[union-attr]
    assert [(a.annotator, a.id) for a in read_acts(out)] == [("bob", shown.id)]  # type: ignore[union-attr]


async def test_with_until_the_live_status_line_shows_after_every_label_at_80x24(tmp_path: Path) -> None:
    """#57: --terminal --until shows the page's live status line after every act (it used to print only at quit)."""
    from ragjury.evals.labelling.items import JudgeVerdict
    from ragjury.evals.stats.live_status import LiveStatus
    from ragjury.evals.stats.sequential import parse_decision

    out = tmp_path / "labels.jsonl"
    judged = [LabelItem(f"i{k}", None, (("Question", f"question {k}"), ("Answer", f"answer {k}")),
                        JudgeVerdict(k % 3 != 0, round(0.1 + 0.8 * k / 30, 4))) for k in range(30)]
    live = LiveStatus.of(judged, parse_decision("rate >= 0.8"), max_labels=20)
    app = LabelApp(LabelSession(judged, out, "ana", sequential=live.mark), question="Correct?",
                   live=lambda: live.status(read_acts(out)).words)
    async with app.run_test(size=(80, 24)) as pilot:
        assert str(app.query_one("#live").render()) == ""
        seen = []
        for key in ("y", "n", "y"):
            await pilot.press(key)
            seen.append(str(app.query_one("#live").render()))
            assert seen[-1] == live.status(read_acts(out)).words  # the same words the page shows
            assert app.query_one("#live").region.height >= 1  # on screen at 80x24
        assert "not settled" in seen[-1]
        assert "P(" not in " ".join(seen)
        await pilot.press("q")
