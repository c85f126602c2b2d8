"""What a real terminal shows: the CLI's own output only (tests without a TTY miss TTY-only text)."""

from __future__ import annotations

import sys
from pathlib import Path



RAGJURY = Path(sys.executable).with_name("ragjury")


def test_version_is_the_installed_one() -> None:
    from importlib.metadata import version

    from typer.testing import CliRunner

    import ragjury
    from ragjury.cli import app

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"ragjury {version('ragjury')}"
    assert ragjury.__version__ == version("ragjury")
