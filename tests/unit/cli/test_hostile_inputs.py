"""Inputs a hostile or unlucky user brings: each ends in one line naming the file, never a traceback."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "examples" / "data" / "correctness.jsonl"
runner = CliRunner()


def evaluate(cache: Path):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                               "--cache", str(cache), "--no-progress", "--json"])


@pytest.fixture(scope="module")
def filled_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cache") / "cache.sqlite"
    result = evaluate(path)
    assert result.exit_code == 0, result.output
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return path


@pytest.mark.parametrize("offset", [0, 100, 4096, 8242, -100])
def test_a_damaged_cache_is_one_line_or_judged_again(filled_cache: Path, tmp_path: Path, offset: int) -> None:
    damaged = tmp_path / "damaged.sqlite"
    shutil.copy(filled_cache, damaged)
    size = damaged.stat().st_size
    with damaged.open("r+b") as handle:
        handle.seek(offset if offset >= 0 else size + offset)
        handle.write(bytes(range(7, 71)))  # 64 bytes that are not SQLite's
    result = evaluate(damaged)
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code in (0, 2), result.output
    if result.exit_code == 2:
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert any(str(damaged) in line and "--cache" in line for line in lines), result.output
    else:  # the damage hit a row: that row is judged again, the run completes
        assert '"n": 40' in result.output and '"scored": 40' in result.output


def test_a_cache_on_a_full_disk_is_one_line(tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    cache = tmp_path / "full.sqlite"
    os.symlink("/dev/full", cache)
    result = evaluate(cache)
    assert result.exit_code == 2, result.output
    assert "judgment cache cannot be used" in result.output and "Traceback" not in result.output


DEEP = "[" * 5000 + "]" * 5000


@pytest.fixture
def deep_files(tmp_path: Path) -> dict[str, Path]:
    files = {
        "jsonl": tmp_path / "deep.jsonl",
        "json": tmp_path / "deep.json",
        "calibration": tmp_path / "deep.cal.json",
        "yaml": tmp_path / "deep.yml",
        "topics": tmp_path / "topics.jsonl",
        "runs": tmp_path / "runs",
    }
    files["jsonl"].write_text('{"question": ' + DEEP + "}\n", encoding="utf-8")
    files["json"].write_text('{"answer": ' + DEEP + "}", encoding="utf-8")
    files["calibration"].write_text('{"schema": ' + DEEP + "}", encoding="utf-8")
    files["yaml"].write_text("k1: " + DEEP + "\n", encoding="utf-8")
    files["topics"].write_text('{"request_id": "t1", "title": "what is rag"}\n', encoding="utf-8")
    files["runs"].mkdir()
    (files["runs"] / "run_a.jsonl").write_text(
        '{"metadata": {"run_id": "a", "topic_id": "t1"}, "references": [], "answer": [{"text": "rag", "citations": []}]}\n',
        encoding="utf-8")
    return files


TREC = ROOT / "examples" / "data" / "trec"
DEEP_DOORS = {
    "evaluate --data": ["evaluate", "--task", "correctness", "--judge", "contains", "--data", "{jsonl}", "--no-cache"],
    "relevance --passages": ["relevance", "--judge", "non-llm", "--topics", str(TREC / "topics.jsonl"),
                             "--passages", "{jsonl}", "--runs", str(TREC / "runs"), "--out", "{tmp}/o.qrels"],
    "--calibration": ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                      "--calibration", "{calibration}", "--no-cache"],
    "report": ["report", "{jsonl}"],
    "judge-evaluate --answer-file": ["judge-evaluate", "q", "--answer-file", "{json}", "--judge", "deterministic"],
    "judge-evaluate --sources-file": ["judge-evaluate", "q", "--answer", "a", "--sources-file", "{jsonl}",
                                      "--judge", "deterministic"],
    "non-llm-judge --rag-responses": ["non-llm-judge", "--rag-topics", "{topics}", "--rag-responses", "{jsonl}",
                                      "--out-dir", "{tmp}/out"],
    "non-llm-judge --rag-topics": ["non-llm-judge", "--rag-topics", "{jsonl}", "--rag-responses", "{runs}",
                                   "--out-dir", "{tmp}/out"],
    "non-llm-judge --workflow": ["non-llm-judge", "--workflow", "{yaml}", "--rag-topics", "{topics}",
                                 "--rag-responses", "{runs}", "--out-dir", "{tmp}/out"],
}


@pytest.mark.parametrize("door", sorted(DEEP_DOORS))
def test_json_nested_too_deeply_is_one_line_in_every_reader(
    door: str, deep_files: dict[str, Path], tmp_path: Path
) -> None:
    names = {key: str(path) for key, path in deep_files.items()} | {"tmp": str(tmp_path)}
    args = [arg.format(**names) for arg in DEEP_DOORS[door]]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "nested too deeply" in result.output and "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("gold", ["NaN", "Infinity", "-Infinity", '"nan"', '"inf"'])
def test_a_gold_score_that_is_not_a_number_is_bad_input(tmp_path: Path, gold: str) -> None:
    """One NaN gold score made pearson 1.0 and passed a --fail-under gate."""
    data = tmp_path / "scores.jsonl"
    rows = [f'{{"question": "q{i}", "answer": "a{i}", "gold_score": {i / 30}}}' for i in range(29)]
    rows.append(f'{{"question": "q29", "answer": "a29", "gold_score": {gold}}}')
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["evaluate", "--task", "score", "--judge", "deterministic", "--data", str(data),
                                 "--no-cache", "--no-progress", "--fail-under", "pearson=0.9"])
    assert result.exit_code == 2, result.output
    assert "scores.jsonl:30" in result.output and "finite number" in result.output
