"""The labelling page's server: a token on every request, blind until an item is labelled, acts
saved before the answer, and a content security policy that allows nothing from outside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ragjury.evals.io.label_acts import read_acts
from ragjury.evals.labelling.items import JudgeVerdict, LabelItem
from ragjury.evals.labelling.page import PageState, build_app
from ragjury.evals.labelling.session import LabelSession

TOKEN = "t0k3n-abc"
PROBABILITIES = [0.123456, 0.654321, 0.987654, 0.0314159]


def make(tmp_path: Path, *, reveal: bool = False) -> tuple[TestClient, PageState]:
    items = [LabelItem(f"q{k}", "sys", (("Answer", f"answer {k}"),), JudgeVerdict(k % 2 == 0, p))
             for k, p in enumerate(PROBABILITIES)]
    state = PageState(LabelSession(items, tmp_path / "labels.jsonl", "ana"), TOKEN, "Is it correct?", reveal=reveal)
    return TestClient(build_app(state)), state


def on(screen: dict, act: str = "label", **more: object) -> dict:
    """An act's body as the page sends it: the item shown (id, system) and the version it saw."""
    item = screen["item"]
    return {"act": act, "id": item["id"], "system": item["system"], "recheck": screen["recheck"],
            "seen": screen["version"], **more}


def test_every_route_needs_the_token(tmp_path: Path) -> None:
    client, _ = make(tmp_path)
    for method, path in (("GET", "/"), ("GET", "/static/label.js"), ("GET", "/api/screen"),
                         ("POST", "/api/act"), ("POST", "/api/quit")):
        assert client.request(method, path).status_code == 403
        assert client.request(method, path + "?token=wrong").status_code == 403
    assert client.get(f"/?token={TOKEN}").status_code == 200


def test_the_page_allows_nothing_from_outside(tmp_path: Path) -> None:
    client, _ = make(tmp_path)
    page = client.get(f"/?token={TOKEN}")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "<script>" not in page.text and "http" not in page.text.replace("http-equiv", "")


def _carries_the_judge(body: str, labelled: set[str]) -> bool:
    data = json.loads(body)
    text = json.dumps({k: v for k, v in data.items() if k != "revealed"})
    return any(str(p)[:6] in text for p in PROBABILITIES) or "judge" in text


def test_blind_no_response_before_a_label_carries_the_judge(tmp_path: Path) -> None:
    client, state = make(tmp_path, reveal=True)
    labelled: set[str] = set()
    responses = [client.get(f"/api/screen?token={TOKEN}")]
    for position in range(4):
        responses.append(client.get(f"/api/screen?token={TOKEN}&position={position}"))
    lists = ("all", "unlabelled", "unsure", "skipped", "disagree")  # #57 item 6: the jump list is blind too
    responses += [client.get(f"/api/list?token={TOKEN}&filter={which}") for which in lists]
    assert all(r.status_code == 200 for r in responses) and len(responses[5].json()["items"]) == 4
    screen = responses[0].json()
    while not screen["finished"]:
        answer = client.post(f"/api/act?token={TOKEN}", json=on(screen, label=True, seconds=1.0))
        revealed = answer.json().get("revealed")
        # the verdict comes only for the item just labelled
        assert revealed is not None and revealed["id"] == screen["item"]["id"]
        labelled.add(revealed["id"])
        responses.append(answer)
        responses += [client.get(f"/api/list?token={TOKEN}&filter={which}") for which in lists]
        screen = answer.json()
    for response in responses:
        assert not _carries_the_judge(response.text, labelled), response.text


def test_without_reveal_the_judge_never_leaves_the_server(tmp_path: Path) -> None:
    client, _ = make(tmp_path)
    screen = client.get(f"/api/screen?token={TOKEN}").json()
    while not screen["finished"]:
        answer = client.post(f"/api/act?token={TOKEN}", json=on(screen, label=False))
        assert "revealed" not in answer.json() and not _carries_the_judge(answer.text, set())
        screen = answer.json()


