"""The HTML report in a real headless Chromium: the per-item rows, filters, search, sorting,
expandable details, the CSV export and plots are in the rendered DOM (after the page's script
ran), dataset text stays text, nothing overflows a 1000 px window, and no header breaks mid-word
at 1280 px. Screenshots of a single run, a comparison and a probability judge's run are written
to ``$RAGJURY_SCREENSHOTS`` (else the test's temporary folder), so a person can look at them.

Skipped only where no Chromium is installed; CI installs Debian's ``chromium`` (.ci/run).
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from ragjury.evals.io.predictions import load_predictions
from ragjury.evals.report.page import write_html
from ragjury.evals.report.run_report import build_report

CHROMIUM = next(
    (path for name in ("chromium", "chromium-browser", "google-chrome") if (path := shutil.which(name))), None
)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (CI installs Debian's chromium)")

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
HOSTILE = "<img src=x onerror=alert(1)> Marlowe"


def row(ident: str, label: bool | None, gold: bool, **extra: Any) -> dict[str, Any]:
    """A correctness predictions row as ``evaluate --out`` writes it."""
    fallback = extra.get("fallback", False)
    statements = extra.get("statements")
    value: dict[str, Any] | None = None
    if label is not None:
        value = {"verdict": label, "reason": extra.get("reason", "compared with the reference")}
        if statements:
            value = {"score": 0.5, "statements": [{"statement": s, "verdict": v, "reason": r} for s, v, r in statements]}
    return {
        "id": ident,
        "system": extra.get("system", "system-with-a-rather-long-name-" + ident[0]),
        "task": "faithfulness" if statements else "correctness",
        "label": label,
        "gold": gold,
        **({"value": value} if value else {}),
        "judge": "contains" if fallback else "answer_correctness",
        "model": None if fallback else "qwen2.5:0.5b",
        "prompt_version": "answer_correctness@1.2",
        "fallback_used": fallback,
        "fallback_reason": "model server unreachable" if fallback else None,
        "usage": {"input_tokens": 200, "output_tokens": 5, "requests": 1},
        "unscored": label is None,
        "unscored_reason": "invalid output after 2 retries" if label is None else None,
        "item": {
            "question": extra.get("question", "Who wrote Hamlet?"),
            "answer": extra.get("answer", "Shakespeare wrote it. " * 30),  # long: must wrap, not overflow
            **({"contexts": ["Hamlet is a tragedy by William Shakespeare."]} if statements else
               {"references": ["William Shakespeare", "Shakespeare"]}),
        },
    }


def rows_a() -> list[dict[str, Any]]:
    """10 items: 5 TP, 2 TN, 1 FP (hostile text), 1 FN, 1 unscored; one verdict by the fallback."""
    return [
        row("a1", True, True),
        row("a2", True, True, fallback=True),
        row("a3", True, False, reason=HOSTILE, answer="Christopher " + HOSTILE),
        row("a4", False, True),
        row("a5", None, True),
        row("b1", True, True),
        row("b2", True, True),
        row("b3", False, False),
        row("b4", False, False),
        row("b5", True, True),
    ]


def write_report(tmp_path: Path, *runs: list[dict[str, Any]]) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    paths = []
    for number, rows in enumerate(runs):
        path = tmp_path / f"run{number}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        paths.append(path)
    report, _ = build_report([load_predictions(p) for p in paths], resamples=100)
    return write_html(tmp_path / "report.html", report)


def probability_rows() -> list[dict[str, Any]]:
    """24 items of a judge that read P(yes), over 3 systems, with latencies: borderline items too."""
    rows = []
    for k in range(24):
        gold = k % 3 != 0
        p = round(min(0.98, max(0.02, (0.7 if gold else 0.3) + ((k * 37) % 11 - 5) / 12)), 2)
        r = row(f"p{k:02d}", p >= 0.5, gold, system=f"system-{'abc'[k % 3]}", answer=f"answer {k}")
        r["value"]["probability"] = p
        r["latency_s"] = round(0.4 + (k % 5) / 10, 2)
        rows.append(r)
    return rows


def dump_dom(tmp_path: Path, url: str, *extra: str, size: str = "1000,900") -> str:
    """The DOM after the page's scripts ran, as Chromium serialises it."""
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--window-size={size}", *extra, "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "<html" in done.stdout, done.stderr[-2000:]
    return done.stdout


