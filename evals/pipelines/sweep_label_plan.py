"""``label-plan RUN1 ... RUNn --budget B``: which questions people should label to rank many configs.

Every picked question is labelled for every config (the paired design of ``label-plan A B``, for N
configs), so people's differences between configs are paired too. Where the labels matter for
the decision (``focus``, the default): a question's chance grows with how much the configs that
could still be best, and the baseline, disagree on it (the spread of their judges' verdicts or
P(yes) on that question) and with how unsure each of their judges is; questions where those
configs all agree, surely, buy little. A uniform share keeps every question's chance above zero
and the effective sample size up (``label_plan.guarded_probabilities``), and each row records its
inclusion probability, so ``report RUN... --labels`` weights each label by 1/pi and stays unbiased.
``bench/bench_sweep.py --people`` measures the coverage and the width against a uniform plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ragjury.evals.io.people import fingerprint
from ragjury.evals.io.predictions import PredictionRun
from ragjury.evals.pipelines.label_plan_run import LabelPlan
from ragjury.evals.results.sweep import NOT_SHOWN, Sweep, match_all
from ragjury.evals.stats.label_plan import UNIFORM_SHARE, draw, effective_sample_size, guarded_probabilities
from ragjury.evals.stats.run_estimates import judge_score


def decision_scores(judge: np.ndarray, relevant: Sequence[int]) -> np.ndarray:
    """One pseudo-probability per question whose p(1 - p) is the relevant configs' mean judge
    uncertainty p_j(1 - p_j) plus the spread of their values on it (capped at 1/4): what
    ``guarded_probabilities`` turns into chances."""
    p = np.clip(judge[:, list(relevant)], 0.0, 1.0)
    variance = np.clip((p * (1 - p)).mean(axis=1) + p.var(axis=1), 0.0, 0.25)
    return (1 - np.sqrt(1 - 4 * variance)) / 2


def relevant_configs(sweep: Sweep) -> list[int]:
    """The configs the decision turns on: the best, those not shown different from it, the baseline."""
    return sorted({sweep.best, sweep.baseline, *(r.index for r in sweep.rows if r.verdict == NOT_SHOWN)})


def plan_sweep_labels(runs: Sequence[PredictionRun], budget: int, *, baseline: int = 0, seed: int = 0,
                      focus: bool = True, uniform_share: float = UNIFORM_SHARE) -> LabelPlan:
    """About ``budget`` labels in all: ``budget / N`` questions every run scored, each labelled for
    every config (rows ``CONFIG/ID`` with ``system`` CONFIG). ``focus=False``: every question the
    same chance. ``ValueError`` for a budget under N or no question every run scored."""
    runs = list(runs)
    k = len(runs)
    if budget < k:
        raise ValueError(f"--budget must be at least {k} (one question, every config), got {budget}")
    shared, _ = match_all(runs)
    if not shared:
        raise ValueError("no question is scored in every run: nothing to plan")
    indexes = [run.by_id() for run in runs]
    judge = np.array([[judge_score(index[i]) for index in indexes] for i in shared], dtype=np.float64)
    questions = min(budget / k, len(shared))
    if focus:
        sweep = Sweep.of(runs, baseline=baseline, resamples=500, seed=seed)
        scores = decision_scores(judge, relevant_configs(sweep))
        pi, share = guarded_probabilities(scores, questions, uniform_share=uniform_share)
    else:
        pi, share = np.full(len(shared), questions / len(shared)), 1.0
    picked = draw(pi, seed * 1_000_003)
    rows: list[dict[str, object]] = []
    for ident, chosen, chance in zip(shared, picked, pi, strict=True):
        if not chosen:
            continue
        for run, index in zip(runs, indexes, strict=True):
            record = index[ident]
            rows.append({"id": f"{run.name}/{ident}", "system": run.name, "label": None,
                         "inclusion_probability": round(float(chance), 9), "judge_label": record.label,
                         "judge_probability": record.probability, "fingerprint": fingerprint(record.item),
                         **({"predictions": run.path} if "<" not in run.path else {}), **dict(record.item)})
    count = int(picked.sum())
    systems = {run.name: (len(run.records), count) for run in runs}
    uniform = bool(np.allclose(pi, pi[0]))
    return LabelPlan(rows, systems, uniform, k * float(pi.sum()), k * effective_sample_size(pi),
                     {run.name: share for run in runs}, paired=len(shared))


def plan_from_files(paths: Sequence[Any], budget: int, *, seed: int = 0) -> LabelPlan:
    """``plan_sweep_labels`` of predictions files (their names as ``report`` gives them)."""
    from ragjury.evals.io.predictions import load_predictions, run_names

    names = run_names(paths)
    return plan_sweep_labels([load_predictions(path, name=name) for path, name in zip(paths, names, strict=True)],
                             budget, seed=seed)


__all__ = ["decision_scores", "plan_from_files", "plan_sweep_labels", "relevant_configs"]
