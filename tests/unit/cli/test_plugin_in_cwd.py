"""``--judge python:mychecks:fn`` run from the folder holding ``mychecks.py`` finds it (the console
script does not put the current folder on sys.path; ragjury adds it, as pytest's rootdir)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"


def test_a_checks_file_in_the_current_folder_is_found(tmp_path: Path) -> None:
    (tmp_path / "cwd_checks_for_ragjury.py").write_text(
        "from ragjury import check\n\n@check\ndef long_enough(row):\n    return len(row.output) > 3\n")
    script = Path(sys.executable).parent / "ragjury"
    done = subprocess.run([str(script), "evaluate", "--task", "correctness", "--judge",
                           "python:cwd_checks_for_ragjury:long_enough", "--data", str(DATA), "--no-progress",
                           "--no-cache", "--json"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert '"scored": 40' in done.stdout.replace(" ", "").replace('"scored":40', '"scored": 40')


def test_a_missing_module_says_where_it_was_looked_for(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "ragjury"
    done = subprocess.run([str(script), "evaluate", "--task", "correctness", "--judge", "python:no_such_mod_xyz:f",
                           "--data", str(DATA), "--no-progress", "--no-cache"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "current folder" in done.stderr and "Traceback" not in done.stderr
