"""The judge catalogue: a judge is its class file (with ``@judge_entry``) and its prompt.

The examples of ``docs/extending.md`` are the catalogue's promise, checked end to end: in a copy
of the package, each example file is dropped into its judge package -- nothing else changes --
and the judge is then listed by ``ragjury judges`` and usable from ``ragjury evaluate --judge``
and the Python API, the LLM one talking to a real (local, recording) HTTP server.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from package_copy import package_with, run_cli, run_python
from recording_server import recording_server

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.judges import catalogue

ROOT = Path(__file__).resolve().parents[4]
EXAMPLES = ROOT / "docs" / "examples" / "judges"
EXAMPLE_HOMES = {"exact_match.py": "model_free", "yes_no_correctness.py": "llm"}
"""Each example judge and the judge package it is dropped into."""


@pytest.fixture(scope="module")
def package_with_the_examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the ``ragjury`` package with exactly one change per example: its one file."""
    drops = {EXAMPLES / example: f"rag_agent/judges/{home}" for example, home in EXAMPLE_HOMES.items()}
    return package_with(tmp_path_factory.mktemp("site"), drops)


def test_every_example_judge_is_placed_and_shown_in_the_docs() -> None:
    assert sorted(path.name for path in EXAMPLES.glob("*.py")) == sorted(EXAMPLE_HOMES)
    page = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
    for example in EXAMPLE_HOMES:
        assert f"examples/judges/{example}" in page


def test_the_llm_verdict_example_writes_at_most_five_lines_of_judge() -> None:
    """The verdict template lives once (``ModelVerdictJudge._judge``): the example inherits it or
    adds at most five lines."""
    tree = ast.parse((EXAMPLES / "yes_no_correctness.py").read_text(encoding="utf-8"))
    (judge,) = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    own = [node for node in judge.body if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef) and node.name == "_judge"]
    assert all(node.end_lineno - node.lineno <= 5 for node in own)  # type: ignore[operator]


def test_the_model_free_example_is_listed_and_scores(package_with_the_examples: Path, tmp_path: Path) -> None:
    site = package_with_the_examples
    nowhere = "http://127.0.0.1:9/v1"  # a model-free judge never calls it
    listed = run_cli(site, "judges", "--task", "correctness", "--json", base_url=nowhere, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr[-3000:]
    rows = {row["name"]: row for row in json.loads(listed.stdout)["judges"]}
    assert rows["exact-match"]["model"] is False and rows["yes-no"]["model"] is True
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in (
        {"question": "Capital of France?", "answer": "Paris.", "references": ["paris"], "label": True},
        {"question": "Capital of France?", "answer": "It was Paris.", "references": ["Paris"], "label": True},
    )))
    ran = run_cli(site, "evaluate", "--task", "correctness", "--judge", "exact-match", "--data", str(data),
                  "--json", "--no-progress", "--no-cache", base_url=nowhere, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr[-3000:]
    payload = json.loads(ran.stdout)
    assert (payload["judges"], payload["scored"], payload["requests"]) == ({"exact-match": 2}, 2, 0)
    assert payload["figures"]["mean_label"] == 0.5  # "It was Paris." is no exact match


def test_the_llm_verdict_example_judges_through_both_doors(package_with_the_examples: Path, tmp_path: Path) -> None:
    site = package_with_the_examples
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"question": "q?", "answer": "a toy answer", "references": ["toy"]}) + "\n")
    with recording_server(content='{"reason": "it names the reference", "verdict": "1"}') as server:
        python_api = run_python(site, (
            "import sys, ragjury\n"
            "from ragjury.rag_agent.judges.catalogue import declared, judge_names\n"
            "assert ragjury.__file__.startswith(sys.argv[1]), ragjury.__file__\n"
            "assert 'yes-no' in judge_names('correctness'), judge_names('correctness')\n"
            "judge = ragjury.build_judge('correctness', 'yes-no')\n"
            "item = ragjury.CorrectnessItem(question='q?', answer='a toy answer', references=['toy'])\n"
            "judgment = judge.judge_sync(item)\n"
            "print(judgment.prompt_version, judgment.value.verdict, judgment.value.reason)\n"
        ), str(site), base_url=server.base_url, cwd=tmp_path)
        assert python_api.returncode == 0, python_api.stderr[-3000:]
        assert python_api.stdout.split() == ["yes_no_correctness@1.0", "True", "it", "names", "the", "reference"]

        cli = run_cli(site, "evaluate", "--task", "correctness", "--judge", "yes-no", "--data", str(data),
                      "--json", "--no-progress", base_url=server.base_url, cwd=tmp_path)
        assert cli.returncode == 0, cli.stderr[-3000:]
        payload = json.loads(cli.stdout)
        assert (payload["judge"], payload["judges"], payload["scored"]) == ("yes-no", {"yes-no": 1}, 1)
        assert payload["figures"]["mean_label"] == 1.0
        helped = run_cli(site, "evaluate", "--help", base_url=server.base_url, cwd=tmp_path)
        assert " yes-no," in " ".join(helped.stdout.replace("│", " ").split()), helped.stdout  # --judge help lists it
        system_prompts = [
            message["content"]
            for request in server.chat_requests
            for message in (request.body or {}).get("messages", [])
            if message.get("role") == "system"
        ]
        # both doors sent the example's own prompt to the server
        assert len(system_prompts) >= 2 and all(p.startswith("Does the evaluated answer") for p in system_prompts)


