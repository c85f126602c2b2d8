"""The labelling session in a terminal (``ragjury label --terminal``), for a person on SSH.

The same session, keys and fields as the page, drawn by Textual (it sits on the ``rich`` ragjury
already uses); item text is shown as text (``rich.text.Text``, never markup), and the layout reads
at 80 columns. The judge's verdict is not shown here at all.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Input, Static

from ragjury.evals.labelling.session import LabelSession, Screen


class LabelApp(App[None]):
    """One item per screen; every key saves through ``LabelSession.act`` before the next item shows."""

    CSS = """
    #question { background: $boost; padding: 0 1; text-style: bold; }
    #status { color: $text-muted; padding: 0 1; }
    #item { padding: 0 1; }
    .heading { color: $accent; text-style: bold; margin-top: 1; }
    #comment { dock: bottom; display: none; }
    #help { display: none; border: round $accent; padding: 0 1; }
    """
    BINDINGS = [
        Binding("y", "label_yes", "yes"), Binding("n", "label_no", "no"),
        Binding("1", "digit(1)", "1", show=False), Binding("0", "digit(0)", "0", show=False),
        Binding("2", "digit(2)", "2", show=False), Binding("3", "digit(3)", "3", show=False),
        Binding("u", "unsure", "unsure"), Binding("s", "skip", "skip"), Binding("z", "undo", "undo"),
        Binding("left", "move(-1)", "prev", show=False), Binding("right", "move(1)", "next", show=False),
        Binding("c", "comment", "comment"), Binding("question_mark", "help", "help"), Binding("q", "quit_", "quit"),
    ]

    def __init__(self, session: LabelSession, *, question: str, graded: bool = False) -> None:
        super().__init__()
        self.session = session
        self.question = question
        self.graded = graded
        self.current: Screen | None = None
        self.shown_at = time.monotonic()
        self.pending_comment: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text(self.question), id="question")
        yield Static("", id="status")
        yield Static(Text("Keys: y/1 yes · n/0 no (0-3 graded) · u unsure · s skip · z undo · ←/→ move · "
                          "c comment · ? help · q save and quit. Each label is saved before the next item."),
                     id="help")
        with VerticalScroll(id="scroll"):
            yield Static("", id="item")
        yield Input(placeholder="comment, Enter saves it with your next key, Esc cancels", id="comment")
        yield Footer()

    def on_mount(self) -> None:
        self.show(self.session.screen())

    def show(self, screen: Screen) -> None:
        self.current = screen
        self.shown_at = time.monotonic()
        status = f"{screen.done}/{screen.total} · {self.session.annotator}"
        if screen.finished:
            self.query_one("#item", Static).update(Text("All items labelled and saved. Press q to finish."))
            self.query_one("#status", Static).update(status)
            return
        body = Text()
        if screen.state is not None and screen.state.done:
            given = "unsure" if screen.state.unsure else "skipped" if screen.state.skipped else (
                f"grade {screen.state.label}" if self.graded else ("yes" if screen.state.label else "no"))
            body.append(f"You gave this item: {given} (a new key replaces it)\n", style="green")
        assert screen.item is not None
        for heading, text in screen.item.fields:
            body.append(f"\n{heading.upper()}\n", style="bold cyan")
            body.append(text + "\n")
        self.query_one("#item", Static).update(body)
        self.query_one("#status", Static).update(status)
        self.query_one("#scroll", VerticalScroll).scroll_home(animate=False)

    def _act(self, act: str, label: bool | int | None = None) -> None:
        if self.current is None or (self.current.item is None and act != "undo"):
            return
        comment, self.pending_comment = self.pending_comment, None
        screen = self.session.act(self.current.position, act, label=label,
                                  seconds=time.monotonic() - self.shown_at, comment=comment)
        self.show(screen)

    def action_label_yes(self) -> None:
        if not self.graded:
            self._act("label", True)

    def action_label_no(self) -> None:
        if not self.graded:
            self._act("label", False)

    def action_digit(self, digit: int) -> None:
        if self.graded:
            self._act("label", digit)
        elif digit in (0, 1):
            self._act("label", bool(digit))

    def action_unsure(self) -> None:
        self._act("unsure")

    def action_skip(self) -> None:
        self._act("skip")

    def action_undo(self) -> None:
        self._act("undo")

    def action_move(self, step: int) -> None:
        if self.current is not None:
            self.show(self.session.screen(max(0, self.current.position + step)))

    def action_help(self) -> None:
        help_box = self.query_one("#help", Static)
        help_box.styles.display = "none" if help_box.styles.display == "block" else "block"

    def action_comment(self) -> None:
        box = self.query_one("#comment", Input)
        box.styles.display = "block"
        box.value = self.pending_comment or ""
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.pending_comment = event.value.strip() or None
        event.input.styles.display = "none"
        self.set_focus(None)

    def on_key(self, event) -> None:  # type: ignore[no-untyped-def]
        box = self.query_one("#comment", Input)
        if event.key == "escape" and box.has_focus:
            box.styles.display = "none"
            self.set_focus(None)
            event.stop()

    def action_quit_(self) -> None:
        self.exit()


__all__ = ["LabelApp"]
