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
        '{"metadata": {"run_id": "a", "topic_id": "t1"}, "references": [], "responses": [{"text": "rag", "citations": []}]}\n',
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
    "judge-evaluate --answer-file": ["judge-evaluate", "q", "--answer-file", "{json}", "--judge", "heuristic"],
    "judge-evaluate --sources-file": ["judge-evaluate", "q", "--answer", "a", "--sources-file", "{jsonl}",
                                      "--judge", "heuristic"],
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
    result = runner.invoke(app, ["evaluate", "--task", "score", "--judge", "heuristic", "--data", str(data),
                                 "--no-cache", "--no-progress", "--fail-under", "pearson=0.9"])
    assert result.exit_code == 2, result.output
    assert "scores.jsonl:30" in result.output and "finite number" in result.output


@pytest.mark.parametrize("cell", ['"[""Paris"", ""Lyon"""', "\"['Paris', 'Lyon'\"", '"[""Paris"", Lyon]"'])
def test_a_broken_list_cell_is_bad_input_not_one_reference(tmp_path: Path, cell: str) -> None:
    data = tmp_path / "qa.csv"
    data.write_text(f"question,answer,references\nwhere?,Lyon,{cell}\n", encoding="utf-8")
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data),
                                 "--no-cache", "--no-progress"])
    assert result.exit_code == 2, result.output
    assert "qa.csv:2: field 'references': starts like a list" in result.output


def test_text_in_brackets_is_still_text(tmp_path: Path) -> None:
    data = tmp_path / "qa.csv"
    data.write_text('question,answer,references\nwhere?,[citation needed],[citation needed]\n', encoding="utf-8")
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data),
                                 "--no-cache", "--no-progress", "--json"])
    assert result.exit_code == 0, result.output
    assert '"mean_label": 1.0' in result.output


def test_non_llm_judge_name_cannot_write_outside_out_dir(deep_files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "a" / "b" / "out"
    out.mkdir(parents=True)
    result = runner.invoke(app, ["non-llm-judge", "--rag-topics", str(deep_files["topics"]), "--rag-responses",
                                 str(deep_files["runs"]), "--out-dir", str(out), "--name", "../../../escaped"])
    assert result.exit_code == 2, result.output
    assert "not a plain file name" in result.output
    assert not list(tmp_path.rglob("escaped*"))


FORGED = "run_a\nrun_forged AVG_GRADE all 9.99"


@pytest.mark.parametrize("where", ["run_id", "topic_id"])
def test_an_id_with_a_newline_cannot_forge_trec_lines(deep_files: dict[str, Path], tmp_path: Path, where: str) -> None:
    import json

    metadata = {"run_id": "a", "topic_id": "t1"} | {where: FORGED}
    (deep_files["runs"] / "run_a.jsonl").write_text(json.dumps(
        {"metadata": metadata, "references": [], "responses": [{"text": "rag", "citations": []}]}) + "\n")
    out = tmp_path / "out"
    result = runner.invoke(app, ["non-llm-judge", "--rag-topics", str(deep_files["topics"]), "--rag-responses",
                                 str(deep_files["runs"]), "--out-dir", str(out)])
    assert result.exit_code == 2, result.output
    assert f"field 'metadata.{where}'" in result.output and "cannot be a TREC id" in result.output
    assert not out.exists() or not any(out.iterdir())


def test_a_topic_id_with_a_newline_cannot_forge_qrels(tmp_path: Path) -> None:
    topics = tmp_path / "topics.jsonl"
    topics.write_text('{"qid": "q1\\nq1 0 FORGED_DOC 3", "query": "what"}\n', encoding="utf-8")
    result = runner.invoke(app, ["relevance", "--judge", "non-llm", "--topics", str(topics),
                                 "--passages", str(TREC / "passages.jsonl"), "--runs", str(TREC / "runs"),
                                 "--out", str(tmp_path / "o.qrels")])
    assert result.exit_code == 2, result.output
    assert "topics.jsonl:1: field 'qid'" in result.output and "cannot be a TREC id" in result.output


def test_out_refuses_a_device_or_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    targets = [fifo] + ([Path("/dev/full")] if Path("/dev/full").exists() else [])
    for target in targets:
        result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                                     "--no-cache", "--no-progress", "--out", str(target)])
        assert result.exit_code == 2, result.output
        assert "not a regular file" in result.output
        assert not target.is_file()  # still the device or the FIFO it was


