"""An int8 copy of a cross-encoder is judged with only where its folder says so, and says so.

Why: int8 weights are faster on CPU but move P(yes) a little (docs/benchmarks.md), so ragjury must
never pick them on its own: a float32 folder with an int8 file beside it keeps its scores and its
cache; the copy ``cross_encoder_int8`` writes carries ``"weights": "int8"`` in ``ragjury.json``, and
its identity (run header, cache key) and description name the int8 weights. The model is the
session's tiny BERT (``tiny_cross_encoder_folder``, tests/conftest.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
pytest.importorskip("torch")
pytest.importorskip("transformers")

from ragjury.cli import app  # noqa: E402
from ragjury.rag_agent.core.items import CorrectnessItem  # noqa: E402
from ragjury.rag_agent.judges.model_free import cross_encoder  # noqa: E402
from ragjury.rag_agent.judges.model_free.cross_encoder import CrossEncoderError, CrossEncoderJudge  # noqa: E402
from ragjury.rag_agent.judges.model_free.cross_encoder_int8 import INT8_FILE, main, make_int8  # noqa: E402

DATA = Path(__file__).resolve().parents[5] / "examples" / "data" / "correctness.jsonl"
ITEMS = [CorrectnessItem(question=f"question {i}: who wrote it?" + " and more" * (i % 5), answer=f"answer {i}" * (1 + i % 3),
                         references=[f"reference {i}"]) for i in range(23)]


@pytest.fixture(scope="module")
def int8_folder(tiny_cross_encoder_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_int8(tiny_cross_encoder_folder, tmp_path_factory.mktemp("int8") / "model-int8")


def test_the_copy_says_int8_and_is_judged_with_its_int8_file(int8_folder: Path, tiny_cross_encoder_folder: Path) -> None:
    assert json.loads((int8_folder / "ragjury.json").read_text())["weights"] == "int8"
    assert (int8_folder / INT8_FILE).is_file() and not (int8_folder / "model.onnx").exists()
    judge = CrossEncoderJudge(int8_folder, task="correctness")
    assert judge.model.spec.int8 and judge.model.spec.weights.name == INT8_FILE
    assert "int8" in judge.model.description and "int8" in judge.identity.params
    assert judge.identity.prompt_version.endswith(":int8") and judge.identity.model is None
    plain = CrossEncoderJudge(tiny_cross_encoder_folder, task="correctness")
    assert judge.identity.key() != plain.identity.key()
    pairs = [cross_encoder.pair_texts("correctness", item) for item in ITEMS]
    one = np.array([judge.model.probabilities([pair], 1)[0] for pair in pairs])
    assert np.max(np.abs(judge.model.probabilities(pairs, 8) - one)) < 1e-5  # batched int8 = one-at-a-time int8


def test_an_int8_file_beside_model_onnx_is_not_read_unless_asked(tiny_cross_encoder_folder: Path, int8_folder: Path,
                                                                 tmp_path: Path) -> None:
    folder = tmp_path / "both"
    shutil.copytree(tiny_cross_encoder_folder, folder)
    before = CrossEncoderJudge(folder, task="correctness")
    shutil.copyfile(int8_folder / INT8_FILE, folder / "model_quantized.onnx")
    after = CrossEncoderJudge(folder, task="correctness")
    assert not after.model.spec.int8 and after.model.spec.weights.name == "model.onnx"
    assert after.identity == before.identity and "int8 weights" not in after.model.description
    (folder / "ragjury.json").write_text(json.dumps({"weights": "int8"}))
    asked = CrossEncoderJudge(folder, task="correctness")
    assert asked.model.spec.int8 and asked.model.spec.weights.name == "model_quantized.onnx"


def test_folders_that_cannot_give_int8_say_so_in_one_line(tiny_cross_encoder_folder: Path, int8_folder: Path,
                                                          tmp_path: Path) -> None:
    folder = tmp_path / "asked"
    shutil.copytree(tiny_cross_encoder_folder, folder)
    (folder / "ragjury.json").write_text(json.dumps({"weights": "int8"}))
    with pytest.raises(CrossEncoderError, match=r"ragjury.json: field 'weights': int8, but .*cross_encoder_int8"):
        cross_encoder.read_folder(folder)
    (folder / "ragjury.json").write_text(json.dumps({"weights": "int4"}))
    with pytest.raises(CrossEncoderError, match=r"field 'weights': 'int4' is not one of float32, int8"):
        cross_encoder.read_folder(folder)
    only = tmp_path / "only-quantized"
    shutil.copytree(int8_folder, only)
    (only / "ragjury.json").unlink()
    with pytest.raises(CrossEncoderError, match=r'holds model_int8.onnx \(int8\): .*"weights": "int8"'):
        cross_encoder.read_folder(only)
    with pytest.raises(CrossEncoderError, match="already int8"):
        make_int8(int8_folder, tmp_path / "again")
    with pytest.raises(CrossEncoderError, match="not empty"):
        make_int8(tiny_cross_encoder_folder, int8_folder)


def test_the_command_exits_2_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "no such folder" in err and len(err.splitlines()) == 1


def test_evaluate_with_the_int8_copy_writes_int8_in_the_run_header(int8_folder: Path, tmp_path: Path,
                                                                   offline_cli: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    result = CliRunner().invoke(app, ["evaluate", "--task", "correctness", "--judge", f"cross-encoder:{int8_folder}",
                                      "--data", str(DATA), "--out", str(preds), "--json", "--no-progress", "--no-cache"])
    assert result.exit_code == 0, result.output
    header = json.loads(preds.with_name("preds.run.json").read_text())
    assert "weights=int8:model_int8.onnx" in header["identity"]["params"]
    assert header["identity"]["prompt_version"].endswith(":int8")


def test_a_head_fitted_on_the_int8_copy_reads_it_and_says_so(int8_folder: Path, tiny_cross_encoder_folder: Path,
                                                             tmp_path: Path, offline_cli: Path) -> None:
    from ragjury.rag_agent.judges.model_free.fitted import FittedJudge

    heads = {}
    for name, folder in (("int8", int8_folder), ("float32", tiny_cross_encoder_folder)):
        heads[name] = tmp_path / f"{name}.json"
        fitted = CliRunner().invoke(app, ["fit", "--task", "correctness", "--data", str(DATA), "--cross-encoder",
                                          str(folder), "--out", str(heads[name]), "--json"])
        assert fitted.exit_code == 0, fitted.output
    judge = FittedJudge(heads["int8"], task="correctness")
    assert judge.cross_encoder.model.spec.int8 and judge.identity.params.endswith(",cross_encoder=int8")
    plain = FittedJudge(heads["float32"], task="correctness")
    assert plain.identity.params == f"threshold={plain.threshold:g}"  # a float32 head's identity as before
