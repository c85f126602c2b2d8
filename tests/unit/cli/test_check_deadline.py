"""A Python check that never returns (issue 44 item 13): its rows are unscored at the deadline with
the reason, and Ctrl-C or SIGTERM ends the run within seconds instead of waiting for the check."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from child_process import sigint_at_default

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"

CHECKS = '''
import time
from ragjury import check

@check
def stuck(row):
    time.sleep(600)
    return True

@check
def stuck_on_paris(row):
    if " was " in row.output:
        time.sleep(600)
    return True
'''


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "stuck_checks_44.py").write_text(CHECKS)
    return tmp_path


def command(folder: Path, name: str, *extra: str) -> list[str]:
    return [str(Path(sys.executable).parent / "ragjury"), "evaluate", "--task", "correctness", "--judge",
            f"python:stuck_checks_44:{name}", "--data", str(DATA), "--no-progress", "--no-cache", *extra]


def test_a_stuck_check_is_unscored_at_its_deadline_and_the_run_ends(folder: Path) -> None:
    started = time.monotonic()
    done = subprocess.run(command(folder, "stuck", "--check-timeout", "0.5", "--json", "-j", "8"), cwd=folder,
                          capture_output=True, text=True, timeout=120)
    took = time.monotonic() - started
    assert done.returncode == 3, done.stderr  # nothing could be scored
    payload = json.loads(done.stdout)
    assert payload["unscored"] == payload["n"] == 40
    assert "did not finish within 0.5 s (--check-timeout" in done.stdout + done.stderr
    assert took < 60  # 40 rows at 0.5 s, 8 at a time: seconds, not 40 × 600 s


def test_only_the_stuck_rows_are_unscored(folder: Path) -> None:
    out = folder / "p.jsonl"
    done = subprocess.run(command(folder, "stuck_on_paris", "--check-timeout", "0.5", "--out", str(out), "-j", "8"),
                          cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in out.open()]
    stuck = [row for row in rows if row["unscored"]]
    assert stuck and all(" was " in row["item"]["answer"] for row in stuck)
    assert all(not row["unscored"] for row in rows if " was " not in row["item"]["answer"])


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_ctrl_c_and_sigterm_do_not_wait_for_a_stuck_check(folder: Path, stop: signal.Signals) -> None:
    process = subprocess.Popen(command(folder, "stuck", "--check-timeout", "500"), cwd=folder,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=sigint_at_default)  # Ctrl-C as an interactive user's would meet
    try:
        time.sleep(4)  # the checks are running (and stuck)
        stopped = time.monotonic()
        process.send_signal(stop)
        process.wait(timeout=30)
        assert time.monotonic() - stopped < 15
        assert process.returncode == (143 if stop == signal.SIGTERM else 130)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
