"""``--judge cross-encoder:DIR`` in every door: evaluate, estimate, relevance, verdict, a panel,
calibrate (and --calibration), ``ragjury judges``, the Python API; a folder whose files do not
load is exit 2 and one line naming the file. The model is a tiny BERT built once per session
(``tiny_cross_encoder_folder``, tests/conftest.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnxruntime")

from ragjury.cli import app  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "data"
DATA = EXAMPLES / "correctness.jsonl"
TREC = EXAMPLES / "trec"
runner = CliRunner()
QUIET = ["--no-progress", "--no-cache"]

pytestmark = pytest.mark.usefixtures("offline_cli")  # nothing may call a model server


def test_evaluate_then_estimate_with_a_cross_encoder(tiny_cross_encoder_folder: Path, tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", f"cross-encoder:{tiny_cross_encoder_folder}",
                                 "--data", str(DATA), "--out", str(preds), "--json", *QUIET])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["scored"] == 40 and payload["unscored"] == 0
    rows = [json.loads(line) for line in preds.read_text().splitlines()]
    probabilities = {row["value"]["probability"] for row in rows}
    assert len(probabilities) > 10 and all(0 < p < 1 for p in probabilities)
    estimate = runner.invoke(app, ["estimate", str(preds), "--json"])
    assert estimate.exit_code == 0, estimate.output
    assert json.loads(estimate.stdout)["n_labels"] == 40


def test_relevance_verdict_and_a_panel(tiny_cross_encoder_folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "judged.qrels"
    result = runner.invoke(app, ["relevance", "--judge", f"cross-encoder:{tiny_cross_encoder_folder}", "--topics", str(TREC / "topics.jsonl"),
                                 "--passages", str(TREC / "passages.jsonl"), "--pairs", str(TREC / "qrels.txt"),
                                 "--out", str(out), *QUIET])
    assert result.exit_code == 0, result.output
    assert len(out.read_text().splitlines()) == len((TREC / "qrels.txt").read_text().splitlines())
    verdict = runner.invoke(app, ["verdict", "relevance", "-q", "boiling point of water", "-p", "water boils at 100 c",
                                  "--judge", f"cross-encoder:{tiny_cross_encoder_folder}"])
    assert verdict.exit_code == 0, verdict.output
    assert "relevance: " in verdict.stdout and "(P = 0." in verdict.stdout and "no model call" in verdict.stdout
    panel = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", f"panel-mean:cross-encoder:{tiny_cross_encoder_folder},contains",
                                "--data", str(DATA), "--json", *QUIET])
    assert panel.exit_code == 0, panel.output
    assert json.loads(panel.stdout)["scored"] == 40


def test_calibrate_then_apply_the_calibration(tiny_cross_encoder_folder: Path, tmp_path: Path) -> None:
    calibration = tmp_path / "calibration.json"
    result = runner.invoke(app, ["calibrate", "--task", "correctness", "--judge", f"cross-encoder:{tiny_cross_encoder_folder}",
                                 "--data", str(DATA), "--out", str(calibration), "--json", *QUIET])
    assert result.exit_code == 0, result.output
    fitted = json.loads(calibration.read_text())
    assert fitted["judge"] == f"cross-encoder:{tiny_cross_encoder_folder}" and 0.0 <= fitted["threshold"] <= 1.0
    applied = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", f"cross-encoder:{tiny_cross_encoder_folder}",
                                  "--calibration", str(calibration), "--data", str(DATA), "--json", *QUIET])
    assert applied.exit_code == 0, applied.output
    assert "warning" not in applied.output  # no model name to differ from the server's


def test_the_listing_names_it() -> None:
    result = runner.invoke(app, ["judges"], env={"COLUMNS": "80"})
    assert result.exit_code == 0 and "cross-encoder:DIR" in result.stdout


def test_the_python_api(tiny_cross_encoder_folder: Path) -> None:
    import ragjury

    judge = ragjury.build_judge("correctness", f"cross-encoder:{tiny_cross_encoder_folder}")
    run = ragjury.evaluate_dataset_sync("correctness", str(DATA), judge, progress=False)
    assert run.stats.scored == 40


def _broken(source: Path, tmp_path: Path, name: str) -> tuple[Path, str]:
    """A copy of the model with one thing wrong, and the file the error must name."""
    folder = tmp_path / name
    if name == "missing":
        return folder, str(folder)
    if name == "empty":
        folder.mkdir()
        return folder, str(folder / "config.json")
    shutil.copytree(source, folder)
    if name == "garbled-config":
        (folder / "config.json").write_text('{"id2label": {"0": "no", ')
        return folder, str(folder / "config.json")
    if name == "bad-tokenizer":
        (folder / "tokenizer.json").write_text('{"version": "1.0", "model": 7}')
        return folder, str(folder / "tokenizer.json")
    if name == "bad-onnx":
        (folder / "model.onnx").write_bytes(b"\x08\x07not a graph")
        return folder, str(folder / "model.onnx")
    if name == "other-task":
        (folder / "ragjury.json").write_text(json.dumps({"task": "relevance"}))
        return folder, str(folder / "ragjury.json")
    if name == "no-yes-label":
        config = json.loads((folder / "config.json").read_text())
        config["id2label"] = {"0": "bad", "1": "good"}
        config["label2id"] = {"bad": 0, "good": 1}
        (folder / "config.json").write_text(json.dumps(config))
        return folder, str(folder / "config.json")
    raise AssertionError(name)


@pytest.mark.parametrize("name", ["missing", "empty", "garbled-config", "bad-tokenizer", "bad-onnx", "other-task",
                                  "no-yes-label"])
def test_a_folder_that_does_not_load_is_one_line_naming_the_file(tiny_cross_encoder_folder: Path, tmp_path: Path, name: str) -> None:
    folder, named = _broken(tiny_cross_encoder_folder, tmp_path, name)
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", f"cross-encoder:{folder}",
                                 "--data", str(DATA), *QUIET])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {named}"), result.output
    assert "Traceback" not in result.output
