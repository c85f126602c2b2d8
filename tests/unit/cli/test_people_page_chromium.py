"""#53 item 6 and the page half of item 3: with people's labels, the page of ``report P --labels``,
``report A B --labels`` and ``evaluate --labels`` leads with people's figure (its first card, read
in a real headless Chromium), the judge's own after it; the "go and label" caveat only without
labels; several annotators: people against people (kappa, interval, the items they disagree on).

Skipped only where no Chromium is installed; CI installs Debian's ``chromium`` (.ci/run).
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_people_labels_once import SYSTEMS, _filled_plan, predictions, runner, two_configs, weighted  # noqa: F401
from typer.testing import CliRunner  # noqa: F401

from ragjury.cli import app

CHROMIUM = next(
    (path for name in ("chromium", "chromium-browser", "google-chrome") if (path := shutil.which(name))), None
)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (CI installs Debian's chromium)")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync")
CARD = re.compile(r"<div class=['\"]card['\"]><span>(.*?)</span><b>(.*?)</b>", re.S)


def cards(page: Path, tmp_path: Path) -> tuple[list[tuple[str, str]], str]:
    """The page's cards in order (title, value) as Chromium rendered them, and the whole DOM."""
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    return [(html.unescape(a), html.unescape(b)) for a, b in CARD.findall(dom)], dom


def test_one_run_page_leads_with_peoples_rate(predictions: Path, weighted: Path, tmp_path: Path) -> None:  # noqa: F811
    page = tmp_path / "one.html"
    result = runner.invoke(app, ["report", str(predictions), "--labels", str(weighted), "--allow-shown-judge",
                                 "--html", str(page)])
    assert result.exit_code == 0, result.output
    found, dom = cards(page, tmp_path)
    title, value = found[0]
    assert title.startswith("correct as people would judge it"), found[:3]
    assert re.search(r"\d+\.\d % \[\d+\.\d, \d+\.\d\]", value), value
    assert found[1][0].startswith("the judge's own rate"), found[:3]
    assert "ragjury label plan.jsonl" not in dom
    # two annotators (ana, bob) labelled three items alike: people against people, and the one they split on
    assert "People vs people" in dom and "ana · bob" in html.unescape(dom)


def test_evaluate_page_leads_with_peoples_rate(weighted: Path, tmp_path: Path) -> None:  # noqa: F811
    page = tmp_path / "evaluate.html"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS),
                                 "--no-progress", "--labels", str(weighted), "--allow-shown-judge",
                                 "--html", str(page)])
    assert result.exit_code == 0, result.output
    found, dom = cards(page, tmp_path)
    assert found[0][0].startswith("correct as people would judge it"), found[:3]
    assert found[1][0].startswith("the judge's own rate"), found[:3]
    assert "People vs people" in dom and "ana · bob" in html.unescape(dom)


def test_a_b_page_leads_with_peoples_difference(two_configs: tuple[Path, Path], tmp_path: Path) -> None:  # noqa: F811
    a, b = two_configs
    plan = _filled_plan(a, b, tmp_path / "plan.jsonl")
    page = tmp_path / "ab.html"
    result = runner.invoke(app, ["report", str(a), str(b), "--labels", str(plan), "--html", str(page)])
    assert result.exit_code == 0, result.output
    found, dom = cards(page, tmp_path)
    title, value = found[0]
    assert title == "B − A as people would judge it (95 %)", found[:4]
    assert re.search(r"v2 − v1: [+−-]\d+\.\d points \[", value), value
    assert [t for t, _ in found[1:3]] == ["v1: correct as people would judge it (95 %)",
                                          "v2: correct as people would judge it (95 %)"], found[:4]
    assert any(t.startswith("the judge's own rate, A:") for t, _ in found)
    assert "the judge's difference" not in html.unescape(dom)  # labels given: no caveat telling the user to go and label
    bare = tmp_path / "bare.html"  # without labels the judge's B - A leads and the caveat stays
    assert runner.invoke(app, ["report", str(a), str(b), "--html", str(bare)]).exit_code == 0
    found, dom = cards(bare, tmp_path)
    assert found[0][0].startswith("A: judged correct") and "the judge's difference" in html.unescape(dom)
