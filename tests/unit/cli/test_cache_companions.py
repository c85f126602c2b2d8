"""An output on one of SQLite's files beside the cache (``X.sqlite-wal``, ``-shm``, ``-journal``)
is refused before any work, one line and exit 2: SQLite deletes those files when the cache
closes, so the output would vanish after "predictions written"."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
runner = CliRunner()


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_an_output_beside_the_cache_is_refused(tmp_path: Path, suffix: str) -> None:
    cache = tmp_path / "cache.sqlite"
    out = tmp_path / f"cache.sqlite{suffix}"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                                 "--cache", str(cache), "--out", str(out), "--no-progress"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "--out" in lines[0] and f"input --cache {cache}" in lines[0], result.output
    assert not out.exists() and not cache.exists()  # refused before any work


def test_a_file_that_only_looks_alike_is_written(tmp_path: Path) -> None:
    out = tmp_path / "cache.sqlite-wal.jsonl"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                                 "--cache", str(tmp_path / "cache.sqlite"), "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert out.exists()
