"""Options several commands share are declared once (``commands._options.OptionSet``): the model
connection in ``MODEL_CONNECTION``, the verdict subcommands' block in ``VERDICT_OPTIONS``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.commands._common import MODEL_CONNECTION
from ragjury.commands._options import OptionSet

COMMANDS = ROOT = Path(__file__).resolve().parents[3] / "commands"
TAKING_THE_CONNECTION = [["ask"], ["evaluate"], ["calibrate"], ["fit"], ["relevance"], ["retrieval"], ["doctor"],
                         ["judge-evaluate"], ["verdict", "correctness"], ["verdict", "faithfulness"],
                         ["verdict", "relevance"], ["verdict", "goal"]]


def test_the_connection_options_are_declared_once_in_the_commands() -> None:
    declared = {path.name: len(re.findall(r'"--base-url"|"--api-key"', path.read_text())) for path in COMMANDS.glob("*.py")}
    assert {name: n for name, n in declared.items() if n} == {"_common.py": 2}
    assert not any("base_url: BaseUrlOption" in path.read_text() for path in COMMANDS.glob("*.py"))


@pytest.mark.parametrize("command", TAKING_THE_CONNECTION, ids=" ".join)
def test_every_model_command_takes_the_connection_set(command: list[str]) -> None:
    shown = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "200"}).stdout
    for option in ("--model", "--timeout", "--base-url", "--api-key"):
        assert option in shown, (command, option)


def test_an_option_added_to_a_set_reaches_every_command_that_takes_it() -> None:
    """What a new shared option costs: one line in its set, then its use (here: echoed back)."""
    toy_option = OptionSet(deadline=(Annotated[float | None, typer.Option("--deadline")], None))
    shared = MODEL_CONNECTION + toy_option
    toy = typer.Typer()
    seen: dict[str, dict[str, Any]] = {}

    for name in ("first", "second"):
        def command(data: Annotated[str, typer.Option("--data")] = "d", *, _name: str = name, **options: Any) -> None:
            seen[_name] = {"data": data, **options}

        toy.command(name)(shared(command))
    for name in ("first", "second"):
        done = CliRunner().invoke(toy, [name, "--deadline", "2.5", "--model", "m"])
        assert done.exit_code == 0, done.output
        assert seen[name]["deadline"] == 2.5 and seen[name]["model"] == "m" and seen[name]["base_url"] is None
        assert MODEL_CONNECTION.pick(seen[name]) == {"model": "m", "check_timeout": None, "base_url": None,
                                                   "api_key": None, "timeout": None}


def test_a_set_needs_the_command_to_gather_its_values_and_not_to_declare_them_again() -> None:
    def no_gatherer(model: str | None = None) -> None: ...

    def twice(model: str | None = None, **options: Any) -> None: ...

    with pytest.raises(TypeError, match="needs a \\*\\*options parameter"):
        MODEL_CONNECTION(no_gatherer)
    with pytest.raises(TypeError, match="declares model itself"):
        MODEL_CONNECTION(twice)