class Dom(HTMLParser):
    """What the tests look at: item rows (id, outcome), filter buttons, plots, the items element."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.rows: list[dict[str, str]] = []
        self.buttons: dict[str, str] = {}
        self.tags: list[str] = []
        self.items: dict[str, str] = {}
        self.classes: list[str] = []
        self._button: str | None = None
        self._button_text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags.append(tag)
        self.classes.extend(a.get("class", "").split())
        if tag == "tr" and "item" in a.get("class", "").split():
            self.rows.append({"id": a.get("data-id", ""), "outcome": a.get("data-outcome", "")})
        if tag == "button" and "data-filter" in a:
            self._button, self._button_text = a["data-filter"], [a.get("class", "")]
        if tag == "div" and a.get("id") == "items":
            self.items = a

    def handle_data(self, data: str) -> None:
        if self._button is not None:
            self._button_text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "button" and self._button is not None:
            self.buttons[self._button] = " ".join(self._button_text)
            self._button = None


def test_items_filters_and_plots_are_rendered(tmp_path: Path) -> None:
    page = write_report(tmp_path, rows_a())
    dom = Dom(dump_dom(tmp_path, page.as_uri()))
    assert len(dom.rows) == 10 and dom.items["data-matched"] == "10"
    assert {r["id"] for r in dom.rows} == {r["id"] for r in rows_a()}
    assert set(dom.buttons) == {"all", "disagree", "fp", "fn", "unscored", "fallback"}
    counts = {name: int(re.findall(r"\d+", text.split(" ", 1)[1])[-1]) for name, text in dom.buttons.items()}
    assert counts == {"all": 10, "disagree": 2, "fp": 1, "fn": 1, "unscored": 1, "fallback": 1}
    assert dom.tags.count("svg") == 2 and "diagonal" in dom.classes  # histogram; scatter with y = x
    assert "img" not in dom.tags  # dataset text stays text


@pytest.mark.parametrize(
    ("fragment", "ids", "outcomes"),
    [
        ("#filter=disagree", {"a3", "a4"}, {"fp", "fn"}),
        ("#filter=fn", {"a4"}, {"fn"}),
        ("#filter=unscored", {"a5"}, {"unscored"}),
        ("#filter=fallback", {"a2"}, {"tp"}),
        ("#q=marlowe", {"a3"}, {"fp"}),
    ],
)
def test_filters_and_search_from_the_address(tmp_path: Path, fragment: str, ids: set[str], outcomes: set[str]) -> None:
    page = write_report(tmp_path, rows_a())
    text = dump_dom(tmp_path, page.as_uri() + fragment)
    dom = Dom(text)
    assert {r["id"] for r in dom.rows} == ids
    assert {r["outcome"] for r in dom.rows} == outcomes
    if fragment.startswith("#filter="):
        assert "on" in dom.buttons[fragment.split("=")[1]].split()  # the active filter is marked
    assert "img" not in dom.tags
    if "a3" in ids:  # the hostile text is shown as text
        assert "&lt;img src=x onerror=alert(1)&gt; Marlowe" in text


def test_a_row_opens_with_its_statements(tmp_path: Path) -> None:
    statements = [("Hamlet is by Shakespeare.", True, "stated"), ("It was written in 1066.", False, "no date given")]
    page = write_report(tmp_path, [row("f1", False, True, statements=statements),
                                   row("f2", True, True, statements=statements[:1])])
    text = dump_dom(tmp_path, page.as_uri() + "#open=f1")
    dom = Dom(text)
    assert "detail" in dom.classes and "statements" in dom.classes
    assert "It was written in 1066." in text and "no date given" in text and "st-no" in dom.classes


def test_two_runs_filter_changed_verdicts(tmp_path: Path) -> None:
    b = rows_a()
    b[3] = row("a4", True, True)  # B fixes the false negative
    page = write_report(tmp_path, rows_a(), b)
    dom = Dom(dump_dom(tmp_path, page.as_uri() + "#filter=changed"))
    assert [(r["id"], r["outcome"]) for r in dom.rows] == [("a4", "fn tp")]
    assert {"changed", "fixed", "broken"} <= set(dom.buttons)
    assert dom.tags.count("svg") == 3  # histogram, and one people-vs-judge plot per run


def test_an_id_in_one_run_only_is_no_changed_verdict(tmp_path: Path) -> None:
    """The filter counts pairs, as the card's "verdicts changed N of P" does (issue 35 item 5)."""
    b = rows_a()[:-2]  # the last two ids only in A
    b[3] = row("a4", True, True)
    page = write_report(tmp_path, rows_a(), b)
    dom = Dom(dump_dom(tmp_path, page.as_uri() + "#filter=changed"))
    assert [r["id"] for r in dom.rows] == ["a4"]


