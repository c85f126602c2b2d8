"""``ragjury judges``: the catalogue as users see it, read without importing any judge."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.rag_agent.commands.judges import catalogue_rows

runner = CliRunner()


def test_every_task_lists_its_judges_and_auto_where_it_has_a_default() -> None:
    rows = catalogue_rows()
    by_task: dict[str, list[str]] = {}
    for row in rows:
        by_task.setdefault(str(row["task"]), []).append(str(row["name"]))
    assert by_task["correctness"] == ["contains", "semantic", "token-overlap", "llm", "auto"]
    assert "auto" not in by_task["relevance"]  # relevance has no default judge
    auto = next(r for r in rows if r["task"] == "correctness" and r["name"] == "auto")
    assert auto["fallback"] == "contains" and auto["model"] is True
    graded = next(r for r in rows if r["task"] == "relevance" and r["name"] == "llm-graded")
    assert graded["scale"] == "graded" and graded["model"] is True


def test_json_and_an_unknown_task() -> None:
    result = runner.invoke(app, ["judges", "--task", "faithfulness", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["command"] == "judges"
    assert [r["name"] for r in payload["judges"]] == ["stack", "support", "token-overlap", "llm-attribution", "llm", "auto"]
    bad = runner.invoke(app, ["judges", "--task", "summaries"])
    assert bad.exit_code == 2 and "valid tasks: relevance, correctness" in bad.stderr


def test_listing_imports_no_judge_module() -> None:
    code = (
        "import sys\n"
        "from ragjury.rag_agent.commands.judges import catalogue_rows\n"
        "assert len(catalogue_rows()) > 10\n"
        "loaded = [m for m in sys.modules if m.startswith(('ragjury.rag_agent.judges.llm', "
        "'ragjury.rag_agent.judges.model_free', 'pydantic_ai'))]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
