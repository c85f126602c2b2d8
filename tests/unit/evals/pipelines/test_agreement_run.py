"""``evals.agreement_run`` called directly: both modes, gates, the HTML report, the helpers, no CLI."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from ragjury.evals.io.loaders import LabelRow
from ragjury.evals.pipelines.agreement_run import (
    AgreementOptionError,
    agreement_mode,
    ranking_rows,
    ranks,
    run_agreement,
    run_inputs,
    system_scores,
)
from ragjury.rag_agent.core.input_files import InputError

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"


def test_ranks_and_ranking_rows_follow_the_gold_order() -> None:
    assert ranks({"a": 0.2, "b": 0.9, "c": 0.5}) == {"b": 1, "c": 2, "a": 3}
    rows = ranking_rows({"a": 0.2, "b": 0.9}, {"a": 0.8, "b": 0.1}, "m")
    assert list(rows) == ["b", "a"]
    assert rows["b"] == {"m gold": 0.9, "m judged": 0.1, "rank gold": 1, "rank judged": 2}


def test_system_scores_average_scored_predictions_only() -> None:
    gold = {
        "1": LabelRow(1, True, "s"),
        "2": LabelRow(2, False, "s"),
        "3": LabelRow(3, True),
        "4": LabelRow(4, 1),
    }
    predicted = {"1": LabelRow(1, True), "2": LabelRow(2, None), "3": LabelRow(3, False, "t")}
    # row 3 takes its system from the prediction; row 4 has none anywhere and is left out
    assert system_scores(gold, predicted) == ({"s": 0.5, "t": 1.0}, {"s": 1.0, "t": 0.0})


def test_mode_comes_from_the_files(tmp_path: Path) -> None:
    qrels = tmp_path / "gold.txt"
    qrels.write_text("q1 0 d1 1\n")
    rows = tmp_path / "rows.txt"
    rows.write_text('{"id": "1", "label": true}\n')
    assert agreement_mode(qrels, qrels) == "qrels" and agreement_mode(rows, rows) == "jsonl"
    with pytest.raises(AgreementOptionError, match=r"--labels \(--gold\) is TREC qrels but --judged is JSONL"):
        agreement_mode(qrels, rows)


def test_qrels_mode_counts_unlabelled_gold_pairs_as_unscored(tmp_path: Path) -> None:
    gold = tmp_path / "gold.qrels"
    gold.write_text("q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 3\n")
    judged = tmp_path / "judged.qrels"
    judged.write_text("q1 0 d1 2\nq1 0 d2 2\nq9 0 zz 1\n")
    result = run_agreement(gold, judged, gates={"cohen_kappa": 0.5, "coverage": 0.5})
    payload = result.payload()
    assert (payload["n_gold"], payload["n_judged"], payload["n_shared"], payload["n_judged_only"]) == (
        3,
        3,
        2,
        1,
    )
    assert result.figures["coverage"] == pytest.approx(2 / 3)
    assert result.figures["accuracy"] == pytest.approx(1 / 2)
    assert result.correlation is None and "ranking" not in payload
    assert len(result.gate_failures) == 1 and result.gate_failures[0].startswith("cohen_kappa")
    assert payload["gate_failures"] == result.gate_failures and payload["outputs"] == {"html": None}
    assert list(result.report.figures) == ["binary (grade >= 2)", "graded"]


def test_qrels_mode_with_runs_ranks_systems_and_writes_html(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(FIXTURES / "evals_run.trec", runs / "tiny.trec")
    (runs / "other.trec").write_text("q1 Q0 d4 1 2.0 other\nq1 Q0 d3 2 1.0 other\nq2 Q0 d1 1 1.0 other\n")
    (runs / "third.trec").write_text("q1 Q0 d5 1 1.0 third\nq2 Q0 d7 1 1.0 third\n")  # tau needs 3 systems
    qrels = FIXTURES / "evals_qrels.txt"
    html = tmp_path / "r.html"
    result = run_agreement(qrels, qrels, runs=runs, html=html)
    assert result.figures["cohen_kappa"] == pytest.approx(1.0)
    assert result.figures["kendall_tau"] == pytest.approx(1.0)
    systems = result.payload()["ranking"]["systems"]  # type: ignore[index]
    assert set(systems) == {"tiny", "other", "third"} and systems["tiny"]["gold"] == systems["tiny"]["judge"]
    assert list(result.report.tables) == ["nDCG@10 per run (3 queries)"]  # q1, q2 and q3 in both qrels
    assert result.html == html and html.read_text().startswith("<!DOCTYPE html>")
    assert result.payload()["inputs"] == {"gold": str(qrels), "judged": str(qrels), "runs": str(runs)}


def test_jsonl_mode_figures_ranking_and_summary() -> None:
    result = run_agreement(FIXTURES / "evals_gold.jsonl", FIXTURES / "evals_predictions.jsonl")
    payload = result.payload()
    assert result.mode == "jsonl"
    assert (payload["n_missing_predictions"], payload["n_predictions_without_gold"]) == (1, 1)
    assert result.figures["coverage"] == pytest.approx(7 / 9)
    assert result.figures["accuracy"] == pytest.approx(6 / 7)
    assert result.figures["kendall_tau"] == pytest.approx(1.0)
    rows = result.report.tables["system scores (mean label)"]
    assert (
        rows["alpha"]["mean label gold"] == pytest.approx(2 / 3) and rows["beta"]["mean label judged"] == 0.5
    )
    console = Console(file=io.StringIO(), width=160)
    result.render(console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "missing predictions 1" in text and "coverage=0.7778" in text


def test_runs_with_jsonl_labels_is_refused() -> None:
    gold = FIXTURES / "evals_gold.jsonl"
    with pytest.raises(AgreementOptionError, match="--runs applies to qrels mode only"):
        run_agreement(gold, gold, runs=FIXTURES)


def test_run_inputs_name_every_run_file_a_glob_or_folder_gives(tmp_path: Path) -> None:
    (tmp_path / "a.trec").write_text("q1 Q0 d1 1 1.0 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 d1 1 1.0 b\n")
    assert run_inputs(tmp_path) == [("--runs", tmp_path / "a.trec"), ("--runs", tmp_path / "b.run")]
    assert run_inputs(tmp_path / "*.trec") == [("--runs", tmp_path / "a.trec")]
    assert run_inputs(tmp_path / "missing") == [("--runs", tmp_path / "missing")]  # reported when read
    assert run_inputs(None) == [("--runs", None)]
    with pytest.raises(InputError, match="is the input --runs"):
        run_agreement(
            FIXTURES / "evals_qrels.txt", FIXTURES / "evals_qrels.txt", runs=tmp_path, html=tmp_path / "b.run"
        )
