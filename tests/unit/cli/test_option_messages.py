"""Messages that name the option and read as words (issue 27, item 16)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
runner = CliRunner()


def test_a_negative_seed_names_the_option(tmp_path: Path) -> None:
    result = runner.invoke(app, ["label-plan", str(DATA), "--seed", "-1", "--budget", "5", "--out", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 2 and "--seed" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_plug_in_that_builds_no_judge_says_what_a_judge_has(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "not_a_judge.py").write_text("def Factory(settings=None, **opts):\n    return object()\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "not_a_judge", raising=False)
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--data", str(DATA), "--no-cache", "--no-progress",
                                 "--judge", "python:not_a_judge:Factory"])
    assert result.exit_code == 2, result.output
    assert "'identity' attribute and 'ajudge()' method" in result.output


def test_evaluate_json_names_the_executor_in_process_mode() -> None:
    """The contract lists ``executor``; it was missing unless --executor ray."""
    import json

    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                                 "--no-cache", "--no-progress", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["executor"] == "process"
