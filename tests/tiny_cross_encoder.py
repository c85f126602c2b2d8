"""A tiny sequence-classification checkpoint written in the Hugging Face layout, for tests.

Why built here, not downloaded: a test must not fetch weights, and a BERT of 16 hidden units
loads and runs in milliseconds. Its WordPiece vocabulary is the letters and digits (each word
is spelt out), so every text reaches the model as different tokens and different items get
different P(yes). ``save_pretrained`` writes ``config.json``, ``model.safetensors``,
``tokenizer.json`` and ``tokenizer_config.json``; ``onnx=True`` exports ``model.onnx`` beside them.
"""

from __future__ import annotations

import json
import string
import warnings
from pathlib import Path
from typing import Any

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
VOCAB = SPECIALS + list(string.ascii_lowercase + string.digits + string.punctuation) + [
    "##" + c for c in string.ascii_lowercase + string.digits
]


def build(
    folder: Path,
    *,
    num_labels: int = 2,
    id2label: dict[int, str] | None = None,
    onnx: bool = True,
    weights: bool = True,
    seed: int = 0,
    sidecar: dict[str, Any] | None = None,
) -> Path:
    """Write a tiny BERT cross-encoder into ``folder`` and return it."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    vocab = folder.parent / f"{folder.name}-vocab.txt"
    vocab.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast(str(vocab))
    labels = id2label if id2label is not None else ({0: "no", 1: "yes"} if num_labels == 2 else
                                                    {i: f"LABEL_{i}" for i in range(num_labels)})
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=128, num_labels=num_labels, id2label=labels,
        label2id={name: i for i, name in labels.items()},
        initializer_range=0.5,  # logits of a few units: items get clearly different P(yes)
    )
    model = BertForSequenceClassification(config).eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    if not weights:
        for name in ("model.safetensors", "pytorch_model.bin"):
            (folder / name).unlink(missing_ok=True)
    if onnx:
        example = tokenizer(["what is it"], ["it is this"], return_tensors="pt")
        names = ["input_ids", "attention_mask", "token_type_ids"]
        with warnings.catch_warnings():  # the TorchScript exporter's deprecation and tracer notes
            warnings.simplefilter("ignore")
            torch.onnx.export(
                model, tuple(example[n] for n in names), str(folder / "model.onnx"), input_names=names,
                output_names=["logits"], dynamic_axes={**{n: {0: "batch", 1: "seq"} for n in names},
                                                       "logits": {0: "batch"}},
                dynamo=False, opset_version=17,
            )
    if sidecar is not None:
        (folder / "ragjury.json").write_text(json.dumps(sidecar), encoding="utf-8")
    return folder


def own_logits(folder: Path, pairs: list[tuple[str, str]], max_length: int = 128) -> Any:
    """The model's logits for ``pairs`` as transformers computes them (its own tokenizer and
    forward pass, one pair at a time, no padding): what the judge is checked against."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    model = AutoModelForSequenceClassification.from_pretrained(str(folder)).eval()
    rows = []
    with torch.inference_mode():
        for first, second in pairs:
            encoded = tokenizer(first, second, truncation="longest_first", max_length=max_length, return_tensors="pt")
            rows.append(model(**encoded).logits[0].double().numpy())
    return rows
