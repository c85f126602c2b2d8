"""Loaders: what they return on good files, and that every bad input names file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragjury.evals.io.loaders import (
    find_run_files,
    load_labels,
    load_passages,
    load_qrels,
    load_rag_run,
    load_run,
    load_runs,
    load_topics,
    topic_query,
)
from ragjury.rag_agent.core.input_files import InputError

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_qrels_are_graded_by_query_and_doc() -> None:
    qrels = load_qrels(FIXTURES / "evals_qrels.txt")
    assert qrels["q1"] == {"d1": 3, "d2": 2, "d3": 1, "d4": 0, "d5": 2}
    assert set(qrels) == {"q1", "q2", "q3"}


@pytest.mark.parametrize(
    ("text", "line", "field", "fragment"),
    [
        ("q1 0 d1 1\nq1 0 d2\n", 2, None, "expected 4 columns"),
        ("q1 0 d1 1\n\nq1 0 d2 high\n", 3, "grade", "must be an integer"),
        ("q1 0 d1 1\nq1 0 d1 2\n", 2, "docid", "duplicate judgment"),
    ],
)
def test_bad_qrels_name_the_line_and_field(
    tmp_path: Path, text: str, line: int, field: str | None, fragment: str
) -> None:
    path = write(tmp_path, "bad.qrels", text)
    with pytest.raises(InputError) as caught:
        load_qrels(path)
    assert caught.value.line == line
    assert caught.value.field == field
    assert fragment in caught.value.message
    assert str(caught.value).startswith(f"{path}:{line}:")


def test_missing_and_empty_files_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load_qrels(tmp_path / "nope.txt")
    with pytest.raises(InputError, match="file is empty"):
        load_run(write(tmp_path, "empty.trec", "\n\n"))


def test_run_keeps_rank_column_order_and_tag_name() -> None:
    run = load_run(FIXTURES / "evals_run.trec")
    assert run.name == "tiny"
    # d1 and d9 tie on score 9.0: the rank column (d1 at 2) decides, not trec_eval's docid tie-break
    assert run.docids("q1") == ["d2", "d1", "d9", "d4"]
    assert run["q2"] == [("d6", 3.0), ("d7", 2.0)]
    assert dict(run)["q4"] == [("d1", 1.0)]


def test_run_order_follows_rank_not_file_order(tmp_path: Path) -> None:
    path = write(tmp_path, "r.trec", "q Q0 b 2 1.0 x\nq Q0 a 1 2.0 x\nq Q0 c 3 0.5 x\n")
    assert load_run(path).docids("q") == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("text", "field", "fragment"),
    [
        ("q1 Q0 d1 one 1.0 r\n", "rank", "rank must be an integer"),
        ("q1 Q0 d1 1 high r\n", "score", "score must be a number"),
        ("q1 Q0 d1 1 nan r\n", "score", "finite"),
        ("q1 Q0 d1 1 1.0 r\nq1 Q0 d1 2 0.5 r\n", "docid", "appears twice"),
        ("q1 Q0 d1 1 1.0\n", None, "expected 6 columns"),
    ],
)
def test_bad_runs_name_the_field(tmp_path: Path, text: str, field: str | None, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        load_run(write(tmp_path, "bad.trec", text))
    assert caught.value.field == field
    assert fragment in caught.value.message
    assert caught.value.line is not None


def test_load_runs_reads_a_folder_and_keeps_same_named_runs_apart(tmp_path: Path) -> None:
    write(tmp_path, "one.trec", "q Q0 a 1 1.0 same\n")
    write(tmp_path, "two.trec", "q Q0 b 1 1.0 same\n")
    write(tmp_path, "notes.txt", "not a run")
    runs = load_runs(tmp_path)
    assert sorted(runs) == ["same", "two"]
    assert runs["two"].name == "two" and runs["two"].docids("q") == ["b"]
    assert list(load_runs(tmp_path / "one.trec")) == ["same"]


def test_load_runs_on_an_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no run files"):
        load_runs(tmp_path)


def test_find_run_files_takes_paths_globs_and_folders_once_each(tmp_path: Path) -> None:
    one = write(tmp_path, "a.trec", "q Q0 a 1 1.0 x\n")
    two = write(tmp_path, "b.run", "q Q0 b 1 1.0 y\n")
    write(tmp_path, "notes.txt", "not a run")
    # a folder gives its *.trec / *.run sorted; a file named again (here by a glob) is kept once
    assert find_run_files([tmp_path, str(tmp_path / "*.trec")]) == [one, two]
    assert find_run_files(str(tmp_path / "b.*")) == [two]
    notes = tmp_path / "notes.txt"
    assert find_run_files(notes) == [notes]  # a file named alone is read whatever its name
    with pytest.raises(InputError, match="no run file matches this pattern"):
        find_run_files(str(tmp_path / "none_*.trec"))
    with pytest.raises(InputError, match="file not found") as caught:
        find_run_files([one, tmp_path / "missing.trec"])
    assert caught.value.source == str(tmp_path / "missing.trec")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match=r"no run files \(\*\.trec, \*\.run\) in this folder"):
        find_run_files(empty)


def test_load_runs_reads_a_glob_as_relevance_does(tmp_path: Path) -> None:
    write(tmp_path, "a.trec", "q Q0 a 1 1.0 x\n")
    write(tmp_path, "b.trec", "q Q0 b 1 1.0 y\n")
    assert sorted(load_runs(str(tmp_path / "*.trec"))) == ["x", "y"]
    with pytest.raises(InputError, match="file not found"):
        load_runs(tmp_path / "nope")


def test_topic_query_formats() -> None:
    topic = {"title": "T", "problem_statement": "P", "background": "B", "body": ""}
    assert topic_query(topic, "auto") == "T P B"
    assert topic_query(topic, "ragtime") == "T P B"
    assert topic_query(topic, "rag") == "T"
    assert topic_query({"title": "T", "body": "Doc"}, "auto") == "Doc"
    assert topic_query({"title": "T", "body": "Doc"}, "dragun") == "Doc"
    assert topic_query({"title": "T"}, "dragun") == "T"


def test_kit_topics_by_request_id_with_the_query_the_format_picks(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "topics.jsonl",
        '{"request_id": "t1", "title": "Lamps", "problem_statement": "who invented the bulb"}\n'
        '{"request_id": 7, "title": "Sun"}\n'
        '{"request_id": "t1", "title": "Lamps again"}\n',
    )
    # the last of a repeated request_id counts, as in the kit
    assert load_topics(path, "rag") == {"t1": "Lamps again", "7": "Sun"}
    assert load_topics(path, "auto")["t1"] == "Lamps again"
    ragtime = write(
        tmp_path, "one.jsonl", '{"request_id": "t1", "title": "Lamps", "problem_statement": "who"}\n'
    )
    assert load_topics(ragtime, "auto") == {"t1": "Lamps who"}
    for text, field in (
        ('{"title": "x"}\n', "request_id"),
        ('{"request_id": " ", "title": "x"}\n', "request_id"),
        ('{"request_id": "t1", "title": ""}\n', "title"),
    ):
        with pytest.raises(InputError) as caught:
            load_topics(write(tmp_path, "bad.jsonl", text), "rag")
        assert (caught.value.line, caught.value.field) == (1, field)
    with pytest.raises(ValueError, match="unknown topic format 'trec'"):
        load_topics(path, "trec")


def test_topics_jsonl_trec_rag_and_tsv(tmp_path: Path) -> None:
    assert load_topics(FIXTURES / "evals_topics.jsonl") == {
        "q1": "what is a tiny fixture",
        "2": "numeric ids become strings",
    }
    assert load_topics(FIXTURES / "evals_rag_topics.jsonl")["q2"] == "Who invented the light bulb?"
    tsv = write(tmp_path, "queries.tsv", "101\tcheap flights\n102\tfish tacos\n")
    assert load_topics(tsv) == {"101": "cheap flights", "102": "fish tacos"}


def test_topic_errors_point_at_the_row(tmp_path: Path) -> None:
    path = write(tmp_path, "t.jsonl", '{"qid": "1", "query": "a"}\n{"qid": "2"}\n')
    with pytest.raises(InputError) as caught:
        load_topics(path)
    assert (caught.value.line, caught.value.field) == (2, "query")
    duplicate = write(tmp_path, "d.jsonl", '{"qid": "1", "query": "a"}\n{"qid": "1", "query": "b"}\n')
    with pytest.raises(InputError, match="duplicate query id"):
        load_topics(duplicate)
    broken = write(tmp_path, "b.jsonl", '{"qid": "1", "query": "a"}\n{"qid": \n')
    with pytest.raises(InputError, match="malformed JSON") as caught:
        load_topics(broken)
    assert caught.value.line == 2
    wrong_type = write(tmp_path, "w.jsonl", '{"qid": "1", "query": ["a"]}\n')
    with pytest.raises(InputError, match="expected a string"):
        load_topics(wrong_type)


def test_passages_accept_common_aliases() -> None:
    passages = load_passages(FIXTURES / "evals_passages.jsonl")
    assert passages == {
        "d1": "A tiny fixture is a small test file.",
        "d2": "Aliases id and contents are accepted.",
    }


def test_trec_rag_runs() -> None:
    run = load_rag_run(FIXTURES / "evals_rag_run.jsonl")
    assert run.name == "run_medium_quality"
    assert sorted(run.answers) == ["q1", "q2"]
    assert (
        run.answers["q2"].answer == "Thomas Edison invented the light bulb. This happened in the late 1800s."
    )


def test_trec_rag_run_errors(tmp_path: Path) -> None:
    line = '{"metadata": {"run_id": "r", "topic_id": "q1"}, "responses": [{"text": "x"}]}'
    other = '{"metadata": {"run_id": "s", "topic_id": "q2"}, "responses": []}'
    with pytest.raises(InputError, match="differs") as caught:
        load_rag_run(write(tmp_path, "mixed.jsonl", f"{line}\n{other}\n"))
    assert (caught.value.line, caught.value.field) == (2, "metadata.run_id")
    missing = '{"metadata": {"run_id": "r"}, "responses": []}'
    with pytest.raises(InputError) as caught:
        load_rag_run(write(tmp_path, "missing.jsonl", missing + "\n"))
    assert caught.value.field == "metadata.topic_id"


def test_labels_gold_and_predictions() -> None:
    gold = load_labels(FIXTURES / "evals_gold.jsonl")
    assert gold["a-1"].label is True and gold["a-1"].system == "alpha" and gold["a-1"].line == 1
    predicted = load_labels(FIXTURES / "evals_predictions.jsonl", allow_unscored=True)
    assert predicted["b-2"].label is None  # unscored, not False
    assert predicted["zz-9"].label is True


@pytest.mark.parametrize(
    ("text", "allow", "field", "fragment"),
    [
        ('{"id": "1", "label": null}\n', False, "label", "got null"),
        ('{"id": "1"}\n', True, "label", "missing"),
        ('{"id": "1", "label": 0.5}\n', True, "label", "true/false or an integer"),
        ('{"id": "1", "label": true}\n{"id": "1", "label": false}\n', False, "id", "duplicate id"),
        ('{"label": true}\n', False, "id", "missing"),
    ],
)
def test_label_errors(tmp_path: Path, text: str, allow: bool, field: str, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        load_labels(write(tmp_path, "l.jsonl", text), allow_unscored=allow)
    assert caught.value.field == field
    assert fragment in caught.value.message


def test_loads_the_real_dl19_benchmark(benchmarks_dir: Path) -> None:
    dl19 = benchmarks_dir / "trec-dl19"
    qrels = load_qrels(dl19 / "qrels.txt")
    assert len(qrels) == 43 and sum(len(docs) for docs in qrels.values()) == 9260
    runs = load_runs(dl19 / "runs")
    assert len(runs) == 6 and all(len(run) == 43 for run in runs.values())
    assert len(load_topics(dl19 / "topics.jsonl")) == 43
    assert len(load_passages(dl19 / "passages.jsonl")) == 4890
    assert len([load_rag_run(f) for f in sorted((benchmarks_dir / "trec-rag-toy" / "runs").glob("*.jsonl"))]) == 3
