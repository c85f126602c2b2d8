"""Every file of the hostile corpus (tests/fixtures/hostile) through every reader: one line, never a traceback.

Why a matrix: each reader was fixed where a case was reported, and the next reader had the same
hole. Running every file through every door finds the door that was missed.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from ragjury.cli import app

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "fixtures" / "hostile"
TREC = ROOT / "examples" / "data" / "trec"
CORRECTNESS = ROOT / "examples" / "data" / "correctness.jsonl"
runner = CliRunner()

READERS: dict[str, list[str]] = {
    "evaluate correctness --data": ["evaluate", "--task", "correctness", "--judge", "contains", "--data", "{f}"],
    "evaluate faithfulness --data": ["evaluate", "--task", "faithfulness", "--judge", "support", "--data", "{f}"],
    "evaluate score --data": ["evaluate", "--task", "score", "--judge", "heuristic", "--data", "{f}"],
    "evaluate --calibration": ["evaluate", "--task", "correctness", "--judge", "llm", "--data", str(CORRECTNESS),
                               "--calibration", "{f}", "--dry-run"],
    "evaluate --judge rubric:": ["evaluate", "--task", "correctness", "--judge", "rubric:{f}", "--data", str(CORRECTNESS),
                                "--dry-run"],
    "evaluate several criteria --data": ["evaluate", "--task", "correctness", "--judge", "contains", "--judge",
                                         "token-overlap", "--data", "{f}", "--no-cache"],
    "calibrate --data": ["calibrate", "--task", "correctness", "--judge", "contains", "--data", "{f}",
                         "--out", "{tmp}/cal.json"],
    "report": ["report", "{f}"],
    "verdict correctness --item-file": ["verdict", "correctness", "--item-file", "{f}", "--judge", "contains"],
    "judge-evaluate --answer-file": ["judge-evaluate", "q", "--answer-file", "{f}", "--judge", "heuristic"],
    "judge-evaluate --sources-file": ["judge-evaluate", "q", "--answer", "a", "--sources-file", "{f}",
                                      "--judge", "heuristic"],
    "relevance --topics": ["relevance", "--judge", "non-llm", "--topics", "{f}", "--passages",
                           str(TREC / "passages.jsonl"), "--runs", str(TREC / "runs"), "--out", "{tmp}/o.qrels"],
    "relevance --passages": ["relevance", "--judge", "non-llm", "--topics", str(TREC / "topics.jsonl"),
                             "--passages", "{f}", "--runs", str(TREC / "runs"), "--out", "{tmp}/o.qrels"],
    "agreement --judged": ["agreement", "--gold", "{f}", "--judged", "{f2}"],
    "non-llm-judge --rag-topics": ["non-llm-judge", "--rag-topics", "{f}", "--rag-responses", "{runs}",
                                   "--out-dir", "{tmp}/out"],
    "non-llm-judge --rag-responses": ["non-llm-judge", "--rag-topics", "{topics}", "--rag-responses", "{f}",
                                      "--out-dir", "{tmp}/out"],
    "non-llm-judge --workflow": ["non-llm-judge", "--workflow", "{f}", "--rag-topics", "{topics}",
                                 "--rag-responses", "{runs}", "--out-dir", "{tmp}/out"],
    "label-plan": ["label-plan", "{f}", "--budget", "4", "--out", "{tmp}/plan.jsonl"],
    "estimate": ["estimate", "{f}"],
    "evaluate --judge fitted:": ["evaluate", "--task", "correctness", "--judge", "fitted:{f}", "--data",
                                 str(CORRECTNESS), "--no-cache", "--no-progress"],
}

REFUSED_BY: dict[str, str] = {
    "deep.jsonl": "evaluate correctness --data",
    "deep.json": "judge-evaluate --answer-file",
    "deep_array.json": "calibrate --data",
    "nan_gold.jsonl": "evaluate score --data",
    "infinite_gold.jsonl": "evaluate score --data",
    "lone_surrogate.jsonl": "evaluate correctness --data",
    "dict_id.jsonl": "evaluate correctness --data",
    "huge_number_id.jsonl": "evaluate correctness --data",
    "empty_id.jsonl": "evaluate correctness --data",
    "broken_list.csv": "evaluate correctness --data",
    "list_with_a_number.csv": "evaluate correctness --data",
    "forged_ids.jsonl": "non-llm-judge --rag-responses",
    "not_an_object.jsonl": "evaluate correctness --data",
    "empty.jsonl": "evaluate correctness --data",
    "predictions_nan_label.jsonl": "report",
    "predictions_mixed_task.jsonl": "report",
    "calibration_noop.json": "evaluate --calibration",
    "workflow_inf.yml": "non-llm-judge --workflow",
    "workflow_deep.yml": "non-llm-judge --workflow",
    "rubric_bad_name.yaml": "evaluate --judge rubric:",
    "predictions_nan_probability.jsonl": ("label-plan", "estimate"),
    "id_of_5000_digits.jsonl": "evaluate correctness --data",
    "rubric_latin1.yaml": "evaluate --judge rubric:",
    "rows_under_a_key.json": "evaluate correctness --data",
}
"""Each file and the readers that must refuse it with exit 2 (the others may read what they can)."""

SAYS: dict[str, str] = {
    "predictions_nan_probability.jsonl": ":3: field 'value.probability': expected a probability in [0, 1], got nan",
    "id_of_5000_digits.jsonl": ":1: malformed JSON: a number of 5,000 digits",
    "rubric_latin1.yaml": ": not UTF-8 text (byte 0xe9",
    "rows_under_a_key.json": "expected JSONL rows",
}
"""What the one line says, beyond the file's name."""


