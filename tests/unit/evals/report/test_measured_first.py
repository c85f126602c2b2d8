"""Measure first, then draw: ``report`` measures each run and their comparison once, before any
view, and the views (the page, ``--json``, the notes the terminal prints) read what was measured.

The test measures two labelled runs (a judge comparison: agreement, intervals, the card, paired
differences), then makes every measuring function fail, and draws every view: none may measure.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest

from ragjury.cli import app
from ragjury.evals.io.predictions import load_predictions
from ragjury.evals.report.page import render_html
from ragjury.evals.report.run_report import build_report, report_notes, report_payload
from ragjury.evals.results import comparison as comparison_module, finished_run
from ragjury.evals.results.finished_run import FinishedRun, RunFigures
from ragjury.evals.results.comparison import Comparison, measure_runs

ROOT = Path(__file__).resolve().parents[4]
MEASURING = {
    finished_run: ("run_result", "binary_agreement", "score_correlation", "system_ranking", "flat_figures",
                   "per_system", "partial_labels_estimates", "run_card", "figure_intervals", "people_rates",
                   "headline", "trust_note", "fallback_note", "trust_block", "system_table", "cost_table",
                   "labelled_probabilities"),
    comparison_module: ("_measure", "_shown", "match_rows", "paired_difference", "comparison_tables", "system_table",
                      "cost_table"),
}
"""Where a figure is measured: what the runs and their comparison call, by the names they call."""


def judged(tmp_path: Path, judge: str) -> Path:
    out = tmp_path / f"{judge}.jsonl"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        app(["evaluate", "--task", "correctness", "--judge", judge, "--data",
             str(ROOT / "examples" / "data" / "correctness.jsonl"), "--out", str(out), "--no-cache", "--no-progress",
             "--json"], standalone_mode=False)
    return out


def refuse_measuring(monkeypatch: pytest.MonkeyPatch) -> None:
    def measured_in_a_view(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a view measured a figure: measure it before the views (FinishedRun.measure)")

    for module, names in MEASURING.items():
        for name in names:
            monkeypatch.setattr(module, name, measured_in_a_view)
    monkeypatch.setattr(RunFigures, "of", classmethod(measured_in_a_view))


def test_the_views_of_two_runs_read_what_was_measured_and_measure_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = [judged(tmp_path, "contains"), judged(tmp_path, "token-overlap")]
    runs = [load_predictions(path) for path in paths]
    measured, comparison = measure_runs(runs, resamples=50)
    assert comparison is not None and comparison is Comparison.of(*measured, resamples=50)  # measured once, kept
    assert all(run.measure() is run.measured for run in measured)
    assert comparison.differences and comparison.tables and measured[0].measured.card is not None
    expected = render_html(build_report([], measured=measured, comparison=comparison)[0])
    refuse_measuring(monkeypatch)
    page, _ = build_report([], measured=measured, comparison=comparison)
    assert render_html(page) == expected
    payload = report_payload(measured, paths, None, comparison)
    assert payload["comparison"] == comparison.as_dict() and payload["runs"][1]["judge_card"] is not None
    assert report_notes(measured, comparison)[0] == comparison.kind_note


def test_the_views_of_one_run_read_what_was_measured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = judged(tmp_path, "contains")
    (run,), comparison = measure_runs([load_predictions(path)], resamples=50)
    assert comparison is None and isinstance(run, FinishedRun)
    record = run.measured
    assert record.document == run.as_dict() and record.headline[0].startswith("correct as people would judge it")
    refuse_measuring(monkeypatch)
    page, _ = build_report([], measured=[run])
    assert "Cohen's kappa" in page.summary and page.sections  # the card, read from the record
    assert report_payload([run], [path])["runs"][0]["figures"] == record.figures
