"""Several processes on one cache judge each item once: leases in the SQLite cache.

The two-process test runs two real ``ragjury evaluate`` processes on one cache at the same moment
(a barrier after the imports), with ``SlowCountingJudge`` logging every judgment it makes to a
shared file: every item must be judged exactly once across both, and both must write complete
predictions.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.cache_leases import holder_alive, new_lease_owner
from ragjury.evals.runs.runner import run_judgments
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment

REPO = Path(__file__).resolve().parents[4]
FIXTURES = REPO / "tests" / "fixtures"
N_ITEMS = 40


def judgment(value: object = True, *, unscored: bool = False) -> Judgment[object]:
    if unscored:
        return Judgment[object](judge="j", unscored=True, unscored_reason="model output invalid")
    return Judgment[object](value=value, judge="j")


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "cache.sqlite"


# -- claim / renew / release -----------------------------------------------------------------------


def test_a_key_is_claimed_by_one_owner_until_judged_released_or_expired(path: Path) -> None:
    keys = [f"k{i}" for i in range(10)]
    with JudgmentCache(path) as a, JudgmentCache(path) as b:
        mine, skipped = a.claim(keys, owner="A", limit=4)
        assert mine == keys[:4] and skipped == []
        theirs, skipped = b.claim(keys, owner="B")
        assert theirs == keys[4:] and skipped == keys[:4]
        assert a.claim(keys[:4], owner="A") == (keys[:4], [])  # an owner may re-claim its own

        a.put("k0", judgment(), owner="judge")  # storing the judgment ends the lease
        a.release("A", ["k1"])
        assert "k0" not in a.leases() and "k1" not in a.leases()
        claimed, skipped = b.claim(keys[:4], owner="B")
        assert claimed == ["k1"] and skipped == ["k0", "k2", "k3"]  # k0 is judged, k2/k3 held

        a.release("A")
        assert set(a.leases()) == {"k1", *keys[4:]} and {o for o, _ in a.leases().values()} == {"B"}


def test_expired_leases_and_leases_of_dead_local_processes_are_taken_over(path: Path) -> None:
    host = socket.gethostname()
    with JudgmentCache(path) as cache:
        cache.claim(["gone"], owner=f"{host}:{dead_pid()}:x")  # killed with SIGKILL, say
        cache.claim(["remote"], owner="other-host:1:x", ttl_s=0.05)
        cache.claim(["busy"], owner="other-host:1:y", ttl_s=60)
        time.sleep(0.1)
        claimed, skipped = cache.claim(["gone", "remote", "busy"], owner="me")
    assert claimed == ["gone", "remote"] and skipped == ["busy"]
    assert not holder_alive(f"{host}:{dead_pid()}:x") and holder_alive(new_lease_owner())
    assert holder_alive("other-host:1:x")  # cannot tell: assume alive until the lease expires


def test_renew_extends_only_the_owners_leases(path: Path) -> None:
    with JudgmentCache(path) as cache:
        cache.claim(["a", "b"], owner="A", ttl_s=1)
        cache.claim(["c"], owner="B", ttl_s=1)
        assert cache.renew("A", ttl_s=100) == 2
        leases = cache.leases()
    assert leases["a"][1] > time.time() + 50 and leases["c"][1] < time.time() + 2


def test_fresh_unscored_judgments_count_as_done_for_claims_and_lookups(path: Path) -> None:
    with JudgmentCache(path) as cache:
        cache.put("old", judgment(unscored=True))
        since = time.time()
        cache.put("new", judgment(unscored=True))
        claimed, skipped = cache.claim(["old", "new"], owner="me", fresh_since=since)
        assert claimed == ["old"] and skipped == ["new"]  # an old unscored one is retried
        assert set(cache.get_many(["old", "new"], fresh_since=since)) == {"new"}
        assert cache.get_many(["old", "new"]) == {}


# -- two runs on one cache -------------------------------------------------------------------------


class Counting(BaseJudge[CorrectnessItem, bool]):
    name = "counting"

    def __init__(self, calls: Counter[str], delay: float = 0.01) -> None:
        self.calls = calls
        self.delay = delay
        self.concurrency = 2

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(name=self.name, prompt_version="counting@1")

    async def _judge(self, item: CorrectnessItem) -> Judgment[bool]:
        self.calls[item.question] += 1
        await asyncio.sleep(self.delay)
        return self.scored(item.references[0] in item.answer)


def items(n: int) -> list[CorrectnessItem]:
    return [CorrectnessItem(question=f"q{i}", answer=f"answer {i}", references=[str(i)]) for i in range(n)]


async def test_two_concurrent_runs_share_the_work_and_both_finish_complete(path: Path) -> None:
    calls: Counter[str] = Counter()
    with JudgmentCache(path) as first, JudgmentCache(path) as second:
        (a, a_stats), (b, b_stats) = await asyncio.gather(
            run_judgments(Counting(calls), items(N_ITEMS), cache=first, progress=False),
            run_judgments(Counting(calls), items(N_ITEMS), cache=second, progress=False),
        )
        assert first.leases() == {}  # nothing left held
    assert len(calls) == N_ITEMS and set(calls.values()) == {1}
    assert a_stats.judged > 0 and b_stats.judged > 0  # the work was shared
    assert a_stats.judged + b_stats.judged == N_ITEMS
    assert a_stats.judged + a_stats.cached == b_stats.judged + b_stats.cached == N_ITEMS
    assert [j.value for j in a] == [j.value for j in b] == [True] * N_ITEMS


async def test_a_run_waits_for_items_another_holds_and_takes_their_judgments(path: Path) -> None:
    calls: Counter[str] = Counter()
    todo = items(6)
    judge = Counting(calls)
    keys = [JudgmentCache.key(judge.identity, item) for item in todo]
    with JudgmentCache(path) as other, JudgmentCache(path) as cache:
        other.claim(keys[:3], owner="other-host:1:z")  # held by a live process elsewhere

        async def the_other_finishes() -> None:
            await asyncio.sleep(0.3)
            for key in keys[:3]:
                other.put(key, Judgment[bool](value=True, judge="counting"))

        (results, stats), _ = await asyncio.gather(
            run_judgments(judge, todo, cache=cache, progress=False), the_other_finishes()
        )
    assert sorted(calls) == ["q3", "q4", "q5"]  # only what nobody held
    assert stats.judged == 3 and stats.cached == 3 and stats.scored == 6
    assert all(j.value is True for j in results)


# -- two processes -------------------------------------------------------------------------------

DRIVER = """
import sys, time
from pathlib import Path
from ragjury.cli import app  # the imports are done before the barrier: both start judging together
me, other = Path(sys.argv[1]), Path(sys.argv[2])
me.touch()
deadline = time.monotonic() + 120
while not other.exists() and time.monotonic() < deadline:
    time.sleep(0.01)
