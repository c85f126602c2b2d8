"""``report A B`` measures once: the comparison (its paired bootstrap) and each run's result are
made once per command, however many views (terminal, --json, HTML, JUnit, the gate) show them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("runs")
    paths = []
    for config in ("a", "b"):
        out = folder / f"config_{config}.jsonl"
        done = CliRunner().invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                                        str(ROOT / "examples" / "data" / f"config_{config}.jsonl"), "--out", str(out),
                                        "--no-progress", "--no-cache"])
        assert done.exit_code == 0, done.output
        paths.append(out)
    return paths


def counting(monkeypatch: pytest.MonkeyPatch, calls: Counter[str], module: object, name: str) -> None:
    original = getattr(module, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls[name] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)


@pytest.mark.parametrize("views", [[], ["--json"], ["--html", "{tmp}/r.html", "--junit", "{tmp}/j.xml"],
                                   ["--json", "--html", "{tmp}/r.html", "--fail-if-worse", "0.05"]])
def test_report_a_b_compares_once_and_makes_each_result_once(
    two_runs: list[Path], views: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragjury.evals.results import comparison, finished_run

    calls: Counter[str] = Counter()
    counting(monkeypatch, calls, comparison, "_measure")
    counting(monkeypatch, calls, finished_run, "run_result")
    args = [view.format(tmp=tmp_path) for view in views]
    done = CliRunner().invoke(app, ["report", *map(str, two_runs), *args])
    assert done.exit_code == 0, done.output
    assert calls["_measure"] == 1, calls
    assert calls["run_result"] == 2, calls  # one per run
