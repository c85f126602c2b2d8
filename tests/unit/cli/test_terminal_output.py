"""What a real terminal shows: the CLI's own output only (tests without a TTY miss TTY-only text)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from recording_server import recording_server

RAGJURY = Path(sys.executable).with_name("ragjury")


@pytest.mark.skipif(shutil.which("script") is None, reason="needs util-linux 'script' for a pseudo-terminal")
def test_doctor_in_a_terminal_prints_no_banner_of_a_library() -> None:
    content = ('{"relevance": 1, "completeness": 1, "accuracy": 1, "source_attribution": 1, "coherence": 1, '
               '"confidence": 1, "reasoning": "ok"}')
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_AI_NO_BANNER"} | {"TERM": "xterm", "COLUMNS": "80"}
    with recording_server(content=content) as server:
        shown = subprocess.run(["script", "-qc", f"{RAGJURY} doctor --base-url {server.base_url}", "/dev/null"],
                               capture_output=True, text=True, env=env, timeout=120)
    assert "server reachable" in shown.stdout, shown.stdout
    assert "observability" not in shown.stdout and "Logfire" not in shown.stdout, shown.stdout


def test_version_is_the_installed_one() -> None:
    from importlib.metadata import version

    from typer.testing import CliRunner

    import ragjury
    from ragjury.cli import app

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"ragjury {version('ragjury')}"
    assert ragjury.__version__ == version("ragjury")
