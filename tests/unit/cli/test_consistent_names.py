"""What you type is what you read: the question is the first argument or ``-q`` in both one-item
commands, ``-n`` is ``--limit`` wherever it exists (``--samples`` is ``-s``), and the judge is
named as the user named it."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

runner = CliRunner()

VERDICT = ["verdict", "correctness", "-a", "Marie Curie, in 1903.", "-r", "Marie Curie", "--judge", "deterministic",
           "--json"]
SCORE = ["judge-evaluate", "--answer", "RAG combines retrieval with generation.", "--judge", "deterministic",
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
