"""A task is one declaration: its item class with ``@task_entry``, plus its judges.

The example of ``docs/extending.md`` is the promise, checked end to end: in a copy of the
package, the task's file is dropped into ``rag_agent/tasks/`` and its judge's file into
``rag_agent/judges/model_free/`` -- nothing else changes -- and ``ragjury judges`` lists the task,
``ragjury evaluate --task conciseness`` reads its rows and measures agreement with the labels.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from package_copy import ROOT, package_with, run_cli, run_python

from ragjury.evals.io.tasks import FIELD_COLUMNS, TASK_SPECS
from ragjury.evals.stats.run_result import VERDICT_WORDS
from ragjury.rag_agent.core import items
from ragjury.rag_agent.core.source_declarations import literal_calls
from ragjury.rag_agent.tasks import catalogue

EXAMPLES = ROOT / "docs" / "examples" / "tasks"
EXAMPLE_HOMES = {"conciseness.py": "rag_agent/tasks", "word_limit.py": "rag_agent/judges/model_free"}
"""The example task's files and the folder each is dropped into."""
NOWHERE = "http://127.0.0.1:9/v1"  # a model-free judge never calls it


@pytest.fixture(scope="module")
def package_with_the_task(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the ``ragjury`` package with the example task's two files and no other change."""
    return package_with(tmp_path_factory.mktemp("site"), {EXAMPLES / name: home for name, home in EXAMPLE_HOMES.items()})


def test_every_example_file_is_placed_and_shown_in_the_docs() -> None:
    assert sorted(path.name for path in EXAMPLES.glob("*.py")) == sorted(EXAMPLE_HOMES)
    page = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
    for example in EXAMPLE_HOMES:
        assert f"examples/tasks/{example}" in page


def test_the_built_in_tasks_are_declared_on_their_item_classes() -> None:
    declared = catalogue.declared()
    assert list(declared) == ["relevance", "correctness", "faithfulness", "score", "goal"]
    assert catalogue.dataset_tasks() == ["correctness", "faithfulness", "score"] == list(TASK_SPECS)
    assert VERDICT_WORDS == {"relevance": "relevant", "correctness": "correct", "faithfulness": "faithful"}
    for name, declaration in declared.items():
        entry = catalogue.entry(name)  # importing the module ran the decorator: it says the same
        assert entry.item.__module__ == declaration.module
        assert (entry.gold, entry.verdict_word, entry.dataset) == (declaration.gold, declaration.verdict_word,
                                                                    declaration.dataset)
    assert catalogue.entry("correctness").item is items.CorrectnessItem


def test_a_task_spec_derives_from_its_item_class_and_the_column_table() -> None:
    correctness, faithfulness, score = (TASK_SPECS[name] for name in ("correctness", "faithfulness", "score"))
    assert correctness.columns == {name: FIELD_COLUMNS[name] for name in ("question", "answer", "references")}
    assert (correctness.required, correctness.gold_kind, correctness.output_key) == (
        ("question", "answer", "references"), "binary", "label")
    assert (faithfulness.required, faithfulness.list_fields) == (("answer", "contexts"), ("contexts",))
    assert list(faithfulness.columns) == ["answer", "contexts", "question"]  # the item's field order
    assert (score.required, score.gold_kind, score.output_key) == (("question", "answer"), "score", "score")
    assert score.list_fields == ("sources", "sources_used")


def test_task_declarations_are_read_from_decorator_lines_with_literal_arguments() -> None:
    source = (
        '"""Docs may show `@task_entry("not-a-task")`."""\n'
        '@task_entry("short", verdict_word="concise", dataset=False)\nclass A: ...\n'
        '@task_entry(\n    "graded",\n    gold="score",  # a comment (with a paren)\n    verdict_word=WORD,\n)\nclass B: ...\n'
    )
    found = list(literal_calls(source, "task_entry"))
    assert found == [
        (["short"], {"verdict_word": "concise", "dataset": False}),
        (["graded"], {"gold": "score"}),  # a name is no literal: left out
    ]


def test_a_new_task_is_its_file_and_its_judge(package_with_the_task: Path, tmp_path: Path) -> None:
    site = package_with_the_task
    listed = run_cli(site, "judges", "--task", "conciseness", "--json", base_url=NOWHERE, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr[-3000:]
    assert [(row["task"], row["name"], row["model"]) for row in json.loads(listed.stdout)["judges"]] == [
        ("conciseness", "word-limit", False)]

    long = " ".join(["word"] * 31)
    data = tmp_path / "tiny.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in (
        {"id": "a", "question": "Capital of France?", "answer": "Paris.", "label": True},
        {"id": "b", "question": "Capital of France?", "answer": long, "label": False},
        {"id": "c", "question": "Capital of Italy?", "response": "Rome, since 1871.", "label": "no"},
        {"id": "d", "question": "Capital of Italy?", "answer": long, "label": False},
    )))
    ran = run_cli(site, "evaluate", "--task", "conciseness", "--judge", "word-limit", "--data", str(data),
                  "--json", "--no-progress", "--no-cache", "--out", str(tmp_path / "preds.jsonl"),
                  base_url=NOWHERE, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr[-3000:]
    payload = json.loads(ran.stdout)
    assert (payload["task"], payload["judges"], payload["scored"], payload["labelled"]) == (
        "conciseness", {"word-limit": 4}, 4, 4)
    assert payload["figures"]["accuracy"] == 0.75 and payload["figures"]["recall"] == 1.0  # c is short, not concise
    preds = [json.loads(line) for line in (tmp_path / "preds.jsonl").read_text().splitlines()]
    assert [(p["id"], p["label"], p["gold"]) for p in preds] == [
        ("a", True, True), ("b", False, False), ("c", True, False), ("d", False, False)]

    shown = run_cli(site, "report", str(tmp_path / "preds.jsonl"), base_url=NOWHERE, cwd=tmp_path)
    assert shown.returncode == 0 and "judged concise: 50.0 %" in shown.stdout, shown.stdout + shown.stderr
    no_judge = run_cli(site, "evaluate", "--task", "conciseness", "--data", str(data), base_url=NOWHERE, cwd=tmp_path)
    assert no_judge.returncode == 2 and "give --judge (word-limit)" in no_judge.stderr, no_judge.stderr


def test_help_offers_the_new_task_without_importing_it(package_with_the_task: Path, tmp_path: Path) -> None:
    helped = run_cli(site := package_with_the_task, "evaluate", "--help", base_url=NOWHERE, cwd=tmp_path)
    text = " ".join(helped.stdout.replace("│", " ").split())
    assert "What the judge decides: correctness, faithfulness, score or conciseness." in text, text
    assert "conciseness: word-limit;" in text  # --judge help
    imports = run_python(site, (
        "import sys\n"
        "from ragjury.commands.evaluate import DEFAULT_JUDGES, Task\n"
        "assert [task.value for task in Task] == ['correctness', 'faithfulness', 'score', 'conciseness']\n"
        "assert 'conciseness' not in DEFAULT_JUDGES, DEFAULT_JUDGES  # no judge of it is default=True\n"
        "loaded = [m for m in sys.modules if m.startswith(('pydantic', 'ragjury.rag_agent.tasks.conciseness', "
        "'ragjury.rag_agent.core.items'))]\n"
        "assert not loaded, loaded\n"
    ), base_url=NOWHERE, cwd=tmp_path)
    assert imports.returncode == 0, imports.stderr[-3000:]
