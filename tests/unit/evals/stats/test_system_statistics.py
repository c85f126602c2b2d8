"""Per-system statistics are small declared functions (``evals.stats.system_statistics``): the
JSON and the page list every one, so adding one is one function and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

from package_copy import ROOT, package_with, run_cli

from ragjury.evals.io.predictions import load_predictions
from ragjury.evals.results.breakdowns import system_table
from ragjury.evals.results.finished_run import finished_run
from ragjury.evals.stats.system_statistics import STATISTICS, per_system, statistics_of

SYSTEMS = ROOT / "tests" / "fixtures" / "pipeline_correctness.jsonl"

MEDIAN = '''

@system_statistic("median_answer_words", "median answer words", of="items")
def median_answer_words(records: Records) -> float | None:
    from statistics import median

    words = [len((r.answer or "").split()) for r in records]
    return float(median(words)) if words else None
'''


def test_the_page_and_the_json_show_every_declared_statistic(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = tmp_path / "p.jsonl"
    subprocess.run([str(Path(sys.executable).with_name("ragjury")), "evaluate", "--task", "correctness", "--judge",
                    "contains", "--data", str(SYSTEMS), "--out", str(out), "--no-cache", "--no-progress"], check=True,
                   capture_output=True)
    run = load_predictions(out)
    table = system_table([finished_run(run)])
    binary = [s.title for s in statistics_of("binary")]
    assert all(list(row) == binary for row in table.values())
    figures = per_system(run.records, "binary")
    assert set(figures) == {"chatgpt", "fid", "gpt35", "gpt4", "newbing"}
    assert figures["gpt4"]["n"] == 4 and -1 <= figures["gpt4"]["cohen_kappa"] <= 1
    assert [s.name for s in statistics_of("score")] == ["n", "labelled", "people_mean", "judge_mean",
                                                        "mean_abs_difference"]
    assert len(STATISTICS) == 9


def test_a_statistic_added_in_a_copy_reaches_the_json_and_the_page(tmp_path: Path) -> None:
    site = tmp_path / "site"
    package_with(site, {})
    module = site / "ragjury" / "evals" / "stats" / "system_statistics.py"
    text = module.read_text()
    module.write_text(text.replace("\n\n__all__", MEDIAN + "\n\n__all__"))
    out, page = tmp_path / "preds.jsonl", tmp_path / "report.html"
    url = "http://127.0.0.1:9/v1"
    made = run_cli(site, "evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS), "--out",
                   str(out), "--no-cache", "--no-progress", "--json", base_url=url, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["per_system"]["gpt4"]["median_answer_words"] > 0
    shown = run_cli(site, "report", str(out), "--json", "--html", str(page), base_url=url, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "median_answer_words" in json.loads(shown.stdout)["runs"][0]["per_system"]["chatgpt"]
    assert "median answer words" in page.read_text()
