"""``ragjury label``'s page in a real Chromium, driven by keys through Selenium and chromedriver:
200 items labelled by keys alone, hostile item text rendered as text with no script run and no
request leaving 127.0.0.1, and the same labels file a hand-written one would give.

Skipped only where Chromium, chromedriver or Selenium is missing (CI installs them: .ci/run).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from label_page import available, body_data, browser, requested_urls, serving, wait_for, write_items  # noqa: E402

from ragjury.evals.io.label_acts import read_acts

pytestmark = pytest.mark.skipif(not available(), reason="no Chromium, chromedriver or Selenium here")
HOSTILE = Path(__file__).resolve().parents[3] / "fixtures" / "hostile"


def press(driver, key: str) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def test_a_person_labels_200_items_by_keys_alone(tmp_path: Path) -> None:
    items, out = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl"
    write_items(items, 200)
    pressed: dict[str, bool] = {}
    with serving(items, out) as (proc, url), browser() as driver:
        driver.get(url)  # type: ignore[attr-defined]
        wait_for(driver, lambda: body_data(driver, "itemId") != "")
        for k in range(200):
            shown = body_data(driver, "itemId")
            key = "y" if k % 3 else "n"
            press(driver, key)
            wait_for(driver, lambda: body_data(driver, "done") == str(k + 1))
            pressed[shown] = key == "y"
        assert body_data(driver, "itemId") == ""  # finished
        text = driver.find_element("id", "done").text  # type: ignore[attr-defined]
        assert "All items labelled" in text
        press(driver, "q")
        proc.wait(timeout=20)
        summary = proc.stdout.read()  # type: ignore[union-attr]
    assert proc.returncode == 0
    acts = read_acts(out)
    assert len(acts) == 200 and {a.id: a.label for a in acts} == pressed
    assert all(a.seconds is not None and a.shown_judge is False for a in acts)
    assert summary.startswith("200 labels saved to") and "judge vs people" in summary


def test_undo_and_unsure_by_keys(tmp_path: Path) -> None:
    items, out = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl"
    write_items(items, 5)
    with serving(items, out) as (proc, url), browser() as driver:
        driver.get(url)  # type: ignore[attr-defined]
        wait_for(driver, lambda: body_data(driver, "itemId") != "")
        first = body_data(driver, "itemId")
        press(driver, "y")
        wait_for(driver, lambda: body_data(driver, "done") == "1")
        press(driver, "z")
        wait_for(driver, lambda: body_data(driver, "done") == "0")
        assert body_data(driver, "itemId") == first
        press(driver, "u")
        wait_for(driver, lambda: body_data(driver, "saved") == "3")  # unsure is not done: it comes back
    assert [a.act for a in read_acts(out)] == ["label", "undo", "unsure"]


def hostile_texts() -> list[str]:
    texts = [
        "<script>window.__pwned = 1</script>",
        "<img src=x onerror=\"window.__pwned = 2\">",
        "<img src=\"http://example.com/track.png\"> <link rel=stylesheet href=\"http://example.com/x.css\">",
        "<iframe src=\"javascript:window.top.__pwned=3\"></iframe>",
        "</div><style>body{display:none}</style>",
    ]
    for path in sorted(HOSTILE.iterdir()):
        if path.is_file() and path.name != "README.md":
            text = path.read_bytes().decode("utf-8", errors="replace")[:4000]
            if text.strip():  # an empty answer is not an item to label
                texts.append(text)
    return texts


def test_hostile_item_text_is_shown_as_text_and_nothing_runs_or_leaves(tmp_path: Path) -> None:
    texts = hostile_texts()
    items, out = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl"
    write_items(items, len(texts), answer=lambda k: texts[k])
    with serving(items, out) as (proc, url), browser() as driver:
        driver.get(url)  # type: ignore[attr-defined]
        origin = url.split("/?")[0]
        for k in range(len(texts)):
            wait_for(driver, lambda: body_data(driver, "done") == str(k) and body_data(driver, "itemId") != "")
            ident = body_data(driver, "itemId")
            expected = texts[int(ident[1:])]
            shown = driver.execute_script(  # type: ignore[attr-defined]
                "return Array.from(document.querySelectorAll('#item .text')).map(e => e.textContent)")
            assert expected in shown, ident
            assert driver.execute_script("return document.querySelectorAll('#item img, #item script, #item iframe, "  # type: ignore[attr-defined]
                                         "#item style, #item link').length") == 0
            assert driver.execute_script("return window.__pwned === undefined")  # type: ignore[attr-defined]
            press(driver, "n")
        wait_for(driver, lambda: body_data(driver, "done") == str(len(texts)))
        # every network request (the browser's own new-tab page, chrome:// and data:, aside) went to the page
        urls = [u for u in requested_urls(driver) if u.split(":", 1)[0] in ("http", "https", "ws", "wss", "ftp")]
    assert urls and all(u.startswith(origin) for u in urls), [u for u in urls if not u.startswith(origin)]
    assert len(read_acts(out)) == len(texts)
