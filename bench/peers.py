"""The peers the truthfulness bench compares with, installed from PyPI into a cache outside the clone.

- UMBRELA (``umbrela==0.0.7``): its prompt file and parser are plain Python with no import-time
  dependencies, but its declared dependencies (pyserini, faiss) do not install here, so the package
  goes into a ``--target`` folder with ``--no-deps`` and is imported from there.
- Ragas (``ragas==0.4.3`` with ``langchain-community<0.4``, which it needs to import): it needs
  ``openai<3`` (through instructor) while ragjury needs ``openai>=3.26``, so it gets a virtual
  environment of its own and runs as a worker process (``bench/ragas_worker.py``).

Both are provisioned on first use (``python bench/peers.py`` does it ahead of time) under
``$RAGJURY_BENCH_CACHE`` or ``~/.cache/ragjury-bench``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

UMBRELA = "umbrela==0.0.7"
RAGAS = ("ragas==0.4.3", "langchain-community<0.4")


def cache_root() -> Path:
    configured = os.environ.get("RAGJURY_BENCH_CACHE")
    return (Path(configured) if configured else Path.home() / ".cache" / "ragjury-bench").expanduser()


def ensure_umbrela() -> Path:
    """The folder to put on ``sys.path`` for ``import umbrela``."""
    target = cache_root() / "umbrela-0.0.7"
    if not (target / "umbrela" / "prompts" / "qrel_fewshot_bing.txt").is_file():
        staging = target.with_name(target.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(staging), UMBRELA],
                       check=True)
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    return target


def ensure_ragas_python() -> Path:
    """The Python of Ragas' own virtual environment."""
    venv = cache_root() / "ragas-0.4.3"
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import ragas.metrics.collections, httpx, openai"]
    if python.exists() and subprocess.run(probe, capture_output=True, check=False).returncode == 0:
        return python
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *RAGAS], check=True)
    return python


if __name__ == "__main__":
    print("umbrela:", ensure_umbrela())
    print("ragas python:", ensure_ragas_python())
