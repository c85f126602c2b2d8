"""One finished run, one JSON shape (issue #46): every key of ``evaluate --json`` is in
``report --json`` of the predictions file that run wrote, with the same value, except the keys
only a live run can have (named below with the reason). Both are ``FinishedRun.as_dict``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "examples" / "data"

LIVE_ONLY: dict[str, str] = {
    # the document around the run, not the run
    "schema_version": "both documents have it, at their top, not in a run",
    "command": "evaluate vs report: which command wrote the document",
    "mode": "evaluate's shape (dataset / agent / criteria); report has one shape",
    "inputs": "the files each command read: the data vs the predictions file",
    "outputs": "the files each command wrote",
    "input_mapping": "how evaluate read --data's columns; report reads its own predictions rows",
    "gate_failures": "evaluate's gates; report has its own gate (--fail-if-worse)",
    # the run statistics (RunStats): the optional block only a run just judged has
    "not_judged": "run statistics: items an interrupted run never reached",
    "cached": "run statistics: judgments this run took from the cache",
    "judged": "run statistics: judgments this run made",
    "duplicates": "run statistics: items sharing an identical item's judgment in this run",
    "not_attempted": "run statistics: items never sent (server unreachable)",
    "input_tokens": "run statistics: tokens this run sent",
    "output_tokens": "run statistics: tokens this run got back",
    "wall_s": "run statistics: seconds this run took",
    "judgments_per_s": "run statistics: judged / wall_s",
    "interrupted": "run statistics: Ctrl-C stopped this run",
    "executor": "run statistics: where this run judged (process or ray)",
    "endpoints": "run statistics: what each --base-url server did",
    "cache_unreadable": "run statistics: cache entries this run could not read back",
}
"""Top-level keys of ``evaluate --json`` that ``report --json`` of its file does not repeat, and why."""


@pytest.fixture(autouse=True)
def isolated(offline_cli: Path) -> None:
    """No model server, no .env, and a cache inside the test's folder."""


def invoke(*args: str | Path) -> dict[str, Any]:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert isinstance(payload, dict)
    return payload


def leaves(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every key path of a JSON value and the value at its end (lists of dicts by index)."""
    if isinstance(value, dict):
        if not value:
            yield path, {}
        for key, inner in value.items():
            yield from leaves(inner, (*path, str(key)))
    elif isinstance(value, list) and any(isinstance(inner, dict | list) for inner in value):
        for index, inner in enumerate(value):
            yield from leaves(inner, (*path, f"[{index}]"))
    else:
        yield path, value


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and abs(a - b) <= 1e-9
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@pytest.mark.parametrize(
    ("data", "expect"),
    [
        ("systems.jsonl", {"agreement", "judge_card", "system_estimates", "ranking", "intervals"}),  # some labelled
        ("correctness.jsonl", {"agreement", "judge_card", "intervals"}),  # every item labelled
        ("config_a.jsonl", {"result", "figures", "trust"}),  # no labels
    ],
)
def test_report_of_a_runs_file_gives_every_figure_evaluate_gave(tmp_path: Path, data: str, expect: set[str]) -> None:
    out = tmp_path / "preds.jsonl"
    live = invoke("evaluate", "--task", "correctness", "--judge", "contains", "--data", DATA / data,
                  "--out", out, "--no-progress", "--json")
    assert expect <= set(live)
    document = invoke("report", out, "--json")
    assert len(document["runs"]) == 1
    read = document["runs"][0]
    assert read["name"] == "preds"  # the run's file, beside the figures

    live_paths = dict(leaves({key: value for key, value in live.items() if key not in LIVE_ONLY}))
    read_paths = dict(leaves(read))
    missing = sorted("/".join(path) for path in live_paths if path not in read_paths)
    assert missing == [], f"report --json lacks {missing}"
    differ = {"/".join(path): (value, read_paths[path]) for path, value in live_paths.items()
              if not same(value, read_paths[path])}
    assert differ == {}, differ
    assert set(LIVE_ONLY) & set(read) == set()  # the run statistics: only a live run has them


def test_live_only_keys_are_the_run_statistics_and_the_document() -> None:
    """Every run statistic ``RunStats.as_dict`` gives is either named live-only above or is a count
    a run read back has from its records (``FinishedRun.counts``): nothing slips in unexplained."""
    from ragjury.evals.runs.runner import RunStats

    stats = RunStats(total=1)
    stats.endpoints = [{"url": "u"}]
    stats.cache_unreadable = 1
    counts = {"n", "scored", "unscored", "fallback_used", "tokens", "requests"}
    assert set(stats.as_dict()) - counts <= set(LIVE_ONLY)