def test_declarations_are_read_from_source_and_match_the_decorators() -> None:
    declared = catalogue.declared()
    assert declared[("correctness", "contains")].module == "ragjury.rag_agent.judges.model_free.contains"
    assert declared[("correctness", "llm-guarded")].default and not declared[("correctness", "contains")].default
    assert not declared[("correctness", "llm")].default
    for (task, name), declaration in declared.items():
        entry = catalogue.entry(task, name)  # importing the module ran the decorator
        assert entry.module == declaration.module and entry.description == declaration.description
        assert entry.default == declaration.default
        if entry.fallback is not None:
            assert (task, entry.fallback) in declared and not catalogue.entry(task, entry.fallback).uses_model


def test_auto_is_the_default_judge_with_its_fallback_of_the_same_value_type() -> None:
    settings = RagjurySettings(base_url="http://127.0.0.1:9/v1")
    auto = catalogue.build_judge("correctness", "auto", settings)
    assert auto.identity.name == "answer_correctness_guarded|fallback:contains"
    fallback = catalogue.fallback_of("correctness", "llm-guarded", settings)
    assert type(fallback).__name__ == "BoolAsVerdict"  # a bool seen as a Verdict: one value type
    assert catalogue.build_judge("faithfulness", "auto", settings).identity.name == "faithfulness|fallback:support"
    assert type(catalogue.fallback_of("faithfulness", "llm", settings)).__name__ == "SupportAsFaithfulness"
    with pytest.raises(catalogue.UnknownJudgeError, match="unknown judge 'auto' for task relevance"):
        catalogue.build_judge("relevance", "auto", settings)  # no default judge: no auto


def test_declarations_are_read_from_decorator_lines_only() -> None:
    source = (
        '"""Docs may show `@judge_entry("correctness", "z", "not a declaration")`."""\n'
        '@judge_entry("correctness", "x", "one (with a paren) and \\"quotes\\"")\nclass A: ...\n'
        '@judge_entry(\n    "correctness",\n    "y",\n    "two",\n    default=True,\n)\nclass B: ...\n'
    )
    found = list(catalogue._declarations(source, "pkg.mod"))
    assert [(key, d.description, d.default) for key, d in found] == [
        (("correctness", "x"), 'one (with a paren) and "quotes"', False),
        (("correctness", "y"), "two", True),
    ]


def test_faithfulness_auto_falls_back_to_support_with_the_primary_value_type() -> None:
    from ragjury.rag_agent.core.items import FaithfulnessItem
    from ragjury.rag_agent.judges.llm.faithfulness import FaithfulnessResult

    settings = RagjurySettings(base_url="http://127.0.0.1:9/v1")
    fallback = catalogue.fallback_of("faithfulness", "llm", settings)
    item = FaithfulnessItem(answer="Paris is the capital of France.", contexts=["Paris is the capital of France."])
    judgment = fallback.judge_sync(item)
    assert isinstance(judgment.value, FaithfulnessResult) and judgment.value.label is True
    assert judgment.value.statements == [] and 0 < judgment.value.threshold < 1
