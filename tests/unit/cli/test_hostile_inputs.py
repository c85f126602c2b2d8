"""Inputs a hostile or unlucky user brings: each ends in one line naming the file, never a traceback."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "examples" / "data" / "correctness.jsonl"
runner = CliRunner()


def evaluate(cache: Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                               "--cache", str(cache), "--no-progress", "--json"])


@pytest.fixture(scope="module")
def filled_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cache") / "cache.sqlite"
    result = evaluate(path)
    assert result.exit_code == 0, result.output
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


@pytest.mark.parametrize("offset", [0, 100, 4096, 8242, -100])
def test_a_damaged_cache_is_one_line_or_judged_again(filled_cache: Path, tmp_path: Path, offset: int) -> None:
    damaged = tmp_path / "damaged.sqlite"
    shutil.copy(filled_cache, damaged)
    size = damaged.stat().st_size
    with damaged.open("r+b") as handle:
        handle.seek(offset if offset >= 0 else size + offset)
        handle.write(bytes(range(7, 71)))  # 64 bytes that are not SQLite's
    result = evaluate(damaged)
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code in (0, 2), result.output
    if result.exit_code == 2:
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert any(str(damaged) in line and "--cache" in line for line in lines), result.output
    else:  # the damage hit a row: that row is judged again, the run completes
        assert '"n": 40' in result.output and '"scored": 40' in result.output


def test_a_cache_on_a_full_disk_is_one_line(tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    cache = tmp_path / "full.sqlite"
    os.symlink("/dev/full", cache)
    result = evaluate(cache)
    assert result.exit_code == 2, result.output
    assert "judgment cache cannot be used" in result.output and "Traceback" not in result.output
