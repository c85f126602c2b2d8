"""Fit the stacked faithfulness judge on BEGIN's *tune* half; report it on the *confirm* half.

The stack (``rag_agent/judges/model_free/stacked.py``) reads support's signals; a logistic
model (L2, standardised inputs, Newton steps) is fitted on every tune response, and its cut-off
is the one with the best kappa on out-of-fold probabilities (5 folds by dialogue turn, tune
only). The file is written beside the judge. Confirm figures: Cohen's kappa with a 95 %
bootstrap interval (1,000 resamples, seed 0) for the stack, ``support`` at its default cut-off,
and ``support`` with a cut-off fitted on tune the same way.

Run:  .venv/bin/python bench/fit_stack.py [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from splits import BENCHMARKS, group_key, half_of  # noqa: E402

from ragjury.evals.stats.agreement import label_agreement  # noqa: E402
from ragjury.evals.stats.logistic import newton_logistic  # noqa: E402
from ragjury.rag_agent.judges.model_free.stacked import DEFAULT_STACK, FEATURES, StackModel, features  # noqa: E402
from ragjury.rag_agent.judges.model_free.support import DEFAULT_THRESHOLD  # noqa: E402

L2 = 1.0
VERSION = "1.0"


def fit_logistic(z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Weights and bias of an L2-penalised logistic regression on signals standardised once on
    all of tune (the library's Newton solver; the bias is not penalised)."""
    return newton_logistic(z, y, L2)


def kappa(truth: np.ndarray, predicted: np.ndarray) -> float:
    value = label_agreement([bool(t) for t in truth], [bool(p) for p in predicted]).cohen_kappa
    return float(value) if value is not None else float("nan")


def best_cut(truth: np.ndarray, scores: np.ndarray) -> float:
    candidates = np.unique(np.round(scores, 4))
    return float(max(candidates, key=lambda c: kappa(truth, scores >= c)))


def bootstrap(truth: np.ndarray, predicted: np.ndarray, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(1000):
        index = rng.integers(0, truth.shape[0], truth.shape[0])
        values.append(kappa(truth[index], predicted[index]))
    low, high = np.nanpercentile(values, [2.5, 97.5])
    return float(low), float(high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write the fitted stack to {DEFAULT_STACK}")
    args = parser.parse_args()
    rows = [json.loads(line) for line in (BENCHMARKS / "begin-dev" / "faithfulness.jsonl").open()]
    data = {"tune": ([], [], [], []), "confirm": ([], [], [], [])}
    skipped = 0
    for row in rows:
        values, reason = features(row["answer"], row["context"])
        if reason is not None:
            skipped += 1
            continue
        half = half_of("begin-dev", row)
        data[half][0].append(values)
        data[half][1].append(float(row["label"]))
        data[half][2].append(group_key("begin-dev", row))
        data[half][3].append(values[0])
    x_tune, y_tune = np.array(data["tune"][0]), np.array(data["tune"][1])
    x_conf, y_conf = np.array(data["confirm"][0]), np.array(data["confirm"][1])
    print(f"begin-dev: tune {len(y_tune)} ({int(y_tune.sum())} attributable), confirm {len(y_conf)} "
          f"({int(y_conf.sum())}); {skipped} unscored by support; load {os.getloadavg()[0]:.2f}")
    mean, scale = x_tune.mean(0), x_tune.std(0)
    scale[scale == 0] = 1.0
    z_tune, z_conf = (x_tune - mean) / scale, (x_conf - mean) / scale
    groups = np.array(data["tune"][2])
    fold_of = {g: i % 5 for i, g in enumerate(sorted(set(groups)))}  # group keys are hashes: sorted is shuffled
    folds = np.array([fold_of[g] for g in groups])
    out_of_fold = np.zeros(len(y_tune))
    for fold in range(5):
        train = folds != fold
        w, b = fit_logistic(z_tune[train], y_tune[train])
        out_of_fold[~train] = 1 / (1 + np.exp(-(z_tune[~train] @ w + b)))
    cut = best_cut(y_tune, out_of_fold)
    weights, bias = fit_logistic(z_tune, y_tune)
    print(f"tune: out-of-fold kappa {kappa(y_tune, out_of_fold >= cut):.3f} at cut-off {cut:.4f}")
    stack = StackModel(
        version=VERSION,
        features=FEATURES,
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        weights=tuple(float(v) for v in weights),
        bias=bias,
        threshold=cut,
        fitted_on=f"BEGIN dev, tune half (bench/splits/begin-dev.json), {len(y_tune)} responses",
        n=len(y_tune),
    )
    probability = np.array([stack.probability(v) for v in x_conf])
    support_scores = np.array(data["confirm"][3])
    support_cut = best_cut(y_tune, np.array(data["tune"][3]))
    print(f"\nconfirm half ({len(y_conf)} responses, {int(y_conf.sum())} attributable), kappa [95 % bootstrap]:")
    for name, predicted in (
        ("stack (cut-off fitted on tune)", probability >= cut),
        (f"support, default cut-off {DEFAULT_THRESHOLD}", support_scores >= DEFAULT_THRESHOLD),
        (f"support, cut-off fitted on tune ({support_cut:.3f})", support_scores >= support_cut),
    ):
        low, high = bootstrap(y_conf, predicted)
        print(f"  {name:<42} {kappa(y_conf, predicted):.3f} [{low:.3f}, {high:.3f}]")
    if args.write:
        DEFAULT_STACK.write_text(stack.model_dump_json(indent=1) + "\n", encoding="utf-8")
        print(f"\nwritten: {DEFAULT_STACK}")


if __name__ == "__main__":
    main()
