"""#53: TREC qrels given as people's labels are a form of the one labels type (``evals.io.people``):
read by ``read_people`` into ``People`` (grades 0-3, a yes/no task refuses them), bad rows named by
file, line and field (exit 2 in a command), and read so by the relevance trust commands (``agreement``'s
gold qrels, ``calibrate``/``fit``/``train --task relevance``'s --data), not by a reader of their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.evals.io import people as people_module
from ragjury.evals.io.loaders import load_qrels
from ragjury.evals.io.people import read_people
from ragjury.rag_agent.core.input_files import InputError

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
EXAMPLES = Path(__file__).resolve().parents[4] / "examples" / "data"
runner = CliRunner()


def test_qrels_are_read_into_the_labels_type() -> None:
    people = read_people(FIXTURES / "evals_qrels.txt", "score")
    assert people.form == "qrels" and people.kind == "score"
    assert people.qrels() == load_qrels(FIXTURES / "evals_qrels.txt")
    assert all(isinstance(label.value, float) and label.line > 0 for label in people.labels.values())


@pytest.mark.parametrize(("text", "line", "field", "words"), [
    ("q1 0 d1 2\nq1 0 d2\n", 2, "columns", "expected 4 columns"),
    ("q1 0 d1 2\n\nq1 0 d2 high\n", 3, "grade", "grade must be an integer"),
    ("q1 0 d1 4\n", 1, "grade", "grade must be 0, 1, 2 or 3"),
    ("q1 0 d1 -1\n", 1, "grade", "grade must be 0, 1, 2 or 3"),
    ("q1 0 d1 1\nq1 0 d1 2\n", 2, "docid", "duplicate judgment for query q1 document d1"),
])
def test_bad_qrels_rows_name_file_line_and_field(tmp_path: Path, text: str, line: int, field: str, words: str) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_people(qrels, "score")
    assert (caught.value.source, caught.value.line, caught.value.field) == (str(qrels), line, field)
    assert words in caught.value.message


def test_a_yes_no_task_refuses_qrels_as_it_refuses_a_grade(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 2\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_people(qrels, "binary")
    assert caught.value.line == 1 and caught.value.field == "grade" and "yes/no task" in caught.value.message


def test_estimate_of_a_yes_no_run_refuses_qrels_labels_in_one_line(tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                                 str(EXAMPLES / "config_a.jsonl"), "--out", str(preds), "--no-progress"])
    assert result.exit_code == 0, result.output
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 2\n", encoding="utf-8")
    refused = runner.invoke(app, ["estimate", str(preds), "--labels", str(qrels)], env={"COLUMNS": "250"})
    assert refused.exit_code == 2, refused.output
    assert f"{qrels}:1: field 'grade'" in refused.output and "yes/no task" in refused.output
    assert "Traceback" not in refused.output


def test_agreement_reads_the_gold_qrels_through_the_labels_type(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    gold, judged = tmp_path / "gold.qrels", tmp_path / "judged.qrels"
    gold.write_text("q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 3\nq2 0 d3 1\n", encoding="utf-8")
    judged.write_text("q1 0 d1 3\nq1 0 d2 0\nq2 0 d1 2\nq2 0 d3 0\n", encoding="utf-8")
    read: list[str] = []
    original = people_module.read_people

    def counted(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        read.append(str(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(people_module, "read_people", counted)
    result = runner.invoke(app, ["agreement", "--labels", str(gold), "--judged", str(judged), "--json"])
    assert result.exit_code == 0, result.output
    assert read == [str(gold)]
    assert json.loads(result.stdout)["mode"] == "qrels"
    gold.write_text("q1 0 d1 2\nq1 0 d2 4\n", encoding="utf-8")  # a 4 is no TREC relevance grade
    bad = runner.invoke(app, ["agreement", "--labels", str(gold), "--judged", str(judged)], env={"COLUMNS": "250"})
    assert bad.exit_code == 2, bad.output
    assert f"{gold}:2: field 'grade': grade must be 0, 1, 2 or 3" in bad.output and "Traceback" not in bad.output


def test_relevance_labels_are_qrels_read_by_the_labels_type(tmp_path: Path) -> None:
    """``calibrate``/``fit``/``train --task relevance --labels QRELS``: people's grades in place of
    --data's, for the pairs they grade (as a dataset row without a label is left out); labels rows
    (not qrels) are refused in one line; a bad grade names its file, line and field."""
    from ragjury.evals.pipelines.calibration_data import calibration_items

    topics, passages = tmp_path / "topics.jsonl", tmp_path / "passages.jsonl"
    topics.write_text('{"qid": "q1", "query": "capital of france"}\n{"qid": "q2", "query": "who wrote hamlet"}\n',
                      encoding="utf-8")
    passages.write_text('{"docid": "d1", "text": "Paris is the capital."}\n{"docid": "d2", "text": "Lyon."}\n'
                        '{"docid": "d3", "text": "Shakespeare wrote Hamlet."}\n', encoding="utf-8")
    data, labels = tmp_path / "data.qrels", tmp_path / "people.qrels"
    data.write_text("q1 0 d1 0\nq1 0 d2 0\nq2 0 d3 0\n", encoding="utf-8")
    labels.write_text("q1 0 d1 3\nq2 0 d3 2\nq9 0 d9 1\n", encoding="utf-8")
    items, grades = calibration_items("relevance", data, topics=topics, passages=passages, labels=labels)
    assert sorted(zip((item.retrieved_text for item in items), grades)) == [
        ("Paris is the capital.", 3), ("Shakespeare wrote Hamlet.", 2)]
    rows = tmp_path / "labels.jsonl"
    rows.write_text('{"id": "q1", "label": true}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="relevance reads people's grades"):
        calibration_items("relevance", data, topics=topics, passages=passages, labels=rows)
    labels.write_text("q1 0 d1 3\nq2 0 d3 7\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        calibration_items("relevance", data, topics=topics, passages=passages, labels=labels)
    assert (caught.value.source, caught.value.line, caught.value.field) == (str(labels), 2, "grade")
