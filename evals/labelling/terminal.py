"""The labelling session in a terminal (``ragjury label --terminal``), for a person on SSH.

The same session, keys and fields as the page, drawn by Textual (it sits on the ``rich`` ragjury
already uses); item text is shown as text (``rich.text.Text``, never markup) with its control
characters removed (``printable``: an escape sequence in an answer must not repaint the screen),
and the layout reads at 80×24: the judged field (the answer, or the passage) is pinned in its own
pane under the others, so 16 references never push it off the screen. Acts name the item shown
(id, system), as the page's do. The judge's verdict is not shown here at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Input, Static

from ragjury.evals.labelling.session import ItemGone, LabelSession, Screen, StaleAct
from ragjury.rag_agent.core.text import printable

HELP = ("Keys: y/1 yes · n/0 no (0-3 graded) · u unsure · s skip · z undo · ←/→ move · PgUp/PgDn scroll the "
        "item · Shift+↑/↓ scroll the answer · c comment · ? help (Esc closes it) · q save and quit. Each label is "
        "saved before the next item. Unsure and skipped items come back after the others.")


class LabelApp(App[None]):
    """One item per screen; every key saves through ``LabelSession.act`` before the next item shows."""

    CSS = """
    #question { background: $boost; padding: 0 1; text-style: bold; }
    #status { color: $text-muted; padding: 0 1; }
    #live { padding: 0 1; height: auto; }
    #item { padding: 0 1; }
    #scroll { height: 1fr; }
    #answer-pane { height: auto; max-height: 50%; border-top: solid $accent; }
    #answer { padding: 0 1; }
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
        Binding("pagedown", "scroll_item(1)", "scroll", key_display="PgDn", priority=True),
        Binding("pageup", "scroll_item(-1)", "up", show=False, priority=True),
        Binding("shift+down", "scroll_answer(1)", "answer", key_display="⇧↓", priority=True),
        Binding("shift+up", "scroll_answer(-1)", "answer up", show=False, priority=True),
        Binding("c", "comment", "comment"), Binding("question_mark", "help", "help"), Binding("q", "quit_", "quit"),
    ]

    def __init__(self, session: LabelSession, *, question: str, graded: bool = False,
                 live: Callable[[], str] | None = None, guidelines: str | None = None) -> None:
        """``live`` (``label --until``): after every act, the live status line (an aggregate over the
        labels so far, never an item's verdict), shown under the progress as in the page."""
        super().__init__()
        self.live = live
        self.guidelines = guidelines
        self.session = session
        self.question = question
        self.graded = graded
        self.current: Screen | None = None
        self.shown_at = time.monotonic()
        self.pending_comment: str | None = None
        self.notice: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text(printable(self.question)), id="question")
        yield Static("", id="status")
        yield Static("", id="live")
        yield Static(Text(HELP + (f"\n\nYOUR GUIDELINES\n{printable(self.guidelines)}" if self.guidelines else "")),
                     id="help")
        with VerticalScroll(id="scroll"):
            yield Static("", id="item")
        with VerticalScroll(id="answer-pane"):
            yield Static("", id="answer")
        yield Input(placeholder="comment, Enter saves it with your next key, Esc cancels", id="comment")
        yield Footer()

    def on_mount(self) -> None:
        self.show(self.session.screen())

    def show(self, screen: Screen) -> None:
        self.current = screen
        self.shown_at = time.monotonic()
        status = Text(printable(f"{screen.done}/{screen.total} labelled"
                                + (f" · {screen.unsure} unsure" if screen.unsure else "")
                                + (f" · {screen.skipped} skipped" if screen.skipped else "")
                                + f" · {self.session.annotator}" + (f" · {self.notice}" if self.notice else "")))
        self.notice = None
        if screen.finished:
            self.query_one("#item", Static).update(Text("All items labelled and saved. Press q to finish."))
            self.query_one("#answer", Static).update("")
            self.query_one("#status", Static).update(status)
            return
        body = Text()
        if screen.state is not None and screen.state.done:
            given = "unsure" if screen.state.unsure else "skipped" if screen.state.skipped else (
                f"grade {screen.state.label}" if self.graded else ("yes" if screen.state.label else "no"))
            body.append(f"You gave this item: {given} (a new key replaces it)\n", style="green")
        assert screen.item is not None
        *others, judged = screen.item.fields
        for heading, text in others:
            body.append(f"\n{printable(heading).upper()}\n", style="bold cyan")
            body.append(printable(text) + "\n")
        pinned = Text()
        pinned.append(f"{printable(judged[0]).upper()}\n", style="bold cyan")
        pinned.append(printable(judged[1]))
        self.query_one("#item", Static).update(body)
        self.query_one("#answer", Static).update(pinned)
        self.query_one("#status", Static).update(status)
        self.query_one("#scroll", VerticalScroll).scroll_home(animate=False)
        self.query_one("#answer-pane", VerticalScroll).scroll_home(animate=False)

    def _act(self, act: str, label: bool | int | None = None) -> None:
        if self.current is None or (self.current.item is None and act != "undo"):
            return
        comment, self.pending_comment = self.pending_comment, None
        shown = self.current
        try:
            if act == "undo":
                screen = self.session.act(None, "undo", seen=shown.acts)
            else:
                assert shown.item is not None
                screen = self.session.act(shown.item.key, act, recheck=shown.recheck, seen=shown.version, label=label,
                                          seconds=time.monotonic() - self.shown_at, comment=comment)
        except ItemGone as error:
            self.notice = f"not saved: {error}"
            screen = self.session.screen()
        except StaleAct as error:
            self.notice = f"not saved: {error}"
            screen = self.session.screen(shown.position) if act != "undo" else self.session.screen()
        if self.live is not None:
            self.query_one("#live", Static).update(Text(printable(self.live())))
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

    def action_scroll_item(self, step: int) -> None:
        pane = self.query_one("#scroll", VerticalScroll)
        (pane.scroll_page_down if step > 0 else pane.scroll_page_up)(animate=False)

    def action_scroll_answer(self, step: int) -> None:
        pane = self.query_one("#answer-pane", VerticalScroll)
        pane.scroll_relative(y=3 * step, animate=False)

    def action_close_help(self) -> None:
        self.query_one("#help", Static).styles.display = "none"

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
        elif event.key == "escape":
            self.action_close_help()

    def action_quit_(self) -> None:
        self.exit()


__all__ = ["LabelApp"]