def test_out_through_a_symlink_replaces_the_file_it_names_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                                 "--no-cache", "--no-progress", "--out", str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and real.read_text(encoding="utf-8").count("\n") == 40


@pytest.mark.parametrize("panel", ["panel-mean:llm,contains", "panel:llm,contains,token-overlap"])
def test_a_panel_with_a_dead_model_says_so_in_one_line(tmp_path: Path, panel: str) -> None:
    from recording_server import recording_server

    with recording_server(mode="500") as server:
        result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", panel, "--data", str(DATA),
                                     "--limit", "10", "--no-cache", "--no-progress", "--base-url", server.base_url])
    lines = [line for line in result.output.splitlines() if "panel without its model members: llm did not vote" in line]
    assert len(lines) == 1, result.output


@pytest.mark.parametrize("panel", ["panel-mean:llm,contains", "panel:llm,contains,token-overlap"])
def test_a_panel_with_a_dead_model_is_a_fallback_not_a_pass(tmp_path: Path, panel: str) -> None:
    """Every verdict was `contains` alone; the gate passed and the summary said 0 fallback."""
    import json

    from recording_server import recording_server

    with recording_server(mode="500") as server:
        result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", panel, "--data", str(DATA),
                                     "--limit", "10", "--no-cache", "--no-progress", "--json", "--base-url",
                                     server.base_url, "--fail-under", "accuracy=0.5"])
    assert result.exit_code == 1, result.output  # a fallback verdict fails the run without --max-fallback
    payload = json.loads(result.stdout)
    assert payload["scored"] == 10 and payload["fallback_used"] == 10 and payload["fallback"]["share"] == 1.0
    assert "as fallback for 100 %" in payload["verdicts_by"] and "came from the fallback" in result.output


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        ('{"id": {"x": 1}, "question": "q", "answer": "a", "references": ["r"]}', "field 'id': expected a string"),
        ('{"system": ["s"], "question": "q", "answer": "a", "references": ["r"]}', "field 'system': expected"),
        ('{"question": "q\\ud800", "answer": "a", "references": ["r"]}', "lone surrogate"),
    ],
)
def test_ids_that_are_not_names_and_text_that_is_not_text_are_bad_input(tmp_path: Path, row: str, fragment: str) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(row + "\n", encoding="utf-8")
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data),
                                 "--no-cache", "--no-progress", "--out", str(tmp_path / "p.jsonl")])
    assert result.exit_code == 2, result.output
    assert "d.jsonl:1" in result.output and fragment in result.output


def test_a_workflow_value_that_is_not_finite_is_one_line(deep_files: dict[str, Path], tmp_path: Path) -> None:
    workflow = tmp_path / "w.yml"
    workflow.write_text("judge_settings:\n  k1: .inf\n", encoding="utf-8")
    result = runner.invoke(app, ["non-llm-judge", "--workflow", str(workflow), "--rag-topics", str(deep_files["topics"]),
                                 "--rag-responses", str(deep_files["runs"]), "--out-dir", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert "w.yml:2: field 'judge_settings.k1'" in result.output and len(result.output.strip().splitlines()) == 1


def test_a_full_disk_under_out_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    def full(_descriptor: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    out = tmp_path / "preds.jsonl"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                                 "--no-cache", "--no-progress", "--out", str(out)])
    assert result.exit_code != 0
    assert "No space left on device" in result.output and str(out) in result.output, result.output
    assert not out.exists() and not list(tmp_path.glob(".*.tmp"))


def test_verdict_samples_must_be_odd_for_a_majority() -> None:
    result = runner.invoke(app, ["verdict", "correctness", "-q", "q", "-a", "a", "-r", "a", "-s", "2",
                                 "--judge", "contains"])
    assert result.exit_code == 2 and "--samples must be odd" in result.output


def test_the_cache_cannot_be_an_output(tmp_path: Path) -> None:
    same = tmp_path / "same.file"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                                 "--cache", str(same), "--out", str(same), "--no-progress"])
    assert result.exit_code == 2 and "is the input --cache" in result.output, result.output
    result = runner.invoke(app, ["relevance", "--judge", "non-llm", "--topics", str(TREC / "topics.jsonl"),
                                 "--passages", str(TREC / "passages.jsonl"), "--runs", str(TREC / "runs"),
                                 "--cache", str(same), "--out", str(same)])
    assert result.exit_code == 2 and "is the input --cache" in result.output, result.output
    assert not same.exists()


