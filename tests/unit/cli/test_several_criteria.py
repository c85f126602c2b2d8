"""Several criteria in one run: ``--judge A --judge B`` or ``--judge rubric:FOLDER`` give a verdict
column, a rate with its interval and a predictions file each, over rows read once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fake_endpoints import fake_endpoint

ROOT = Path(__file__).resolve().parents[3]
RUBRICS = ROOT / "examples" / "rubrics"
DATA = RUBRICS / "data" / "cites-source.jsonl"
CORRECTNESS = ROOT / "tests" / "fixtures" / "pipeline_correctness.jsonl"
RAGJURY = Path(sys.executable).with_name("ragjury")


def ragjury(*args: str) -> subprocess.CompletedProcess[str]:
    extra = ["--no-progress"] if args[0] == "evaluate" else []
    return subprocess.run([str(RAGJURY), *args, *extra], check=False, capture_output=True, text=True,
                          timeout=120)


def test_a_rubric_folder_gives_a_column_a_rate_and_a_predictions_file_each(tmp_path: Path) -> None:
    out = tmp_path / "preds.jsonl"
    with fake_endpoint() as server:
        result = ragjury("evaluate", "--task", "faithfulness", "--judge", f"rubric:{RUBRICS}", "--data", str(DATA),
                         "--base-url", server.base_url, "--no-cache", "--out", str(out), "--json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    names = ["cites-source", "no-advice-outside-scope", "refuses-when-unanswerable"]
    assert payload["mode"] == "criteria" and list(payload["criteria"]) == names
    for name in names:
        own = payload["criteria"][name]
        assert own["n"] == 16 and own["scored"] == 16
        assert own["result"]["rate"] == 1.0 and own["result"]["interval"][0] < 1.0  # the fake server says "1"
        rows = [json.loads(line) for line in (tmp_path / f"preds.{name}.jsonl").read_text().splitlines()]
        assert len(rows) == 16 and {row["judge"] for row in rows} == {f"rubric:{name}"}
    assert not out.exists()  # a file per criterion, none under the plain name
    assert all(payload["criteria"][name]["judged"] == 16 for name in names)  # each criterion judged every row once


def test_model_free_criteria_side_by_side_with_agreement_and_a_file_report_reads(tmp_path: Path) -> None:
    out = tmp_path / "p.jsonl"
    result = ragjury("evaluate", "--task", "correctness", "--judge", "contains", "--judge", "token-overlap",
                     "--data", str(CORRECTNESS), "--no-cache", "--out", str(out))
    assert result.returncode == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "figure" in line)
    assert "contains" in header and "token-overlap" in header  # a column each
    assert "pass rate [95 % Wilson]" in result.stdout and "κ vs people" in result.stdout
    report = ragjury("report", str(tmp_path / "p.contains.jsonl"), str(tmp_path / "p.token-overlap.jsonl"), "--json")
    assert report.returncode == 0, report.stderr
    comparison = json.loads(report.stdout)["comparison"]
    assert comparison["kind"] == "judges" and comparison["paired"]["n_pairs"] == 20


def test_each_criterion_is_gated_and_named_in_the_failure() -> None:
    result = ragjury("evaluate", "--task", "correctness", "--judge", "contains", "--judge", "token-overlap",
                     "--data", str(CORRECTNESS), "--no-cache", "--fail-under", "accuracy=0.8")
    assert result.returncode == 1
    assert "gate failed: contains: accuracy" in result.stderr
    assert "token-overlap: accuracy" not in result.stderr


def test_a_criterion_that_scored_nothing_fails_the_run(tmp_path: Path) -> None:
    with fake_endpoint(content="not a verdict") as server:
        result = ragjury("evaluate", "--task", "correctness", "--judge", "contains", "--judge", "llm",
                         "--data", str(CORRECTNESS), "--base-url", server.base_url, "--no-cache", "--json")
    assert result.returncode == 3, result.stderr
    payload = json.loads(result.stdout)
    assert payload["criteria"]["contains"]["scored"] == 20 and payload["criteria"]["llm"]["scored"] == 0
    assert "nothing was scored for llm" in result.stderr


def test_several_criteria_refuse_what_takes_one_judge_in_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "none"
    empty.mkdir()
    same = tmp_path / "same"
    same.mkdir()
    for file in ("a.yaml", "b.yaml"):
        (same / file).write_text("name: twin\ncriterion: The answer is short.\n")
    cases = [
        (["--judge", f"rubric:{empty}"], "holds no rubric file"),
        (["--judge", f"rubric:{same}"], "two criteria are named 'twin'"),
        (["--judge", "contains", "--judge", "contains"], "the same --judge is given twice"),
        (["--judge", "contains", "--judge", "token-overlap", "--dry-run"], "--dry-run takes one --judge"),
    ]
    for extra, words in cases:
        result = ragjury("evaluate", "--task", "correctness", "--data", str(CORRECTNESS), "--no-cache", *extra)
        assert result.returncode == 2, (extra, result.stderr)
        assert words in result.stderr and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_rubric_run_says_what_a_yes_means(tmp_path: Path) -> None:
    """A rubric's "yes" meets its criterion: the result line of evaluate and report says so, not
    the task's word ("judged correct" for a criterion like "answers directly" would mislead)."""
    out = tmp_path / "r.jsonl"
    with fake_endpoint() as server:
        result = ragjury("evaluate", "--task", "faithfulness", "--judge", f"rubric:{RUBRICS / 'cites-source.yaml'}",
                         "--data", str(DATA), "--base-url", server.base_url, "--no-cache", "--out", str(out))
    assert result.returncode == 0, result.stderr
    first, *_ = result.stdout.splitlines()
    assert first.startswith("meets the criterion as people would judge it: 50.0 % [")  # people labelled every row
    assert "the judge's own rate, judged to meet the criterion: 100.0 %" in result.stdout
    shown = ragjury("report", str(out))
    assert "judged to meet the criterion: 100.0 %" in shown.stdout
    plain = ragjury("evaluate", "--task", "correctness", "--judge", "contains", "--data", str(CORRECTNESS), "--no-cache")
    assert plain.stdout.splitlines()[0].startswith("correct as people would judge it")
    assert "the judge's own rate, judged correct: " in plain.stdout


