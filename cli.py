"""The ``ragjury`` command line: ``ragjury --help`` lists every command.

Each command lives in its own module under ``commands`` with a ``register(app)``
function; this file only assembles them. ``python cli.py ...`` works as well as ``ragjury``.
"""

from __future__ import annotations

import copy
import importlib
import os
import sys

import typer

# A command line prints only its own output: pydantic-ai's observability banner stays off unless
# the user asks for it.
os.environ.setdefault("PYDANTIC_AI_NO_BANNER", "1")

COMMAND_MODULES: tuple[str, ...] = (
    "ragjury.commands.judge_evaluate",
    "ragjury.commands.verdict",
    "ragjury.commands.ask",
    "ragjury.commands.evaluate",
    "ragjury.commands.relevance",
    "ragjury.commands.retrieval",
    "ragjury.commands.non_llm_judge",
    "ragjury.commands.report",
    "ragjury.commands.agreement",
    "ragjury.commands.calibrate",
    "ragjury.commands.fit",
    "ragjury.commands.train",
    "ragjury.commands.estimate",
    "ragjury.commands.label_plan",
    "ragjury.commands.label",
    "ragjury.commands.doctor",
    "ragjury.commands.judges",
)

app = typer.Typer(
    name="ragjury",
    help="LLM-as-judge toolkit for RAG: judge answers and retrievals, and measure how far to trust the judge.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)



def _version(shown: bool) -> None:
    if shown:
        from importlib.metadata import version

        typer.echo(f"ragjury {version('ragjury')}")
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """LLM-as-judge toolkit for RAG: judge answers and retrievals, and measure how far to trust the judge."""


PANELS: dict[str, tuple[str, ...]] = {
    "One item: judge it now": ("judge-evaluate", "verdict", "ask"),
    "A batch: evaluate a file of items": ("evaluate", "relevance", "retrieval", "non-llm-judge", "report"),
    "Trust: the judge against people": ("agreement", "calibrate", "fit", "train", "estimate", "label-plan", "label"),
    "Set-up": ("doctor", "judges"),
}
"""``ragjury --help`` groups the commands by what they are for, so a newcomer need not guess which
of the judging commands to start with."""

for _module in COMMAND_MODULES:
    importlib.import_module(_module).register(app)
_PANEL_OF = {name: panel for panel, names in PANELS.items() for name in names}
for _info in app.registered_commands + app.registered_groups:
    _info.rich_help_panel = _PANEL_OF[_info.name or ""]

# Help that reads at 80 columns (paragraphs reflow, examples fit, no <bool> on flags).
importlib.import_module("ragjury.commands._help").apply(app)


def app_for(args: list[str]) -> typer.Typer:
    """The app that runs ``args``: for ``ragjury COMMAND ...`` one holding only that command (and
    the root options), else the whole app. Why: typer turns every registered command's signature
    into click options before it parses anything (43 signatures, a third of a 40-row ``contains``
    run's own time); a run or a ``COMMAND --help`` needs only its own. An unknown name gets the
    whole app, so its error still lists the commands."""
    name = args[0] if args else ""
    commands = [info for info in app.registered_commands if info.name == name]
    groups = [info for info in app.registered_groups if info.name == name]
    if name.startswith("-") or not (commands or groups):
        return app
    only = copy.copy(app)  # the same settings, callback and help classes (``_help.apply`` set them on the infos)
    only.registered_commands = commands
    only.registered_groups = groups
    return only


EXIT_TERMINATED = 143
"""A run ended by SIGTERM (a CI job cancelled, ``kill``): 128 + 15, after saving as Ctrl-C does."""


def main() -> None:
    """The console script: SIGTERM stops a run the way Ctrl-C does (completed judgments are in the
    cache, one line is printed), then exits 143 instead of 130."""
    import signal

    terminated = []

    def on_sigterm(signum: int, frame: object) -> None:
        if terminated:  # once: the stop is already under way
            return
        terminated.append(signum)
        if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL, None):
            raise KeyboardInterrupt
        # the path Ctrl-C takes: inside asyncio.run its SIGINT handler cancels the run's task cleanly,
        # where a KeyboardInterrupt raised here could land mid-callback and print a traceback
        signal.raise_signal(signal.SIGINT)

    try:
        previous = signal.signal(signal.SIGTERM, on_sigterm)
    except ValueError:  # not the main thread (embedded): leave the default
        previous = None
    try:
        app_for(sys.argv[1:])()
    except SystemExit as ended:
        if terminated and ended.code not in (0, None):
            raise SystemExit(EXIT_TERMINATED) from None
        raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    main()


__all__ = [
    "COMMAND_MODULES",
    "EXIT_TERMINATED",
    "PANELS",
    "app",
    "app_for",
    "main",
]
