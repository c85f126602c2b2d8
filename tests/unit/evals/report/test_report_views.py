"""The report's views beyond the figures: Landis–Koch bands, a probability judge's P(yes) charts,
the per-system table, latency / tokens / cost per judge, the comparison on top, and both ranking
plots on one axis. (The browser-side views — sorting, CSV, header wrapping — are checked in a real
Chromium in ``test_report_chromium.py``.)"""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from ragjury.evals.io.predictions import load_predictions
from ragjury.evals.results.formatting import agreement_band
from ragjury.evals.report.page import render_html
from ragjury.evals.report.run_report import build_report
from ragjury.evals.stats.calibration import auc
from ragjury.evals.stats.probability_curves import area_under, reliability_bins, roc_points, split_histogram


def prow(ident: str, gold: bool, p: float | None, *, system: str = "s1", latency: float | None = None,
         cost: float | None = None, label: bool | None = None) -> dict[str, Any]:
    """A correctness predictions row whose judge read P(yes) (the logprob path)."""
    verdict = (p is not None and p >= 0.5) if label is None else label
    value: dict[str, Any] = {"verdict": verdict, "reason": "read from one token"}
    if p is not None:
        value["probability"] = p
    usage: dict[str, Any] = {"input_tokens": 280, "output_tokens": 1, "requests": 1}
    if cost is not None:
        usage["cost_usd"] = cost
    out = {"id": ident, "system": system, "task": "correctness", "label": verdict, "gold": gold, "value": value,
           "judge": "answer_correctness", "model": "qwen", "prompt_version": "answer_correctness@1.2",
           "usage": usage, "unscored": False,
           "item": {"question": "q " + ident, "answer": "a " + ident, "references": ["r"]}}
    if latency is not None:
        out["latency_s"] = latency
    return out


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("value", "band"),
    [(-0.08, "poor"), (0.0, "slight"), (0.008, "slight"), (0.2, "slight"), (0.21, "fair"), (0.35, "fair"),
     (0.41, "moderate"), (0.6, "moderate"), (0.61, "substantial"), (0.8, "substantial"), (0.81, "almost perfect"),
     (1.0, "almost perfect"), (None, None), (float("nan"), None)],
)
def test_landis_koch_bands(value: float | None, band: str | None) -> None:
    assert agreement_band(value) == band


def test_probability_curves_match_the_auc_and_count_every_item() -> None:
    rng = random.Random(3)
    gold = [rng.random() < 0.4 for _ in range(300)]
    p = [min(1.0, max(0.0, rng.gauss(0.65 if g else 0.4, 0.2))) for g in gold]
    p[:20] = [0.5] * 20  # ties
    points = roc_points(p, gold)
    assert points[0] == (0.0, 0.0) and points[-1] == (1.0, 1.0)
    assert all(x2 >= x1 and y2 >= y1 for (x1, y1), (x2, y2) in zip(points, points[1:], strict=False))
    assert area_under(points) == pytest.approx(auc(p, gold))
    counts = split_histogram(p, gold)
    assert sum(counts["gold yes"]) == sum(gold) and sum(counts["gold no"]) == len(gold) - sum(gold)
    bins = reliability_bins(p, gold)
    assert sum(b.n for b in bins) == 300 and all(b.low <= b.mean_probability <= b.high for b in bins)
    assert roc_points([0.2, 0.9], [True, True]) == [] and area_under([]) is None


def test_reliability_of_a_calibrated_judge_sits_on_the_diagonal() -> None:
    p = [0.05] * 20 + [0.95] * 20
    gold = [i == 0 for i in range(20)] + [i != 0 for i in range(20)]  # 1 in 20 yes, 19 in 20 yes
    bins = reliability_bins(p, gold)
    flat = [v for b in bins for v in (b.mean_probability, b.observed)]
    assert flat == pytest.approx([0.05, 0.05, 0.95, 0.95])


