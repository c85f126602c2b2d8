"""Go / no-go for heads fitted on people's labels (``ragjury fit``), model-free signals.

Two settings, on the committed split (``bench/splits.py``), figures on the *confirm* half:
- *transfer*: a head fitted on every *tune* item judges every confirm item;
- *in-pool*: label 5 %, 10 % or 20 % of the confirm pool at random, fit a head on those labels
  (strength and cut-off by 5-fold CV inside them, as ``ragjury fit`` does), judge the rest.
Each is set beside the base judge (``contains`` / ``support`` at its default cut-off) on the same
unlabelled items. Kappa of one draw has a 95 % bootstrap interval over items; the in-pool rows
give the mean over ``--draws`` seeded draws and the 2.5-97.5 % range of the draws' kappas and of
the paired gain (head - base). Go: the head beats the base by >= 0.08 kappa at a 10 % budget.
No model runs: the signals take microseconds per item (the cost column).

Run:  .venv/bin/python bench/bench_fitted.py [--draws 20]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from splits import BENCHMARKS, half_of  # noqa: E402

from ragjury.evals.io.tasks import load_task_rows  # noqa: E402
from ragjury.evals.pipelines.fit_run import base_verdicts, fit_signals, group_of  # noqa: E402
from ragjury.evals.stats.intervals import bootstrap_agreement  # noqa: E402
from ragjury.evals.stats.logistic import kappa_of  # noqa: E402
from ragjury.rag_agent.judges.model_free.fitted import BASE_JUDGES, feature_values  # noqa: E402

DATA = {
    "correctness": ("evouna-nq", BENCHMARKS / "evouna-nq" / "correctness.jsonl"),
    "faithfulness": ("begin-dev", BENCHMARKS / "begin-dev" / "faithfulness.jsonl"),
}
BUDGETS = (0.05, 0.10, 0.20)
GO = 0.08


def signals(task: str) -> dict[str, tuple[np.ndarray, np.ndarray, list[str]]]:
    """Per half: signals, people's labels and groups of every labelled item that has signals."""
    dataset, path = DATA[task]
    raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = load_task_rows(task, path)
    out: dict[str, tuple[list[list[float]], list[bool], list[str]]] = {"tune": ([], [], []), "confirm": ([], [], [])}
    for source, row in zip(raw, rows, strict=True):
        if not isinstance(row.gold, bool):
            continue
        values, reason = feature_values(task, row.item)
        if reason is not None:
            continue
        x, y, g = out[half_of(dataset, source)]
        x.append(values)
        y.append(row.gold)
        g.append(group_of(task, row.item))
    return {half: (np.array(x), np.array(y, dtype=bool), g) for half, (x, y, g) in out.items()}


def kappa_text(gold: np.ndarray, verdict: np.ndarray) -> str:
    interval = bootstrap_agreement(list(gold), list(verdict), seed=0)["cohen_kappa"]
    k = kappa_of(gold, verdict)
    return f"{k:.3f} [{interval.low:.3f}, {interval.high:.3f}]" if interval and k is not None else "—"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--tasks", default="correctness,faithfulness")
    args = parser.parse_args()
    print("| task | setting | n judged | head kappa | base kappa | gain (range over draws) | go (>= 0.08 at 10 %) |")
    print("|---|---|---|---|---|---|---|")
    for task in args.tasks.split(","):
        started = time.perf_counter()
        halves = signals(task)
        per_item = (time.perf_counter() - started) / sum(len(h[1]) for h in halves.values())
        base = BASE_JUDGES[task]
        xt, yt, gt = halves["tune"]
        xc, yc, _ = halves["confirm"]
        head = fit_signals(task, xt, yt, gt, fitted_on="tune", figures=False)
        verdict = np.array([head.probability(v) >= head.threshold for v in xc])
        base_c = base_verdicts(task, xc)
        gain = kappa_of(yc, verdict) - kappa_of(yc, base_c)
        print(f"| {task} | transfer (fit on {len(yt)} tune items) | {len(yc)} | {kappa_text(yc, verdict)} | "
              f"{base} {kappa_text(yc, base_c)} | {gain:+.3f} | — |")
        for budget in BUDGETS:
            heads, bases, gains, ns = [], [], [], []
            for draw in range(args.draws):
                rng = np.random.default_rng(1000 + draw)
                labelled = rng.random(len(yc)) < budget
                if min(yc[labelled].sum(), (~yc[labelled]).sum()) < 10:
                    continue
                fitted = fit_signals(task, xc[labelled], yc[labelled], [], fitted_on="pool", seed=draw, figures=False)
                rest = ~labelled
                z = fitted.bias + ((xc[rest] - np.array(fitted.mean)) / np.array(fitted.scale)) @ np.array(fitted.weights)
                verdict = 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40))) >= fitted.threshold
                k_head, k_base = kappa_of(yc[rest], verdict), kappa_of(yc[rest], base_c[rest])
                heads.append(k_head)
                bases.append(k_base)
                gains.append(k_head - k_base)
                ns.append(int(rest.sum()))
            lo, hi = np.percentile(gains, [2.5, 97.5])
            h_lo, h_hi = np.percentile(heads, [2.5, 97.5])
            go = ("go" if np.mean(gains) >= GO else "no-go") if budget == 0.10 else ""
            print(f"| {task} | in-pool, {budget:.0%} labelled ({len(heads)} draws) | {int(np.mean(ns))} | "
                  f"{np.mean(heads):.3f} [{h_lo:.3f}, {h_hi:.3f}] | {base} {np.mean(bases):.3f} | "
                  f"{np.mean(gains):+.3f} [{lo:+.3f}, {hi:+.3f}] | {go} |")
        print(f"| {task} | signals' cost | {sum(len(h[1]) for h in halves.values())} items | "
              f"{per_item * 1e3:.2f} ms/item, 0 tokens | | | |")


if __name__ == "__main__":
    main()
