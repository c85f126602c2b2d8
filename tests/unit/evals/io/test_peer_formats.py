"""Other tools' datasets evaluate without ``--map``: Ragas and DeepEval column names, CSV files,
JSON arrays, pandas DataFrames and ``datasets.Dataset`` (``evals.records``, ``evals.peer_formats``,
``evals.tasks.load_dataset``), with the mapping applied said on stderr and in ``--json``, and
errors that still name the file, the line (or row) and the field.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.config.settings import get_settings
from ragjury.evals.io.records import decode_list_cell
from ragjury.evals.io.tasks import load_dataset, load_questions, load_task_rows, parse_mapping
from ragjury.evals.pipelines.dataset_evaluation import evaluate_dataset
from ragjury.rag_agent.core.input_files import InputError
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge

runner = CliRunner()

HAMLET_CONTEXT = "Hamlet is a tragedy written by William Shakespeare around 1600."
PARIS_CONTEXT = "Paris is the capital and largest city of France."

RAGAS_ROWS = [
    {
        "user_input": "Who wrote Hamlet?",
        "response": "William Shakespeare wrote Hamlet.",
        "retrieved_contexts": [HAMLET_CONTEXT],
        "reference": "William Shakespeare",
    },
    {
        "user_input": "What is the capital of France?",
        "response": "Lyon is the capital of France.",
        "retrieved_contexts": [PARIS_CONTEXT],
        "reference": "Paris",
    },
]
DEEPEVAL_ROWS = [
    {
        "input": "Who wrote Hamlet?",
        "actual_output": "William Shakespeare wrote Hamlet.",
        "retrieval_context": [HAMLET_CONTEXT],
        "context": ["ideal context, not what the system retrieved"],
        "expected_output": "William Shakespeare",
    },
    {
        "input": "What is the capital of France?",
        "actual_output": "Lyon is the capital of France.",
        "retrieval_context": [PARIS_CONTEXT],
        "expected_output": "Paris",
    },
]


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No model server, no .env, and a cache inside the test's folder."""
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("RAGJURY_CACHE_PATH", str(tmp_path / "cache.sqlite"))
    monkeypatch.delenv("RAGJURY_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def evaluate(*args: str) -> Any:
    return runner.invoke(app, ["evaluate", "--no-progress", *args])


def summary(result: Any) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def predictions(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- the CLI, end to end -----------------------------------------------------------------------------------


def test_ragas_jsonl_evaluates_without_map_and_says_so(tmp_path: Path) -> None:
    data = jsonl(tmp_path / "ragas.jsonl", RAGAS_ROWS)
    out = tmp_path / "preds.jsonl"
    result = evaluate(
        "--task", "correctness", "--judge", "contains", "--data", str(data), "--out", str(out), "--json"
    )
    report = summary(result)
    assert (report["n"], report["scored"]) == (2, 2)
    assert report["input_mapping"]["format"] == "ragas"
    assert report["input_mapping"]["detected"] == {
        "question": "user_input",
        "answer": "response",
        "references": "reference",
    }
    assert "input mapping: Ragas columns question=user_input, answer=response, references=reference" in (
        result.stderr
    )
    rows = predictions(out)
    assert [row["label"] for row in rows] == [True, False]  # Shakespeare found; Paris not in "Lyon ..."
    assert rows[0]["item"]["question"] == "Who wrote Hamlet?"

    faithful = summary(
        evaluate("--task", "faithfulness", "--judge", "support", "--data", str(data), "--json")
    )
    assert faithful["input_mapping"]["detected"]["contexts"] == "retrieved_contexts"
    assert faithful["scored"] == 2


def test_deepeval_jsonl_reads_retrieval_context_not_the_ideal_context(tmp_path: Path) -> None:
    data = jsonl(tmp_path / "deepeval.jsonl", DEEPEVAL_ROWS)
    out = tmp_path / "preds.jsonl"
    result = evaluate(
        "--task", "faithfulness", "--judge", "support", "--data", str(data), "--out", str(out), "--json"
    )
    report = summary(result)
    assert report["input_mapping"]["format"] == "deepeval"
    assert report["input_mapping"]["detected"]["contexts"] == "retrieval_context"
    assert "input mapping: DeepEval columns" in result.stderr
    assert [row["item"]["contexts"] for row in predictions(out)] == [[HAMLET_CONTEXT], [PARIS_CONTEXT]]
    correct = summary(evaluate("--task", "correctness", "--judge", "contains", "--data", str(data), "--json"))
    assert correct["input_mapping"]["detected"]["references"] == "expected_output"
    assert (correct["n"], correct["scored"]) == (2, 2)


def test_csv_with_list_cells_and_labels_evaluates_with_agreement(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text(
        "id,question,answer,references,label\n"
        'h1,Who wrote Hamlet?,"Shakespeare, in 1600.","[""William Shakespeare"", ""Shakespeare""]",true\n'
        "p1,Capital of France?,Lyon.,\"['Paris']\",false\n"  # the Python literal DataFrame.to_csv writes
        "p2,Capital of France?,Paris.,Paris,\n",  # one plain reference; no label
        encoding="utf-8",
    )
    out = tmp_path / "preds.jsonl"
    report = summary(
        evaluate(
            "--task", "correctness", "--judge", "contains", "--data", str(data), "--out", str(out), "--json"
        )
    )
    assert report["input_mapping"]["reader"] == "csv" and report["input_mapping"]["format"] == "ragjury"
    assert (report["n"], report["labelled"], report["figures"]["accuracy"]) == (3, 2, 1.0)
    rows = {row["id"]: row for row in predictions(out)}
    assert rows["h1"]["item"]["references"] == ["William Shakespeare", "Shakespeare"]
    assert rows["p1"]["item"]["references"] == ["Paris"] and rows["p2"]["label"] is True
    assert "gold" not in rows["p2"]


def test_json_array_evaluates_and_errors_name_the_records_line(tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    data.write_text(json.dumps(RAGAS_ROWS, indent=2), encoding="utf-8")
    report = summary(evaluate("--task", "correctness", "--judge", "contains", "--data", str(data), "--json"))
    assert (report["n"], report["input_mapping"]["reader"]) == (2, "json")

    bad = tmp_path / "bad.json"
    bad.write_text(
        '[\n  {"question": "q", "answer": "a", "references": ["a"]},\n  {"question": "q",\n   "answer": "a"}\n]\n'
    )
    result = evaluate("--task", "correctness", "--judge", "contains", "--data", str(bad))
    assert result.exit_code == 2
    assert f"{bad}:3: field 'references': missing" in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_explicit_map_wins_over_detected_columns(tmp_path: Path) -> None:
    rows = [{**RAGAS_ROWS[0], "gold": ["Shakespeare"], "reference": "Marlowe"}]
    data = jsonl(tmp_path / "ragas.jsonl", rows)
    result = evaluate(
        "--task",
        "correctness",
        "--judge",
        "contains",
        "--data",
        str(data),
        "--map",
        "references=gold",
        "--json",
    )
    report = summary(result)
    assert report["input_mapping"]["map"] == {"references": "gold"}
    assert "references" not in report["input_mapping"]["detected"]
    assert report["input_mapping"]["columns"]["references"] == "gold"
    assert report["scored"] == 1
    assert report["figures"]["mean_label"] == 1.0  # "Shakespeare" (gold), not "Marlowe" (reference)
    assert "from --map: references=gold" in result.stderr


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "data.csv",
            "question,answer,references\nq,a,b\nq,a,b,c\n",
            "data.csv:3: 4 cells but the header names 3",
        ),
        ("data.csv", 'question,answer,references\nq,"a,b\n', "data.csv:2: malformed CSV"),
        ("data.csv", "question,answer,question\nq,a,b\n", "data.csv:1: field 'question': column named twice"),
        (
            "data.csv",
            "question,answer,references,label\nq,a,r,maybe\n",
            "data.csv:2: field 'label': expected a",
        ),
        ("data.csv", "id,question,answer,references\n\nx,q,a,\n", "data.csv:3: field 'references': missing"),
        ("data.csv", "", "data.csv: file is empty"),
        (
            "data.json",
            '[{"question": "q", "answer": "a", "references": ["a"]},]',
            "data.json:1: malformed JSON",
        ),
        ("data.json", '[{"question": "q", "answer": "a", "references": ["a"]}', "not closed with ']'"),
        ("ragas.jsonl", json.dumps({"user_input": "q", "reference": "r"}) + "\n", "field 'answer': missing"),
    ],
)
def test_bad_files_are_one_line_naming_file_line_and_field(
    tmp_path: Path, name: str, content: str, expected: str
) -> None:
    data = tmp_path / name
    data.write_text(content, encoding="utf-8")
    result = evaluate("--task", "correctness", "--judge", "contains", "--data", str(data))
    assert result.exit_code == 2, result.output
    assert expected in " ".join(result.output.split())
    assert "Traceback" not in result.output


# -- the Python API ----------------------------------------------------------------------------------------


def test_a_dataframe_evaluates_without_mapping() -> None:
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    frame = pd.DataFrame(RAGAS_ROWS)
    frame["label"] = [True, None]
    frame["retrieved_contexts"] = [
        np.array(ctx) for ctx in frame["retrieved_contexts"]
    ]  # as to_pandas() gives
    result = asyncio.run(evaluate_dataset("correctness", frame, ContainsJudge(), progress=False))
    assert [(p.id, p.label, p.gold) for p in result.predictions] == [
        ("row-0", True, True),
        ("row-1", False, None),
    ]
    assert result.agreement is not None and result.labelled == 1

    loaded = load_dataset("faithfulness", frame)
    assert loaded.input_mapping.reader == "dataframe" and loaded.input_mapping.format == "ragas"
    assert loaded.rows[1].item == FaithfulnessItem(
        answer="Lyon is the capital of France.",
        contexts=[PARIS_CONTEXT],
        question="What is the capital of France?",
    )


def test_a_dataframe_read_from_csv_decodes_list_cells_and_names_rows_in_errors() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {
            "input": ["Who wrote Hamlet?", None],
            "actual_output": ["Shakespeare", "x"],
            "expected_output": ["Shakespeare"] * 2,
        }
    )
    with pytest.raises(InputError, match=r"^DataFrame row 1: field 'question': missing \(looked for: input"):
        load_task_rows("correctness", frame)
    texts = pd.DataFrame({"question": ["q"], "answer": ["a"], "references": ['["a", "b"]']})
    (row,) = load_task_rows("correctness", texts)
    assert row.item == CorrectnessItem(question="q", answer="a", references=["a", "b"])


