"""``evaluate_dataset`` from Python as a notebook user meets it: a sync door that works inside a
running event loop, ``limit=``, a short repr, ``to_pandas()``, figures with their intervals, and
``DatasetFiles`` from the top-level namespace."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

import ragjury
from ragjury import ContainsJudge, DatasetFiles, evaluate_dataset_sync

DATA = Path(__file__).resolve().parents[4] / "examples" / "data" / "correctness.jsonl"


def run(limit: int | None = None) -> ragjury.DatasetEvaluation:
    return evaluate_dataset_sync("correctness", DATA, ContainsJudge(), limit=limit, progress=False)


def test_the_sync_door_works_inside_a_running_event_loop() -> None:
    async def notebook_cell() -> ragjury.DatasetEvaluation:
        return evaluate_dataset_sync("correctness", DATA, ContainsJudge(), limit=5, progress=False)

    result = asyncio.run(notebook_cell())  # a loop is running, as in Jupyter
    assert len(result.predictions) == 5 and result.stats.total == 5


def test_limit_keeps_the_first_rows() -> None:
    every = run()
    first = run(limit=3)
    assert [p.id for p in first.predictions] == [p.id for p in every.predictions[:3]]
    with pytest.raises(ValueError, match="limit"):
        run(limit=0)


def test_the_repr_is_a_few_lines_with_the_headline_figures() -> None:
    result = run()
    text = repr(result)
    assert len(text.splitlines()) <= 6 and len(text) < 600, text
    assert "correctness" in text and "contains" in text and "40 scored" in text
    low, high = result.intervals["cohen_kappa"].as_list()
    assert f"kappa {result.agreement.cohen_kappa:.3f} [{low:.3f}, {high:.3f}]" in text


def test_figures_carry_their_bootstrap_intervals() -> None:
    result = run()
    kappa = result.agreement.cohen_kappa
    interval = result.intervals["cohen_kappa"]
    assert interval is not None and interval.low <= kappa <= interval.high and interval.low < interval.high
    assert set(result.intervals) >= {"accuracy", "cohen_kappa"}


def test_to_pandas_has_one_row_per_prediction() -> None:
    pandas = pytest.importorskip("pandas")
    frame = run(limit=4).to_pandas()
    assert isinstance(frame, pandas.DataFrame) and len(frame) == 4
    assert {"id", "label", "gold", "judge", "unscored", "question", "answer", "references"} <= set(frame.columns)


def test_to_pandas_without_pandas_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    result = run(limit=2)
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install pandas"):
        result.to_pandas()


def test_dataset_files_writes_the_report_from_the_top_level_namespace(tmp_path: Path) -> None:
    result = run(limit=5)
    result.write(DatasetFiles(DATA, predictions=tmp_path / "p.jsonl", html=tmp_path / "r.html"))
    assert (tmp_path / "r.html").exists() and len((tmp_path / "p.jsonl").read_text().splitlines()) == 5
