"""``ragjury judges``: the catalogue as users see it, read without importing any judge."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.commands.judges import catalogue_rows
from ragjury.rag_agent.judges.catalogue import judge_names, tasks

runner = CliRunner()


def test_every_task_lists_its_judges_and_auto_where_it_has_a_default() -> None:
    rows = catalogue_rows()
    by_task: dict[str, list[str]] = {}
    for row in rows:
        by_task.setdefault(str(row["task"]), []).append(str(row["name"]))
    assert by_task == {task: judge_names(task) for task in tasks()}  # the catalogue's names, in its order
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
    assert [r["name"] for r in payload["judges"]] == judge_names("faithfulness")
    bad = runner.invoke(app, ["judges", "--task", "summaries"])
    assert bad.exit_code == 2 and "valid tasks: relevance, correctness" in bad.stderr


def test_listing_imports_no_judge_module() -> None:
    code = (
        "import sys\n"
        "from ragjury.commands.judges import catalogue_rows\n"
        "assert len(catalogue_rows()) > 10\n"
        "loaded = [m for m in sys.modules if m.startswith(('ragjury.rag_agent.judges.llm', "
        "'ragjury.rag_agent.judges.model_free', 'pydantic_ai'))]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_listing_fits_80_columns_with_every_word_whole() -> None:
    result = runner.invoke(app, ["judges"], env={"COLUMNS": "80"}, terminal_width=80)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    words = {word.strip(",;") for word in result.stdout.split()}
    for row in catalogue_rows():
        for word in f"{row['name']} {row['description']}".split():
            assert word.strip(",;") in words, (word, row["name"])  # a word cut in two would be missing


def test_semantic_is_listed_as_needing_an_embedding_model() -> None:
    semantic = next(r for r in catalogue_rows() if r["task"] == "correctness" and r["name"] == "semantic")
    assert semantic["model"] is True and semantic["model_kind"] == "embeddings"
    contains = next(r for r in catalogue_rows() if r["name"] == "contains")
    assert contains["model"] is False and contains["model_kind"] is None
    listing = runner.invoke(app, ["judges", "--task", "correctness"], env={"COLUMNS": "80"}).stdout
    assert any(line.split()[:3] == ["semantic", "binary", "embeddings"] for line in listing.splitlines() if line.strip())


def test_semantic_without_the_extra_says_how_to_install_it(offline_cli, monkeypatch, tmp_path) -> None:  # noqa: ANN001
    from ragjury.rag_agent.judges.model_free import embedders

    monkeypatch.setattr(embedders, "packaged_minilm_path", lambda cache_dir=None: None)  # as without the extra
    data = tmp_path / "data.jsonl"
    data.write_text('{"question": "q", "answer": "Paris", "references": ["Paris"]}\n')
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "semantic", "--data", str(data),
                                 "--no-progress"], env={"COLUMNS": "80"})
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --judge semantic: needs an embedding model")
    assert 'pip install -e ".[embeddings]"' in lines[0] and result.stdout == ""
