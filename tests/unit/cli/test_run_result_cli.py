"""What did my run score, and which of my two configs is better — from the command line.

Why: these are a RAG developer's first two questions (issue 26). An unlabelled run must state its
judged rate with an interval first, in the terminal and in ``--json``; two runs of one judge on
the same questions must give the paired difference B - A with its interval and a p-value, say
which kind of comparison it is, hold both answers in the HTML, and name the rows that do not match.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "data"
runner = CliRunner()


@pytest.fixture(autouse=True)
def isolated(offline_cli: Path) -> None:
    """No model server, no .env, and a cache inside the test's folder (``offline_cli``)."""


def ok(*args: str | Path) -> str:
    result = runner.invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def judged(data: Path, out: Path, judge: str = "contains") -> Path:
    ok("evaluate", "--task", "correctness", "--judge", judge, "--data", data, "--out", out, "--no-progress")
    return out


def test_an_unlabelled_run_states_its_rate_with_an_interval_first(tmp_path: Path) -> None:
    text = ok("evaluate", "--task", "correctness", "--judge", "contains", "--data", EXAMPLES / "config_a.jsonl",
              "--no-progress")
    assert text.splitlines()[0] == "judged correct: 55.0 % [45.2, 64.4] (95 % Wilson interval; 100 scored)"
    payload = json.loads(ok("evaluate", "--task", "correctness", "--judge", "contains", "--data",
                            EXAMPLES / "config_a.jsonl", "--no-progress", "--json"))
    result = payload["result"]
    assert result["measure"] == "judged rate" and result["rate"] == pytest.approx(0.55)
    assert result["interval"] == pytest.approx([0.452, 0.644], abs=5e-4)
    assert (result["n_scored"], result["n_unscored"]) == (100, 0)
    assert result["method"] == "Wilson score interval"
    html = tmp_path / "run.html"
    ok("evaluate", "--task", "correctness", "--judge", "contains", "--data", EXAMPLES / "config_a.jsonl",
       "--no-progress", "--html", html)
    first_card = re.search(r"<div class='card'><span>(.*?)</span><b>(.*?)</b>", html.read_text(encoding="utf-8"))
    assert first_card is not None
    assert first_card.groups() == ("judged correct (95 % Wilson)", "55.0 % [45.2, 64.4] · 100 scored")


def test_a_labelled_run_gives_every_agreement_figure_its_interval(tmp_path: Path) -> None:
    text = ok("evaluate", "--task", "correctness", "--judge", "contains", "--data", EXAMPLES / "correctness.jsonl",
              "--no-progress")
    assert text.startswith("correct as people would judge it (people labelled all 40 items; 95 % Wilson interval):")
    assert "the judge's own rate, judged correct: 42.5 % [" in text
    for figure in ("accuracy", "cohen_kappa", "binary_krippendorff_alpha", "precision", "recall", "f1"):
        assert re.search(rf"│ {figure} +│ [\d.]+ \[[\d.]+, [\d.]+\] │", text), figure
    assert re.search(r"Kendall tau [-\d.]+ \[[-\d.]+, [-\d.]+\]", text)
    payload = json.loads(ok("evaluate", "--task", "correctness", "--judge", "contains", "--data",
                            EXAMPLES / "correctness.jsonl", "--no-progress", "--json"))
    low, high = payload["intervals"]["cohen_kappa"]
    assert low < payload["figures"]["cohen_kappa"] < high
    assert set(payload["result"]["by_system"]) == {"chatgpt", "fid", "gpt35", "gpt4", "newbing"}


def test_report_states_a_runs_rate_and_its_unscored_items(tmp_path: Path) -> None:
    preds = judged(EXAMPLES / "config_a.jsonl", tmp_path / "a.jsonl")
    rows = [json.loads(line) for line in preds.read_text().splitlines()]
    rows[0].update(label=None, unscored=True, unscored_reason="invalid output")
    preds.write_text("".join(json.dumps(row) + "\n" for row in rows))
    first = ok("report", preds).splitlines()[1]
    assert first.startswith("judged correct: ") and first.endswith("99 scored, 1 unscored left out)")


def two_configs(tmp_path: Path) -> tuple[Path, Path]:
    return (judged(EXAMPLES / "config_a.jsonl", tmp_path / "config_a.jsonl"),
            judged(EXAMPLES / "config_b.jsonl", tmp_path / "config_b.jsonl"))


