"""False alarms and power of the regression gate (``report BASELINE NEW --fail-if-worse MARGIN``).

Baseline verdicts are real: people's labels of one EVOUNA-NQ system's answers (confirm half),
n golden questions drawn per trial. NEW re-judges the same questions with judge noise: each
verdict flips with probability 0.10, the flips balanced so NEW's expected rate equals BASELINE's
(the null: same quality). A planted drop then turns a further d of the questions BASELINE had
right into wrong. The gate's rule is the library's (``evals.results.comparison.regression_gate``). Reported:
the share of trials the gate fails, per rule, n, margin and drop; under the null it is the
false-alarm rate (the significance rule's nominal ceiling is 2.5 %), under a drop the power. Two
rules: ``worse`` (``--fail-if-worse``: fail when NEW is shown worse by more than the margin) and
``within`` (``--fail-unless-within``, non-inferiority: fail unless NEW is shown no worse than the
margin; its "false alarm" under the null is how often a same-quality NEW cannot show it).

Run:  .venv/bin/python bench/bench_regression_gate.py [--trials 400]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from splits import BENCHMARKS, half_of  # noqa: E402

from ragjury.evals.results.comparison import regression_gate  # noqa: E402
from ragjury.evals.stats.paired_runs import paired_difference  # noqa: E402

FLIP = 0.10


def labels(system: str = "chatgpt") -> np.ndarray:
    rows = [json.loads(line) for line in (BENCHMARKS / "evouna-nq" / "correctness.jsonl").read_text().splitlines()
            if line.strip()]
    return np.array([bool(r["label"]) for r in rows
                     if r["system"] == system and half_of("evouna-nq", r) == "confirm" and r.get("label") is not None])


def new_run(base: np.ndarray, drop: float, rng: np.random.Generator) -> np.ndarray:
    rate = base.mean()
    # balanced noise: P(1->0) = FLIP, P(0->1) chosen so that the expected rate is unchanged
    up = FLIP * rate / max(1 - rate, 1e-9)
    flips = np.where(base, rng.random(len(base)) < FLIP, rng.random(len(base)) < up)
    new = base ^ flips
    if drop:
        right = np.flatnonzero(base & new)
        k = min(len(right), int(round(drop * len(base))))
        new[rng.choice(right, size=k, replace=False)] = False
    return new


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=400)
    parser.add_argument("--rules", default="worse,within")
    parser.add_argument("--margins", default="0,0.02")
    args = parser.parse_args()
    pool = labels()
    print(f"baseline verdicts: people's labels of chatgpt's confirm answers ({len(pool)}, {pool.mean():.1%} correct); "
          f"judge noise {FLIP:.0%} balanced; {args.trials} trials per cell")
    print("| rule | golden questions | margin | planted drop | gate fails | undecided |")
    print("|---|---|---|---|---|---|")
    for rule in args.rules.split(","):
        for n in (50, 100, 200):
            for margin in (float(m) for m in args.margins.split(",")):
                for drop in (0.0, 0.05, 0.10):
                    rng = np.random.default_rng(11 + n)
                    fails = undecided = 0
                    for _ in range(args.trials):
                        base = rng.choice(pool, size=n, replace=False)
                        new = new_run(base, drop, rng)
                        outcome = regression_gate(paired_difference(list(base), list(new), binary=True, resamples=500,
                                                                    seed=int(rng.integers(1 << 30))), margin, unscored_new=0,
                                                  rule=rule)
                        fails += outcome.failed
                        undecided += not outcome.decided
                    print(f"| {rule} | {n} | {margin:.2f} | {drop:.0%} | {fails / args.trials:.3f} | {undecided / args.trials:.3f} |",
                          flush=True)


if __name__ == "__main__":
    main()
