"""``ragjury fit --cross-encoder DIR``: the head reads the folder's logit P(yes) as its last signal,
names the folder and its digest, and ``--judge fitted:HEAD`` reads the same model again; other
weights put in that folder, a folder that does not load, or a relevance fit are one line, exit 2.
The model is a tiny BERT built once per session (``tiny_cross_encoder_folder``,
tests/conftest.py)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnxruntime")

import tiny_cross_encoder  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

from ragjury.cli import app  # noqa: E402
from ragjury.rag_agent.core.items import CorrectnessItem  # noqa: E402
from ragjury.rag_agent.judges.model_free.cross_encoder import CrossEncoderJudge  # noqa: E402
from ragjury.rag_agent.judges.model_free.fitted import (  # noqa: E402
    CROSS_ENCODER_FEATURE,
    FEATURES,
    FittedJudge,
    feature_values,
)

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "data"
DATA = EXAMPLES / "correctness.jsonl"
runner = CliRunner()
QUIET = ["--no-progress", "--no-cache"]

pytestmark = pytest.mark.usefixtures("offline_cli")  # nothing may call a model server


def _fit(folder: Path, out: Path) -> dict:
    result = runner.invoke(app, ["fit", "--task", "correctness", "--data", str(DATA), "--cross-encoder", str(folder),
                                 "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_head_reads_the_cross_encoder_as_its_last_signal(tiny_cross_encoder_folder: Path, tmp_path: Path) -> None:
    head = tmp_path / "head.json"
    payload = _fit(tiny_cross_encoder_folder, head)
    assert payload["features"] == [*FEATURES["correctness"], CROSS_ENCODER_FEATURE]
    stored = json.loads(head.read_text())
    judge = CrossEncoderJudge(tiny_cross_encoder_folder, task="correctness")
    assert stored["cross_encoder"] == {"folder": str(tiny_cross_encoder_folder.resolve()), "digest": judge.model.digest}
    assert payload["cross_encoder"] == stored["cross_encoder"] and len(stored["weights"]) == len(payload["features"])

    # The judge computes exactly the head over the model-free signals plus the model's logit P.
    fitted = FittedJudge(head, task="correctness")
    item = CorrectnessItem(question="Capital of France?", answer="It is Paris.", references=["Paris"])
    values, reason = feature_values("correctness", item)
    assert reason is None
    (score,), _ = judge.scores([item])
    p = min(max(score.probability, 1e-4), 1 - 1e-4)
    expected = fitted.head.probability([*values, math.log(p / (1 - p))])
    value, why = fitted.score(item)
    assert why is None and value is not None and value.probability == pytest.approx(expected, abs=1e-9)
    assert value.probability != pytest.approx(fitted.head.probability([*values, 0.0]), abs=1e-12)

    judged = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", f"fitted:{head}", "--data", str(DATA),
                                 "--json", *QUIET])
    assert judged.exit_code == 0, judged.output
    assert json.loads(judged.stdout)["scored"] == 40


def test_an_item_the_cross_encoder_cannot_read_is_unscored_not_guessed(tiny_cross_encoder_folder: Path, tmp_path: Path) -> None:
    head = tmp_path / "head.json"
    _fit(tiny_cross_encoder_folder, head)
    fitted = FittedJudge(head, task="correctness")
    fitted.cross_encoder.fields = ("question", "answer")  # as a sidecar naming a field that can be empty
    value, reason = fitted.score(CorrectnessItem(question="  ", answer="Paris", references=["Paris"]))
    assert value is None and reason is not None and reason.startswith("cross-encoder: empty question")


def test_other_weights_in_the_folder_are_refused(tiny_cross_encoder_folder: Path, tmp_path: Path) -> None:
    copy = tmp_path / "model"
    shutil.copytree(tiny_cross_encoder_folder, copy)
    head = tmp_path / "head.json"
    _fit(copy, head)
    other = tiny_cross_encoder.build(tmp_path / "other", seed=7)
    for name in ("model.onnx", "model.safetensors"):
        if (other / name).exists():
            shutil.copy(other / name, copy / name)
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", f"fitted:{head}", "--data", str(DATA),
                                 *QUIET])
    assert result.exit_code == 2, result.output
    assert "now holds other weights" in result.output and "refit the head" in result.output
    assert "Traceback" not in result.output


def test_bad_cross_encoder_fits_are_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["fit", "--task", "correctness", "--data", str(DATA), "--cross-encoder", str(empty),
                                 "--out", str(tmp_path / "h.json")])
    assert result.exit_code == 2 and "--cross-encoder:" in result.output and "config.json" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "h.json").exists()
    relevance = runner.invoke(app, ["fit", "--task", "relevance", "--data", str(DATA), "--cross-encoder", str(empty),
                                    "--out", str(tmp_path / "h.json")])
    assert relevance.exit_code == 2 and "--cross-encoder is for correctness and faithfulness" in relevance.output


def test_a_head_naming_a_cross_encoder_it_does_not_read_is_refused(tiny_cross_encoder_folder: Path, tmp_path: Path) -> None:
    head = tmp_path / "head.json"
    _fit(tiny_cross_encoder_folder, head)
    data = json.loads(head.read_text())
    data["features"] = data["features"][:-1]
    data["mean"], data["scale"], data["weights"] = data["mean"][:-1], data["scale"][:-1], data["weights"][:-1]
    head.write_text(json.dumps(data))
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", f"fitted:{head}", "--data", str(DATA),
                                 *QUIET])
    assert result.exit_code == 2 and "refit it with `ragjury fit`" in result.output, result.output
