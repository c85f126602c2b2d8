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


def rows(task: str, signals: str, y: np.ndarray, x: np.ndarray, x_ce: np.ndarray, verdicts, draws: int) -> list[str]:  # noqa: ANN001
    """One table row per budget: the head over ``x`` against the head over ``x_ce`` (``x`` plus the
    base's logit P), each fitted by ``verdicts(x_lab, y_lab, x_rest, draw)`` on the draw's labels."""
    lines = []
    for budget in BUDGETS:
        without, with_, n = [], [], []
        for draw in range(draws):
            labelled = labelled_of(budget, draw, len(y))
            if too_few(y[labelled]):
                continue
            rest = ~labelled
            without.append(kappa_of(y[rest], verdicts(x[labelled], y[labelled], x[rest], draw)))
            with_.append(kappa_of(y[rest], verdicts(x_ce[labelled], y[labelled], x_ce[rest], draw)))
            n.append(int(rest.sum()))
        gains = [b - a for a, b in zip(without, with_, strict=True)]
        lines.append(f"| {task} | {signals} | {budget:.0%} | {len(gains)} | {int(np.mean(n))} | "
                     f"{spread(without)} | {spread(with_)} | {spread(gains, True)} |")
    return lines


def relevance(draws: int) -> list[str]:
    pairs = dl19_pairs()
    pool = np.flatnonzero(pairs["half"] == "confirm")
    keys = [(pairs["qid"][i], pairs["docid"][i]) for i in pool]
    cos = dl19_cosine()
    x = np.column_stack([logit(pairs["p_llm"][pool]), [cos[k] for k in keys]])
    ce = np.array(relevance_stored()["transfer"]["p"], dtype=float)
    return rows("relevance", "llm P + cosine", pairs["grade"][pool] >= 2, x, np.column_stack([x, logit(ce)]),
                head_verdicts, draws)


def task(name: str, draws: int) -> list[str]:
    pool = Items(name, "confirm")
    transfer = task_stored(name)["transfer"]
    assert transfer["ids"] == pool.ids, "the stored pass is of other items"
    ce = np.array([math.nan if v is None else v for v in transfer["p"]], dtype=float)

    def verdicts(x_lab: np.ndarray, y_lab: np.ndarray, x_rest: np.ndarray, draw: int) -> np.ndarray:
        head = fit_signals(name, x_lab, y_lab, [], fitted_on="pool", seed=draw, figures=False)
        return np.array([head.probability(v) >= head.threshold for v in x_rest])

    signals = "model-free signals" if name == "correctness" else "support's signals"
    return rows(name, signals, pool.y, pool.x, np.column_stack([pool.x, logit(ce)]), verdicts, draws)


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
