"""A retriever's saved results judged against expected answer texts (the Evret layout)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from ragjury.evals.io.retrieval_results import load_retrieval_results
from ragjury.evals.pipelines.evret import evaluate_retrieval_results
from ragjury.rag_agent.core.input_files import InputError
from ragjury.rag_agent.judges.model_free.token_overlap import TokenOverlapJudge

ROWS = [
    {"id": "q1", "query": "capital of france", "expected_answers": ["Paris is the capital of France"],
     "retrieved": [{"doc_id": "d9", "text": "Lyon is a city", "score": 3.0},
                   {"doc_id": "d1", "text": "Paris is the capital of France", "score": 2.0}]},
    {"id": "q2", "query": "who wrote hamlet", "expected_answers": ["Shakespeare wrote Hamlet"],
     "retrieved": [{"doc_id": "d2", "text": "Shakespeare wrote Hamlet", "score": 5.0}]},
]


def write(tmp_path: Path, rows: list[object]) -> Path:
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_saved_results_give_evret_metrics(tmp_path: Path) -> None:
    rows = load_retrieval_results(write(tmp_path, ROWS))
    assert [r.id for r in rows] == ["q1", "q2"] and rows[0].retrieved[1].doc_id == "d1"
    result = asyncio.run(evaluate_retrieval_results(rows, TokenOverlapJudge(), k=10, ks=(1, 10)))
    assert result.n_queries == 2 and result.n_scored_queries == 2
    mean = result.mean
    assert mean["recall@10"] == pytest.approx(1.0)
    assert mean["recall@1"] == pytest.approx(0.5)  # q1's match is at rank 2
    assert mean["MRR@10"] == pytest.approx((0.5 + 1.0) / 2)
    assert result.mappings["q1"].matched == [None, 0]


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ({"query": "q", "retrieved": []}, "field 'expected_answers': missing"),
        ({"expected_answers": ["a"], "retrieved": []}, "field 'query': missing"),
        ({"query": "q", "expected_answers": [], "retrieved": []}, "non-empty list"),
        ({"query": "q", "expected_answers": ["a"], "retrieved": [{"doc_id": "d"}]}, "field 'retrieved.0.text'"),
        ({"query": "q", "expected_answers": ["a"], "retrieved": [{"text": "t", "score": "high"}]},
         "field 'retrieved.0.score'"),
    ],
)
def test_a_bad_row_names_file_line_and_field(tmp_path: Path, row: dict[str, object], fragment: str) -> None:
    with pytest.raises(InputError, match=fragment.replace("'", "'")) as caught:
        load_retrieval_results(write(tmp_path, [row]))
    assert "results.jsonl:1" in str(caught.value)


def test_a_repeated_id_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="duplicate id 'q1'"):
        load_retrieval_results(write(tmp_path, [ROWS[0], ROWS[0]]))