def test_probability_judge_report_draws_histogram_reliability_and_roc(tmp_path: Path) -> None:
    rows = [prow(f"i{k}", k % 3 == 0, 0.1 + 0.8 * (k % 3 == 0) + 0.01 * (k % 7)) for k in range(30)]
    rows[0]["value"]["probability"] = 0.12  # one positive the judge doubts: below a few negatives
    report, _ = build_report([load_predictions(write(tmp_path / "p.jsonl", rows))], resamples=50)
    page = render_html(report)
    for chart in ("chart-phist", "chart-reliability", "chart-roc"):
        (svg,) = re.findall(rf"<svg[^>]*class='{chart}'.*?</svg>", page, re.S)
        ET.fromstring(svg)  # well-formed
    assert "gold yes" in page and "gold no" in page and "P(yes) against people" in page
    assert re.search(r"class='auc'>AUC 0\.9\d\d<", page)


def test_no_probability_charts_without_probabilities(tmp_path: Path) -> None:
    rows = [prow(f"i{k}", k % 2 == 0, None, label=k % 3 == 0) for k in range(10)]
    page = render_html(build_report([load_predictions(write(tmp_path / "p.jsonl", rows))], resamples=20)[0])
    assert "chart-roc" not in page and "chart-phist" not in page


def test_agreement_figures_carry_their_band_in_text_and_colour(tmp_path: Path) -> None:
    # 12 of 20 gold yes; the judge says yes to all but one gold no: kappa 0.146, "slight"
    rows = [prow(f"i{k}", k < 12, None, label=k != 19) for k in range(20)]
    report, figures = build_report([load_predictions(write(tmp_path / "p.jsonl", rows))], resamples=20)
    kappa = figures[0].agreement.cohen_kappa  # type: ignore[union-attr]
    assert kappa is not None and 0 < kappa <= 0.2
    page = render_html(report)
    assert "<span class='band band-slight'" in page and ">slight</span>" in page
    assert report.summary_bands["Cohen's kappa"] == kappa  # the kappa card is banded too
    assert re.search(r"Cohen&#x27;s kappa</span><b>[^<]*</b> <span class='band band-slight'", page)
    assert ".band-slight{" in page and "Landis &amp; Koch" in page


def test_per_system_table(tmp_path: Path) -> None:
    rows = [prow("a1", True, 0.9, system="bm25"), prow("a2", True, 0.2, system="bm25"),
            prow("a3", False, 0.1, system="bm25"), prow("b1", True, 0.8, system="dense"),
            prow("b2", False, 0.7, system="dense")]
    report, _ = build_report([load_predictions(write(tmp_path / "p.jsonl", rows))], resamples=20)
    table = report.breakdowns["Per system"]
    assert list(table) == ["bm25", "dense"]
    assert table["bm25"]["n"] == 3 and table["bm25"]["people yes"] == pytest.approx(2 / 3)
    assert table["bm25"]["judged yes"] == pytest.approx(1 / 3) and table["bm25"]["agreement"] == pytest.approx(2 / 3)
    assert table["dense"]["judged yes"] == 1.0 and table["dense"]["agreement"] == 0.5
    page = render_html(report)
    assert "<h2>Per system</h2>" in page and "<th>people yes</th>" in page


def test_per_system_table_compares_two_runs(tmp_path: Path) -> None:
    a = [prow("a1", True, 0.9, system="bm25"), prow("b1", False, 0.8, system="dense")]
    b = [prow("a1", True, 0.2, system="bm25"), prow("b1", False, 0.1, system="dense")]
    runs = [load_predictions(write(tmp_path / "a.jsonl", a)), load_predictions(write(tmp_path / "b.jsonl", b))]
    table = build_report(runs, resamples=20)[0].breakdowns["Per system"]
    assert table["bm25"]["A: agreement"] == 1.0 and table["bm25"]["B: agreement"] == 0.0
    assert table["dense"]["A: agreement"] == 0.0 and table["dense"]["B: agreement"] == 1.0


def test_no_per_system_table_without_systems(tmp_path: Path) -> None:
    rows = [prow(f"i{k}", True, 0.9) for k in range(3)]
    for r in rows:
        del r["system"]
    report, _ = build_report([load_predictions(write(tmp_path / "p.jsonl", rows))], resamples=20)
    assert "Per system" not in report.breakdowns


