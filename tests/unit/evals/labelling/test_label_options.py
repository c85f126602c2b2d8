"""#54 items 35/36: ``ragjury label``'s options are checked in one line, before anything is served."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from label_page import write_items  # noqa: E402

runner = CliRunner()


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    path = tmp_path / "plan.jsonl"
    write_items(path, 4)
    return path


def one_line_refusal(args: list[str]) -> str:
    result = runner.invoke(app, ["label", *args, "--no-browser"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) <= 2, result.output
    return " ".join(result.output.split())


def test_a_bogus_task_lists_the_tasks(plan: Path, tmp_path: Path) -> None:
    text = one_line_refusal([str(plan), "--out", str(tmp_path / "l.jsonl"), "--task", "bogus"])
    assert "correctness, faithfulness, relevance" in text


def test_relevance_on_a_correctness_file_is_refused(plan: Path, tmp_path: Path) -> None:
    text = one_line_refusal([str(plan), "--out", str(tmp_path / "l.jsonl"), "--task", "relevance"])
    assert "relevance" in text and "correctness" in text


def test_terminal_with_reveal_is_refused(plan: Path, tmp_path: Path) -> None:
    assert "--reveal" in one_line_refusal([str(plan), "--out", str(tmp_path / "l.jsonl"), "--terminal", "--reveal"])


def test_an_unwritable_labels_file_is_refused_at_start(plan: Path, tmp_path: Path) -> None:
    import subprocess

    out = tmp_path / "labels.jsonl"
    out.write_text("")
    if subprocess.run(["chattr", "+i", str(out)], capture_output=True).returncode != 0:
        out.chmod(0o444)
        if os.geteuid() == 0:
            pytest.skip("no chattr here and root writes a 0444 file")
    try:
        text = one_line_refusal([str(plan), "--out", str(out)])
    finally:
        subprocess.run(["chattr", "-i", str(out)], capture_output=True)
    assert "cannot write the labels file" in text


def test_a_task_that_fits_is_accepted(tmp_path: Path) -> None:
    from ragjury.evals.labelling.items import load_items

    data = tmp_path / "rel.jsonl"
    data.write_text(json.dumps({"id": "1", "query": "q", "retrieved_text": "p"}) + "\n")
    assert load_items(data, "relevance")[0] == "relevance"


def test_label_plan_prints_system_names_without_control_characters(tmp_path: Path) -> None:
    """#54 item 31: a system name is data; its escape sequences never reach the terminal."""
    systems = Path(__file__).resolve().parents[4] / "examples" / "data" / "systems.jsonl"
    data = tmp_path / "data.jsonl"
    rows = [json.loads(line) for line in systems.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        if "system" in row:
            row["system"] = "\x1b]0;pwned\x07\x1b[2J" + str(row["system"])
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    preds = tmp_path / "preds.jsonl"
    done = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data),
                               "--out", str(preds), "--no-progress"])
    assert done.exit_code == 0, done.output
    result = runner.invoke(app, ["label-plan", str(preds), "--budget", "20", "--out", str(tmp_path / "plan.jsonl")])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output and "]0;pwned" in result.output


def test_the_browser_is_started_without_the_token_on_its_command_line(tmp_path: Path) -> None:
    """#54 item 32, with the real ``webbrowser`` module and command: $BROWSER records its argv and
    the mode of the file it was given; the file is gone when the session ends."""
    import re
    import subprocess
    import time

    import httpx

    plan, out, seen = tmp_path / "plan.jsonl", tmp_path / "labels.jsonl", tmp_path / "argv.json"
    write_items(plan, 3)
    fake = tmp_path / "fake-browser"
    fake.write_text(f"""#!{sys.executable}
import json, os, stat, sys
path = sys.argv[1].removeprefix("file://")
json.dump({{"argv": sys.argv, "mode": stat.S_IMODE(os.stat(path).st_mode), "path": path}}, open({str(seen)!r}, "w"))
""")
    fake.chmod(0o755)
    env = {**os.environ, "BROWSER": f"{fake} %s", "COLUMNS": "200"}
    proc = subprocess.Popen([sys.executable, "-m", "ragjury.cli", "label", str(plan), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        url = None
        while url is None:
            line = proc.stderr.readline()  # type: ignore[union-attr]
            assert line, proc.stdout.read()  # type: ignore[union-attr]
            found = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=(\S+)", line)
            url = found and found.groups()
        deadline = time.monotonic() + 30
        while not seen.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        record = json.loads(seen.read_text())
        base, token = url
        assert token not in " ".join(record["argv"]) and record["mode"] == 0o600
        assert token in Path(record["path"]).read_text()
        httpx.post(f"{base}/api/quit", params={"token": token}, json={})
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and not Path(record["path"]).exists()