sys.argv = ["ragjury", *sys.argv[3:]]
app()
"""


def test_two_processes_on_one_cache_judge_each_item_once(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    with data.open("w", encoding="utf-8") as handle:
        for i in range(N_ITEMS):
            row = {"id": f"r{i}", "question": f"question {i}", "answer": f"the answer is item{i}",
                   "references": [f"item{i}"], "label": True}
            handle.write(json.dumps(row) + "\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(FIXTURES), str(REPO), env.get("PYTHONPATH", "")])
    env["RAGJURY_FAKE_JUDGE_LOG"] = str(tmp_path / "judged.log")
    env["RAGJURY_FAKE_JUDGE_DELAY"] = "0.1"
    env.pop("RAGJURY_FAKE_JUDGE_HANG_AFTER", None)

    def start(name: str, other: str) -> subprocess.Popen[str]:
        args = ["evaluate", "--task", "correctness", "--judge", "python:pipeline_fake_judge:SlowCountingJudge",
                "--data", str(data), "--cache", str(tmp_path / "cache.sqlite"),
                "--out", str(tmp_path / f"{name}.jsonl"), "--no-progress", "--json"]
        barrier = [str(tmp_path / f"{name}.ready"), str(tmp_path / f"{other}.ready")]
        return subprocess.Popen(
            [sys.executable, "-c", DRIVER, *barrier, *args],
            env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )

    runs = {"a": start("a", "b"), "b": start("b", "a")}
    summaries = {}
    for name, process in runs.items():
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err[-2000:]
        summaries[name] = json.loads(out)

    judged = Counter((tmp_path / "judged.log").read_text(encoding="utf-8").splitlines())
    assert len(judged) == N_ITEMS and set(judged.values()) == {1}, judged
    assert summaries["a"]["judged"] + summaries["b"]["judged"] == N_ITEMS
    for name, summary in summaries.items():
        assert summary["judged"] + summary["cached"] == N_ITEMS and summary["scored"] == N_ITEMS
        rows = [json.loads(line) for line in (tmp_path / f"{name}.jsonl").read_text().splitlines()]
        assert [row["id"] for row in rows] == [f"r{i}" for i in range(N_ITEMS)]
        assert all(row["label"] is True and not row["unscored"] for row in rows)
