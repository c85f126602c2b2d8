"""Piped output at 80 columns (``report A B | less``): a message stays one line, never cut inside a
word ("same judg|e", "--labels L|ABELS" once), so a pager or grep reads it whole."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
RAGJURY = Path(sys.executable).with_name("ragjury")


def run(*args: str, cwd: Path) -> str:
    env = {**os.environ, "COLUMNS": "80"}
    done = subprocess.run([str(RAGJURY), *args], check=False, capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120)
    return done.stdout + done.stderr


def test_report_a_b_piped_keeps_each_message_on_one_line(tmp_path: Path) -> None:
    for config in ("a", "b"):
        run("evaluate", "--task", "correctness", "--judge", "contains", "--data",
            str(ROOT / "examples" / "data" / f"config_{config}.jsonl"), "--out", f"config-{config}-long-name.jsonl",
            "--no-progress", "--no-cache", cwd=tmp_path)
    shown = run("report", "config-a-long-name.jsonl", "config-b-long-name.jsonl", cwd=tmp_path)
    lines = shown.splitlines()
    assert "run comparison: two runs' answers to the same questions, judged by the same judge" in lines
    caveat = next(line for line in lines if line.startswith("caveat:"))
    assert caveat.endswith("--labels labels.jsonl'") and len(caveat) > 80  # one line, not wrapped
    assert any(line.startswith("B - A: -1.0 points") and line.endswith("(McNemar's exact test)") for line in lines)
