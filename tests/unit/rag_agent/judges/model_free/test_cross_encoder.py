"""``CrossEncoderJudge``: a local classifier folder gives P(yes), the same through ONNX and torch,
the same in batches as one by one, and as the model's own softmax (or sigmoid) says.

The model is a tiny BERT built and saved in the test (``tests/tiny_cross_encoder.py``)."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

import tiny_cross_encoder  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem, RelevanceItem  # noqa: E402
from ragjury.rag_agent.judges.catalogue import UnknownJudgeError, build_judge  # noqa: E402
from ragjury.rag_agent.judges.model_free.cross_encoder import (  # noqa: E402
    PAIR_FIELDS,
    CrossEncoderError,
    CrossEncoderJudge,
    pair_texts,
    positive_index,
)

ITEMS = [
    RelevanceItem(query="what is the capital of france", retrieved_text="paris is the capital of france."),
    RelevanceItem(query="boiling point of water", retrieved_text="water boils at 100 degrees at sea level"),
    RelevanceItem(query="who wrote hamlet", retrieved_text="the eiffel tower is 330 m tall"),
    RelevanceItem(query="x", retrieved_text="a long passage " * 40),  # truncated at 128 tokens
    RelevanceItem(query="why", retrieved_text="because"),
]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("cross-encoders")
    return {
        "two": tiny_cross_encoder.build(root / "two"),
        "one": tiny_cross_encoder.build(root / "one", num_labels=1, onnx=False, seed=1),
        "onnx-only": tiny_cross_encoder.build(root / "onnx-only", weights=False, seed=2),
    }


def softmax_yes(logits: np.ndarray) -> float:
    shifted = np.exp(logits - logits.max())
    return float(shifted[1] / shifted.sum())


def probabilities(judge: CrossEncoderJudge, items: list[object]) -> list[float]:
    judgments = judge.judge_batch_sync(items)
    assert not any(j.unscored for j in judgments), [j.unscored_reason for j in judgments]
    return [j.value.probability for j in judgments]


def test_onnx_and_torch_give_the_models_own_softmax(models: dict[str, Path]) -> None:
    pairs = [pair_texts("relevance", item) for item in ITEMS]
    own = [softmax_yes(row) for row in tiny_cross_encoder.own_logits(models["two"], pairs)]
    assert max(own) - min(own) > 0.05  # the items differ: equal P would prove nothing
    onnx = probabilities(CrossEncoderJudge(models["two"], task="relevance", backend="onnx"), ITEMS)
    torch = probabilities(CrossEncoderJudge(models["two"], task="relevance", backend="torch"), ITEMS)
    assert onnx == pytest.approx(torch, abs=1e-4)
    assert torch == pytest.approx(own, abs=1e-5)
    assert onnx == pytest.approx(own, abs=1e-4)
    auto = CrossEncoderJudge(models["two"], task="relevance")
    assert auto.model.spec.backend == "onnx"  # model.onnx is preferred where it is


def test_batches_give_what_one_by_one_gives(models: dict[str, Path]) -> None:
    one = [CrossEncoderJudge(models["two"], task="relevance", batch_size=1).judge_sync(item).value.probability
           for item in ITEMS]
    for size in (2, 32):
        batched = probabilities(CrossEncoderJudge(models["two"], task="relevance", batch_size=size), ITEMS)
        assert batched == pytest.approx(one, abs=1e-5)


def test_a_single_logit_is_read_through_a_sigmoid(models: dict[str, Path]) -> None:
    pairs = [pair_texts("relevance", item) for item in ITEMS]
    own = [1.0 / (1.0 + math.exp(-float(row[0]))) for row in tiny_cross_encoder.own_logits(models["one"], pairs)]
    judge = CrossEncoderJudge(models["one"], task="relevance")
    assert judge.model.spec.backend == "torch" and judge.model.spec.positive is None
    assert probabilities(judge, ITEMS) == pytest.approx(own, abs=1e-5)


def test_the_sidecar_positive_label_and_fields_are_read(models: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "declared"
    shutil.copytree(models["two"], folder)
    (folder / "ragjury.json").write_text(json.dumps({"task": "relevance", "positive_label": "no",
                                                     "fields": ["passage", "query"], "card": {"kappa": 0.5}}))
    judge = CrossEncoderJudge(folder)  # the task is the sidecar's
    assert judge.task == "relevance" and judge.fields == ("passage", "query")
    swapped = [RelevanceItem(query=item.retrieved_text, retrieved_text=item.query) for item in ITEMS]
    plain = probabilities(CrossEncoderJudge(models["two"], task="relevance"), swapped)
    assert probabilities(judge, ITEMS) == pytest.approx([1.0 - p for p in plain], abs=1e-5)
    assert judge.identity != CrossEncoderJudge(models["two"], task="relevance").identity  # another digest


def test_the_label_mapping_from_config_names() -> None:
    config, sidecar = Path("m/config.json"), Path("m/ragjury.json")
    assert positive_index({0: "no", 1: "yes"}, None, config, sidecar) == 1
    assert positive_index({0: "entailment", 1: "neutral", 2: "contradiction"}, None, config, sidecar) == 0
    assert positive_index({0: "Supported", 1: "Unsupported"}, None, config, sidecar) == 0
    assert positive_index({0: "LABEL_0", 1: "LABEL_1"}, None, config, sidecar) == 1
    assert positive_index({0: "score"}, None, config, sidecar) is None  # one logit: a sigmoid
    assert positive_index({0: "bad", 1: "good"}, "good", config, sidecar) == 1
    with pytest.raises(CrossEncoderError, match=r"m/config.json: no label .* declare \"positive_label\""):
        positive_index({0: "bad", 1: "good"}, None, config, sidecar)
    with pytest.raises(CrossEncoderError, match="m/ragjury.json: field 'positive_label'"):
        positive_index({0: "no", 1: "yes"}, "maybe", config, sidecar)


def test_pairs_by_task() -> None:
    assert PAIR_FIELDS["relevance"] == ("query", "passage")
    item = CorrectnessItem(question="Who painted it?", answer="Manet", references=["Edouard Manet", "Manet"])
    assert pair_texts("correctness", item) == ("Who painted it?\nEdouard Manet\nManet", "Manet")
    faithful = FaithfulnessItem(answer="It boils at 100 C.", contexts=["Water boils at 100 C.", " ", "At sea level."])
    assert pair_texts("faithfulness", faithful) == ("Water boils at 100 C.\n\nAt sea level.", "It boils at 100 C.")
    assert pair_texts("faithfulness", faithful, ["question+context", "answer"])[0] == faithful.contexts[0] + "\n\nAt sea level."
    with pytest.raises(ValueError, match="'passage' is not a field of a correctness item"):
        pair_texts("correctness", item, ["passage", "answer"])


def test_an_empty_text_and_a_non_finite_logit_are_unscored_never_zero(tmp_path: Path) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification

    folder = tiny_cross_encoder.build(tmp_path / "nan", onnx=False, seed=3)
    model = AutoModelForSequenceClassification.from_pretrained(str(folder))
    with torch.no_grad():
        model.classifier.bias[1] = float("nan")
    model.save_pretrained(folder)
    judge = CrossEncoderJudge(folder, task="relevance")
    judgments = judge.judge_batch_sync([ITEMS[0], RelevanceItem(query="q", retrieved_text="  ")])
    assert all(j.unscored and j.value is None for j in judgments)
    assert judgments[0].unscored_reason == f"{folder / 'model.safetensors'} gave a non-finite logit for this item"
    assert judgments[1].unscored_reason == "empty passage: nothing to judge"


def test_a_folder_is_checked_when_resolved(models: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(UnknownJudgeError, match="a cross-encoder judges relevance, faithfulness, correctness, not score"):
        build_judge("score", f"cross-encoder:{models['two']}")
    bad = tmp_path / "fields"
    shutil.copytree(models["two"], bad)
    (bad / "ragjury.json").write_text(json.dumps({"fields": ["query", "answer"]}))
    with pytest.raises(UnknownJudgeError, match=r"ragjury.json: field 'fields': 'answer' is not a field of a relevance item"):
        build_judge("relevance", f"cross-encoder:{bad}")
    with pytest.raises(UnknownJudgeError, match="names no folder"):
        build_judge("relevance", "cross-encoder: ")
    judge = build_judge("relevance", f"cross-encoder:{models['two']}", threshold=0.9)
    assert judge.identity.params.endswith("threshold=0.9")


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_an_onnx_folder_is_judged_without_importing_torch(models: dict[str, Path]) -> None:
    done = _run(
        "import sys\n"
        "from ragjury.rag_agent.judges.catalogue import build_judge\n"
        "from ragjury.rag_agent.core.items import RelevanceItem\n"
        f"judge = build_judge('relevance', 'cross-encoder:{models['onnx-only']}')\n"
        "judgment = judge.judge_sync(RelevanceItem(query='water', retrieved_text='boils at 100 degrees'))\n"
        "assert not judgment.unscored and 0 < judgment.value.probability < 1, judgment\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'transformers'))\n"
        "assert not heavy, heavy[:5]\n"
    )
    assert done.returncode == 0, done.stderr


def test_weights_without_torch_say_what_to_install(models: dict[str, Path]) -> None:
    done = _run(
        "import sys\n"
        "sys.modules['torch'] = None\n"  # as if torch were not installed
        "from ragjury.rag_agent.judges.catalogue import UnknownJudgeError, resolve\n"
        "try:\n"
        f"    resolve('relevance', 'cross-encoder:{models['one']}')\n"
        "except UnknownJudgeError as error:\n"
        "    print(error)\n"
    )
    assert done.returncode == 0, done.stderr
    message = done.stdout.strip()
    assert message.startswith(str(models["one"] / "model.safetensors")) and "\n" not in message
    assert "pip install 'ragjury[train]'" in message and "model.onnx" in message
