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
        text = str(app.query_one("#item").render())
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
