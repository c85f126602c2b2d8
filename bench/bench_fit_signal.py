"""Does ``fit`` gain from reading a trained cross-encoder's P as one more signal? (issue #45, item 2's
"``fit`` as a signal"), from stored data only: no model server, no training.

The cross-encoder is each task's *base* (``bench_trained.py`` / ``bench_trained_tasks.py``): all-MiniLM-L6-v2
fine-tuned on the task's *tune* half only, its P on every confirm item stored in the ``transfer`` row of
``bench/data/*-trained.jsonl``. It never saw a confirm label, so a head fitted on a confirm draw's labels
may read it without leaking (an adapted model would have been trained on the very labels the head is fitted
on). In-pool at 10 % and 20 % labelled, the same draws as the other benches (``default_rng(1000 + draw)``),
each head fitted as ``ragjury fit`` fits it (5-fold CV for the penalty and the cut-off) on the labelled
items and scored by kappa on the rest:

- relevance (DL19 confirm, 615 pairs): the head over llm P + cosine, against the same + the base's logit P;
- correctness (EVOUNA-NQ confirm): the model-free head, against the same + the base's logit P;
- faithfulness (BEGIN confirm): support's signals, against the same + the base's logit P.

Range: 2.5-97.5 % over draws of the paired gain (with - without).

Run:  .venv/bin/python bench/bench_fit_signal.py [--draws 20]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fitted_relevance import head_verdicts, logit  # noqa: E402
from bench_trained import stored as relevance_stored  # noqa: E402
from bench_trained_tasks import Items, labelled_of, too_few  # noqa: E402
from bench_trained_tasks import stored as task_stored  # noqa: E402
from stored_passes import dl19_cosine, dl19_pairs  # noqa: E402

from ragjury.evals.pipelines.fit_run import fit_signals  # noqa: E402
from ragjury.evals.stats.logistic import kappa_of  # noqa: E402

BUDGETS = (0.10, 0.20)


def spread(values: list[float], signed: bool = False) -> str:
    sign = "+" if signed else ""
    lo, hi = np.percentile(values, [2.5, 97.5])
    return f"{np.mean(values):{sign}.3f} [{lo:{sign}.3f}, {hi:{sign}.3f}]"


def relevance(draws: int) -> list[str]:
    pairs = dl19_pairs()
    pool = np.flatnonzero(pairs["half"] == "confirm")
    keys = [(pairs["qid"][i], pairs["docid"][i]) for i in pool]
    y = pairs["grade"][pool] >= 2
    cos = dl19_cosine()
    x = np.column_stack([logit(pairs["p_llm"][pool]), [cos[k] for k in keys]])
    ce = np.array(relevance_stored()["transfer"]["p"], dtype=float)
    x_ce = np.column_stack([x, logit(ce)])
    lines = []
    for budget in BUDGETS:
        without, with_, gains, n = [], [], [], []
        for draw in range(draws):
            labelled = labelled_of(budget, draw, len(y))
            if too_few(y[labelled]):
                continue
            rest = ~labelled
            a = kappa_of(y[rest], head_verdicts(x[labelled], y[labelled], x[rest], draw))
            b = kappa_of(y[rest], head_verdicts(x_ce[labelled], y[labelled], x_ce[rest], draw))
            without.append(a)
            with_.append(b)
            gains.append(b - a)
            n.append(int(rest.sum()))
        lines.append(f"| relevance | llm P + cosine | {budget:.0%} | {len(gains)} | {int(np.mean(n))} | "
                     f"{spread(without)} | {spread(with_)} | {spread(gains, True)} |")
    return lines


def task(name: str, draws: int) -> list[str]:
    pool = Items(name, "confirm")
    transfer = task_stored(name)["transfer"]
    assert transfer["ids"] == pool.ids, "the stored pass is of other items"
    ce = np.array([math.nan if v is None else v for v in transfer["p"]], dtype=float)
    x_ce = np.column_stack([pool.x, logit(ce)])
    signals = "model-free signals" if name == "correctness" else "support's signals"
    lines = []
    for budget in BUDGETS:
        without, with_, gains, n = [], [], [], []
        for draw in range(draws):
            labelled = labelled_of(budget, draw, len(pool.y))
            if too_few(pool.y[labelled]):
                continue
            rest = ~labelled
            scores = []
            for x in (pool.x, x_ce):
                head = fit_signals(name, x[labelled], pool.y[labelled], [], fitted_on="pool", seed=draw, figures=False)
                scores.append(kappa_of(pool.y[rest], np.array([head.probability(v) >= head.threshold for v in x[rest]])))
            without.append(scores[0])
            with_.append(scores[1])
            gains.append(scores[1] - scores[0])
            n.append(int(rest.sum()))
        lines.append(f"| {name} | {signals} | {budget:.0%} | {len(gains)} | {int(np.mean(n))} | "
                     f"{spread(without)} | {spread(with_)} | {spread(gains, True)} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--tasks", default="relevance,correctness,faithfulness")
    args = parser.parse_args()
    print("| task | head's signals | labelled | draws | n judged | head kappa | head + the base cross-encoder's P "
          "| gain (range) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.tasks.split(","):
        for line in relevance(args.draws) if name == "relevance" else task(name, args.draws):
            print(line, flush=True)


if __name__ == "__main__":
    main()
