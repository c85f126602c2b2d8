"""Batched cross-encoder scores equal the one-at-a-time path (to 1e-5), for the judge and for a
``fit`` head's cross-encoder signal, and the head's judge reads that signal in batches.

Why: the batch size is a speed setting (bench/bench_cross_encoder.py chooses it); padding a pair
to its batch's longest must not move its P(yes). A ``fitted:HEAD`` judge used to run one forward
pass an item. The model is the session's tiny BERT (``tiny_cross_encoder_folder``, tests/conftest.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnxruntime")

from ragjury.cli import app  # noqa: E402
from ragjury.rag_agent.core.items import CorrectnessItem  # noqa: E402
from ragjury.rag_agent.core.sync import run_sync  # noqa: E402
from ragjury.rag_agent.judges.model_free import cross_encoder  # noqa: E402
from ragjury.rag_agent.judges.model_free.cross_encoder import CrossEncoderJudge, load_cross_encoder  # noqa: E402
from ragjury.rag_agent.judges.model_free.fitted import FittedJudge  # noqa: E402

DATA = Path(__file__).resolve().parents[5] / "examples" / "data" / "correctness.jsonl"
ITEMS = [
    CorrectnessItem(question=f"question {i}: who wrote it?" + " and more" * (i % 7), answer=f"an answer {i}" * (1 + i % 3),
                    references=[f"reference {i}"])
    for i in range(37)
]


@pytest.mark.parametrize("backend", ["onnx", "torch"])
def test_every_batch_size_gives_the_one_at_a_time_scores(tiny_cross_encoder_folder: Path, backend: str) -> None:
    model = load_cross_encoder(tiny_cross_encoder_folder, task="correctness", backend=backend)  # type: ignore[arg-type]
    pairs = [cross_encoder.pair_texts("correctness", item) for item in ITEMS]
    one = np.array([model.probabilities([pair], 1)[0] for pair in pairs])
    assert len(set(np.round(one, 6))) > 10  # the pairs get different P: the comparison means something
    for batch in (4, 16, 64):
        assert np.max(np.abs(model.probabilities(pairs, batch) - one)) < 1e-5


def test_the_fitted_judge_reads_its_cross_encoder_in_batches(tiny_cross_encoder_folder: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch, offline_cli: Path) -> None:
    head = tmp_path / "head.json"
    fitted = CliRunner().invoke(app, ["fit", "--task", "correctness", "--data", str(DATA), "--cross-encoder",
                                      str(tiny_cross_encoder_folder), "--out", str(head), "--json"])
    assert fitted.exit_code == 0, fitted.output
    judge = FittedJudge(head, task="correctness")
    one_by_one = [judge.score(item) for item in ITEMS]
    passes: list[int] = []
    probabilities = cross_encoder.CrossEncoder.probabilities

    def counted(self: cross_encoder.CrossEncoder, pairs: list, batch_size: int = 32) -> np.ndarray:
        passes.append(len(pairs))
        return probabilities(self, pairs, batch_size)

    monkeypatch.setattr(cross_encoder.CrossEncoder, "probabilities", counted)
    judged = run_sync(judge.ajudge_batch([*ITEMS, CorrectnessItem(question="q", answer=" ", references=["r"])]))
    assert passes == [len(ITEMS)]  # one call for the batch, not one an item
    for judgment, (value, reason) in zip(judged, one_by_one, strict=False):
        assert reason is None and judgment.value is not None
        assert judgment.value.probability == pytest.approx(value.probability, abs=1e-5)
        assert judgment.value.label == value.label
    assert judged[-1].unscored and judged[-1].unscored_reason  # an empty answer: unscored, with its reason, not 0
    assert json.loads(head.read_text())["cross_encoder"]["digest"] == CrossEncoderJudge(
        tiny_cross_encoder_folder, task="correctness").model.digest
