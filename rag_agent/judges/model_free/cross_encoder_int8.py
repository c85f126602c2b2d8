"""An int8 copy of a cross-encoder folder: faster judging on CPU, chosen by the user, never by ragjury.

Why a copy: int8 weights move P(yes) a little (docs/benchmarks.md says how much), so the float32
folder keeps its scores and the int8 one is a folder of its own that says what it is::

    python -m ragjury.rag_agent.judges.model_free.cross_encoder_int8 DIR [OUT]

writes OUT (default ``DIR-int8``): the folder's small files, ``model_int8.onnx`` (onnxruntime's
dynamic quantization of ``model.onnx``: int8 weights of every MatMul, one scale per output column,
which halved the largest P difference of one scale per matrix on a trained MiniLM; activations
quantized per pass at run time) and ``ragjury.json`` with ``"weights": "int8"``. ``--judge cross-encoder:OUT``
and ``fit --cross-encoder OUT`` then judge with it; the judge's identity (run header, cache key)
says ``int8``. Needs onnxruntime and onnx (``pip install 'ragjury[train]'``).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

from ragjury.rag_agent.judges.model_free.cross_encoder import (
    CONFIG,
    INT8_FILES,
    ONNX_FILE,
    SIDECAR,
    SPECIAL_TOKENS,
    TOKENIZER,
    TOKENIZER_CONFIG,
    CrossEncoderError,
    read_folder,
)

INT8_FILE = INT8_FILES[0]
SMALL_FILES = (CONFIG, TOKENIZER, TOKENIZER_CONFIG, SPECIAL_TOKENS, "vocab.txt")
"""Copied beside the int8 weights (those present): what the tokenizer and the labels are read from."""


def _quantize(source: Path, target: Path) -> None:
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        raise CrossEncoderError(f"{source}: quantizing it needs onnxruntime and onnx: "
                                "pip install 'ragjury[train]'") from None
    try:
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul"],
                         per_channel=True)
    except Exception as error:  # noqa: BLE001 - any failure is "this file does not quantize", in one line
        text = str(error).strip().splitlines()
        why = text[0] if text else type(error).__name__
        raise CrossEncoderError(f"{source}: onnxruntime could not quantize it ({why})") from None


def make_int8(folder: str | Path, out: str | Path | None = None) -> Path:
    """Write the int8 copy of ``folder`` (its ``model.onnx``) to ``out`` (default ``FOLDER-int8``),
    whole or not at all; returns ``out``. The source folder is checked first and left as it is."""
    spec = read_folder(folder, backend="onnx")
    if spec.int8:
        raise CrossEncoderError(f"{spec.folder / SIDECAR}: already int8 (its 'weights' field says so)")
    target = Path(out).expanduser() if out is not None else spec.folder.with_name(spec.folder.name + "-int8")
    if target.resolve() == spec.folder:
        raise CrossEncoderError(f"{target}: the int8 copy needs a folder of its own, not the float32 one")
    if target.exists() and any(target.iterdir()):
        raise CrossEncoderError(f"{target}: exists and is not empty (name another folder for the int8 copy)")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for name in SMALL_FILES:
            if (spec.folder / name).is_file():
                shutil.copyfile(spec.folder / name, staging / name)
        _quantize(spec.folder / ONNX_FILE, staging / INT8_FILE)
        own = spec.folder / SIDECAR
        sidecar = json.loads(own.read_text(encoding="utf-8-sig")) if own.is_file() else {}
        sidecar = {**sidecar, "weights": "int8", "int8_of": str(spec.folder)}
        (staging / SIDECAR).write_text(json.dumps(sidecar, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        if target.exists():
            target.rmdir()
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    read_folder(target)  # the copy reads back as an int8 folder
    return target


def main(argv: list[str] | None = None) -> int:
    """``python -m ...cross_encoder_int8 DIR [OUT]``: 0 and the folder written, or 2 and one line."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2) or args[0] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[1].strip() if __doc__ else "", file=sys.stderr)
        print("usage: python -m ragjury.rag_agent.judges.model_free.cross_encoder_int8 DIR [OUT]", file=sys.stderr)
        return 0 if args and args[0] in ("-h", "--help") else 2
    try:
        written = make_int8(args[0], args[1] if len(args) == 2 else None)
    except CrossEncoderError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {written} (int8 weights {INT8_FILE}): judge with --judge cross-encoder:{written}")
    return 0


__all__ = ["INT8_FILE", "make_int8", "main"]


if __name__ == "__main__":
    sys.exit(main())