def test_nothing_overflows_a_1000px_window(tmp_path: Path) -> None:
    """The page sits in a 1000 px iframe; its scroll width must not exceed its width."""
    page = write_report(tmp_path, rows_a())
    wrapper = tmp_path / "measure.html"
    wrapper.write_text(
        f"<html><body style='margin:0'><iframe id='f' src='{page.name}#size=200' width='1000' height='800'"
        " style='border:0'></iframe><pre id='out'></pre><script>"
        "document.getElementById('f').addEventListener('load', function () {"
        " var d = this.contentDocument.documentElement;"
        " document.getElementById('out').textContent = JSON.stringify({scroll: d.scrollWidth, width: d.clientWidth,"
        " rows: this.contentDocument.querySelectorAll('tr.item').length}); });"
        "</script></body></html>",
        encoding="utf-8",
    )
    text = dump_dom(tmp_path, wrapper.as_uri(), "--allow-file-access-from-files")
    found = re.search(r"<pre id=\"out\">(.*?)</pre>", text)
    assert found is not None and found.group(1), text[-2000:]
    measured = json.loads(found.group(1))
    assert measured["rows"] == 10
    assert measured["width"] == 1000 and measured["scroll"] <= 1000, measured


def in_frame(tmp_path: Path, page: Path, script: str, *, width: int = 1000, fragment: str = "") -> Any:
    """Run ``script`` (an expression over ``doc``, the page's document, and ``win``, its window)
    once the page has loaded in an iframe ``width`` px wide; return its JSON value."""
    wrapper = tmp_path / f"frame-{len(list(tmp_path.glob('frame-*')))}.html"
    wrapper.write_text(
        f"<html><body style='margin:0'><iframe id='f' src='{page.name}{fragment}' width='{width}' height='900'"
        " style='border:0'></iframe><pre id='out'></pre><script>"
        "document.getElementById('f').addEventListener('load', function () {"
        " var doc = this.contentDocument, win = this.contentWindow;"
        f" document.getElementById('out').textContent = JSON.stringify({script}); }});"
        "</script></body></html>",
        encoding="utf-8",
    )
    text = dump_dom(tmp_path, wrapper.as_uri(), "--allow-file-access-from-files", size=f"{width + 40},1000")
    found = re.search(r"<pre id=\"out\">(.*?)</pre>", text, re.S)
    assert found is not None and found.group(1), text[-2000:]
    return json.loads(html.unescape(found.group(1)))


