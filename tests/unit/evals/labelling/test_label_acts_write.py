"""#54 item 17: appending to the labels file after a cut last line, and under a real short write."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ragjury.evals.io.label_acts import LabelAct, append_act, read_acts

ROW = {"id": "a", "act": "label", "label": True, "annotator": "ana"}


def test_a_cut_last_line_is_cut_off_before_the_next_act(tmp_path: Path) -> None:
    out = tmp_path / "labels.jsonl"
    out.write_text(json.dumps(ROW) + "\n" + '{"id": "b", "act": "lab')  # a crash cut the second write
    append_act(out, LabelAct(id="c", act="label", annotator="ana", label=False))
    assert [a.id for a in read_acts(out)] == ["a", "c"]  # the file parses: the cut line did not become a middle line
    assert out.read_text().endswith("\n")


SHORT = """
import sys
from ragjury.evals.io.label_acts import LabelAct, append_act
try:
    append_act(sys.argv[1], LabelAct(id="x" * 3000, act="label", annotator="ana", label=True))
except OSError as error:
    print("refused:", error)
    raise SystemExit(3)
print("acknowledged")
"""


def test_a_short_write_is_an_error_not_an_acknowledged_act(tmp_path: Path) -> None:
    out = tmp_path / "labels.jsonl"
    out.write_text(json.dumps(ROW) + "\n" + json.dumps({**ROW, "id": "b" * 2500}) + "\n")  # ~2.6 KB of 4 KB
    size = out.stat().st_size
    run = subprocess.run(["bash", "-c", f'ulimit -f 4; exec "{sys.executable}" -c \'{SHORT}\' "{out}"'],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 3, run.stdout + run.stderr
    assert "short write" in run.stdout or "File too large" in run.stdout
    assert out.stat().st_size == size and len(read_acts(out)) == 2  # the partial line was taken back
