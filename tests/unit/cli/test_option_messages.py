"""Messages that name the option and read as words (issue 27, item 16)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
runner = CliRunner()


def test_a_negative_seed_names_the_option(tmp_path: Path) -> None:
    result = runner.invoke(app, ["label-plan", str(DATA), "--seed", "-1", "--budget", "5", "--out", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 2 and "--seed" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_plug_in_that_builds_no_judge_says_what_a_judge_has(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "not_a_judge.py").write_text("def Factory(settings=None, **opts):\n    return object()\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "not_a_judge", raising=False)
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--data", str(DATA), "--no-cache", "--no-progress",
                                 "--judge", "python:not_a_judge:Factory"])
    assert result.exit_code == 2, result.output
    assert "'identity' attribute and 'ajudge()' method" in result.output


def test_evaluate_json_names_the_executor_in_process_mode() -> None:
    """The contract lists ``executor``; it was missing unless --executor ray."""
    import json

    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                                 "--no-cache", "--no-progress", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["executor"] == "process"


def test_a_full_disk_on_out_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno
    import os

    def full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    out = tmp_path / "p.jsonl"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                                 "--no-cache", "--no-progress", "--out", str(out)])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and str(out) in errors[0] and "the disk is full" in errors[0] and "Errno" not in errors[0]
    assert not out.exists() and list(tmp_path.iterdir()) == []  # no half file, no temporary left


def test_every_dead_server_of_a_pool_is_named_once() -> None:
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "llm", "--data", str(DATA),
                                 "--limit", "2", "--no-cache", "--no-progress",
                                 "--base-url", "http://127.0.0.1:9/v1,http://127.0.0.1:7/v1"])
    assert result.exit_code == 3, result.output
    assert "unreachable at http://127.0.0.1:9/v1, http://127.0.0.1:7/v1 (ConnectionRefusedError)" in result.output


@pytest.mark.parametrize(("cache", "says"), [("data", "not a ragjury cache"), ("/dev/full", "disk is full")])
def test_a_cache_that_is_no_cache_or_full_is_not_to_be_deleted(tmp_path: Path, cache: str, says: str) -> None:
    if cache == "/dev/full" and not Path(cache).exists():
        pytest.skip("no /dev/full here")
    data = tmp_path / "d.jsonl"
    data.write_text(DATA.read_text(encoding="utf-8"), encoding="utf-8")
    path = str(data) if cache == "data" else cache
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data),
                                 "--cache", path, "--no-progress"])
    assert result.exit_code == 2 and says in result.output and "delete" not in result.output, result.output
    assert data.read_text(encoding="utf-8") == DATA.read_text(encoding="utf-8")


def test_ctrl_c_with_json_gives_the_counts_so_far(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C on the 6th judgment: stdout's JSON says how far the run got, not only that it stopped."""
    import json

    from ragjury.evals.runs import runner as run_module

    calls = []

    def judged(run: object, judgment: object) -> None:
        calls.append(judgment)
        if len(calls) == 6:
            raise KeyboardInterrupt

    monkeypatch.setattr(run_module.tracing, "judged", judged)
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                                 "--cache", str(tmp_path / "c.sqlite"), "--no-progress", "--json", "-j", "1"])
    assert result.exit_code == 130, result.output
    payload = json.loads(result.stdout)
    assert payload["interrupted"] is True and payload["n"] == 40 and payload["judged"] == 5, payload


def test_a_bad_map_is_one_line_without_a_class_name() -> None:
    import subprocess
    import sys
    from pathlib import Path

    data = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
    done = subprocess.run([str(Path(sys.executable).with_name("ragjury")), "evaluate", "--task", "correctness",
                           "--judge", "contains", "--data", str(data), "--map", "bogus=x", "--no-progress",
                           "--no-cache"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == ("error: --map: unknown field 'bogus' for task correctness; fields: question, "
                                   "answer, references, id, system, label")
