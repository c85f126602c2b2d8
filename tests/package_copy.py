"""A copy of the installed ``ragjury`` package with files dropped in, and its CLI in a subprocess.

The extension examples of ``docs/extending.md`` (a judge, a task) promise that a new file is the
whole change: tests copy the package, drop the example files into their folders, change nothing
else, and run ``ragjury`` (or Python) against the copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_PARTS = ("__init__.py", "cli.py", "config", "rag_agent", "evals", "commands")
"""What an install of ragjury holds (not tests, bench, docs or examples)."""


def package_with(site: Path, drops: Mapping[Path, str]) -> Path:
    """``site/ragjury``: the package, plus each file of ``drops`` copied into its folder (a path
    inside the package, e.g. ``rag_agent/judges/model_free``); ``site`` goes on ``PYTHONPATH``."""
    package = site / "ragjury"
    package.mkdir(parents=True)
    for part in PACKAGE_PARTS:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, package / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, package / part)
    for example, home in drops.items():
        shutil.copy2(example, package / home / example.name)
    return site


def run_python(site: Path, code: str, *args: str, base_url: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "RAGJURY_BASE_URL": base_url}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def run_cli(site: Path, *args: str, base_url: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "RAGJURY_BASE_URL": base_url}
    return subprocess.run([sys.executable, "-m", "ragjury.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


__all__ = ["PACKAGE_PARTS", "ROOT", "package_with", "run_cli", "run_python"]
