"""What you type is what you read: the question is the first argument or ``-q`` in both one-item
commands, ``-n`` is ``--limit`` wherever it exists (``--samples`` is ``-s``), and the judge is
named as the user named it."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

runner = CliRunner()

VERDICT = ["verdict", "correctness", "-a", "Marie Curie, in 1903.", "-r", "Marie Curie", "--judge", "contains",
           "--json"]
SCORE = ["judge-evaluate", "--answer", "RAG combines retrieval with generation.", "--judge", "heuristic",
         "--json"]


@pytest.mark.parametrize("how", ["argument", "option"])
def test_verdict_takes_the_question_either_way(how: str) -> None:
    question = ["Who won the 1903 prize?"] if how == "argument" else ["-q", "Who won the 1903 prize?"]
    result = runner.invoke(app, [*VERDICT[:2], *question, *VERDICT[2:]])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["label"] is True


@pytest.mark.parametrize("how", ["argument", "option"])
def test_judge_evaluate_takes_the_question_either_way(how: str) -> None:
    question = ["What is RAG?"] if how == "argument" else ["-q", "What is RAG?"]
    result = runner.invoke(app, [SCORE[0], *question, *SCORE[1:]])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["task"] == "score"


@pytest.mark.parametrize("command", [VERDICT, SCORE], ids=["verdict", "judge-evaluate"])
def test_two_different_questions_are_one_line_and_exit_2(command: list[str]) -> None:
    head = command[:2] if command is VERDICT else command[:1]
    tail = command[2:] if command is VERDICT else command[1:]
    result = runner.invoke(app, [*head, "first?", "-q", "second?", *tail])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: give the question once: as the first argument or with --question/-q, not both"
    ]


def test_judge_evaluate_without_a_question_says_how_to_give_it() -> None:
    result = runner.invoke(app, SCORE)
    assert result.exit_code == 2 and "first argument or with --question/-q" in result.stderr


def test_n_is_limit_and_samples_is_s() -> None:
    evaluate = runner.invoke(app, ["evaluate", "--help"], env={"COLUMNS": "200"}).stdout
    verdict = runner.invoke(app, ["verdict", "correctness", "--help"], env={"COLUMNS": "200"}).stdout
    assert any("--limit" in line and " -n " in line for line in evaluate.splitlines())
    samples = [line for line in verdict.splitlines() if "--samples" in line]
    assert samples and " -s " in samples[0] and " -n " not in verdict
    result = runner.invoke(app, [*VERDICT[:2], "-q", "Who?", *VERDICT[2:], "-s", "3"])
    assert result.exit_code == 0, result.output


DATA = __import__("pathlib").Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"


@pytest.mark.parametrize(("task", "judge", "identity"), [
    ("correctness", "token-overlap", "token_overlap[correctness]"),
    ("correctness", "contains", "contains"),
])
def test_evaluate_names_the_judge_as_typed(task: str, judge: str, identity: str, offline_cli) -> None:  # noqa: ANN001
    result = runner.invoke(app, ["evaluate", "--task", task, "--judge", judge, "--data", str(DATA), "--limit", "6",
                                 "--no-progress", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["judge"] == judge and payload["judges"] == {judge: 6}
    assert payload["verdicts_by"].startswith(f"{judge} for 100")
    human = runner.invoke(app, ["evaluate", "--task", task, "--judge", judge, "--data", str(DATA), "--limit", "6",
                                "--no-progress"], env={"COLUMNS": "200"})
    assert f"verdicts by: {judge} for 100" in human.stdout
    assert identity == judge or identity not in human.stdout


def test_the_score_fallback_is_named_heuristic(offline_cli) -> None:  # noqa: ANN001
    result = runner.invoke(app, ["judge-evaluate", "What is RAG?", "--answer", "Retrieval plus generation.",
                                 "--json"])
    payload = json.loads(result.stdout)
    assert payload["fallback_used"] is True and payload["judge"] == "heuristic"
    assert payload["judges"] == {"heuristic": 1} and payload["fallback"]["judge"] == "heuristic"


def test_the_llm_judge_is_named_llm_with_its_prompt_as_detail() -> None:
    from ragjury.evals.results.sources import VerdictSources
    from ragjury.rag_agent.core.results import Judgment
    from ragjury.rag_agent.judges.catalogue import typed_names
    from ragjury.rag_agent.judges.llm.correctness import Verdict

    judgments = [Judgment(value=Verdict(verdict=True, reason="r"), judge="answer_correctness", model="qwen",
                          prompt_version="answer_correctness@1.2")] * 3
    sources = VerdictSources.of(judgments, names=typed_names("correctness", ["answer_correctness"]))
    assert sources.judges == {"llm": 3}
    assert sources.describe() == "llm (model qwen, prompt answer_correctness@1.2) for 100 %"


def test_binary_alpha_says_it_is_binary(offline_cli) -> None:  # noqa: ANN001
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                                 "--no-progress", "--json", "--fail-under", "binary_alpha=0.1"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)["figures"]
    assert "binary_krippendorff_alpha" in figures and "krippendorff_alpha" not in figures


def test_a_report_of_a_and_b_is_not_titled_a_a(tmp_path) -> None:  # noqa: ANN001
    from ragjury.evals.report.run_report import run_label

    assert run_label("A", "A") == "A" and run_label("B", "b") == "B: b" and run_label("A", "contains") == "A: contains"
    for name in ("A", "B"):
        made = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                                   "--out", str(tmp_path / f"{name}.jsonl"), "--no-cache", "--no-progress", "--json"])
        assert made.exit_code == 0, made.output
    shown = runner.invoke(app, ["report", str(tmp_path / "A.jsonl"), str(tmp_path / "B.jsonl"), "--html",
                                str(tmp_path / "r.html")], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "A: A" not in shown.stdout and "A: A" not in page and "A (" in shown.stdout


def test_a_verdict_from_the_fallback_says_why_in_one_line_with_the_fix(offline_cli) -> None:  # noqa: ANN001
    result = runner.invoke(app, ["verdict", "correctness", "Who?", "-a", "Marie Curie", "-r", "Marie Curie"],
                           env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("fallback: the model-free judge answered: model server "
                                                   "unreachable at http://127.0.0.1:9/v1")
    assert "start your server" in lines[0] and "judged by contains" in result.stdout


def test_judge_evaluate_llm_with_a_dead_server_says_the_cause_and_the_fix(offline_cli) -> None:  # noqa: ANN001
    result = runner.invoke(app, ["judge-evaluate", "What is RAG?", "--answer", "Retrieval plus generation.",
                                 "--judge", "llm"], env={"COLUMNS": "80"})
    assert result.exit_code == 3, result.output
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("unscored by llm (phi3:mini): model server unreachable at ")
    assert lines[0].endswith("or check --base-url (it should end in /v1)")


def test_a_retired_name_does_not_come_back() -> None:
    """One word per idea (issue #30, docs/glossary.md): a retired class name, or "deterministic"
    meaning "no model" (the retired ``--judge deterministic`` included), appears nowhere in code or docs but
    the glossary, the deprecated aliases in ``ragjury/__init__.py``, the cache's frozen table of
    old rows, pydantic-evals' own ``Evaluator`` (its adapter, and lines that name pydantic-evals)
    and the lines of tests that prove a retired spelling still works (they say "retired")."""
    import re
    import subprocess
    from pathlib import Path

    import ragjury

    root = Path(ragjury.__file__).resolve().parent
    # retired names: begin (not public, so not aliased in ragjury._RETIRED)
    internal = ["LLMVerdictJudge", "EvaluatorFunction", "FunctionEvaluator", "TaskEvaluatorJudge"]
    # retired names: end
    old_names = [name for name in ragjury._RETIRED if name[0].isupper()] + internal
    pattern = re.compile(r"\b(" + "|".join(old_names) + r")\b|\bdeterministic (judges?|fallbacks?)\b|"
                         r"\bLLM or deterministic\b|--judge(-mode)?[\"', ]+deterministic\b")
    allowed = {"docs/glossary.md", "evals/runs/cache_codec.py", "evals/adapters/pydantic_evals.py"}
    aliases = re.compile(r"retired names: begin.*?retired names: end", re.S)
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "*.py", "*.md", "*.toml"],
                            capture_output=True, text=True, check=True).stdout.split()
    found = []
    for rel in listed:
        if rel in allowed or not (root / rel).is_file():
            continue
        text = aliases.sub("", (root / rel).read_text(encoding="utf-8"))
        for number, line in enumerate(text.splitlines(), 1):
            if pattern.search(line) and not any(other in line for other in ("pydantic-evals", "pydantic_evals", "from evret",
                                                                            "retired")):
                found.append(f"{rel}:{number}: {line.strip()}")
    assert not found, "retired names (see docs/glossary.md):\n" + "\n".join(found)
