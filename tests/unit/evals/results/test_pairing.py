"""Two runs pair on text that may arrive in either Unicode form (issue #54 item 29): ``report A B``
(ids, with the question as a check) and ``label-plan A B`` / ``estimate A B`` (``joined_run``: the
question) both compare in NFC, and a row that still does not pair is counted, never dropped."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.evals.io.joined_runs import joined_run, question_key, shared_questions
from ragjury.evals.io.predictions import load_predictions
from ragjury.evals.results.comparison import match_rows

runner = CliRunner()
QUESTIONS = [f"Où est née Amélie Poulain, {i}?" for i in range(40)]


def run_file(path: Path, questions: list[str], ids: list[str] | None = None) -> Path:
    ids = ids or [f"q{i}" for i in range(len(questions))]
    path.write_text("".join(json.dumps({"id": ident, "label": i % 2 == 0, "judge": "contains", "task": "correctness",
                                        "item": {"question": q, "answer": f"answer {i}", "references": ["x"]}}) + "\n"
                            for i, (ident, q) in enumerate(zip(ids, questions, strict=True))))
    return path


def nfd(texts: list[str]) -> list[str]:
    return [unicodedata.normalize("NFD", text) for text in texts]


def test_the_question_key_of_label_plan_and_estimate_is_nfc(tmp_path: Path) -> None:
    a = load_predictions(run_file(tmp_path / "a.jsonl", QUESTIONS))
    b = load_predictions(run_file(tmp_path / "b.jsonl", nfd(QUESTIONS)))
    assert QUESTIONS[0] != nfd(QUESTIONS)[0]
    assert question_key(a.records[0]) == question_key(b.records[0])
    run, names = joined_run([a, b])
    both, alone = shared_questions(run, names)
    assert len(both) == 40 and alone == {names[0]: 0, names[1]: 0}


def test_report_pairs_nfd_ids_and_questions_and_names_what_still_differs(tmp_path: Path) -> None:
    ids = [f"é{i}" for i in range(40)]
    a = load_predictions(run_file(tmp_path / "a.jsonl", QUESTIONS, ids))
    b = load_predictions(run_file(tmp_path / "b.jsonl", nfd(QUESTIONS), nfd(ids)))
    matching = match_rows(a, b)
    assert len(matching.pairs) == 40 and not matching.lines()
    other = QUESTIONS[:30] + [f"Another question {i}?" for i in range(10)]
    c = load_predictions(run_file(tmp_path / "c.jsonl", other, ids))
    assert match_rows(a, c).different_question.count == 10


def test_label_plan_of_two_runs_pairs_nfd_questions(tmp_path: Path) -> None:
    """``label-plan A B`` drew a question twice (once per form) as two unpaired questions."""
    a = run_file(tmp_path / "a.jsonl", QUESTIONS)
    b = run_file(tmp_path / "b.jsonl", nfd(QUESTIONS))
    out = tmp_path / "plan.jsonl"
    result = runner.invoke(app, ["label-plan", str(a), str(b), "--budget", "10", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    questions = {unicodedata.normalize("NFC", (row.get("item") or row).get("question", "")) for row in rows}
    assert len(rows) == 2 * len(questions), rows[:2]  # each question drawn for both configs, paired