def _unscored_never_p_one(result: Result, tmp: Path) -> None:
    payload = json.loads(result.stdout)  # weights of ±1.7e308 over a scale of 1e-300: no finite score
    assert result.exit_code == 3 and payload["scored"] == 0 and payload["unscored"] == payload["n"] > 0, result.output
    assert payload["figures"].get("mean_label") != 1.0 and "not a finite number" in result.output


def _junit_parses(result: Result, tmp: Path) -> None:
    assert result.exit_code == 0, result.output
    names = [case.get("name") for case in ElementTree.parse(tmp / "j.xml").iter("testcase")]
    assert "q\\u00010" in names, names  # \u0001 and \u000b written out, the XML valid


def _both_systems_kept(result: Result, tmp: Path) -> None:
    assert result.exit_code == 0, result.output
    run = json.loads(result.stdout)["runs"][0]
    assert run["n"] == 6 and sorted(run["per_system"]) == ["A", "B"]


READ_RIGHT: dict[str, tuple[list[str], Callable[[Result, Path], None]]] = {
    "head_overflowing.json": (["evaluate", "--task", "correctness", "--judge", "fitted:{f}", "--data", str(CORRECTNESS),
                               "--json", "--no-cache", "--no-progress"], _unscored_never_p_one),
    "control_character_ids.jsonl": (["evaluate", "--task", "correctness", "--judge", "contains", "--data", "{f}",
                                     "--junit", "{tmp}/j.xml", "--no-cache", "--no-progress"], _junit_parses),
    "predictions_ids_under_two_systems.jsonl": (["report", "{f}", "--json"], _both_systems_kept),
}
"""Files that are valid input, and what reading them must give (the other readers still run them)."""

FILES = sorted(p.name for p in CORPUS.iterdir() if p.name != "README.md")


def refusers(name: str) -> tuple[str, ...]:
    readers = REFUSED_BY.get(name, ())
    return (readers,) if isinstance(readers, str) else readers


def test_every_file_of_the_corpus_names_the_reader_that_refuses_it() -> None:
    assert sorted([*REFUSED_BY, *READ_RIGHT]) == FILES and not set(REFUSED_BY) & set(READ_RIGHT)
    assert {reader for name in REFUSED_BY for reader in refusers(name)} <= set(READERS)
    assert set(SAYS) <= set(REFUSED_BY)


@pytest.fixture(scope="module")
def good_inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("good")
    topics = folder / "topics.jsonl"
    topics.write_text('{"request_id": "t1", "title": "what is rag"}\n', encoding="utf-8")
    runs = folder / "runs"
    runs.mkdir()
    (runs / "run_a.jsonl").write_text(
        '{"metadata": {"run_id": "a", "topic_id": "t1"}, "references": [], '
        '"responses": [{"text": "rag", "citations": []}]}\n', encoding="utf-8")
    return {"topics": str(topics), "runs": str(runs)}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("name", FILES)
def test_a_hostile_file_is_one_line_in_every_reader(
    name: str, reader: str, good_inputs: dict[str, str], tmp_path: Path
) -> None:
    path = CORPUS / name
    values = {"f": str(path), "f2": str(path), "tmp": str(tmp_path), **good_inputs}
    result = runner.invoke(app, [arg.format(**values) for arg in READERS[reader]])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{reader} on {name} crashed: {result.exception!r}\n{result.output[-2000:]}"
    )
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1, 2, 3), result.output  # 3: nothing could be scored
    if reader in refusers(name):
        assert result.exit_code == 2, result.output
        errors = [line for line in result.output.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and name in errors[0], result.output
        assert SAYS.get(name, "") in errors[0], result.output


@pytest.mark.parametrize("name", sorted(READ_RIGHT))
def test_a_hostile_file_that_is_valid_input_is_read_right(name: str, tmp_path: Path) -> None:
    args, check = READ_RIGHT[name]
    values = {"f": str(CORPUS / name), "tmp": str(tmp_path)}
    result = runner.invoke(app, [arg.format(**values) for arg in args])
    assert "Traceback" not in result.output
    check(result, tmp_path)
