"""``--help`` reads at 80 columns: no line too long, nothing cut, no ``<bool>``, whole examples."""

from __future__ import annotations

import shlex

import pytest
import typer.main
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.commands._help import EXAMPLE_WIDTH, reflow


def command_paths() -> list[tuple[str, ...]]:
    """Every command and group of the CLI, the root included, as argument tuples."""
    paths: list[tuple[str, ...]] = []

    def walk(command: object, path: tuple[str, ...]) -> None:
        paths.append(path)
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return paths


def commands() -> list[object]:
    """Every click command object (leaf or group), for checks on their help text."""
    found: list[object] = []

    def walk(command: object) -> None:
        found.append(command)
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(typer.main.get_command(app))
    return found


PATHS = command_paths()


def test_every_command_is_covered() -> None:
    names = {" ".join(path) for path in PATHS}
    for expected in ("evaluate", "agreement", "relevance", "calibrate", "doctor", "judge-evaluate", "ask",
                     "non-llm-judge", "verdict", "verdict goal"):
        assert expected in names


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("path", PATHS, ids=lambda path: " ".join(path) or "ragjury")
def test_help_fits_the_width_whole(path: tuple[str, ...], width: int) -> None:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(width), "TERMINAL_WIDTH": None})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) > 5
    too_long = [line for line in lines if len(line) > width]
    assert not too_long, "\n".join(too_long)
    assert "…" not in result.stdout, "option help was cut:\n" + "\n".join(l for l in lines if "…" in l)
    assert "<bool>" not in result.stdout
    assert "Usage:" in result.stdout


@pytest.mark.parametrize("command", commands(), ids=lambda command: getattr(command, "name", "") or "ragjury")
def test_help_text_is_paragraphs_and_examples_fit(command: object) -> None:
    """Prose paragraphs are one line each (rich wraps them at any width); example lines are at
    most EXAMPLE_WIDTH and, joined at their `` \\`` continuations, still parse as a shell line."""
    text: str = command.help or ""  # type: ignore[attr-defined]
    for paragraph in text.split("\n\n"):
        lines = paragraph.split("\n")
        if lines[0].startswith((" ", "#")):
            assert all(len(line) <= EXAMPLE_WIDTH for line in lines), paragraph
            for shell_line in paragraph.replace(" \\\n", " ").split("\n"):
                if not shell_line.strip().startswith("#"):
                    assert shlex.split(shell_line)[0] == "ragjury", shell_line
        else:
            assert all(line.startswith(("- ", "* ")) for line in lines[1:]), paragraph


def test_reflow_joins_prose_keeps_lists_and_rebreaks_examples() -> None:
    doc = """Summary line
    that goes on.

    A paragraph hard-wrapped
    at the source's width.

    - first item
      continued
    - second item

    Examples:

      ragjury evaluate --task correctness --judge contains --data correctness.jsonl --out preds.jsonl
        --html report.html   # a comment

      ragjury verdict goal -t "user: Book a table for two at 8pm" \\
          -t "assistant: Booked."
    """
    paragraphs = reflow(doc).split("\n\n")  # type: ignore[union-attr]
    assert paragraphs[0] == "Summary line that goes on."
    assert paragraphs[1] == "A paragraph hard-wrapped at the source's width."
    assert paragraphs[2] == "- first item continued\n- second item"
    assert paragraphs[4].split("\n") == [
        "  # a comment",
        "  ragjury evaluate --task correctness --judge contains \\",
        "      --data correctness.jsonl --out preds.jsonl --html report.html",
    ]
    assert paragraphs[5].split("\n") == [
        '  ragjury verdict goal -t "user: Book a table for two at 8pm" \\',
        '      -t "assistant: Booked."',
    ]
    assert reflow(None) is None and reflow("") == ""


def test_examples_are_never_broken_inside_quotes() -> None:
    quoted = "Water boils --at 100 C, -c, at sea level; " * 2
    doc = f'Summary.\n\nExample:\n\n  ragjury verdict relevance -q "boiling point" -p "{quoted}" --json'
    example = reflow(doc).split("\n\n")[2]  # type: ignore[union-attr]
    lines = example.split("\n")
    assert lines[1] == f'      -p "{quoted}" \\'  # one chunk, too long to split, kept whole
    assert shlex.split(example.replace(" \\\n", " ")) == [
        "ragjury", "verdict", "relevance", "-q", "boiling point", "-p", quoted, "--json"
    ]


def test_flags_have_no_metavar_and_values_a_short_one() -> None:
    result = CliRunner().invoke(app, ["evaluate", "--help"], env={"COLUMNS": "200"})
    by_option = {line.split()[1]: line for line in result.stdout.splitlines()
                 if line.startswith("│") and line[1:].lstrip(" *").startswith("--")}  # in any panel
    assert by_option["--json"].split()[2] == "Print"  # straight to the help text
    assert by_option["--limit"].split()[2:5] == ["-n", "N", "[>=1]"]
    assert by_option["--out"].split()[3] == "PATH" and by_option["--max-fallback"].split()[2] == "SHARE"


def test_help_groups_the_commands_by_what_they_are_for() -> None:
    from typer.testing import CliRunner

    from ragjury.cli import PANELS, app

    shown = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "100"}).output
    positions = [shown.index(panel) for panel in PANELS]
    assert positions == sorted(positions)  # one item, a batch, trust, set-up: in that order
    assert sorted(name for names in PANELS.values() for name in names) == sorted(
        info.name for info in app.registered_commands + app.registered_groups)


def test_a_command_runs_in_an_app_holding_only_it() -> None:
    """``ragjury COMMAND`` builds only that command's options (typer converts every registered
    signature before parsing); no command, an option or an unknown name get the whole app."""
    from ragjury.cli import app_for

    only = app_for(["evaluate", "--help"])
    assert [info.name for info in only.registered_commands] == ["evaluate"] and not only.registered_groups
    assert [info.name for info in app_for(["verdict", "goal"]).registered_groups] == ["verdict"]
    assert app_for([]) is app and app_for(["--version"]) is app and app_for(["evaluat"]) is app
    assert len(app.registered_commands) > 1  # the whole app is untouched
    whole = CliRunner().invoke(app, ["evaluate", "--help"], env={"COLUMNS": "100"}).stdout
    assert CliRunner().invoke(only, ["evaluate", "--help"], env={"COLUMNS": "100"}).stdout == whole
