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
    screen = responses[0].json()
    while not screen["finished"]:
        answer = client.post(f"/api/act?token={TOKEN}", json=on(screen, label=True, seconds=1.0))
        revealed = answer.json().get("revealed")
        # the verdict comes only for the item just labelled
        assert revealed is not None and revealed["id"] == screen["item"]["id"]
        labelled.add(revealed["id"])
        responses.append(answer)
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
