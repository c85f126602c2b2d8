"""What an int8 copy of a trained cross-encoder changes: P(yes) and agreement with people, on real pairs.

Why: ``cross_encoder_int8`` makes an int8 copy that judges ~2x the pairs per CPU-second, and ragjury
never uses it unasked because it moves the scores; this says by how much, from stored data only (no
model server). The model: all-MiniLM-L6-v2 (its wheel) fine-tuned as a correctness cross-encoder on
``--tune-items`` labelled EVOUNA-NQ *tune* answers drawn at random (seed 0; the recipe of
``bench_trained.BASE``: one epoch, cut to 160 tokens), written with ``model.onnx`` as ``ragjury train``
writes it, then quantized by ``cross_encoder_int8.make_int8``. Both folders judge every labelled
*confirm* answer (the float32 one in batches of ``DEFAULT_BATCH``, the int8 one a pair at a time, as
ragjury runs them); printed: |P difference| (max, mean, 99th percentile), verdicts flipped, and
against people for each: AUC, and Cohen's kappa at 0.5 and at the cut-off where float32's yes rate
is people's (one cut-off for both: a briefly trained head can sit on one side of 0.5), each with
the paired int8 - float32 difference and its bootstrap interval (1,000 draws of answers); and
pairs/s and pairs per CPU-second of each pass. The P of both passes are kept beside the model
(``confirm-p.npz``), so a re-run only re-prints.

Run:  .venv/bin/python bench/bench_cross_encoder_int8.py [--tune-items 1500] [--confirm-items 0 (all)]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fitted import kappa_text  # noqa: E402
from bench_trained import BASE  # noqa: E402
from bench_trained_tasks import CACHE, Items  # noqa: E402

from ragjury.evals.stats.logistic import auc, kappa_of  # noqa: E402
from ragjury.rag_agent.judges.model_free.cross_encoder import DEFAULT_BATCH, CrossEncoder, read_folder  # noqa: E402


def trained_folder(tune: Items, count: int) -> Path:
    """The float32 folder trained on ``count`` random tune answers, cached by data and recipe."""
    from ragjury.evals.training.cross_encoder import Example, Recipe, fit, load
    from ragjury.evals.training.model_folder import write_folder

    chosen = np.sort(np.random.default_rng(0).choice(len(tune.y), size=min(count, len(tune.y)), replace=False))
    digest = hashlib.sha256(json.dumps([[tune.ids[i] for i in chosen], BASE]).encode()).hexdigest()[:12]
    folder = CACHE / f"evouna-nq-correctness-int8-bench-{digest}"
    if (folder / "model.onnx").exists():
        return folder
    examples = [Example(*tune.pairs[i], float(tune.y[i])) for i in chosen]
    model, tokenizer = load(seed=BASE["seed"])
    started = time.perf_counter()
    fit(model, tokenizer, examples, Recipe(**BASE))
    print(f"trained on {len(examples)} tune answers in {time.perf_counter() - started:.0f} s", flush=True)
    write_folder(model, tokenizer, folder, {"task": "correctness", "max_length": BASE["max_length"]})
    return folder


def judged(folder: Path, pairs: list[tuple[str, str]]) -> tuple[np.ndarray, float, float]:
    """P(yes) of every pair as ragjury runs the folder, with pairs/s and pairs per CPU-second."""
    model = CrossEncoder(read_folder(folder))
    model.probabilities(pairs[:16])  # warm
    wall, cpu = time.perf_counter(), time.process_time()
    found = model.probabilities(pairs, DEFAULT_BATCH)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return found, len(pairs) / wall, len(pairs) / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tune-items", type=int, default=1500)
    parser.add_argument("--confirm-items", type=int, default=0, help="the first N confirm answers (0: all)")
    args = parser.parse_args()
    from ragjury.rag_agent.judges.model_free.cross_encoder_int8 import make_int8

    tune, confirm = Items("correctness", "tune"), Items("correctness", "confirm")
    n = args.confirm_items or len(confirm.y)
    pairs, gold = confirm.pairs[:n], confirm.y[:n]
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} before", flush=True)
    folder = trained_folder(tune, args.tune_items)
    int8 = folder.with_name(folder.name + "-int8")
    if not (int8 / "model_int8.onnx").exists():
        shutil.rmtree(int8, ignore_errors=True)
        make_int8(folder, int8)
    kept = folder / "confirm-p.npz"
    if kept.exists() and len(np.load(kept)["p32"]) == n:
        stored = np.load(kept)
        p32, p8, speed = stored["p32"], stored["p8"], str(stored["speed"])
    else:
        p32, rate32, cpu32 = judged(folder, pairs)
        load_mid = os.getloadavg()[0]
        p8, rate8, cpu8 = judged(int8, pairs)
        speed = (f"float32 (batch {DEFAULT_BATCH}) {rate32:.0f} pairs/s, {cpu32:.0f} per CPU-s (load {load_mid:.2f} "
                 f"after); int8 (a pair at a time) {rate8:.0f} pairs/s, {cpu8:.0f} per CPU-s (load "
                 f"{os.getloadavg()[0]:.2f} after)")
        np.savez(kept, p32=p32, p8=p8, speed=speed)
    diff = np.abs(p8 - p32)
    cut = float(np.quantile(p32, 1 - gold.mean()))
    print(f"model: {folder}\nn = {n} labelled EVOUNA-NQ confirm answers (people's labels, {gold.mean():.3f} yes); "
          f"float32 P from {p32.min():.3f} to {p32.max():.3f}")
    print(f"|P int8 - P float32|: max {diff.max():.4f}, mean {diff.mean():.5f}, 99th percentile "
          f"{np.percentile(diff, 99):.4f}; verdicts flipped at 0.5: {int(((p8 >= 0.5) != (p32 >= 0.5)).sum())}, "
          f"at {cut:.3f}: {int(((p8 >= cut) != (p32 >= cut)).sum())} of {n}")
    figures = {"AUC": lambda g, p: auc(p, g), "kappa at 0.5": lambda g, p: kappa_of(g, p >= 0.5),
               f"kappa at {cut:.3f}": lambda g, p: kappa_of(g, p >= cut)}
    rng = np.random.default_rng(0)
    draws = [rng.integers(0, n, n) for _ in range(1000)]
    for name, figure in figures.items():
        a32, a8 = figure(gold, p32), figure(gold, p8)
        deltas = [d for d in ((figure(gold[i], p8[i]) or 0.0) - (figure(gold[i], p32[i]) or 0.0) for i in draws)]
        low, high = np.percentile(deltas, [2.5, 97.5])
        extra = (f" (float32 {kappa_text(gold, p32 >= cut)}, int8 {kappa_text(gold, p8 >= cut)})"
                 if name.startswith("kappa at 0.") and name != "kappa at 0.5" else "")
        print(f"{name} against people: float32 {a32 or 0.0:.4f}, int8 {a8 or 0.0:.4f}; int8 - float32 "
              f"{(a8 or 0.0) - (a32 or 0.0):+.4f} [{low:+.4f}, {high:+.4f}]{extra}")
    print(f"speed on these pairs: {speed}")


if __name__ == "__main__":
    main()
