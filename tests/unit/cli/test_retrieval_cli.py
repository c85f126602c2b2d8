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
