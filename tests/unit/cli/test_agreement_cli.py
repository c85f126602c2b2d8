"""``ragjury agreement`` end to end through the typer app: both modes, gates, HTML, and errors."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
runner = CliRunner()


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = runner.invoke(app, ["agreement", *map(str, args)])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(FIXTURES / "evals_run.trec", folder / "tiny.trec")
    (folder / "other.trec").write_text("q1 Q0 d4 1 2.0 other\nq1 Q0 d3 2 1.0 other\nq2 Q0 d1 1 1.0 other\n")
    (folder / "third.trec").write_text("q1 Q0 d5 1 1.0 third\nq2 Q0 d7 1 1.0 third\n")  # tau needs 3 systems
    return folder


def test_identical_qrels_agree_perfectly(runs_dir: Path) -> None:
    qrels = FIXTURES / "evals_qrels.txt"
    code, out, _ = invoke("--gold", qrels, "--judged", qrels, "--runs", runs_dir, "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["mode"] == "qrels"
    assert payload["agreement"]["cohen_kappa"] == pytest.approx(1.0)
    assert payload["graded_agreement"]["quadratic_kappa"] == pytest.approx(1.0)
    assert payload["figures"]["quadratic_kappa"] == pytest.approx(1.0)
    ranking = payload["ranking"]
    assert ranking["measure"] == "nDCG@10" and ranking["k"] == 10
    assert ranking["systems"]["tiny"]["gold"] == ranking["systems"]["tiny"]["judge"]
    assert ranking["correlation"]["kendall_tau"] == pytest.approx(1.0)
    assert payload["gate_failures"] == []


def test_human_output_and_html(tmp_path: Path, runs_dir: Path) -> None:
    judged = tmp_path / "judged.qrels"
    judged.write_text("q1 0 d1 2\nq1 0 d2 2\nq1 0 d3 0\nq2 0 d7 3\nq2 0 d6 3\nq9 0 zz 1\n")
    html = tmp_path / "report.html"
    code, out, _ = invoke(
        "--gold", FIXTURES / "evals_qrels.txt", "--judged", judged, "--runs", runs_dir, "--html", html
    )
    assert code == 0
    for text in (
        "binary (grade >= 2)",
        "cohen_kappa",
        "krippendorff_alpha",
        "nDCG@10 per run",
        "Kendall tau",
    ):
        assert text in out
    assert "shared 5" in out and "ignored 1 judged pairs" in out
    page = html.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 2


def test_gates_exit_1_and_bad_gates_exit_2(tmp_path: Path) -> None:
    judged = tmp_path / "judged.qrels"
    judged.write_text("q1 0 d1 0\nq1 0 d2 3\nq1 0 d3 3\nq1 0 d4 0\nq1 0 d5 0\n")
    gold = FIXTURES / "evals_qrels.txt"
    code, _, err = invoke("--gold", gold, "--judged", judged, "--fail-under", "kappa=0.5")
    assert code == 1
    assert "gate failed: cohen_kappa" in err
    code, _, err = invoke("--gold", gold, "--judged", judged, "--fail-under", "coverage=0.1")
    assert code == 0
    # with no runs there is no tau: the gate fails rather than passing for lack of evidence
    code, _, err = invoke("--gold", gold, "--judged", judged, "--fail-under", "tau=0.1")
    assert code == 1 and "kendall_tau: no such figure" in err
    code, _, err = invoke("--gold", gold, "--judged", judged, "--fail-under", "kappa")
    assert code == 2 and "--fail-under: expected METRIC=VALUE" in err


def test_jsonl_mode_with_unscored_and_systems(tmp_path: Path) -> None:
    html = tmp_path / "r.html"
    code, out, _ = invoke(
        "--gold",
        FIXTURES / "evals_gold.jsonl",
        "--judged",
        FIXTURES / "evals_predictions.jsonl",
        "--json",
        "--html",
        html,
    )
    assert code == 0
    payload = json.loads(out)
    agreement = payload["agreement"]
    # 9 gold rows; b-2 is unscored and c-3 has no prediction: 7 scored, a-3 is the one error
    assert (agreement["n_total"], agreement["n_scored"]) == (9, 7)
    assert agreement["accuracy"] == pytest.approx(6 / 7)
    assert payload["n_missing_predictions"] == 1 and payload["n_predictions_without_gold"] == 1
    systems = payload["ranking"]["systems"]
    assert payload["ranking"]["measure"] == "mean label"
    assert systems["alpha"] == {"gold": pytest.approx(2 / 3), "judge": 1.0}
    assert systems["beta"]["judge"] == 0.5  # mean over its scored rows only
    assert payload["ranking"]["correlation"]["kendall_tau"] == pytest.approx(1.0)
    assert payload["figures"]["coverage"] == pytest.approx(7 / 9)
    assert "system ranking" in html.read_text()


@pytest.mark.parametrize(
    ("gold_text", "judged_text", "fragment"),
    [
        ("q1 0 d1 1\n", '{"id": "1", "label": true}\n', "--labels (--gold) is TREC qrels but --judged is JSONL"),
        ("q1 0 d1 1\nq1 0 d2 x\n", "q1 0 d1 1\n", "gold.txt:2: field 'grade'"),
    ],
)
def test_input_errors_exit_2_with_location(
    tmp_path: Path, gold_text: str, judged_text: str, fragment: str
) -> None:
    gold = tmp_path / "gold.txt"
    gold.write_text(gold_text)
    judged = tmp_path / "judged.txt"
    judged.write_text(judged_text)
    code, out, err = invoke("--gold", gold, "--judged", judged)
    assert code == 2
    assert fragment in " ".join(err.split())
    assert "Traceback" not in out + err


def test_runs_in_jsonl_mode_and_missing_files_are_errors(tmp_path: Path) -> None:
    gold = FIXTURES / "evals_gold.jsonl"
    code, _, err = invoke("--gold", gold, "--judged", gold, "--runs", tmp_path)
    assert code == 2 and "--runs applies to qrels mode" in err
    code, _, err = invoke("--gold", tmp_path / "nope.txt", "--judged", gold)
    assert code == 2 and "file not found" in err


def test_help_teaches_with_examples() -> None:
    result = runner.invoke(app, ["agreement", "--help"])
    assert result.exit_code == 0
    assert "ragjury agreement --gold qrels.txt" in result.stdout and "--fail-under" in result.stdout


def test_end_to_end_on_dl19_with_a_perturbed_copy(benchmarks_dir: Path, tmp_path: Path) -> None:
    """The NIST qrels against a copy with 10% of pairs dropped and 25% moved one grade."""
    dl19 = benchmarks_dir / "trec-dl19"
    rng = random.Random(7)
    lines = []
    for line in (dl19 / "qrels.txt").read_text().splitlines():
        qid, _, docid, grade = line.split()
        roll = rng.random()
        if roll < 0.1:
            continue
        if roll < 0.35:
            grade = str(min(3, max(0, int(grade) + rng.choice([-1, 1]))))
        lines.append(f"{qid} 0 {docid} {grade}")
    judged = tmp_path / "perturbed.qrels"
    judged.write_text("\n".join(lines) + "\n")
    code, out, _ = invoke("--gold", dl19 / "qrels.txt", "--judged", judged, "--runs", dl19 / "runs", "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["n_gold"] == 9260 and 0.85 < payload["agreement"]["coverage"] < 0.95
    assert 0.6 < payload["agreement"]["cohen_kappa"] < 1.0
    assert payload["ranking"]["systems"]["bm25"]["gold"] == pytest.approx(0.5058, abs=5e-5)
    correlation = payload["ranking"]["correlation"]
    assert correlation["n"] == 6 and correlation["kendall_tau"] is not None
