"""Drop-in judge files that are broken fail clearly, one line naming the file, and the rest of the
catalogue keeps working (issue 35 item 14): a second judge named ``contains``, a judge file that
imports a module that is not installed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from package_copy import package_with, run_cli  # noqa: E402

DATA = Path(__file__).resolve().parents[4] / "examples" / "data" / "correctness.jsonl"

SECOND_CONTAINS = '''"""A second judge named contains."""
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge


@judge_entry("correctness", "contains", "a copy")
class Copy(ContainsJudge):
    pass
'''

MISSING_IMPORT = '''"""A judge whose module needs a package that is not installed."""
import not_installed_anywhere_xyz
from ragjury.rag_agent.core.judge_entry import judge_entry


@judge_entry("correctness", "needs-missing", "needs a missing package")
class Needs:
    pass
'''


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("drops")
    (folder / "zz_second_contains.py").write_text(SECOND_CONTAINS)
    (folder / "zz_needs_missing.py").write_text(MISSING_IMPORT)
    drops = {folder / name: "rag_agent/judges/model_free" for name in ("zz_second_contains.py", "zz_needs_missing.py")}
    return package_with(tmp_path_factory.mktemp("site"), drops)


def test_a_second_judge_of_the_same_name_is_one_line_and_the_rest_works(site: Path, tmp_path: Path) -> None:
    listed = run_cli(site, "judges", base_url="http://127.0.0.1:9/v1", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "zz_second_contains.py: judge 'contains' of task correctness is already declared" in listed.stderr
    assert "Traceback" not in listed.stderr
    judged = run_cli(site, "evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                     "--no-progress", "--no-cache", "--json", base_url="http://127.0.0.1:9/v1", cwd=tmp_path)
    assert judged.returncode == 0, judged.stderr


def test_a_judge_file_with_a_missing_import_is_one_line_exit_2(site: Path, tmp_path: Path) -> None:
    judged = run_cli(site, "evaluate", "--task", "correctness", "--judge", "needs-missing", "--data", str(DATA),
                     "--no-progress", "--no-cache", base_url="http://127.0.0.1:9/v1", cwd=tmp_path)
    assert judged.returncode == 2
    assert "zz_needs_missing.py: judge 'needs-missing' of task correctness cannot be loaded" in judged.stderr
    assert "Traceback" not in judged.stderr


BROKEN_TASKS = {
    "zz_syntax_task.py": 'from ragjury.rag_agent.core.task_entry import task_entry\n\n@task_entry("broken"\nclass X:\n',
    "zz_nonliteral_task.py": ('from pydantic import BaseModel\nfrom ragjury.rag_agent.core.task_entry import task_entry\n'
                              'NAME = "dyn"\n\n@task_entry(NAME)\nclass Dyn(BaseModel):\n    answer: str\n'),
}
JUDGE_OF_NO_TASK = '''"""A judge of a task nobody declares."""
from ragjury.rag_agent.core.judge_entry import judge_entry


@judge_entry("nosuchtask", "orphan", "judges a task that does not exist")
class Orphan:
    pass
'''


def test_broken_task_files_and_a_judge_of_no_task_are_one_line_each(tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("tasks")
    drops = {}
    for name, text in BROKEN_TASKS.items():
        (folder / name).write_text(text)
        drops[folder / name] = "rag_agent/tasks"
    (folder / "zz_orphan_judge.py").write_text(JUDGE_OF_NO_TASK)
    drops[folder / "zz_orphan_judge.py"] = "rag_agent/judges/model_free"
    site = package_with(tmp_path_factory.mktemp("site"), drops)
    cwd = tmp_path_factory.mktemp("cwd")
    listed = run_cli(site, "judges", base_url="http://127.0.0.1:9/v1", cwd=cwd)
    assert listed.returncode == 0, listed.stderr
    assert "zz_syntax_task.py:" in listed.stderr and "not Python" in listed.stderr
    assert "zz_nonliteral_task.py: a @task_entry whose name is not a literal string" in listed.stderr
    assert "judge 'orphan' declares task 'nosuchtask'" in listed.stderr
    assert "Traceback" not in listed.stderr and "orphan" not in listed.stdout
    judged = run_cli(site, "evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                     "--no-progress", "--no-cache", "--json", base_url="http://127.0.0.1:9/v1", cwd=cwd)
    assert judged.returncode == 0, judged.stderr
