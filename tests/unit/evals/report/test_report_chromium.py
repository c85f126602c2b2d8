"""The HTML report in a real headless Chromium: the per-item rows, filters, search, expandable
details and plots are in the rendered DOM (after the page's script ran), dataset text stays text,
and nothing overflows a 1000 px window.

Skipped only where no Chromium is installed; CI installs Debian's ``chromium`` (.ci/run).
"""

from __future__ import annotations

import json
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
    paths = []
    for number, rows in enumerate(runs):
        path = tmp_path / f"run{number}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        paths.append(path)
    report, _ = build_report([load_predictions(p) for p in paths], resamples=100)
    return write_html(tmp_path / "report.html", report)


def dump_dom(tmp_path: Path, url: str, *extra: str) -> str:
    """The DOM after the page's scripts ran, as Chromium serialises it."""
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--window-size=1000,900", *extra, "--dump-dom", url],
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
