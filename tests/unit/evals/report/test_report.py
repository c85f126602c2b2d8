"""Reports: terminal tables, and a self-contained, escaped HTML file (the gates: tests/unit/evals/results/test_gates.py)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from rich.console import Console

from ragjury.evals.report.page import HtmlReport, histogram_svg, render_html, scatter_svg, write_html
from ragjury.evals.report.terminal import agreement_table, confusion_table, metrics_table
from ragjury.evals.stats.agreement import label_agreement, ranking_correlation
from ragjury.rag_agent.core.input_files import InputError


def _render(renderable: object) -> str:
    console = Console(record=True, width=140)
    console.print(renderable)
    return console.export_text()


def test_terminal_tables() -> None:
    figures = label_agreement([True, True, False, False], [True, None, False, True])
    text = _render(agreement_table({"binary": figures}))
    assert "cohen_kappa" in text and "coverage" in text
    assert "0.7500" in text  # coverage 3/4
    assert "quadratic_kappa" not in text  # undefined figures are left out
    matrix = _render(confusion_table(figures))
    assert "1 gold item(s) unscored" in matrix
    table = _render(metrics_table({"bm25": {"nDCG@10": 0.5058, "rank": 2}}, title="runs"))
    assert "0.5058" in table and "nDCG@10" in table


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.urls += [value or "" for name, value in attrs if name in ("src", "href")]


def _report() -> HtmlReport:
    figures = label_agreement([0, 1, 2, 3, 2], [0, 1, 3, 3, None], ordinal=True)
    systems = {"<script>alert(1)</script>": (0.5, 0.4), "bm25 & co": (0.7, 0.6), "dense": (0.9, 0.65)}
    return HtmlReport(
        title="Agreement <test>",
        meta={"gold": "a.txt"},
        figures={"graded": figures},
        distributions={"gold": [0, 1, 2, 3, 2], "judge": [0, 1, 3, 3, None]},
        systems=systems,
        correlation=ranking_correlation(
            {k: v[0] for k, v in systems.items()}, {k: v[1] for k, v in systems.items()}
        ),
        tables={"runs": {"dense": {"nDCG@10": 0.9}}},
        gate_failures=["cohen_kappa: 0.1 < 0.5"],
    )


def test_html_is_self_contained_and_escaped(tmp_path: Path) -> None:
    page = render_html(_report())
    parser = _Collector()
    parser.feed(page)
    assert "script" not in parser.tags and "link" not in parser.tags and "img" not in parser.tags
    assert parser.urls == []
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Agreement &lt;test&gt;" in page and "bm25 &amp; co" in page
    assert "<style>" in page and parser.tags.count("svg") == 2  # histogram + scatter
    assert "Gates failed" in page and "Kendall tau 1.0000" in page
    # every SVG is well-formed XML (what a browser will parse)
    for svg in re.findall(r"<svg.*?</svg>", page, re.S):
        ET.fromstring(svg)
    path = write_html(tmp_path / "r.html", _report())
    assert path.read_text(encoding="utf-8") == page
    with pytest.raises(InputError):
        write_html(tmp_path / "missing-dir" / "r.html", _report())


def test_html_confusion_matrix_carries_the_counts() -> None:
    page = render_html(_report())
    cells = re.findall(r"<td style='background:[^']*'>(\d+)</td>", page)
    assert [int(c) for c in cells] == [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1]
    assert "1 unscored item(s) not shown" in page


def test_histogram_categories_bins_and_unscored() -> None:
    discrete = histogram_svg({"gold": [0, 1, 1, 3], "judge": [0, None, 1, 3]})
    categories = re.findall(r"text-anchor='middle'>([^<>]+)</text>", discrete)
    assert categories == ["0", "1", "3", "unscored"]  # seen labels only, unscored apart
    bars = re.findall(r"<title>judge (\S+): (\d+)</title>", discrete)
    assert dict(bars) == {"0": "1", "1": "1", "3": "1", "unscored": "1"}
    continuous = histogram_svg({"scores": [0.05, 0.5, 0.51, 0.95, 1.0]}, n_bins=4)
    counts = [int(c) for c in re.findall(r"<title>scores [^:]+: (\d+)</title>", continuous)]
    assert counts == [1, 2, 0, 2]  # bins of width 0.2375 from 0.05; the maximum goes in the last bin
    assert histogram_svg({}) == "" and scatter_svg({}) == ""


def test_scatter_places_better_systems_higher_and_further_right() -> None:
    svg = scatter_svg({"weak": (0.2, 0.1), "strong": (0.8, 0.9)})
    circles = re.findall(r"<circle cx='([\d.]+)' cy='([\d.]+)' r='7'", svg)
    (weak_x, weak_y), (strong_x, strong_y) = [(float(x), float(y)) for x, y in circles]
    assert strong_x > weak_x and strong_y < weak_y  # SVG y grows downwards
