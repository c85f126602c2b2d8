"""#54 item 26: a Python check that calls ``sys.exit()`` (or raises ``KeyboardInterrupt``) ended the
whole run with exit 0 and nothing written ("Task was destroyed but it is pending!"). Now it is that
row's unscored reason; the run goes on and writes its outputs. Run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"

CHECKS = '''
import sys
from ragjury import check

@check
def exits_on_was(row):
    if " was " in row.output:
        sys.exit(0)
    return True

@check
async def async_exits_on_was(row):
    if " was " in row.output:
        sys.exit(3)
    return True

@check
def interrupts_on_was(row):
    if " was " in row.output:
        raise KeyboardInterrupt
    return True
'''


@pytest.mark.parametrize(("name", "said"), [("exits_on_was", "sys.exit(0)"), ("async_exits_on_was", "sys.exit(3)"),
                                            ("interrupts_on_was", "KeyboardInterrupt")])
def test_a_check_that_exits_unscores_its_row_and_the_run_writes_its_outputs(
        tmp_path: Path, name: str, said: str) -> None:
    (tmp_path / "exiting_checks_54.py").write_text(CHECKS)
    out = tmp_path / "preds.jsonl"
    done = subprocess.run([str(Path(sys.executable).parent / "ragjury"), "evaluate", "--task", "correctness",
                           "--judge", f"python:exiting_checks_54:{name}", "--data", str(DATA), "--no-progress",
                           "--no-cache", "--out", str(out), "--json", "-j", "4"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    payload = json.loads(done.stdout)
    assert payload["n"] == 40 and 0 < payload["unscored"] < 40, payload
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    assert len(rows) == 40
    reasons = {str(row.get("unscored_reason")) for row in rows if row.get("unscored_reason")}
    assert reasons and all(said in reason and name in reason for reason in reasons), reasons
    assert "Task was destroyed" not in done.stderr
