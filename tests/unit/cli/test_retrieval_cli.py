"""``ragjury retrieval``: a retriever's saved results against expected answer texts, from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragjury.cli import app

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "data" / "retrieval.jsonl"
runner = CliRunner()


def test_the_example_gives_evret_metrics_and_per_query_detail(tmp_path: Path) -> None:
    detail = tmp_path / "detail.jsonl"
    result = runner.invoke(app, ["retrieval", "--data", str(EXAMPLE), "--ks", "1,3", "--json", "--out", str(detail)])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["command"] == "retrieval" and (payload["n"], payload["scored"]) == (3, 3)
    assert 0.0 <= payload["figures"]["recall@1"] <= payload["figures"]["recall@3"] <= 1.0
    rows = [json.loads(line) for line in detail.read_text(encoding="utf-8").splitlines()]
    assert [row["id"] for row in rows] == ["q1", "q2", "q3"] and all("matched" in row for row in rows)


def test_bad_cutoffs_and_rows_are_one_line(tmp_path: Path) -> None:
    bad = runner.invoke(app, ["retrieval", "--data", str(EXAMPLE), "--ks", "0,x"])
    assert bad.exit_code == 2 and "--ks" in bad.output
    data = tmp_path / "r.jsonl"
    data.write_text('{"query": "q", "retrieved": []}\n', encoding="utf-8")
    missing = runner.invoke(app, ["retrieval", "--data", str(data)])
    assert missing.exit_code == 2 and "r.jsonl:1: field 'expected_answers'" in missing.output


def _figures(*args: str) -> dict:
    result = runner.invoke(app, ["retrieval", "--ks", "1,3", "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_graded_judge_matches_from_grade_two_or_the_stated_grade() -> None:
    """non-llm grades 'Lyon is a large city in … France' 1 against 'Paris is the capital of France':
    related, not relevant; it matched at grade 1 before."""
    default = _figures("--data", str(EXAMPLE), "--judge", "non-llm")
    lenient = _figures("--data", str(EXAMPLE), "--judge", "non-llm", "--min-grade", "1")
    assert default["min_grade"] == 2 and lenient["min_grade"] == 1
    assert default["figures"]["P@3"] < lenient["figures"]["P@3"]
    refused = runner.invoke(app, ["retrieval", "--data", str(EXAMPLE), "--min-grade", "2"])
    assert refused.exit_code == 2 and "--min-grade" in refused.output


def test_an_empty_retrieved_text_is_a_non_match_not_a_removed_query(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]
    rows[1]["retrieved"].insert(0, {"doc_id": "blank", "text": " ", "score": 20.0})
    data = tmp_path / "blank.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    before, after = _figures("--data", str(EXAMPLE)), _figures("--data", str(data))
    assert (after["n"], after["scored"], after["unscored"]) == (3, 3, 0)
    assert after["figures"]["MRR@3"] < before["figures"]["MRR@3"]