def test_columns_sort_from_the_address_and_by_click(tmp_path: Path) -> None:
    page = write_report(tmp_path, probability_rows())
    by_p = Dom(dump_dom(tmp_path, page.as_uri() + "#sort=p&dir=desc"))
    wanted = sorted(probability_rows(), key=lambda r: (-r["value"]["probability"], r["id"]))
    assert [r["id"] for r in by_p.rows] == [r["id"] for r in wanted]
    assert by_p.items["data-sort"] == "p desc"
    ascending = Dom(dump_dom(tmp_path, page.as_uri() + "#sort=p"))
    in_order = sorted(probability_rows(), key=lambda r: (r["value"]["probability"], r["id"]))  # ties: file order
    assert [r["id"] for r in ascending.rows] == [r["id"] for r in in_order]
    # a click on a header sorts (numbers largest first), a second reverses, a third unsorts
    clicked = in_frame(
        tmp_path,
        page,
        "(function () { var th = doc.querySelector('th[data-sort=latency] button'), out = [];"
        " for (var k = 0; k < 3; k += 1) { th.click(); out.push([doc.getElementById('items').dataset.sort,"
        " th.parentNode.getAttribute('aria-sort'), doc.querySelector('tr.item td.num:last-child').textContent]); }"
        " return out; })()",
    )
    assert [c[:2] for c in clicked] == [["latency desc", "descending"], ["latency asc", "ascending"], ["", "none"]]
    assert clicked[0][2] == "0.80" and clicked[1][2] == "0.40"
    headers = Dom(dump_dom(tmp_path, page.as_uri()))
    assert {"sortable"} <= set(headers.classes) and headers.classes.count("sortable") >= 8


def test_csv_export_holds_the_items_shown(tmp_path: Path) -> None:
    rows = rows_a()
    rows[1]["item"]["answer"] = '=HYPERLINK("http://x") and "quotes", commas\nnew line'
    page = write_report(tmp_path, rows)
    dom = dump_dom(tmp_path, page.as_uri())
    assert "id=\"items-csv\"" in dom and "download=\"ragjury-items.csv\"" in dom
    everything = list(csv.DictReader(io.StringIO(in_frame(tmp_path, page, "win.ragjuryItemsCsv()"))))
    assert [r["id"] for r in everything] == [r["id"] for r in rows]
    by_id = {r["id"]: r for r in everything}
    assert by_id["a2"]["answer"] == '\'=HYPERLINK("http://x") and "quotes", commas\nnew line'  # no formula
    assert by_id["a3"]["reason"] == HOSTILE and by_id["a3"]["outcome"] == "fp"
    assert by_id["a5"]["unscored"] == "true" and by_id["a5"]["verdict"] == ""
    assert by_id["a1"]["input_tokens"] == "200" and by_id["a2"]["fallback"] == "true"
    shown = list(csv.DictReader(io.StringIO(in_frame(tmp_path, page, "win.ragjuryItemsCsv()", fragment="#filter=fn"))))
    assert [r["id"] for r in shown] == ["a4"]


HEADER_BREAKS = (
    "(function () { var out = [];"
    " doc.querySelectorAll('th').forEach(function (th) {"
    "  var walker = doc.createTreeWalker(th, NodeFilter.SHOW_TEXT), node;"
    "  while ((node = walker.nextNode())) { var re = /\\S+/g, m;"
    "   while ((m = re.exec(node.data))) { var range = doc.createRange();"
    "    range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);"
    "    var tops = {}; Array.prototype.forEach.call(range.getClientRects(), function (r) { tops[Math.round(r.top)] = 1; });"
    "    if (Object.keys(tops).length > 1) out.push(th.textContent); } } });"
    " return {broken: out, headers: doc.querySelectorAll('th').length, items: doc.querySelectorAll('tr.item').length}; })()"
)
"""Every word of every table header: a word whose boxes sit on more than one line broke mid-word."""