def test_an_act_is_in_the_file_when_it_is_answered(tmp_path: Path) -> None:
    client, state = make(tmp_path)
    screen = client.get(f"/api/screen?token={TOKEN}").json()
    answer = client.post(f"/api/act?token={TOKEN}", json=on(screen, label=True, comment="close call"))
    assert answer.status_code == 200
    (saved,) = read_acts(state.session.out)
    assert saved.id == screen["item"]["id"] and saved.label is True and saved.comment == "close call"
    assert saved.annotator == "ana" and saved.shown_judge is False


@pytest.mark.parametrize("body", [{"act": "label", "id": "q0", "system": "sys", "label": 2},
                                  {"act": "drop", "id": "q0", "system": "sys"}, {"act": "label"},
                                  {"act": "label", "position": 0, "label": True}, "not json"])
def test_bad_acts_are_refused_and_nothing_is_written(tmp_path: Path, body: object) -> None:
    client, state = make(tmp_path)
    kwargs = {"content": body, "headers": {"content-type": "application/json"}} if isinstance(body, str) else {"json": body}
    assert client.post(f"/api/act?token={TOKEN}", **kwargs).status_code == 400  # type: ignore[arg-type]
    assert read_acts(state.session.out) == []


def test_a_label_changed_after_the_reveal_is_recorded_as_given_with_the_judge_shown(tmp_path: Path) -> None:
    client, state = make(tmp_path, reveal=True)
    screen = client.get(f"/api/screen?token={TOKEN}").json()
    first = client.post(f"/api/act?token={TOKEN}", json=on(screen, label=True)).json()
    revealed = first["revealed"]
    client.post(f"/api/act?token={TOKEN}", json={"act": "label", "id": revealed["id"], "system": revealed["system"],
                                                  "label": False, "shown_judge": True})
    acts = read_acts(state.session.out)
    assert [(a.label, a.shown_judge) for a in acts] == [(True, False), (False, True)]


@pytest.mark.parametrize("query", ["--5", "9" * 5000, "1e3", "+-1"])
def test_a_bad_position_is_a_one_line_400(tmp_path: Path, query: str) -> None:
    """#54 item 35."""
    client, _ = make(tmp_path)
    answer = client.get(f"/api/screen?token={TOKEN}&position={query}")
    assert answer.status_code == 400 and "\n" not in answer.json()["error"]


@pytest.mark.parametrize("raw", ['{"act": "label", "position": ' + "9" * 5000 + "}", "[" * 200_000 + "]" * 200_000,
                                 '{"act": "label", "position": true, "id": "q0", "system": "sys", "label": true}',
                                 '{"act": "label", "id": "q0", "system": "sys", "label": true, "seconds": NaN}',
                                 '{"act": "label", "id": "q0", "system": "sys", "label": true, "seconds": Infinity}',
                                 '{"act": "label", "id": "q0", "system": "sys", "label": true, "seconds": 1e400}',
                                 '{"act": "label", "id": "q0", "system": "sys", "label": true, "seconds": -5}'])
def test_hostile_bodies_are_refused_in_one_line_and_nothing_is_written(tmp_path: Path, raw: str) -> None:
    """#54 item 35: no 500, no traceback, never NaN or Infinity in the labels file."""
    client, state = make(tmp_path)
    answer = client.post(f"/api/act?token={TOKEN}", content=raw, headers={"content-type": "application/json"})
    assert answer.status_code == 400, answer.text
    assert "\n" not in answer.json()["error"] and "Traceback" not in answer.text
    assert not state.session.out.exists() or state.session.out.read_text() == ""


def test_a_huge_field_is_cut_and_says_so(tmp_path: Path) -> None:
    from ragjury.evals.labelling.page import FIELD_CHARS

    items = [LabelItem("big", None, (("Answer", "x" * 500_000),))]
    state = PageState(LabelSession(items, tmp_path / "l.jsonl", "ana"), TOKEN, "Q?")
    text = TestClient(build_app(state)).get(f"/api/screen?token={TOKEN}").json()["item"]["fields"][0]["text"]
    assert len(text) < FIELD_CHARS + 200 and "400,000 more characters not shown" in text


