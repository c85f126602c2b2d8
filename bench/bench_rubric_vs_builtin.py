"""A rubric judge beside the built-in judge it restates, on the same answers and the same labels.

The rubric ``bench/rubrics/states-reference-fact.yaml`` asks the built-in correctness question in
plain words; both judges' stored passes (``bench/data/evouna-nq-correctness-{llm,rubric}.jsonl``,
Qwen2.5-Coder-1.5B, same server flags) cover EVOUNA-NQ *confirm* answers. On the answers both
judged, it prints what ``evaluate``, ``calibrate``, ``fit`` and ``estimate`` give for each judge:

- the run: judged rate (95 % Wilson) against people's rate, kappa at P >= 0.5 with its 95 %
  bootstrap interval over answers, accuracy, AUC of P(yes), and the paired kappa difference;
- calibrate / fit, in-pool: 10 % of the answers labelled at random (``--draws`` seeded draws), a
  cut-off on P fitted on them (``calibrate``) and a logistic head over logit P plus the model-free
  correctness signals (``fit`` with the judge's P as a signal); kappa on the other 90 %;
- estimate: per system, n labels drawn at random from its answers and the prediction-powered 95 %
  interval of people's rate from P on every answer plus those n labels (``estimate``); coverage of
  the system's true rate (the mean of all its labels) and width against people-only, over draws.

No model runs: everything is read from the stored passes.
Run:  .venv/bin/python bench/bench_rubric_vs_builtin.py [--draws 20] [--estimate-draws 1000]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from splits import BENCHMARKS  # noqa: E402
from stored_passes import evouna_correctness  # noqa: E402

from ragjury.evals.io.tasks import load_task_rows  # noqa: E402
from ragjury.evals.stats.calibration import auc, fit_threshold  # noqa: E402
from ragjury.evals.stats.intervals import bootstrap_agreement  # noqa: E402
from ragjury.evals.stats.logistic import best_threshold, cross_validate, fit_logistic, kappa_of  # noqa: E402
from ragjury.evals.stats.prediction_powered import finite_population_mean  # noqa: E402
from ragjury.evals.stats.run_result import wilson_interval  # noqa: E402
from ragjury.rag_agent.judges.model_free.fitted import feature_values  # noqa: E402

JUDGES = ("llm", "rubric")
SHOWN = {"llm": "`llm` (built-in)", "rubric": "`rubric:states-reference-fact`"}
DATA = BENCHMARKS / "evouna-nq" / "correctness.jsonl"


def common_answers() -> dict[str, np.ndarray]:
    """Answers both passes scored, in the data's order: labels, systems, each judge's P, model-free signals."""
    passes = {judge: evouna_correctness(judge) for judge in JUDGES}
    raw = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = load_task_rows("correctness", DATA)
    keep: dict[str, list] = {"y": [], "system": [], "x": [], **{judge: [] for judge in JUDGES}}
    for source, row in zip(raw, rows, strict=True):
        if not all(source["id"] in passes[judge] for judge in JUDGES) or not isinstance(row.gold, bool):
            continue
        values, reason = feature_values("correctness", row.item)
        if reason is not None:
            continue
        keep["y"].append(row.gold)
        keep["system"].append(source["system"])
        keep["x"].append(values)
        for judge in JUDGES:
            keep[judge].append(passes[judge][source["id"]]["p"])
    return {name: np.array(values, dtype=bool if name == "y" else None) for name, values in keep.items()}


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def run_table(d: dict[str, np.ndarray]) -> list[str]:
    y = d["y"]
    lines = [f"Same answers: {len(y)} EVOUNA-NQ confirm answers judged by both ({int(y.sum())} correct by people: "
             f"{y.mean() * 100:.1f} %); P >= 0.5.", "",
             "| judge | judged correct [95 % Wilson] | kappa [95 % CI] | accuracy [95 % CI] | AUC of P |",
             "|---|---|---|---|---|"]
    for judge in JUDGES:
        verdict = d[judge] >= 0.5
        hits = int(verdict.sum())
        low, high = wilson_interval(hits, len(y)).as_list()
        ci = bootstrap_agreement(y.tolist(), verdict.tolist(), seed=0)
        k, a = ci["cohen_kappa"], ci["accuracy"]
        lines.append(f"| {SHOWN[judge]} | {hits / len(y) * 100:.1f} % [{low * 100:.1f}, {high * 100:.1f}] | "
                     f"{kappa_of(y, verdict):.3f} [{k.low:.3f}, {k.high:.3f}] | "
                     f"{(verdict == y).mean():.3f} [{a.low:.3f}, {a.high:.3f}] | {auc(d[judge].tolist(), y.tolist()):.3f} |")
    rng = np.random.default_rng(0)
    gaps = []
    for _ in range(2000):
        index = rng.integers(0, len(y), len(y))
        gaps.append(kappa_of(y[index], d["rubric"][index] >= 0.5) - kappa_of(y[index], d["llm"][index] >= 0.5))
    gap = kappa_of(y, d["rubric"] >= 0.5) - kappa_of(y, d["llm"] >= 0.5)
    lo, hi = np.percentile(gaps, [2.5, 97.5])
    lines += ["", f"Paired kappa difference, rubric - built-in: {gap:+.3f} [{lo:+.3f}, {hi:+.3f}] "
              "(95 % paired bootstrap over answers, 2,000 resamples)."]
    return lines


def in_pool_table(d: dict[str, np.ndarray], draws: int, budget: float = 0.10) -> list[str]:
    y, x = d["y"], d["x"]
    got: dict[tuple[str, str], list[float]] = {(j, k): [] for j in JUDGES for k in ("default", "calibrate", "fit")}
    judged = []
    for draw in range(draws):
        rng = np.random.default_rng(7000 + draw)
        labelled = rng.random(len(y)) < budget
        if min(y[labelled].sum(), (~y[labelled]).sum()) < 10:
            continue
        rest = ~labelled
        judged.append(int(rest.sum()))
        for judge in JUDGES:
            p = d[judge]
            got[(judge, "default")].append(kappa_of(y[rest], p[rest] >= 0.5))
            cut = fit_threshold(p[labelled].tolist(), y[labelled].tolist())
            got[(judge, "calibrate")].append(kappa_of(y[rest], p[rest] >= cut))
            features = np.column_stack([x, logit(p)])
            cv = cross_validate(features[labelled], y[labelled], folds=5, seed=draw)
            head = fit_logistic(features[labelled], y[labelled], cv.l2)
            got[(judge, "fit")].append(kappa_of(y[rest], head.probability(features[rest])
                                                >= best_threshold(cv.probability, y[labelled])))

    def cell(key: tuple[str, str]) -> str:
        lo, hi = np.percentile(got[key], [2.5, 97.5])
        return f"{np.mean(got[key]):.3f} [{lo:.3f}, {hi:.3f}]"

    lines = [f"In-pool, {budget:.0%} of the answers labelled ({len(judged)} draws, {int(np.mean(judged))} judged "
             "each); kappa on the unlabelled answers, mean [2.5-97.5 % of draws]:", "",
             "| judge | P >= 0.5 | calibrate (cut-off on P) | fit (head: model-free signals + logit P) |",
             "|---|---|---|---|"]
    for judge in JUDGES:
        lines.append(f"| {SHOWN[judge]} | {cell((judge, 'default'))} | {cell((judge, 'calibrate'))} | "
                     f"{cell((judge, 'fit'))} |")
    return lines


def estimate_table(d: dict[str, np.ndarray], draws: int, sizes: tuple[int, ...] = (25, 50, 100)) -> list[str]:
    y = d["y"].astype(float)
    systems = sorted(set(d["system"].tolist()))
    where = {s: np.flatnonzero(d["system"] == s) for s in systems}
    lines = [f"Estimate: per system ({len(systems)} systems, {min(map(len, where.values()))}-"
             f"{max(map(len, where.values()))} answers each), n labels drawn at random, {draws} draws; "
             "coverage of the true rate by the 95 % interval, lowest-highest over systems, and its width "
             "against people only:", "",
             "| labels per system | judge | coverage | width / people-only | people-only coverage |",
             "|---|---|---|---|---|"]
    for n in [size for size in sizes if size < min(map(len, where.values()))]:
        for judge in JUDGES:
            covered = {s: 0 for s in systems}
            human = {s: 0 for s in systems}
            ratio = {s: [] for s in systems}
            for draw in range(draws):
                rng = np.random.default_rng(9000 + draw)
                for s, rows in where.items():
                    mine = rng.choice(rows, size=min(n, len(rows)), replace=False)
                    truth = y[rows].mean()
                    est = finite_population_mean(y[mine], d[judge][mine], d[judge][rows])
                    ref = finite_population_mean(y[mine], d[judge][mine], d[judge][rows], lam=0.0)
                    covered[s] += int(est.low <= truth <= est.high)
                    human[s] += int(ref.low <= truth <= ref.high)
                    ratio[s].append(est.width / ref.width if ref.width else math.nan)
            cover = [covered[s] / draws for s in systems]
            widths = [float(np.nanmean(ratio[s])) for s in systems]
            people = [human[s] / draws for s in systems]
            lines.append(f"| {n} | {SHOWN[judge]} | {min(cover):.3f}-{max(cover):.3f} | "
                         f"{min(widths):.2f}-{max(widths):.2f} | {min(people):.3f}-{max(people):.3f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20, help="in-pool draws (calibrate, fit)")
    parser.add_argument("--estimate-draws", type=int, default=1000, help="draws per system and size (estimate)")
    args = parser.parse_args()
    d = common_answers()
    for block in (run_table(d), in_pool_table(d, args.draws), estimate_table(d, args.estimate_draws)):
        print("\n".join(block) + "\n")


if __name__ == "__main__":
    main()