@pytest.mark.parametrize("kind", ["single", "comparison", "probability"])
def test_no_header_breaks_mid_word_at_1280px(tmp_path: Path, kind: str) -> None:
    if kind == "single":
        page = write_report(tmp_path, rows_a())
    elif kind == "comparison":
        page = write_report(tmp_path, rows_a(), [dict(r, label=not r["label"]) if r["label"] is not None else r
                                                 for r in rows_a()])
    else:
        page = write_report(tmp_path, probability_rows())
    measured = in_frame(tmp_path, page, HEADER_BREAKS, width=1280)
    assert measured["items"] > 0 and measured["headers"] > 10
    assert measured["broken"] == [], measured


def screenshot(tmp_path: Path, url: str, target: Path) -> Path:
    profile = tmp_path / f"profile-shot-{target.stem}"
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--window-size=1280,2000", f"--screenshot={target}", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return target


def test_screenshots_of_a_run_a_comparison_and_a_probability_judge(tmp_path: Path) -> None:
    """Three pictures at 1280 x 2000 for a person to look at (``RAGJURY_SCREENSHOTS=DIR`` keeps them)."""
    folder = Path(os.environ.get("RAGJURY_SCREENSHOTS") or tmp_path / "screens")
    folder.mkdir(parents=True, exist_ok=True)
    b = rows_a()
    b[3] = row("a4", True, True)
    b[0] = row("a1", False, True)
    pages = {
        "single-run": write_report(tmp_path / "single", rows_a()),
        "comparison": write_report(tmp_path / "comparison", rows_a(), b),
        "probability-judge": write_report(tmp_path / "probability", probability_rows()),
    }
    for name, page in pages.items():
        shot = screenshot(tmp_path, page.as_uri(), folder / f"report-{name}.png")
        data = shot.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, name
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert (width, height) == (1280, 2000), name


def test_the_judge_card_is_rendered_within_the_page(tmp_path: Path) -> None:
    """24 labelled items over 3 systems: one card row per system, leniency and κ with intervals,
    a length figure, and the section no wider than the 1000 px page."""
    rows = probability_rows()
    for k, r in enumerate(rows):  # answers of several lengths, so the length slope is fitted
        r["item"]["answer"] = " ".join(["word"] * (1 + (k * 7) % 40))
    page = write_report(tmp_path, rows)
    measured = in_frame(
        tmp_path,
        page,
        "(function () { var s = doc.getElementById('judge-card'); return s && {"
        " rows: Array.from(s.querySelectorAll('tbody tr')).map(function (r) {"
        "  return Array.from(r.cells).map(function (c) { return c.textContent; }); }),"
        " length: Array.from(s.querySelectorAll('p.length')).map(function (p) { return p.textContent; }),"
        " scroll: doc.documentElement.scrollWidth, right: s.getBoundingClientRect().right }; })()",
    )
    assert measured is not None, "no judge-card section in the rendered page"
    assert [cells[0] for cells in measured["rows"]] == ["system-a", "system-b", "system-c"]
    for cells in measured["rows"]:
        assert cells[1] == "8" and re.fullmatch(r"[+-]\d\.\d{3} \[[+-]\d\.\d{3}, [+-]\d\.\d{3}\]", cells[4])
        assert cells[5] in {"lenient", "strict", "not found"} and cells[6] == "-"  # people used one class
    assert measured["length"] and measured["length"][0].startswith("length bias: ")
    assert measured["scroll"] <= 1000 and measured["right"] <= 1000


