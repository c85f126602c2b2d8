"""#57 item 7 in a real Chromium: three annotator links of one ``label --annotators`` server label
one file at once with --overlap 0.2; each act is recorded as its link's person, the server ends
when all three pressed q, and ``label --summary`` counts each person."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from label_page import available, body_data, browser, wait_for, write_items  # noqa: E402

from ragjury.evals.io.label_acts import read_acts

pytestmark = pytest.mark.skipif(not available(), reason="no Chromium, chromedriver or Selenium here")
TEAM = ("ana", "bob", "cy")


def press(driver, key: str) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def test_three_links_label_one_file_at_once_and_the_summary_counts_each(tmp_path: Path) -> None:
    items, out = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl"
    write_items(items, 30)
    cmd = [sys.executable, "-m", "ragjury.cli", "label", str(items), "--out", str(out), "--no-browser",
           "--annotators", ",".join(TEAM), "--overlap", "0.2"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "COLUMNS": "200"})
    links: dict[str, str] = {}
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 60
        while len(links) < 3 and time.monotonic() < deadline:
            line = proc.stderr.readline()  # type: ignore[union-attr]
            lines.append(line)
            if found := re.search(r"^\s+(\w+): (http://127\.0\.0\.1:\d+/p/\w+/\?token=\S+)", line):
                links[found.group(1)] = found.group(2)
        assert set(links) == set(TEAM), lines
        assert len({link.split("token=")[1] for link in links.values()}) == 3  # a secret each
        with browser() as a, browser() as b, browser() as c:
            drivers = dict(zip(TEAM, (a, b, c), strict=True))
            for name, driver in drivers.items():
                driver.get(links[name])  # type: ignore[attr-defined]
            for driver in drivers.values():
                wait_for(driver, lambda d=driver: body_data(d, "itemId") != "" or body_data(d, "done") != "")
            active = dict(drivers)
            rounds = 0
            while active and rounds < 200:  # round-robin: the three work at once on one file
                rounds += 1
                for name, driver in list(active.items()):
                    if body_data(driver, "itemId") == "":
                        press(driver, "q")
                        del active[name]
                        continue
                    before = body_data(driver, "itemId"), body_data(driver, "done")
                    press(driver, "y")
                    wait_for(driver, lambda d=driver, was=before: (body_data(d, "itemId"), body_data(d, "done")) != was)
        proc.wait(timeout=30)
        err = proc.stderr.read()  # type: ignore[union-attr]
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
    assert proc.returncode == 0, err
    assert "progress: ana" in err and "bob" in err
    acts = read_acts(out)
    people = {name: {a.key for a in acts if a.annotator == name and a.act == "label"} for name in TEAM}
    assert all(people.values())
    every = {a.key for a in acts}
    assert len(every) == 30  # every item labelled by someone
    shared = people["ana"] & people["bob"] & people["cy"]
    assert shared and len(shared) < 30  # the overlap share went to all three, the rest to one
    summary = subprocess.run([sys.executable, "-m", "ragjury.cli", "label", str(items), "--out", str(out),
                              "--summary", "--json"], capture_output=True, text=True, timeout=60)
    assert summary.returncode == 0, summary.stderr
    import json

    assert json.loads(summary.stdout)["per_annotator"] == {name: len(people[name]) for name in TEAM}
