"""#57 item 7: a team on one page server (``label --annotators``): each person's page under
/p/NAME/ answers only that person's secret, acts are recorded as the link's annotator, the Host
check holds for --host, and cross-origin or non-JSON writes change nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from starlette.testclient import TestClient

from ragjury.commands.label import progress_line
from ragjury.evals.io.label_acts import read_acts
from ragjury.evals.labelling.items import JudgeVerdict, LabelItem
from ragjury.evals.labelling.page import PageState, build_team_app
from ragjury.evals.labelling.session import LabelSession

TOKENS = {"ana": "tok-ana", "bob": "tok-bob"}


def make(tmp_path: Path) -> tuple[TestClient, dict[str, PageState]]:
    items = [LabelItem(f"q{k}", "sys", (("Answer", f"answer {k}"),), JudgeVerdict(k % 2 == 0, 0.3)) for k in range(6)]
    out = tmp_path / "labels.jsonl"
    states = {name: PageState(LabelSession(items, out, name, overlap=0.5), token, "Is it correct?",
                              hosts=frozenset({"testserver", "10.1.2.3:8000"}))
              for name, token in TOKENS.items()}
    return TestClient(build_team_app(states)), states


def on(screen: dict, **more: object) -> dict:
    item = screen["item"]
    return {"act": "label", "id": item["id"], "system": item["system"], "seen": screen["version"], "label": True,
            **more}


def test_each_link_is_its_own_person_and_another_token_is_refused(tmp_path: Path) -> None:
    client, states = make(tmp_path)
    assert client.get("/").status_code == 403
    assert client.get("/p/ana/?token=tok-bob").status_code == 403  # bob's secret does not open ana's page
    assert client.get("/p/ana/api/screen?token=tok-bob").status_code == 403
    page = client.get("/p/ana/?token=tok-ana")
    assert page.status_code == 200 and "path=/p/ana/" in page.headers["set-cookie"].lower()
    assert 'src="static/label.js"' in page.text  # relative: /p/ana/static/label.js
    assert client.get("/p/ana/static/label.js?token=tok-ana").status_code == 200
    screen = client.get("/p/ana/api/screen?token=tok-ana").json()
    assert screen["annotator"] == "ana"
    assert client.post("/p/ana/api/act?token=tok-ana", json=on(screen)).status_code == 200
    bob = client.get("/p/bob/api/screen?token=tok-bob").json()
    assert client.post("/p/bob/api/act?token=tok-bob", json=on(bob, label=False)).status_code == 200
    assert [a.annotator for a in read_acts(states["ana"].session.out)] == ["ana", "bob"]
    assert progress_line({n: s.session for n, s in states.items()}).startswith("progress: ana 1/")


def test_host_and_cross_origin_writes_change_nothing(tmp_path: Path) -> None:
    client, states = make(tmp_path)
    assert client.get("/p/ana/api/screen?token=tok-ana", headers={"host": "evil.example"}).status_code == 421
    assert client.get("/p/ana/api/screen?token=tok-ana", headers={"host": "10.1.2.3:8000"}).status_code == 200
    screen = client.get("/p/ana/api/screen?token=tok-ana").json()
    form = client.post("/p/ana/api/act?token=tok-ana", content=json.dumps(on(screen)),
                       headers={"content-type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415
    cross = client.post("/p/ana/api/act?token=tok-ana", json=on(screen), headers={"origin": "http://evil.example"})
    assert cross.status_code == 403
    assert read_acts(states["ana"].session.out) == []
    ok = client.post("/p/ana/api/act?token=tok-ana", json=on(screen), headers={"origin": "http://10.1.2.3:8000"})
    assert ok.status_code == 200


def _label(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ragjury.cli", "label", *args], capture_output=True, text=True,
                          timeout=60)


def test_team_options_that_do_not_fit_are_one_line(tmp_path: Path) -> None:
    items = tmp_path / "plan.jsonl"
    items.write_text(json.dumps({"id": "q1", "system": "A", "judge_label": True, "judge_probability": 0.9,
                                 "question": "q", "answer": "a", "references": ["r"]}) + "\n")
    out = str(tmp_path / "labels.jsonl")
    for extra, words in ((["--annotators", "ana,ana"], "each person once"),
                         (["--annotators", "a/b"], "a name is"),
                         (["--annotators", "ana", "--annotator", "bob"], "leave out --annotator"),
                         (["--host", "0.0.0.0"], "name the address")):
        done = _label(str(items), "--out", out, "--no-browser", *extra)
        assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_guidelines_are_untrusted_text_with_a_size_cap(tmp_path: Path) -> None:
    """#57 item 6: --guidelines FILE.md: a FIFO, a directory, a huge or non-UTF-8 file end in one line."""
    import os

    from ragjury.commands.label import GUIDELINES_BYTES, read_guidelines

    rules = tmp_path / "rules.md"
    rules.write_text("<script>x</script>\x1b[2J ok\n")
    assert read_guidelines(rules) == "<script>x</script>[2J ok\n"  # text, control characters dropped
    items = tmp_path / "plan.jsonl"
    items.write_text(json.dumps({"id": "q1", "system": "A", "judge_label": True, "judge_probability": 0.9,
                                 "question": "q", "answer": "a", "references": ["r"]}) + "\n")
    fifo, big, latin = tmp_path / "fifo.md", tmp_path / "big.md", tmp_path / "latin.md"
    os.mkfifo(fifo)
    big.write_text("x" * (GUIDELINES_BYTES + 1))
    latin.write_bytes(b"caf\xe9\n")
    for path, words in ((fifo, "FIFO"), (tmp_path, "directory"), (big, "over 32 KB"), (latin, "not UTF-8")):
        done = _label(str(items), "--out", str(tmp_path / "labels.jsonl"), "--no-browser", "--guidelines", str(path))
        assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_an_adjudication_settles_a_tie_and_is_never_a_vote() -> None:
    """#57 item 6: label --review's act (review: true) settles the item, tie or not; undone, it settles nothing."""
    from ragjury.evals.io.label_acts import LabelAct, adjudications, people_labels

    tie = [LabelAct(id="a", act="label", annotator="ana", label=True),
           LabelAct(id="a", act="label", annotator="bob", label=False)]
    assert people_labels(tie).ties == [(None, "a")]
    review = LabelAct(id="a", act="label", annotator="cy", label=False, review=True)
    settled = people_labels([*tie, review])
    assert settled.labels == {(None, "a"): False} and settled.ties == [] and "cy" not in settled.annotators
    assert review.as_row()["review"] is True and "review" not in tie[0].as_row()
    undone = [*tie, review, LabelAct(id="a", act="undo", annotator="cy", review=True)]
    assert adjudications(undone) == {} and people_labels(undone).ties == [(None, "a")]