def test_ctrl_c_with_json_says_interrupted_on_stdout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from ragjury.commands import evaluate as evaluate_command

    def stopped(coroutine):  # type: ignore[no-untyped-def]
        coroutine.close()
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluate_command, "run_sync", stopped)
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA),
                                 "--cache", str(tmp_path / "c.sqlite"), "--no-progress", "--json"])
    assert result.exit_code == 130
    payload = json.loads(result.stdout)
    assert payload["interrupted"] is True and payload["command"] == "evaluate"


def test_agreement_cuts_a_binary_judges_qrels_at_one_and_says_so(tmp_path: Path) -> None:
    """0/1 judged qrels cut at the default --rel 2 read as all non-relevant: kappa 0 for any judge."""
    import json

    gold = tmp_path / "gold.qrels"
    judged = tmp_path / "judged.qrels"
    pairs = [("q1", f"d{i}", 3 if i < 5 else 0) for i in range(10)] + [("q2", f"e{i}", 2 if i < 4 else 1) for i in range(10)]
    gold.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in pairs), encoding="utf-8")
    judged.write_text("".join(f"{q} 0 {d} {int(g >= 2)}\n" for q, d, g in pairs), encoding="utf-8")  # a perfect binary judge
    result = runner.invoke(app, ["agreement", "--gold", str(gold), "--judged", str(judged), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["judged_rel"] == 1 and payload["figures"]["cohen_kappa"] == pytest.approx(1.0)
    human = runner.invoke(app, ["agreement", "--gold", str(gold), "--judged", str(judged)])
    assert "only grades 0 and 1" in human.output
    forced = json.loads(runner.invoke(app, ["agreement", "--gold", str(gold), "--judged", str(judged), "--json",
                                            "--judged-rel", "2"]).stdout)
    assert forced["judged_rel"] == 2 and forced["figures"]["cohen_kappa"] == pytest.approx(0.0)


def test_round_four_inputs_are_one_line_naming_the_file(tmp_path: Path) -> None:
    """A 5,000-digit id, a base URL whose IPv4 address has a leading zero, a rubric that is not UTF-8
    and a head file nested too deeply: each was a traceback (or a message naming no file)."""
    big = tmp_path / "big.jsonl"
    big.write_text('{"id": ' + "9" * 5000 + ', "question": "q", "answer": "a", "references": ["a"]}\n')
    rubric = tmp_path / "latin1.yaml"
    rubric.write_bytes('name: caf\xe9\ncriterion: "Is it good?"\n'.encode("latin-1"))
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    faithful = ROOT / "examples" / "rubrics" / "data" / "cites-source.jsonl"
    cases = [
        (["--data", str(big), "--judge", "contains"], f"{big}:1: malformed JSON: a number of 5,000 digits"),
        (["--data", str(DATA), "--judge", "llm", "--base-url", "http://127.0.0.01:9/v1"],
         "'127.0.0.01' is not an IPv4 address"),
        (["--data", str(DATA), "--judge", f"fitted:{deep}"], f"{deep}: not a ragjury head file (JSON nested too deeply)"),
    ]
    for args, message in cases:
        result = runner.invoke(app, ["evaluate", "--task", "correctness", *args, "--no-progress"])
        assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output, result.output
    result = runner.invoke(app, ["evaluate", "--task", "faithfulness", "--judge", f"rubric:{rubric}", "--data",
                                 str(faithful), "--no-progress"])
    assert result.exit_code == 2 and f"{rubric}: not UTF-8 text (byte 0xe9" in result.output, result.output


def test_a_json_file_holding_rows_under_a_key_says_what_is_expected(tmp_path: Path) -> None:
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text('{"data": [{"id": "1", "question": "q", "answer": "a", "references": ["a"]}]}')
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(wrapped),
                                 "--no-progress"])
    assert result.exit_code == 2 and "expected JSONL rows" in result.output and "'data'" in result.output