def test_a_derived_output_never_lands_on_an_input_the_cache_or_another_output(tmp_path: Path) -> None:
    """``--out mo/in.jsonl`` with ``--data mo/in.contains.jsonl`` used to replace the dataset with
    predictions (exit 0); ``--cache mo/k.contains.jsonl`` with ``--out mo/k.jsonl`` made the cache
    and a predictions file one file."""
    data = tmp_path / "in.contains.jsonl"
    data.write_bytes(CORRECTNESS.read_bytes())
    before = data.read_bytes()
    judges = ["--judge", "contains", "--judge", "token-overlap"]
    onto_data = ragjury("evaluate", "--task", "correctness", *judges, "--data", str(data), "--no-cache",
                        "--out", str(tmp_path / "in.jsonl"))
    assert onto_data.returncode == 2 and "never overwrites an input" in onto_data.stderr, onto_data.stderr
    assert data.read_bytes() == before
    cache = tmp_path / "k.contains.jsonl"
    onto_cache = ragjury("evaluate", "--task", "correctness", *judges, "--data", str(CORRECTNESS),
                         "--cache", str(cache), "--out", str(tmp_path / "k.jsonl"))
    assert onto_cache.returncode == 2 and "--cache" in onto_cache.stderr, onto_cache.stderr
    assert not cache.exists()
    junit = tmp_path / "j.contains.xml"
    onto_junit = ragjury("evaluate", "--task", "correctness", *judges, "--data", str(CORRECTNESS), "--no-cache",
                         "--html", str(tmp_path / "j.xml"), "--junit", str(junit))
    assert onto_junit.returncode == 2 and "give each output its own file" in onto_junit.stderr, onto_junit.stderr


def test_ctrl_c_counts_every_criterion_the_one_not_started_included(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    import ragjury.evals.pipelines.dataset_evaluation as dataset_evaluation
    from ragjury.cli import app

    real = dataset_evaluation.evaluate_dataset
    calls: list[str] = []

    async def third_stops(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs.get("judge_name"))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return await real(*args, **kwargs)

    monkeypatch.setattr(dataset_evaluation, "evaluate_dataset", third_stops)
    result = CliRunner().invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--judge",
                                      "token-overlap", "--data", str(CORRECTNESS),
                                      "--cache", str(tmp_path / "c.sqlite"), "--no-progress", "--json"])
    assert result.exit_code == 130, result.output
    payload = json.loads(result.stdout)
    assert payload["interrupted"] is True and payload["n"] == 40  # 2 criteria × 20 rows, not 20
    per = payload["criteria"]
    assert [per[name]["n"] for name in per] == [20, 20]
    assert per["token-overlap"]["not_judged"] == 20 and per["token-overlap"]["scored"] == 0
    assert payload["not_judged"] == 20 and payload["scored"] + payload["unscored"] == 20