def test_host_listens_there_with_a_warning_and_answers_only_its_host(tmp_path: Path) -> None:
    """--host ADDR: a one-line warning, the link names ADDR:port, Host ADDR:port is answered and another refused."""
    import os
    import re
    import time
    import urllib.error
    import urllib.request

    items = tmp_path / "plan.jsonl"
    items.write_text(json.dumps({"id": "q1", "system": "A", "judge_label": True, "judge_probability": 0.9,
                                 "question": "q", "answer": "a", "references": ["r"]}) + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "ragjury.cli", "label", str(items), "--out",
                             str(tmp_path / "labels.jsonl"), "--no-browser", "--host", "127.0.0.2",
                             "--annotators", "ana,bob"], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "COLUMNS": "200"})
    try:
        lines: list[str] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any("bob:" in line for line in lines):
            lines.append(proc.stderr.readline())  # type: ignore[union-attr]
        assert lines[0].startswith("warning: --host 127.0.0.2: the page listens beyond this machine")
        url = re.search(r"(http://127\.0\.0\.2:\d+/p/ana/\?token=\S+)", "".join(lines)).group(1)  # type: ignore[union-attr]
        opener = Path(re.search(r"ana: \S+ \(on this machine: open (\S+)\)", "".join(lines)).group(1))  # type: ignore[union-attr]
        assert opener.stat().st_mode & 0o777 == 0o600 and url in opener.read_text()  # its own 0600 opener
        with urllib.request.urlopen(url, timeout=10) as page:
            assert page.status == 200
        wrong = urllib.request.Request(url, headers={"Host": "evil.example"})
        try:
            urllib.request.urlopen(wrong, timeout=10)
            raise AssertionError("another Host was answered")
        except urllib.error.HTTPError as error:
            assert error.code == 421
    finally:
        proc.kill()
        proc.wait(timeout=10)