def test_latency_tokens_and_cost_per_judge(tmp_path: Path) -> None:
    rows = [prow(f"i{k}", True, 0.9, latency=0.1 * (k + 1), cost=0.0002) for k in range(10)]
    report, _ = build_report([load_predictions(write(tmp_path / "p.jsonl", rows))], resamples=20)
    row = report.breakdowns["Latency, tokens and cost per judge"]["answer_correctness"]
    assert row["judgments"] == 10 and row["median latency"] == "550 ms"
    assert row["90th percentile latency"] == "1.00 s" and row["max latency"] == "1.00 s"
    assert row["input tokens per judgment"] == "280.0" and row["tokens"] == 2810
    assert row["cost (USD)"] == "0.0020"
    assert "Latency, tokens and cost per judge" not in report.tables  # page only: too wide for a terminal
    without_cost = [prow("i", True, 0.9, latency=0.00004)]
    costs = build_report([load_predictions(write(tmp_path / "q.jsonl", without_cost))], resamples=20)[0].breakdowns
    row = costs["Latency, tokens and cost per judge"]["answer_correctness"]
    assert "cost (USD)" not in row and row["median latency"] == "40 µs"


def test_comparison_leads_and_ranking_plots_share_one_axis(tmp_path: Path) -> None:
    a = [prow(f"{s}{k}", k % 2 == 0, 0.9 if k % 2 == 0 else 0.1, system=s) for s in "xyz" for k in range(4)]
    b = [prow(f"{s}{k}", k % 2 == 0, 0.3 + 0.1 * "xyz".index(s), system=s) for s in "xyz" for k in range(4)]
    runs = [load_predictions(write(tmp_path / "a.jsonl", a)), load_predictions(write(tmp_path / "b.jsonl", b))]
    page = render_html(build_report(runs, resamples=20)[0])
    assert page.index("<section class='lead'><h2>Paired difference") < page.index("<h2>Agreement</h2>")
    axes = re.findall(r"class='chart-ranking' data-low='([-\d.]+)' data-high='([-\d.]+)'", page)
    assert len(axes) == 2 and axes[0] == axes[1]  # one axis for A's plot and B's
    low, high = map(float, axes[0])
    assert low < 0.0 and high > 1.0  # spans A's 0..1 people/judge means and B's


def test_a_long_roc_curve_is_drawn_with_few_points_and_the_full_auc() -> None:
    from ragjury.evals.report.charts import MAX_CURVE_POINTS, roc_svg

    rng = random.Random(5)
    gold = [rng.random() < 0.5 for _ in range(15_000)]
    p = [rng.random() * 0.6 + (0.3 if g else 0.0) for g in gold]
    svg = roc_svg(p, gold)
    (points,) = re.findall(r"<polyline points='([^']*)'", svg)
    assert len(points.split()) == MAX_CURVE_POINTS
    assert f"AUC {auc(p, gold):.3f}" in svg


def test_per_system_table_of_a_score_run(tmp_path: Path) -> None:
    rows = []
    for k, (system, judge, people) in enumerate([("x", 0.9, 0.8), ("x", 0.5, 0.7), ("y", 0.2, 0.6)]):
        rows.append({"id": f"i{k}", "system": system, "task": "score", "score": judge, "gold": people,
                     "value": {"overall_score": judge}, "judge": "deterministic_score", "unscored": False})
    report, _ = build_report([load_predictions(write(tmp_path / "s.jsonl", rows))], resamples=20)
    table = report.breakdowns["Per system"]
    assert table["x"]["people mean"] == pytest.approx(0.75) and table["x"]["judge mean"] == pytest.approx(0.7)
    assert table["x"]["mean |judge − people|"] == pytest.approx(0.15)
    assert table["y"]["mean |judge − people|"] == pytest.approx(0.4)
    assert "chart-roc" not in render_html(report)  # no P(yes) on a score task
