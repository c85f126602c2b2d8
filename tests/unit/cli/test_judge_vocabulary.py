"""One judge vocabulary (issue 26, 3.4): ``verdict`` takes the task's judge names as ``evaluate``
does, ``auto`` is the default everywhere, and the one rule of defaults and fallback that
``ragjury judges`` states is what ``--help`` and the commands do."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.commands.evaluate import DEFAULT_JUDGES
from ragjury.rag_agent.judges.catalogue import JUDGE_RULE

runner = CliRunner()
ITEM = ["-a", "Paris has 2 million people.", "-c", "Paris has 2.1 million inhabitants."]
DOWN = "http://127.0.0.1:9/v1"  # nothing listens on the discard port


def test_verdict_faithfulness_accepts_support_like_evaluate() -> None:
    result = runner.invoke(app, ["verdict", "faithfulness", "--judge", "support", *ITEM, "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["judge"] == "support" and payload["model"] is None and payload["fallback_used"] is False


@pytest.mark.parametrize(("kind", "name", "extra"), [
    ("faithfulness", "token-overlap", ITEM),
    ("correctness", "contains", ["-q", "q", "-a", "Paris", "-r", "Paris"]),
])
def test_verdict_takes_any_model_free_name_of_the_task(kind: str, name: str, extra: list[str]) -> None:
    result = runner.invoke(app, ["verdict", kind, "--judge", name, *extra])
    assert result.exit_code == 0, result.output
    assert f"judged by {name} (no model)" in result.stdout


def test_auto_says_which_judge_answered_and_never_shows_an_empty_statement_count() -> None:
    result = runner.invoke(app, ["verdict", "faithfulness", *ITEM, "--base-url", DOWN])
    assert result.exit_code == 0, result.output
    assert "judged by support (no model)" in result.stdout and "fallback" in result.stderr
    assert "0/0 statements" not in result.stdout


def test_every_task_defaults_to_auto_and_llm_never_falls_back() -> None:
    assert set(DEFAULT_JUDGES.values()) == {"auto"}
    listing = runner.invoke(app, ["judges"], env={"COLUMNS": "200"})
    assert JUDGE_RULE in " ".join(listing.stdout.split())
    assert "falls back to" not in listing.stdout  # llm does not; auto adds the fallback
    faithfulness_help = runner.invoke(app, ["verdict", "faithfulness", "--help"], env={"COLUMNS": "200"})
    assert "No model-free equivalent" not in faithfulness_help.stdout
    assert "support" in faithfulness_help.stdout
