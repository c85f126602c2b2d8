"""The page's acts in a real Chromium (#54 items 8, 16-19, 32, 35): two annotators at once, a stale
tab, a restarted server, the private opener and its cookie, a cross-origin write, a huge token."""

from __future__ import annotations

import json
import stat
import sys
import time
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from label_page import available, body_data, browser, serving, wait_for, write_items  # noqa: E402

from ragjury.evals.io.label_acts import read_acts, replay
from ragjury.evals.labelling.items import load_items
from ragjury.evals.labelling.session import LabelSession

pytestmark = pytest.mark.skipif(not available(), reason="no Chromium, chromedriver or Selenium here")


def press(driver, key: str) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def saved(driver) -> int:  # type: ignore[no-untyped-def]
    return int(body_data(driver, "saved") or 0)


def key_then(driver, key: str, what: str = "saved") -> None:  # type: ignore[no-untyped-def]
    before = int(body_data(driver, what) or 0)
    press(driver, key)
    wait_for(driver, lambda: int(body_data(driver, what) or 0) == before + 1)


def notice(driver) -> str:  # type: ignore[no-untyped-def]
    return driver.find_element("id", "notice").text  # type: ignore[no-any-return]


def test_two_annotators_at_once_a_key_never_labels_an_item_the_person_did_not_see(tmp_path: Path) -> None:
    """#54 item 16: ana sees X, bob takes X, ana presses y: refused, said, and the page moves on."""
    items, out = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl"
    write_items(items, 30)
    shared = LabelSession(load_items(items)[1], tmp_path / "probe.jsonl", "ana", overlap=0.2).shared
    with serving(items, out, "--annotator", "ana", "--overlap", "0.2") as (_, ana_url), \
            serving(items, out, "--annotator", "bob", "--overlap", "0.2") as (_, bob_url), browser() as driver:
        driver.get(ana_url)  # type: ignore[attr-defined]
        wait_for(driver, lambda: body_data(driver, "itemId") != "")
        while (body_data(driver, "system") or None, body_data(driver, "itemId")) in shared:
            key_then(driver, "n")
        x = (body_data(driver, "system"), body_data(driver, "itemId"))
        base, token = bob_url.split("/?token=")
        taken = httpx.post(f"{base}/api/act", params={"token": token},
                           json={"act": "label", "id": x[1], "system": x[0], "label": False})
        assert taken.status_code == 200, taken.text
        key_then(driver, "y", "refused")
        assert "bob labelled this item first" in notice(driver)
        assert body_data(driver, "itemId") != x[1]
        key_then(driver, "y")  # the next item is labelled as shown
        now = (body_data(driver, "system"), body_data(driver, "itemId"))
    acts = read_acts(out)
    assert [(a.annotator, a.label) for a in acts if a.key == x] == [("bob", False)]
    ana_last = [a for a in acts if a.annotator == "ana"][-1]
    assert ana_last.label is True and ana_last.key != x and now != x


def test_a_stale_tab_is_refused_and_a_restarted_server_is_said(tmp_path: Path) -> None:
    """#54 item 8: y in tab 1, n in the stale tab 2: refused with the fresh state; after the server
    stops, a key says the session ended and where the new address is; no token: a page saying where."""
    items, out = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl"
    write_items(items, 6)
    with serving(items, out) as (proc, url), browser() as driver:
        driver.get(url)  # type: ignore[attr-defined]
        wait_for(driver, lambda: body_data(driver, "itemId") != "")
        first = body_data(driver, "itemId")
        tab1 = driver.current_window_handle  # type: ignore[attr-defined]
        driver.switch_to.new_window("tab")  # type: ignore[attr-defined]
        driver.get(url)  # type: ignore[attr-defined]
        wait_for(driver, lambda: body_data(driver, "itemId") == first)
        tab2 = driver.current_window_handle  # type: ignore[attr-defined]
        driver.switch_to.window(tab1)  # type: ignore[attr-defined]
        key_then(driver, "y")
        driver.switch_to.window(tab2)  # type: ignore[attr-defined]
        key_then(driver, "n", "refused")
        assert "another tab" in notice(driver) and "You gave this item: yes" in driver.find_element("id", "item").text  # type: ignore[attr-defined]
        assert [a.label for a in read_acts(out)] == [True]
        key_then(driver, "n")  # now on the fresh state: a deliberate change
        assert [a.label for a in read_acts(out)] == [True, False]
        base = url.split("/?")[0]
        driver.delete_all_cookies()  # type: ignore[attr-defined]
        driver.switch_to.new_window("tab")  # type: ignore[attr-defined]
        driver.get(base + "/")  # type: ignore[attr-defined]
        assert "printed in its terminal" in driver.find_element("tag name", "body").text  # type: ignore[attr-defined]
        driver.close()  # type: ignore[attr-defined]
        driver.switch_to.window(tab2)  # type: ignore[attr-defined]
        proc.kill()
        proc.wait(timeout=10)
        press(driver, "y")
        wait_for(driver, lambda: body_data(driver, "ended") == "1")
        assert "session has ended" in notice(driver) and "new address" in notice(driver)


