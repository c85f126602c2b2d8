"""Write a trained cross-encoder as a judge folder: weights, tokenizer, ``model.onnx`` and ``ragjury.json``.

Why ONNX beside the weights: judging needs only onnxruntime and tokenizers (the ``embeddings-onnx``
extra), so a CI job that judges with a trained model does not install torch. ``ragjury.json`` carries
the task, the fields read as the text pair, the label of P(yes) and the card (data digest, label
counts, seed, cross-validated figures, training time), so ``--judge cross-encoder:DIR`` and a reader
know what the model was trained for.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

SIDECAR = "ragjury.json"
ONNX_FILE = "model.onnx"
WRITTEN_BY = "ragjury train"
"""The marker ``ragjury.json`` carries in its ``written_by`` field: only a folder that says it was
written by ``ragjury train`` is replaced by it (docs invite users to put a ``ragjury.json`` beside
their own cross-encoder: that folder is theirs, never deleted; #54 item 33)."""


def written_by_train(folder: Path) -> bool:
    """True when ``folder``'s ``ragjury.json`` says ``ragjury train`` wrote the folder."""
    try:
        sidecar = json.loads((Path(folder) / SIDECAR).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(sidecar, dict) and sidecar.get("written_by") == WRITTEN_BY


def export_onnx(model: Any, tokenizer: Any, path: Path) -> None:
    """``model.onnx`` with inputs input_ids, attention_mask, token_type_ids ([batch, seq], int64) and
    output logits ([batch, 2]); batch and sequence length are dynamic."""
    import torch

    model.eval()
    sample = tokenizer(["a query"], ["a passage to read"], return_tensors="pt")
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in sample]
    axes = {n: {0: "batch", 1: "sequence"} for n in names} | {"logits": {0: "batch"}}

    class Logits(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: Any) -> Any:
            return self.model(**dict(zip(names, inputs, strict=True))).logits

    import warnings

    wrapper = Logits().eval()  # a fresh module is in training mode, and the exporter restores the mode after
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on the model's code are not the user's concern
        torch.onnx.export(wrapper, tuple(sample[n] for n in names), str(path), input_names=names,
                          output_names=["logits"], dynamic_axes=axes, opset_version=17, dynamo=False)
    model.eval()


def write_folder(model: Any, tokenizer: Any, out: Path, sidecar: dict[str, Any], *, onnx: bool = True) -> None:
    """The whole folder, written beside ``out`` and moved into place, so a failure leaves no half model
    (an existing ``out`` is replaced only once the new one is complete)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        if onnx:
            export_onnx(model, tokenizer, staging / ONNX_FILE)
        marked = {**sidecar, "written_by": WRITTEN_BY}
        (staging / SIDECAR).write_text(json.dumps(marked, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        if out.exists():
            if any(out.iterdir()) and not written_by_train(out):  # the command refused it first; never delete
                raise ValueError(f"--out {out} was not written by `{WRITTEN_BY}`: not replaced")
            shutil.rmtree(out)
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


__all__ = ["ONNX_FILE", "SIDECAR", "WRITTEN_BY", "export_onnx", "write_folder", "written_by_train"]