def test_host_origin_and_content_type_are_checked(tmp_path: Path) -> None:
    """#54 item 32: DNS rebinding (Host) and cross-origin text/plain writes are refused."""
    client, state = make(tmp_path)
    state.hosts = frozenset({"testserver"})
    assert client.get(f"/api/screen?token={TOKEN}", headers={"host": "evil.example"}).status_code == 421
    assert client.get(f"/?token={TOKEN}", headers={"host": "evil.example"}).status_code == 421
    screen = client.get(f"/api/screen?token={TOKEN}").json()
    plain = client.post(f"/api/act?token={TOKEN}", content=json.dumps(on(screen, label=True)),
                        headers={"content-type": "text/plain", "origin": "http://evil.example"})
    assert plain.status_code == 403
    plain = client.post(f"/api/act?token={TOKEN}", content=json.dumps(on(screen, label=True)),
                        headers={"content-type": "text/plain"})
    assert plain.status_code == 415
    assert read_acts(state.session.out) == []
    ok = client.post(f"/api/act?token={TOKEN}", json=on(screen, label=True), headers={"origin": "http://testserver"})
    assert ok.status_code == 200


def test_the_token_becomes_an_httponly_cookie_and_no_token_gets_a_page_saying_where(tmp_path: Path) -> None:
    client, _ = make(tmp_path)
    bare = client.get("/")
    assert bare.status_code == 403 and "printed in its terminal" in bare.text
    page = client.get(f"/?token={TOKEN}")
    cookie = page.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "__TOKEN__" not in page.text and TOKEN not in page.text
    assert client.get("/api/screen").status_code == 200  # the cookie alone now


def test_after_a_reveal_every_later_act_on_the_item_is_shown_judge(tmp_path: Path) -> None:
    """#54 item 18: ← then n, and z then a label, are given with the judge shown."""
    client, state = make(tmp_path, reveal=True)
    first = client.get(f"/api/screen?token={TOKEN}").json()
    client.post(f"/api/act?token={TOKEN}", json=on(first, label=True))
    back = client.get(f"/api/screen?token={TOKEN}&position={first['position']}").json()
    client.post(f"/api/act?token={TOKEN}", json=on(back, label=False))  # ← then n, no shown_judge sent
    undone = client.post(f"/api/act?token={TOKEN}", json={"act": "undo"}).json()
    assert undone["item"]["id"] == first["item"]["id"]
    client.post(f"/api/act?token={TOKEN}", json=on(undone, "unsure"))
    acts = [a for a in read_acts(state.session.out) if a.act != "undo"]
    assert [(a.act, a.shown_judge) for a in acts] == [("label", False), ("label", True), ("unsure", True)]


def test_an_act_on_an_item_another_annotator_took_is_answered_409_with_the_next_screen(tmp_path: Path) -> None:
    client, state = make(tmp_path)
    screen = client.get(f"/api/screen?token={TOKEN}").json()
    other = LabelSession(state.session.items, state.session.out, "bob", overlap=0.0)
    state.session.overlap = 0.0
    state.session.shared = set()
    other.act((screen["item"]["system"], screen["item"]["id"]), "label", label=False)
    answer = client.post(f"/api/act?token={TOKEN}", json=on(screen, label=True))
    assert answer.status_code == 409 and "bob labelled this item first" in answer.json()["error"]
    assert answer.json()["screen"]["item"]["id"] != screen["item"]["id"]
    assert [a.annotator for a in read_acts(state.session.out)] == ["bob"]


def test_the_jump_list_needs_the_token_and_a_known_filter(tmp_path: Path) -> None:
    client, _ = make(tmp_path)
    assert client.get("/api/list").status_code == 403
    bad = client.get(f"/api/list?token={TOKEN}&filter=judge-yes")
    assert bad.status_code == 400 and "filter must be one of" in bad.json()["error"]