def test_two_configs_give_a_paired_difference_with_interval_and_p_value(tmp_path: Path) -> None:
    stats = pytest.importorskip("scipy.stats")
    a, b = two_configs(tmp_path)
    html = tmp_path / "compare.html"
    text = ok("report", a, b, "--html", html)
    assert "run comparison: two runs' answers to the same questions, judged by the same judge" in text
    assert "A (config_a) judged correct: 55.0 % [45.2, 64.4]" in text
    assert "B (config_b) judged correct: 54.0 % [44.3, 63.4]" in text
    assert re.search(r"B - A: -1\.0 points \[[-+]\d+\.\d, [-+]\d+\.\d\] \(95 % paired bootstrap over 100 questions\), "
                     r"p = 1 \(McNemar's exact test\)", text)
    assert "questions: A only 14, B only 13, both 41, neither 32" in text
    assert "'ragjury report A.jsonl B.jsonl --labels labels.jsonl'" in text
    payload: dict[str, Any] = json.loads(ok("report", a, b, "--json"))
    comparison = payload["comparison"]
    paired = comparison["paired"]
    assert comparison["kind"] == "runs"
    counts = paired["counts"]
    expected = stats.binomtest(counts["b_only"], counts["a_only"] + counts["b_only"]).pvalue
    assert paired["p_value"] == pytest.approx(expected)
    assert paired["difference"] == pytest.approx(-0.01)
    low, high = paired["interval"]
    assert low < -0.01 < high
    assert [run["result"]["rate"] for run in payload["runs"]] == pytest.approx([0.55, 0.54])
    page = html.read_text(encoding="utf-8")
    first_b = json.loads((EXAMPLES / "config_b.jsonl").read_text().splitlines()[0])["answer"]
    first_a = json.loads((EXAMPLES / "config_a.jsonl").read_text().splitlines()[0])["answer"]
    assert first_a in page and first_b in page  # both answers to the first question
    assert '"answersPerRun":true' in page


def test_rows_that_do_not_match_are_named(tmp_path: Path) -> None:
    a, b = two_configs(tmp_path)
    rows = [json.loads(line) for line in b.read_text().splitlines()]
    dropped = rows.pop(5)["id"]
    rows[0]["item"]["question"] = "another question entirely"
    rows.append(dict(rows[1], id="extra-1"))
    b.write_text("".join(json.dumps(row) + "\n" for row in rows))
    text = ok("report", a, b)
    assert f"ids only in A, left out of the pairs: 1 ({dropped})" in text
    assert "ids only in B, left out of the pairs: 1 (extra-1)" in text
    assert f"ids with a different question in A and B, left out of the pairs: 1 ({rows[0]['id']})" in text
    unmatched = json.loads(ok("report", a, b, "--json"))["comparison"]
    assert unmatched["unmatched"]["different_question"] == {"count": 1, "ids": [rows[0]["id"]]}
    assert unmatched["paired"]["n_pairs"] == 98  # 100 - 1 dropped - 1 under another question


def test_the_same_answers_judged_twice_is_a_judge_comparison(tmp_path: Path) -> None:
    a = judged(EXAMPLES / "correctness.jsonl", tmp_path / "contains.jsonl")
    b = judged(EXAMPLES / "correctness.jsonl", tmp_path / "token.jsonl", judge="token-overlap")
    text = ok("report", a, b)
    assert "judge comparison: the same answers, judged twice" in text
    assert "caveat" not in text


def test_agreement_prints_every_agreement_figure_with_its_interval(tmp_path: Path) -> None:
    trec = EXAMPLES / "trec"
    judged = tmp_path / "judged.qrels"  # the people's grades, every third one moved: a judge that errs
    lines = (trec / "qrels.txt").read_text().splitlines()
    judged.write_text("".join(
        f"{q} 0 {d} {(int(g) + 1) % 4 if n % 3 == 0 else g}\n" for n, (q, _, d, g) in enumerate(map(str.split, lines))
    ))
    args = ("agreement", "--gold", trec / "qrels.txt", "--judged", judged, "--runs", trec / "runs")
    payload = json.loads(ok(*args, "--json"))
    for name in ("accuracy", "cohen_kappa", "binary_krippendorff_alpha", "precision", "recall", "f1",
                 "graded_accuracy", "graded_cohen_kappa", "quadratic_kappa", "krippendorff_alpha"):
        assert name in payload["figures"], name
        assert payload["intervals"][name] is not None, name
    text = ok(*args)
    assert re.search(r"│ krippendorff_alpha +│ [-\d.]+ \[[-\d.]+, [-\d.]+\] +│ [-\d.]+ \[[-\d.]+, [-\d.]+\] │", text)
    assert re.search(r"cohen_kappa=[-\d.]+ \[[-\d.]+, [-\d.]+\]", text)


def test_files_without_answer_text_are_not_called_a_judge_comparison(tmp_path: Path) -> None:
    a, b = two_configs(tmp_path)
    for path in (a, b):
        rows = [{k: v for k, v in json.loads(line).items() if k != "item"} for line in path.read_text().splitlines()]
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    text = ok("report", a, b)
    assert "they carry no answer text, so whether the answers differ is unknown" in text
    assert "judge comparison" not in text and "B - A: -1.0 points" in text
