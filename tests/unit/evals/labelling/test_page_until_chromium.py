"""``label --until "B - A"`` in a real Chromium: a scripted person labels by keys, the page's status line
goes from "not settled yet" to "settled" at the label the sequence computed from the same acts says,
and the terminal that serves the page prints the same line after every label.

Skipped only where Chromium, chromedriver or Selenium is missing (CI installs them: .ci/run).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from label_page import available, body_data, browser, serving, wait_for  # noqa: E402

from ragjury.evals.io.label_acts import read_acts
from ragjury.evals.labelling.items import load_items
from ragjury.evals.stats.live_status import LiveStatus
from ragjury.evals.stats.sequential import parse_decision

pytestmark = pytest.mark.skipif(not available(), reason="no Chromium, chromedriver or Selenium here")


def write_predictions(path: Path, n: int) -> None:
    """Two systems' answers to n questions, as ``evaluate --out`` writes them (the judge's P on each)."""
    with path.open("w") as handle:
        for system, p in (("A", 0.3), ("B", 0.7)):
            for k in range(n):
                handle.write(json.dumps({
                    "id": f"q{k:03d}", "system": system, "judge": "llm", "label": p >= 0.5,
                    "value": {"probability": round(p + 0.01 * (k % 5), 4)},
                    "question": f"Question {k}", "references": [f"Reference {k}"],
                    "answer": f"{'wrong' if system == 'A' else 'right'} answer {k}",
                }) + "\n")


def test_the_status_line_settles_at_the_label_the_sequence_says(tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    predictions, out = tmp_path / "preds.jsonl", tmp_path / "labels.jsonl"
    write_predictions(predictions, 30)
    seen: list[str] = []
    with serving(predictions, out, "--until", "B - A", "--max-labels", "60") as (proc, url), browser() as driver:
        driver.get(url)  # type: ignore[attr-defined]
        wait_for(driver, lambda: body_data(driver, "itemId") != "")
        for k in range(30):
            text = driver.find_element("id", "item").text  # type: ignore[attr-defined]
            ActionChains(driver).send_keys("y" if "right answer" in text else "n").perform()
            wait_for(driver, lambda: body_data(driver, "done") == str(k + 1))
            status = driver.find_element("id", "live-status").text  # type: ignore[attr-defined]
            seen.append(status)
            if status.startswith("settled"):
                break
        ActionChains(driver).send_keys("q").perform()
        proc.wait(timeout=20)
        printed = proc.stderr.read()  # type: ignore[union-attr]
    assert seen[0].startswith("not settled yet") and seen[-1].startswith("settled: B is better (B − A +")
    _, items = load_items(predictions)
    live = LiveStatus.of(items, parse_decision("B - A"), max_labels=60)
    acts = read_acts(out)
    expected = [live.status(acts[: k + 1]).words for k in range(len(acts))]
    assert seen == expected  # the page said what the sequence says, label by label
    first = next(k for k, words in enumerate(expected) if words.startswith("settled"))
    assert first == len(seen) - 1 and first % 2 == 1  # settles when a question's second answer is in
    for words in seen:
        assert words in printed  # the terminal printed the same line
