"""Options several commands share are declared once (``commands._options.OptionSet``): the model
connection in ``MODEL_CONNECTION``, the verdict subcommands' block in ``VERDICT_OPTIONS``, the run
options as the fields of ``RunOptions`` (``RUN_OPTIONS``)."""

from __future__ import annotations

import inspect
import re
import types
from dataclasses import FrozenInstanceError, dataclass, fields
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.commands._common import MODEL_CONNECTION, RUN_OPTIONS, RunOptions
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


RUN_OPTION_DECLARED = re.compile(r'typer\.Option\(\s*"--(cache|no-cache|no-retry-unscored|concurrency|no-progress|dry-run|trace)"')


def test_the_run_options_are_declared_once_as_the_fields_of_run_options() -> None:
    """``RUN_OPTIONS`` is ``RunOptions``'s fields, in order; no command declares a run option itself."""
    assert RUN_OPTIONS.names == tuple(field.name for field in fields(RunOptions))
    declared = {path.name: len(RUN_OPTION_DECLARED.findall(path.read_text())) for path in COMMANDS.glob("*.py")}
    assert {name: n for name, n in declared.items() if n} == {"_common.py": 7}
    with pytest.raises(FrozenInstanceError):
        RunOptions().concurrency = 2  # type: ignore[misc]


@pytest.mark.parametrize("command", [["evaluate"], ["relevance"], ["calibrate"]], ids=" ".join)
def test_every_judging_run_takes_the_run_set(command: list[str]) -> None:
    shown = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "200"}).stdout
    for option in ("--cache", "--no-cache", "--concurrency", "--json", "--no-progress", "--dry-run", "--trace"):
        assert option in shown, (command, option)


def test_a_run_option_added_is_one_field_and_reaches_run_options_in_the_evaluate_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a new run option costs: one field of ``RunOptions`` (here of a toy subclass); ``evaluate``
    gathers it with the others into the one ``RunOptions`` its dataset path receives."""
    import ragjury.commands.evaluate as evaluate_module

    @dataclass(frozen=True)
    class ToyRunOptions(RunOptions):
        deadline: Annotated[float | None, typer.Option("--deadline", rich_help_panel="Run")] = None

    assert OptionSet.of(ToyRunOptions).names == (*RUN_OPTIONS.names, "deadline")
    real = inspect.unwrap(evaluate_module.evaluate)  # the command as typer sees it: the sets already taken
    command = types.FunctionType(real.__code__, real.__globals__, "evaluate", real.__defaults__, real.__closure__)
    command.__kwdefaults__ = real.__kwdefaults__
    command.__signature__ = real.__signature__  # type: ignore[attr-defined]
    OptionSet.of(ToyRunOptions, leave_out=RUN_OPTIONS.names)(command)  # the toy field, as the real ones were added
    received: list[Any] = []
    monkeypatch.setattr(evaluate_module, "RunOptions", ToyRunOptions)
    monkeypatch.setattr(evaluate_module, "prepare_dataset_run", lambda **given: received.append(given["run"]))
    toy = typer.Typer()
    toy.command("evaluate")(command)
    toy.command("other")(lambda: None)  # a group: the command is named on the command line as the real one is
    data = tmp_path / "d.jsonl"
    data.write_text('{"question": "q", "answer": "a", "reference": "a"}\n')

    done = CliRunner().invoke(toy, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data),
                                    "--no-cache", "-j", "3", "--json", "--deadline", "2.5"])
    assert done.exit_code == 0, done.output
    (run,) = received
    assert isinstance(run, ToyRunOptions) and run.deadline == 2.5
    assert (run.concurrency, run.json_output, run.no_cache, run.progress, run.dry_run) == (3, True, True, True, False)
