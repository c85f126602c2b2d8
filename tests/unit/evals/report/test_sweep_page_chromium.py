"""The sweep page (``report RUN1 ... RUNn --html``) in a real headless Chromium: the chart has every
config, sorted, the baseline marked; clicking a config in the chart shows its questions where it
differs from the best (CSS ``:target``, no script: the page declares a CSP without any); run text
stays text; nothing overflows an 800 px window. Skipped only where no Chromium is installed.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragjury.evals.io.predictions import load_predictions
from ragjury.evals.report.sweep_page import CSP, render_sweep, write_sweep_html
from ragjury.evals.results.sweep import Sweep

CHROMIUM = next(
    (path for name in ("chromium", "chromium-browser", "google-chrome") if (path := shutil.which(name))), None
)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars")
HOSTILE = "<img src=x onerror=alert(1)> Marlowe"
NAMES = ["baseline", "chunk256-top5-rerank-with-a-rather-long-name", "chunk512", "top10", "prompt-b", "worst"]


def sweep_of(tmp_path: Path) -> Sweep:
    rng = np.random.default_rng(3)
    n = 120
    hard = rng.random(n)
    runs = []
    for name, rate in zip(NAMES, (0.55, 0.75, 0.6, 0.5, 0.7, 0.2)):
        verdicts = 0.7 * hard + 0.3 * rng.random(n) < rate
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({
            "id": f"q{i}", "task": "correctness", "judge": "contains", "label": bool(verdicts[i]), "unscored": False,
            "item": {"question": f"Who wrote play {i}? " + HOSTILE, "answer": f"{name}: " + HOSTILE + " wrote it. " * 40,
                     "references": ["Marlowe"]}}) + "\n" for i in range(n)), encoding="utf-8")
        runs.append(load_predictions(path, name=name))
    return Sweep.of(runs, margin=0.02)


def test_the_page_has_no_script_and_says_its_intervals_are_simultaneous(tmp_path: Path) -> None:
    sweep = sweep_of(tmp_path)
    page = render_sweep(sweep, sweep.gate(0.02))
    assert "<script" not in page.lower() and CSP in page and "unsafe-inline" in CSP and "script-src" not in CSP
    assert "Intervals are simultaneous" in page and HOSTILE not in page
    assert page.count("<section class='config'") == len(NAMES)


pytestmark_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (CI installs Debian's chromium)")


def dump_dom(tmp_path: Path, url: str, *extra: str, size: str = "800,900") -> str:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    assert CHROMIUM is not None
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={size}", *extra,
                           "--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "<html" in done.stdout, done.stderr[-2000:]
    return done.stdout


def in_frame(tmp_path: Path, page: Path, script: str, *, width: int = 800) -> Any:
    """Run ``script`` (over ``doc`` and ``win``, the page's document and window) once the page has
    loaded in an iframe ``width`` px wide; return its JSON value."""
    wrapper = tmp_path / f"frame-{len(list(tmp_path.glob('frame-*')))}.html"
    wrapper.write_text(
        f"<html><body style='margin:0'><iframe id='f' src='{page.name}' width='{width}' height='900'"
        " style='border:0'></iframe><pre id='out'></pre><script>"
        "document.getElementById('f').addEventListener('load', function () {"
        " var doc = this.contentDocument, win = this.contentWindow;"
        f" document.getElementById('out').textContent = JSON.stringify({script}); }});"
        "</script></body></html>", encoding="utf-8")
    text = dump_dom(tmp_path, wrapper.as_uri(), "--allow-file-access-from-files", size=f"{width + 40},1000")
    found = re.search(r"<pre id=\"out\">(.*?)</pre>", text, re.S)
    assert found is not None and found.group(1), text[-2000:]
    return json.loads(html.unescape(found.group(1)))


@pytestmark_chromium
def test_the_chart_is_sorted_and_a_click_shows_that_configs_questions(tmp_path: Path) -> None:
    sweep = sweep_of(tmp_path)
    page = write_sweep_html(tmp_path / "sweep.html", sweep, sweep.gate(0.02))
    target = next(r for r in sweep.rows if r.index != sweep.best and r.differs_from_best)
    script = (
        "(function () {"
        " var links = Array.prototype.map.call(doc.querySelectorAll('svg.chart a'), function (a) {"
        "   return a.getAttribute('href'); });"
        " var before = win.getComputedStyle(doc.getElementById('cfg-%d')).display;"
        " doc.querySelector(\"svg.chart a[href='#cfg-%d']\").dispatchEvent(new win.MouseEvent('click',"
        "   {bubbles: true, cancelable: true, view: win}));"
        " var section = doc.getElementById('cfg-%d');"
        " return {links: links, before: before, after: win.getComputedStyle(section).display,"
        "   rows: section.querySelectorAll('tr').length, hash: win.location.hash,"
        "   others: Array.prototype.filter.call(doc.querySelectorAll('section.config'), function (s) {"
        "     return win.getComputedStyle(s).display !== 'none'; }).length,"
        "   width: doc.documentElement.scrollWidth, chart: doc.querySelector('svg.chart').getBoundingClientRect().width,"
        "   img: doc.querySelectorAll('img').length, square: doc.querySelectorAll('svg.chart a rect[fill=\"#fff\"]').length};"
        "})()"
    ) % (target.index, target.index, target.index)
    seen = in_frame(tmp_path, page, script)
    assert seen["links"] == [f"#cfg-{r.index}" for r in sweep.rows]  # every config, highest rate first
    assert seen["square"] == 1  # the baseline, marked
    assert seen["before"] == "none" and seen["after"] == "block" and seen["others"] == 1
    assert seen["hash"] == f"#cfg-{target.index}"
    assert seen["rows"] == 1 + min(len(target.differs_from_best), 200)
    assert seen["img"] == 0  # the hostile text stayed text
    assert seen["width"] <= 800 and seen["chart"] <= 800  # usable at 800 px: nothing runs off the side


def test_with_labels_the_page_leads_with_people(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "results"))
    from test_sweep import people_world

    import ragjury

    paths, labels, _ = people_world(tmp_path)
    page = render_sweep(ragjury.compare_runs(paths, labels=labels))
    people, judge = page.index("As people would judge it: careful is best"), page.index("The judge's verdicts")
    assert people < judge and page.count("<svg class='chart'") == 2 and "<script" not in page
