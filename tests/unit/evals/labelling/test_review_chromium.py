"""#57 item 6: ``label --review`` in a real Chromium walks the items people disagree on and
records an adjudication act, which the several-annotator rule then uses: a tie is settled."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from label_page import available, body_data, browser, serving, wait_for, write_items  # noqa: E402

from ragjury.evals.io.label_acts import LabelAct, append_act, read_acts
from ragjury.evals.io.people import read_people

pytestmark = pytest.mark.skipif(not available(), reason="no Chromium, chromedriver or Selenium here")


def press(driver, key: str) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def test_a_review_act_settles_a_tie(tmp_path: Path) -> None:
    items, out = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl"
    write_items(items, 4)
    tie, agree = ("B", "q0000"), ("A", "q0001")
    for who, label in (("ana", True), ("bob", False)):  # a tie on q0000; both yes on q0001
        append_act(out, LabelAct(id=tie[1], system=tie[0], act="label", annotator=who, label=label))
        append_act(out, LabelAct(id=agree[1], system=agree[0], act="label", annotator=who, label=True))
    before = read_people(out)
    assert tie in before.ties and tie not in before.labels
    with serving(items, out, "--review", "--annotator", "cy") as (proc, url), browser() as driver:
        driver.get(url)  # type: ignore[attr-defined]
        wait_for(driver, lambda: body_data(driver, "itemId") != "")
        assert body_data(driver, "itemId") == tie[1]  # the only item people disagree on
        said = driver.find_element("id", "people").text
        assert "ana yes" in said and "bob no" in said and "judge" not in said.lower()
        press(driver, "n")
        wait_for(driver, lambda: body_data(driver, "done") == "1")
        assert body_data(driver, "itemId") == ""  # nothing else to settle
        press(driver, "q")
        proc.wait(timeout=20)
    review = [a for a in read_acts(out) if a.annotator == "cy"]
    assert [(a.id, a.label, a.review) for a in review] == [(tie[1], False, True)]
    after = read_people(out)
    assert after.ties == [] and after.labels[tie].value is False and after.labels[agree].value is True
    assert "cy" not in after.annotators  # an adjudication is never a vote
