"""A user check that returns a raw score or NaN (issue 35 item 9): thresholded where it has a
``pass_threshold``, else unscored naming the check; the run never writes a file it cannot read back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"

CHECKS = '''
import math
from ragjury import check

@check
def raw(row):
    return 7.5

@check(pass_threshold=5)
def raw_with_threshold(row):
    return 7.5 if "a" in row.output else 2.0

@check(pass_threshold=0.5)
def nan(row):
    return math.nan
'''


def ragjury(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).parent / "ragjury"), *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "raw_checks_35.py").write_text(CHECKS)
    return tmp_path


def evaluate(folder: Path, name: str) -> subprocess.CompletedProcess[str]:
    return ragjury(folder, "evaluate", "--task", "correctness", "--judge", f"python:raw_checks_35:{name}", "--data",
                   str(DATA), "--out", str(folder / f"{name}.jsonl"), "--no-progress", "--no-cache", "--json")


def test_a_raw_score_without_a_threshold_is_unscored_naming_the_check(folder: Path) -> None:
    done = evaluate(folder, "raw")
    assert done.returncode == 3, done.stderr  # nothing scored: said, not "judged correct: 100 %"
    assert "check 'raw' returned the score 7.5 and has no pass_threshold" in done.stderr + done.stdout


def test_a_raw_score_with_a_threshold_is_thresholded_and_the_file_reads_back(folder: Path) -> None:
    done = evaluate(folder, "raw_with_threshold")
    assert done.returncode == 0, done.stderr
    labels = {json.loads(line)["label"] for line in (folder / "raw_with_threshold.jsonl").read_text().splitlines()}
    assert labels <= {True, False}
    again = ragjury(folder, "report", str(folder / "raw_with_threshold.jsonl"), "--json")
    assert again.returncode == 0, again.stderr


def test_nan_is_unscored_naming_the_check(folder: Path) -> None:
    done = evaluate(folder, "nan")
    assert done.returncode == 3
    assert "check 'nan' returned the score nan: not a finite number" in done.stderr + done.stdout
