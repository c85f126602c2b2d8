"""Time ragjury's IR metrics against ranx on the six TREC DL 2019 runs, and check the numbers agree.

Run:  .venv/bin/python bench/bench_metrics.py [--repeats 30] [--benchmarks ../shared/benchmarks]

Both libraries compute the same measures (P@10, recall@10, MRR@10, nDCG@10, hit_rate@10, AP@10,
AP, MRR, nDCG) at relevance levels 1 and 2 (ranx's ``-l2`` suffix; for nDCG the plain ranx
measure, since trec_eval's nDCG uses the grades whatever the level). The dl19 files round
scores into ties, which each library breaks its own way, so both are given the same tie-free
scores (derived from the rank column) and must then agree to 1e-9. Timings are medians over
``--repeats`` passes over all six runs; ranx's first call is timed apart because it includes
numba's JIT compilation.

- "from dicts": each pass starts from Python dicts (what a caller has); for ranx that includes
  ``Qrels.from_dict`` / ``Run.from_dict``, for ragjury everything.
- "compute only": ranx with its ``Qrels``/``Run`` objects built beforehand (ragjury has no
  separate build step, so its figure is the same as above).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from ragjury.evals.io.loaders import load_qrels, load_runs  # noqa: E402
from ragjury.evals.stats.metrics import evaluate_run  # noqa: E402

# ranx name -> ragjury name
MEASURES = {
    "precision@10": "P@10",
    "recall@10": "recall@10",
    "mrr@10": "MRR@10",
    "ndcg@10": "nDCG@10",
    "hit_rate@10": "hit_rate@10",
    "map@10": "AP@10",
    "map": "AP",
    "mrr": "MRR",
    "ndcg": "nDCG",
}


def median_seconds(function: Callable[[], object], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    default = os.environ.get("RAGJURY_BENCHMARKS", str(REPO.parent / "shared" / "benchmarks"))
    parser.add_argument("--benchmarks", type=Path, default=Path(default))
    args = parser.parse_args()

    from ranx import Qrels, Run, evaluate

    warnings.filterwarnings("ignore")  # numba's type-safety chatter
    dl19 = args.benchmarks / "trec-dl19"
    started = time.perf_counter()
    qrels = load_qrels(dl19 / "qrels.txt")
    runs = load_runs(dl19 / "runs")
    load_s = time.perf_counter() - started
    # tie-free scores from the rank order, identical for both libraries
    ranked = {
        name: {
            qid: {doc: float(len(docs) - i) for i, (doc, _) in enumerate(docs)} for qid, docs in run.items()
        }
        for name, run in runs.items()
    }
    pairs = sum(len(docs) for run in ranked.values() for docs in run.values())
    judged = sum(map(len, qrels.values()))
    print(f"dl19: {len(runs)} runs, {pairs} ranked pairs, {judged} qrels (load {load_s:.3f}s)")
    print(f"ranx {version('ranx')}, numpy {version('numpy')}; {os.cpu_count()} CPU cores visible")

    def ranx_name(name: str, rel: int) -> str:
        # trec_eval's nDCG uses the grades whatever the relevance level; ranx's "-l2" would zero grade 1
        return name if rel == 1 or name.startswith("ndcg") else f"{name}-l{rel}"

    def ranx_names(rel: int) -> list[str]:
        return [ranx_name(name, rel) for name in MEASURES]

    def ours(rel: int) -> dict[str, dict[str, float]]:
        return {name: evaluate_run(run, qrels, ks=(10,), rel=rel).mean for name, run in ranked.items()}

    def ranx_from_dicts(rel: int) -> dict[str, dict[str, float]]:
        ranx_qrels = Qrels.from_dict(qrels)
        return {
            name: evaluate(ranx_qrels, Run.from_dict(run, name=name), ranx_names(rel))  # type: ignore[misc]
            for name, run in ranked.items()
        }

    started = time.perf_counter()
    ranx_from_dicts(1)
    cold_s = time.perf_counter() - started
    prebuilt_qrels = Qrels.from_dict(qrels)
    prebuilt_runs = {name: Run.from_dict(run, name=name) for name, run in ranked.items()}

    def ranx_compute_only(rel: int) -> None:
        for run in prebuilt_runs.values():
            evaluate(prebuilt_qrels, run, ranx_names(rel))

    worst = 0.0
    for rel in (1, 2):
        ranx_compute_only(rel)  # compile the -l2 variants too before timing
        mine, theirs = ours(rel), ranx_from_dicts(rel)
        for name in ranked:
            for measure, our_name in MEASURES.items():
                theirs_value = float(theirs[name][ranx_name(measure, rel)])
                worst = max(worst, abs(theirs_value - mine[name][our_name]))
    agree = worst < 1e-9
    print(f"numbers agree on 6 runs x {len(MEASURES)} measures x rel 1,2: {agree} (max |diff| {worst:.1e})")

    rows = []
    for rel in (1, 2):
        ours_s = median_seconds(lambda rel=rel: ours(rel), args.repeats)
        ranx_s = median_seconds(lambda rel=rel: ranx_from_dicts(rel), args.repeats)
        ranx_c = median_seconds(lambda rel=rel: ranx_compute_only(rel), args.repeats)
        rows.append((rel, ours_s, ranx_s, ranx_c))
    print(f"ranx first call (numba JIT included): {cold_s * 1000:.1f} ms")
    print(f"median of {args.repeats} passes over all 6 runs, {len(MEASURES)} measures:")
    header = ("rel", "ragjury ms", "ranx ms (dicts)", "ratio", "ranx ms (compute)", "ratio")
    print("{:>3} {:>11} {:>16} {:>6} {:>18} {:>6}".format(*header))
    for rel, ours_s, ranx_s, ranx_c in rows:
        print(
            f"{rel:>3} {ours_s * 1000:>11.2f} {ranx_s * 1000:>16.2f} {ranx_s / ours_s:>5.2f}x "
            f"{ranx_c * 1000:>18.2f} {ranx_c / ours_s:>5.2f}x"
        )
    print("ratio = ranx time / ragjury time (above 1: ragjury is faster)")
    if not agree:
        raise SystemExit("numbers differ")


if __name__ == "__main__":
    main()