WIDE_TABLES = (
    "(function () { return ['Per system', 'Latency, tokens and cost per judge'].map(function (title) {"
    " var h = Array.from(doc.querySelectorAll('h2')).find(function (e) { return e.textContent === title; });"
    " var box = h.nextElementSibling, table = box.querySelector('table'), broken = [];"
    " table.querySelectorAll('td, th').forEach(function (cell) {"
    "  var style = win.getComputedStyle(cell);"
    "  var room = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);"
    "  var walker = doc.createTreeWalker(cell, NodeFilter.SHOW_TEXT), node;"
    "  while ((node = walker.nextNode())) { var re = /\\S+/g, m;"
    "   while ((m = re.exec(node.data))) { var range = doc.createRange();"
    "    range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);"
    "    var tops = {}, wide = 0;"
    "    Array.prototype.forEach.call(range.getClientRects(), function (r) { tops[Math.round(r.top)] = 1; wide += r.width; });"
    "    if (Object.keys(tops).length > 1 && wide <= room) broken.push(m[0]); } } });"
    " return {title: title, right: table.getBoundingClientRect().right, scroll: box.scrollWidth,"
    " box: box.clientWidth, page: doc.documentElement.clientWidth, broken: broken}; }); })()"
)
"""Per wide page table: its right edge, its box's scroll and client widths, and the words that fit
their cell but sit on two lines anyway."""


def test_the_latency_and_per_system_tables_fit_800px(tmp_path: Path) -> None:
    """Two runs, two judges each, with latency and cost: at 800 px the latency table ran 280 px
    past the window (1050 px of table in a 768 px box, its right part hidden until scrolled) and
    the per-system table 150 px. Now a narrow window sets the page's tables smaller and a row's
    name may break after an underscore: both fit, no figure or header word on two lines."""
    rows = rows_a()
    for k, r in enumerate(rows):
        r["latency_s"] = round(0.4 + k / 10, 2)
        r["cost_usd"] = round(0.001 * k, 4)
    page = write_report(tmp_path, rows, config_b_rows())
    for table in in_frame(tmp_path, page, WIDE_TABLES, width=800):
        assert table["page"] == 800 and table["right"] <= 800 and table["scroll"] <= table["box"], table
        assert table["broken"] == [], table


def config_b_rows() -> list[dict[str, Any]]:
    """Config B's answers to config A's questions (``rows_a``), no gold: a run comparison."""
    rows = []
    for number, original in enumerate(rows_a()):
        changed = dict(original, item=dict(original["item"], answer=f"Config B answer {number}: " + "Marlowe, " * 25))
        changed.pop("gold")
        changed["label"] = None if original["label"] is None else number % 3 != 0
        changed["unscored"] = changed["label"] is None
        rows.append(changed)
    return rows


@pytest.mark.parametrize("width", [800, 1280])
def test_run_comparison_shows_both_answers_without_overflow(tmp_path: Path, width: int) -> None:
    """Two configs' answers side by side with both verdicts and the A / B better filters, the
    rate cards first, and nothing wider than the window at 800 and 1280 px."""
    a = [{k: v for k, v in r.items() if k != "gold"} for r in rows_a()]
    page = write_report(tmp_path, a, config_b_rows())
    measured = in_frame(
        tmp_path,
        page,
        "{scroll: doc.documentElement.scrollWidth, width: doc.documentElement.clientWidth,"
        " rows: doc.querySelectorAll('tr.item').length,"
        " heads: Array.from(doc.querySelectorAll('table.items th')).map(function (t) { return t.textContent; }),"
        " first: doc.querySelector('tr.item').textContent,"
        " card: doc.querySelector('.card span').textContent,"
        " buttons: Array.from(doc.querySelectorAll('.filters button')).map(function (b) { return b.dataset.filter; })}",
        width=width,
    )
    assert measured["width"] == width and measured["scroll"] <= width, measured
    assert measured["rows"] == 10
    assert "A: answer" in measured["heads"] and "B: answer" in measured["heads"]
    assert "Shakespeare wrote it." in measured["first"] and "Config B answer 0" in measured["first"]
    assert measured["card"].startswith("A: judged correct")
    assert {"abetter", "bbetter", "bothfail"} <= set(measured["buttons"])
    better = Dom(dump_dom(tmp_path, page.as_uri() + "#filter=abetter"))
    assert {r["id"] for r in better.rows} == {"a1", "b2", "b5"}  # A true, B false
