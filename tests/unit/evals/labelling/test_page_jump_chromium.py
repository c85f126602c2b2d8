"""#57 item 6 in a real Chromium: the jump list (l) filters by unlabelled / unsure / skipped /
people disagree, lists no verdict, and jumps; --guidelines shows the user's file as text."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from label_page import available, body_data, browser, serving, wait_for, write_items  # noqa: E402

from ragjury.evals.io.label_acts import LabelAct, append_act, read_acts

pytestmark = pytest.mark.skipif(not available(), reason="no Chromium, chromedriver or Selenium here")


def press(driver, key: str) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def key_then_next(driver, key: str) -> str:  # type: ignore[no-untyped-def]
    shown = body_data(driver, "itemId")
    press(driver, key)
    wait_for(driver, lambda: body_data(driver, "itemId") != shown)
    return shown


def pick(driver, name: str) -> list[str]:  # type: ignore[no-untyped-def]
    driver.execute_script("document.body.dataset.listFilter = ''")
    driver.find_element("css selector", f'button[data-filter="{name}"]').click()
    wait_for(driver, lambda: body_data(driver, "listFilter") == name)
    return [b.get_attribute("data-item-id") for b in driver.find_elements("css selector", ".jump-item")]


def test_the_jump_list_filters_and_jumps_and_guidelines_are_text(tmp_path: Path) -> None:
    items, out, rules = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl", tmp_path / "rules.md"
    write_items(items, 6)
    rules.write_text("# Rules\n<b>Say yes</b> only if the answer names the author.\n<img src=x onerror=alert(1)>\n")
    for k in range(6):  # bob said no to every item before ana starts
        append_act(out, LabelAct(id=f"q{k:04d}", system="A" if k % 2 else "B", act="label", annotator="bob", label=False))
    with serving(items, out, "--annotator", "ana", "--guidelines", str(rules)) as (_, url), browser() as driver:
        driver.get(url)  # type: ignore[attr-defined]
        wait_for(driver, lambda: body_data(driver, "itemId") != "")
        shown = driver.find_element("id", "guidelines-text")
        assert shown.text.startswith("# Rules\n<b>Say yes</b>")
        assert driver.find_elements("css selector", "#guidelines b, #guidelines img") == []
        yes = key_then_next(driver, "y")
        no = key_then_next(driver, "n")
        unsure = key_then_next(driver, "u")
        skipped = key_then_next(driver, "s")
        press(driver, "l")
        wait_for(driver, lambda: body_data(driver, "listFilter") == "all")
        listed = driver.find_element("id", "jump-list").text
        assert "judge" not in listed.lower() and len(driver.find_elements("css selector", ".jump-item")) == 6
        assert pick(driver, "unsure") == [unsure]
        assert pick(driver, "skipped") == [skipped]
        assert set(pick(driver, "unlabelled")) == {f"q{k:04d}" for k in range(6)} - {yes, no, unsure, skipped}
        assert pick(driver, "disagree") == [yes]  # ana yes, bob no; on `no` they agree
        pick(driver, "unsure")
        driver.find_element("css selector", ".jump-item").click()
        wait_for(driver, lambda: body_data(driver, "itemId") == unsure)
        assert driver.find_element("id", "jump").is_displayed() is False
        key_then_next(driver, "y")
    acts = read_acts(out)
    assert [(a.id, a.act, a.label) for a in acts if a.annotator == "ana"][-1] == (unsure, "label", True)
