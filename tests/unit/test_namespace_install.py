"""A regular install exposes ``ragjury`` and nothing generic, and works beside a user's own
``config.py``, ``evals.py`` and ``cli.py``.

Why: the repository keeps the product brief's folders (``rag_agent/``, ``config/``, ``evals/``,
``cli.py``); installed as such they would sit at the top of site-packages, and in any project with
its own ``config.py`` ``from rag_agent import JudgeLLM`` failed with "'config' is not a package".
This test builds the wheel the way pip does for a user (not the editable install the test suite
runs on), installs it into an empty folder and imports it from a folder that holds the user's
modules of the same names.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy: setuptools builds in the source folder, and a build/ left in the clone
    # would both dirty it and carry stale modules into later wheels.
    source = tmp_path_factory.mktemp("source") / "ragjury"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", ".ragjury", ".pytest_cache"))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (built,) = out.glob("ragjury-*.whl")
    return built


def test_the_wheel_holds_one_top_level_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"ragjury"}
    for module in ("ragjury/__init__.py", "ragjury/cli.py", "ragjury/config/settings.py",
                   "ragjury/evals/runs/runner.py", "ragjury/evals/report/static/item_table.js",
                   "ragjury/rag_agent/judges/llm/multi_dimension.py", "ragjury/rag_agent/py.typed"):
        assert module in names
    assert not any(name.startswith("ragjury/tests/") or name.startswith("ragjury/bench/") for name in names)
    entry_points = next(name for name in names if name.endswith("entry_points.txt"))
    assert "ragjury = ragjury.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_installed_ragjury_imports_beside_the_users_config_evals_and_cli(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    project = tmp_path / "project"
    project.mkdir()
    (project / "config.py").write_text("OWNER = 'the user'\n")
    (project / "evals.py").write_text("OWNER = 'the user'\n")
    (project / "cli.py").write_text("OWNER = 'the user'\n")
    script = (
        "import config, evals, cli\n"
        "import ragjury\n"
        "from ragjury import ContainsJudge, CorrectnessItem, FaithfulnessJudge, JudgeLLM, build_judge\n"
        "from ragjury.cli import app\n"
        "assert ragjury.__file__.startswith(SITE), ragjury.__file__\n"
        "assert (config.OWNER, evals.OWNER, cli.OWNER) == ('the user',) * 3\n"
        "item = CorrectnessItem(question='Who?', answer='Ada Lovelace.', references=['Lovelace'])\n"
        "print(ContainsJudge().judge(item), sorted(m for m in __import__('sys').modules if m.split('.')[0] == 'rag_agent'))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site), "SITE": str(site)}
    ran = subprocess.run([sys.executable, "-c", f"import os; SITE = os.environ['SITE']\n{script}"],
                         cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout.strip() == "True []"
    helped = subprocess.run([sys.executable, "-m", "ragjury.cli", "--help"], cwd=project, env=env,
                            capture_output=True, text=True, timeout=120)
    assert helped.returncode == 0 and "evaluate" in helped.stdout, helped.stderr[-2000:]


def test_public_names_resolve_and_import_ragjury_stays_light() -> None:
    import ragjury

    for name in ragjury.__all__:
        assert getattr(ragjury, name) is not None, name
    fresh = subprocess.run(
        [sys.executable, "-c", "import sys, ragjury; print('pydantic_ai' in sys.modules, 'openai' in sys.modules)"],
        capture_output=True, text=True, timeout=120,
    )
    assert fresh.stdout.strip() == "False False", fresh.stdout + fresh.stderr
