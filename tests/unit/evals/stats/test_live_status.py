"""label --until: the live status of a session from its acts, and the page's act answer carrying it (an aggregate only)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from starlette.testclient import TestClient

from ragjury.evals.io.label_acts import LabelAct, read_acts
from ragjury.evals.labelling.items import JudgeVerdict, LabelItem
from ragjury.evals.stats.live_status import LiveStatus, session_mark
from ragjury.evals.labelling.page import PageState, build_app
from ragjury.evals.labelling.session import LabelSession
from ragjury.evals.stats.sequential import parse_decision

TOKEN = "t0k3n-live"


def _pair_items(n: int) -> list[LabelItem]:
    """Two systems answering n questions; the judge's P differs for every item (so a leak is visible)."""
    rng = np.random.default_rng(0)
    items = []
    for system in ("A", "B"):
        for q in range(n):
            p = round(float(rng.uniform(0.01, 0.99)), 6)
            items.append(LabelItem(f"{system}-{q}", system, (("Question", f"question {q}"), ("Answer", f"{system} {q}")),
                                   JudgeVerdict(p >= 0.5, p)))
    return items


def test_a_pair_enters_when_both_answers_are_labelled_and_b_minus_a_is_people_s() -> None:
    items = _pair_items(30)
    live = LiveStatus.of(items, parse_decision("B - A"), max_labels=40)
    acts = [LabelAct(id="A-0", system="A", act="label", annotator="ana", label=False),
            LabelAct(id="B-0", system="B", act="label", annotator="ana", label=True),
            LabelAct(id="A-1", system="A", act="label", annotator="ana", label=True)]
    status = live.status(acts)
    assert status.n_labels == 1 and status.labels == 2  # question 1 waits for B's answer
    assert status.words.startswith("not settled yet (B − A ")
    assert status.as_dict()["n_labels"] == 2


def test_a_file_of_one_system_cannot_answer_b_minus_a() -> None:
    items = [item for item in _pair_items(5) if item.system == "A"]
    try:
        LiveStatus.of(items, parse_decision("B - A"))
    except ValueError as error:
        assert "compares two systems; the file holds 1" in str(error)
    else:
        raise AssertionError("expected a ValueError")


def _all_probabilities(items: list[LabelItem]) -> list[str]:
    return [str(item.judge.probability) for item in items if item.judge and item.judge.probability is not None]


def test_the_page_answers_each_act_with_the_status_and_no_item_s_verdict(tmp_path: Path) -> None:
    items = _pair_items(6)
    out = tmp_path / "labels.jsonl"
    live = LiveStatus.of(items, parse_decision("B - A"))
    session = LabelSession(items, out, "ana", sequential=session_mark(parse_decision("B - A"), 0.95, None))
    state = PageState(session, TOKEN, "Is it correct?", on_act=lambda: live.status(read_acts(out)).as_dict())
    client = TestClient(build_app(state))
    probabilities = _all_probabilities(items)
    screen = client.get(f"/api/screen?token={TOKEN}").json()
    answers = 0
    while not screen["finished"]:
        item = screen["item"]
        answer = client.post(f"/api/act?token={TOKEN}", json={
            "act": "label", "id": item["id"], "system": item["system"], "label": True, "seen": screen.get("version", 0),
            "position": screen["position"]})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["status"]["state"] in ("not settled", "settled", "budget reached")
        text = json.dumps(body)
        assert "judge" not in json.dumps({k: v for k, v in body.items() if k != "status"})
        assert not any(p in text for p in probabilities), text  # no item's P, labelled or not
        answers += 1
        screen = body
    assert answers == 12
    acts = read_acts(out)
    assert acts and all(act.sequential == "B - A; confidence=0.95" for act in acts)
    assert all(json.loads(line)["sequential"] == "B - A; confidence=0.95" for line in out.read_text().splitlines())


def test_estimate_rebuilds_the_session_s_sequence_from_the_acts() -> None:
    from ragjury.evals.stats.live_status import parse_mark, sequence_of

    items = _pair_items(20)
    live = LiveStatus.of(items, parse_decision("B >= A - 0.02"), level=0.9, max_labels=30)
    assert parse_mark(live.mark)[1:] == (0.9, 30)
    acts = [LabelAct(id=f"{s}-{q}", system=s, act="label", annotator="ana", label=s == "B", sequential=live.mark)
            for q in range(5) for s in ("A", "B")]
    again = sequence_of(items, acts)
    assert again is not None and again == live.status(acts)
    assert sequence_of(items, [LabelAct(id="A-0", system="A", act="label", annotator="ana", label=True)]) is None


def test_a_paired_session_shows_a_question_s_two_answers_one_after_the_other(tmp_path: Path) -> None:
    items = _pair_items(40)
    live = LiveStatus.of(items, parse_decision("B - A"))
    session = LabelSession(items, tmp_path / "labels.jsonl", "ana", seed=3)
    order = live.paired_order(session.order)
    assert sorted(order) == sorted(session.order)
    questions = [key[1].split("-")[1] for key in order]
    assert all(questions[i] == questions[i + 1] for i in range(0, len(order), 2))
    firsts = [key[1].split("-")[1] for key in session.order]
    assert questions[::2] == list(dict.fromkeys(firsts))  # the questions keep the shuffle's order
