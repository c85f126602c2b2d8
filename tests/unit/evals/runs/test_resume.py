"""Never lose work: kill ``ragjury evaluate`` mid-run (SIGKILL, then Ctrl-C), run it again, and
check that every item was judged exactly once across both runs and the predictions are complete.

The judge is ``tests/fixtures/pipeline_fake_judge.py:SlowCountingJudge``, plugged in with
``--judge python:pipeline_fake_judge:SlowCountingJudge``; it logs each completed judgment to a
side-channel file. With ``RAGJURY_FAKE_JUDGE_HANG_AFTER=15`` it completes 15 judgments and then
hangs (a stuck server), writing ``<log>.ready``; the test kills the process once that file exists.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from child_process import sigint_at_default

REPO = Path(__file__).resolve().parents[4]
FIXTURES = REPO / "tests" / "fixtures"
N_ITEMS = 40
HANG_AFTER = 15

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def write_dataset(path: Path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for i in range(N_ITEMS):
            answer = f"the answer is item{i}" if i % 3 else "no idea"
            row = {
                "id": f"r{i}",
                "question": f"question {i}",
                "answer": answer,
                "references": [f"item{i}"],
                "system": f"s{i % 2}",
                "label": bool(i % 3),
            }
            handle.write(json.dumps(row) + "\n")


def command(tmp_path: Path) -> list[str]:
    return [
        sys.executable,
        str(REPO / "cli.py"),
        "evaluate",
        "--task",
        "correctness",
        "--judge",
        "python:pipeline_fake_judge:SlowCountingJudge",
        "--data",
        str(tmp_path / "data.jsonl"),
        "--cache",
        str(tmp_path / "cache.sqlite"),
        "--out",
        str(tmp_path / "predictions.jsonl"),
        "--no-progress",
        "--json",
    ]


def environment(tmp_path: Path, *, hang: bool) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(FIXTURES), str(REPO), env.get("PYTHONPATH", "")])
    env["RAGJURY_FAKE_JUDGE_LOG"] = str(tmp_path / "judged.log")
    env["RAGJURY_FAKE_JUDGE_DELAY"] = "0.02"
    env.pop("RAGJURY_FAKE_JUDGE_HANG_AFTER", None)
    if hang:
        env["RAGJURY_FAKE_JUDGE_HANG_AFTER"] = str(HANG_AFTER)
    return env


def start_and_wait_until_stuck(tmp_path: Path) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        command(tmp_path),
        env=environment(tmp_path, hang=True),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=sigint_at_default,  # noqa: PLW1509 - signal dispositions only, no threads touched
    )
    ready = tmp_path / "judged.log.ready"
    deadline = time.monotonic() + 120
    while not ready.exists():
        if process.poll() is not None:
            out, err = process.communicate()
            pytest.fail(f"the run ended before it was killed (rc {process.returncode}): {err[-2000:]}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("the fake judge never reached the hang point")
        time.sleep(0.02)
    return process


def judged_counts(tmp_path: Path) -> Counter[str]:
    return Counter((tmp_path / "judged.log").read_text(encoding="utf-8").splitlines())


def cached_judgments(tmp_path: Path) -> int:
    with sqlite3.connect(tmp_path / "cache.sqlite") as db:
        return int(db.execute("SELECT COUNT(*) FROM entries WHERE kind = 'judgment'").fetchone()[0])


def resume(tmp_path: Path) -> dict[str, object]:
    done = subprocess.run(
        command(tmp_path),
        env=environment(tmp_path, hang=False),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def check_complete(tmp_path: Path, summary: dict[str, object]) -> None:
    counts = judged_counts(tmp_path)
    assert len(counts) == N_ITEMS, f"{N_ITEMS - len(counts)} items were never judged"
    assert set(counts.values()) == {1}, f"judged twice: {[q for q, c in counts.items() if c > 1]}"
    assert summary["cached"] == HANG_AFTER and summary["judged"] == N_ITEMS - HANG_AFTER
    rows = [json.loads(line) for line in (tmp_path / "predictions.jsonl").read_text().splitlines()]
    assert [row["id"] for row in rows] == [f"r{i}" for i in range(N_ITEMS)]
    assert [row["label"] for row in rows] == [bool(i % 3) for i in range(N_ITEMS)]
    assert all(row["judge"] == "slow_counting" and not row["unscored"] for row in rows)
    figures = summary["figures"]
    assert isinstance(figures, dict) and figures["accuracy"] == 1.0 and figures["coverage"] == 1.0


def test_sigkill_mid_run_then_resume_judges_every_item_exactly_once(tmp_path: Path) -> None:
    write_dataset(tmp_path / "data.jsonl")
    process = start_and_wait_until_stuck(tmp_path)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL
    assert sum(judged_counts(tmp_path).values()) == HANG_AFTER
    assert cached_judgments(tmp_path) == HANG_AFTER  # everything completed survived the kill
    assert not (tmp_path / "predictions.jsonl").exists()  # never half a file

    check_complete(tmp_path, resume(tmp_path))

    # A third run is free: every item comes from the cache.
    third = resume(tmp_path)
    assert third["cached"] == N_ITEMS and third["judged"] == 0
    assert sum(judged_counts(tmp_path).values()) == N_ITEMS


def test_ctrl_c_stops_cleanly_says_how_to_resume_and_resumes(tmp_path: Path) -> None:
    write_dataset(tmp_path / "data.jsonl")
    process = start_and_wait_until_stuck(tmp_path)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err[-2000:]
    assert "run the same command again" in err and "cache.sqlite" in err
    assert "Traceback" not in err
    assert cached_judgments(tmp_path) == HANG_AFTER

    check_complete(tmp_path, resume(tmp_path))


def test_sigterm_stops_like_ctrl_c_and_exits_143(tmp_path: Path) -> None:
    """A cancelled CI job or ``kill`` sends SIGTERM: what completed is saved, one line says how
    to resume, exit 143 (128 + 15), never a traceback."""
    write_dataset(tmp_path / "data.jsonl")
    process = start_and_wait_until_stuck(tmp_path)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err[-2000:]
    assert "run the same command again" in err and "Traceback" not in err
    assert cached_judgments(tmp_path) == HANG_AFTER

    check_complete(tmp_path, resume(tmp_path))
