"""``ragjury label`` killed with SIGKILL at random moments: every act the page was answered for is
in the labels file exactly once, the file parses, and the next session starts at the next item."""

from __future__ import annotations

import random
import signal
import sys
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from label_page import serving, write_items  # noqa: E402

from ragjury.evals.io.label_acts import read_acts, replay

KILLS = 20


def test_killed_twenty_times_no_acknowledged_label_is_lost_or_doubled(tmp_path: Path) -> None:
    items, out = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl"
    write_items(items, 400)
    rng = random.Random(7)
    acknowledged: list[str] = []
    for _ in range(KILLS):
        with serving(items, out) as (proc, url):
            base, token = url.split("/?token=")
            client = httpx.Client(base_url=base, params={"token": token}, timeout=10)
            screen = client.get("/api/screen").json()
            done_before = len({a.id for a in read_acts(out) if a.act == "label"})
            # the resumed session starts at the first item not labelled, and counts what was saved
            assert screen["done"] == done_before and screen["item"]["id"] not in acknowledged
            stop = threading.Event()

            def work() -> None:
                nonlocal screen
                while not stop.is_set():
                    try:
                        answer = client.post("/api/act", json={"act": "label", "id": screen["item"]["id"],
                                                               "system": screen["item"]["system"], "label": True,
                                                               "seconds": 0.01})
                    except httpx.HTTPError:
                        return
                    if answer.status_code == 200:
                        acknowledged.append(screen["item"]["id"])
                        screen = answer.json()

            worker = threading.Thread(target=work)
            worker.start()
            time.sleep(rng.uniform(0.05, 0.4))
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
            stop.set()
            worker.join(timeout=10)
            client.close()
    acts = read_acts(out)  # parses
    labelled = [a.id for a in acts if a.act == "label"]
    assert len(labelled) == len(set(labelled)), "an item was labelled twice"
    assert set(acknowledged) <= set(labelled), "an acknowledged label is missing"
    assert len(acknowledged) == len(set(acknowledged))
    assert len(labelled) - len(acknowledged) <= KILLS  # at most the one act in flight at each kill
    assert len(replay(acts)["root" if "root" in replay(acts) else next(iter(replay(acts)))]) == len(labelled)