def test_a_hugging_face_dataset_evaluates_without_mapping() -> None:
    datasets = pytest.importorskip("datasets")
    dataset = datasets.Dataset.from_list(DEEPEVAL_ROWS)
    result = asyncio.run(evaluate_dataset("correctness", dataset, ContainsJudge(), progress=False))
    assert [p.label for p in result.predictions] == [True, False]
    assert load_dataset("faithfulness", dataset).input_mapping.format == "deepeval"
    with pytest.raises(InputError, match=r"DatasetDict: pick one split"):
        load_dataset("correctness", datasets.DatasetDict({"train": dataset}))


def test_a_list_of_dicts_and_the_agent_questions_file_accept_peer_names(tmp_path: Path) -> None:
    rows = load_task_rows("correctness", RAGAS_ROWS, mapping=parse_mapping(["id=user_input"], "correctness"))
    assert [row.id for row in rows] == ["Who wrote Hamlet?", "What is the capital of France?"]
    questions = tmp_path / "questions.csv"
    questions.write_text('user_input,reference\nWho wrote Hamlet?,"[""Shakespeare""]"\n', encoding="utf-8")
    (question,) = load_questions(questions)
    assert (question.id, question.question, question.references) == (
        "line-2",
        "Who wrote Hamlet?",
        ["Shakespeare"],
    )


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ('["a", "b"]', ["a", "b"]),
        ("['a', \"b's\"]", ["a", "b's"]),
        ('[{"text": "t"}]', [{"text": "t"}]),
        ("[citation needed]", None),
        ("[1, 2]", None),
        ("plain text", None),
        ("[]", []),
    ],
)
def test_list_cells_decode_only_lists_of_texts(cell: str, expected: list[Any] | None) -> None:
    assert decode_list_cell(cell) == expected