def test_the_opener_keeps_the_token_off_the_command_line_and_other_origins_cannot_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """#54 item 32: the browser is given a 0600 file, the page drops the token from the address bar
    and runs on an HttpOnly cookie; a cross-origin text/plain POST with the token writes nothing."""
    import webbrowser

    from ragjury.commands.label import _open_privately

    items, out = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl"
    write_items(items, 4)
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda target, *a, **k: opened.append(target) or True)
    with serving(items, out) as (_, url), browser() as driver:
        base, token = url.split("/?token=")
        opener = _open_privately(url)
        assert opened == [opener.as_uri()] and token not in opened[0]
        assert stat.S_IMODE(opener.stat().st_mode) == 0o600
        driver.get(opened[0])  # type: ignore[attr-defined]
        wait_for(driver, lambda: body_data(driver, "itemId") != "")
        assert "token" not in driver.current_url  # type: ignore[attr-defined]
        assert driver.execute_script("return document.cookie") == ""  # type: ignore[attr-defined]  # HttpOnly
        key_then(driver, "y")
        ident, system = body_data(driver, "itemId"), body_data(driver, "system")
        driver.get("data:text/html,<p>another origin</p>")  # type: ignore[attr-defined]
        status = driver.execute_async_script(  # type: ignore[attr-defined]
            "const done = arguments[arguments.length - 1];"
            "fetch(arguments[0], {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'},"
            " body: arguments[1]}).then(r => done('sent ' + r.type), e => done('failed ' + e));",
            f"{base}/api/act?token={token}", json.dumps({"act": "label", "id": ident, "system": system, "label": True}))
        assert status.startswith(("sent", "failed"))
        time.sleep(0.5)
    assert len(read_acts(out)) == 1


def test_a_500_kb_unbreakable_token_shows_promptly(tmp_path: Path) -> None:
    """#54 item 35: cut at FIELD_CHARS, said, wrapped anywhere."""
    items, out = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl"
    write_items(items, 2, answer=lambda k: "x" * 500_000)
    with serving(items, out) as (_, url), browser() as driver:
        started = time.monotonic()
        driver.get(url)  # type: ignore[attr-defined]
        wait_for(driver, lambda: body_data(driver, "itemId") != "", timeout=30)
        texts = driver.execute_script(  # type: ignore[attr-defined]
            "return Array.from(document.querySelectorAll('#item .text')).map(e => e.textContent)")
        width = driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")  # type: ignore[attr-defined]
        took = time.monotonic() - started
    assert any("more characters not shown" in t for t in texts) and width
    assert took < 10, took


def test_after_a_reveal_back_and_n_is_shown_judge_and_u_on_a_recheck_keeps_the_label(tmp_path: Path) -> None:
    """#54 items 18 and 19 by keys."""
    items, out = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl"
    write_items(items, 2)
    with serving(items, out, "--reveal", "--recheck", "1") as (_, url), browser() as driver:
        driver.get(url)  # type: ignore[attr-defined]
        wait_for(driver, lambda: body_data(driver, "itemId") != "")
        first = body_data(driver, "itemId")
        key_then(driver, "y")
        from selenium.webdriver.common.keys import Keys

        press(driver, Keys.ARROW_LEFT)
        wait_for(driver, lambda: body_data(driver, "itemId") == first)
        key_then(driver, "n")  # after the reveal: shown_judge, though no Shift was pressed
        key_then(driver, "y")  # the second item
        wait_for(driver, lambda: body_data(driver, "itemId") == first)  # the recheck
        key_then(driver, "u")
    acts = read_acts(out)
    assert [(a.act, a.label, a.shown_judge, a.recheck) for a in acts if a.id == first] == [
        ("label", True, False, False), ("label", False, True, False), ("unsure", None, True, True)]
    assert replay(acts)[acts[0].annotator][acts[0].key].label is False


def test_unsure_and_skipped_items_come_back_before_all_items_labelled(tmp_path: Path) -> None:
    """#54 item 7 by keys: u and s items come back; 'All items labelled.' only when none is left."""
    items, out = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl"
    write_items(items, 3)
    with serving(items, out) as (_, url), browser() as driver:
        driver.get(url)  # type: ignore[attr-defined]
        wait_for(driver, lambda: body_data(driver, "itemId") != "")
        order = []
        for key in ("u", "s", "y"):
            order.append(body_data(driver, "itemId"))
            key_then(driver, key)
        assert body_data(driver, "itemId") == order[0]  # the unsure one is back
        assert driver.find_element("id", "done").is_displayed() is False  # type: ignore[attr-defined]
        assert "1 unsure" in driver.find_element("id", "progress").text  # type: ignore[attr-defined]
        key_then(driver, "n")
        assert body_data(driver, "itemId") == order[1]  # then the skipped one
        key_then(driver, "y")
        assert body_data(driver, "itemId") == ""
        assert "All items labelled" in driver.find_element("id", "done").text  # type: ignore[attr-defined]
