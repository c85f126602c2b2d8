"""Label until you know, measured on real labels: does the confidence sequence hold when a person stops at "settled"?

A simulated person labels the confirm half's items in a random order (people's labels = the
datasets' own human labels), looks at the status after every label and stops at the first
"settled" or at the budget. Per design, over ``--draws`` seeded orders (same orders for every
method), the bench reports:

- coverage of the people's true value by the sequence at the stopping time, and at every step
  up to the budget (what "anytime-valid" promises), wrong "settled" verdicts (overall and per side);
- the same peeking rule with the fixed-n interval (PPI++ t-interval with λ fitted on the labels,
  finite-population correction and Wilson's term, as ``estimate`` computes it): how often it
  fails, the reason the feature exists;
- labels to a settled answer (median, 90th percentile), against the fixed plan of the same width
  (the n at which the fixed-n interval is, on average, as narrow as the sequence at its median stop)
  and the fixed n that, looked at once, settles in 90 % of draws;
- active order (next item drawn with chance ∝ floor + the judge's residual spread, weights 1/(|R|q))
  against the uniform order, same seeds.

Designs: EVOUNA-NQ confirm (212 questions, five systems; stored ``llm`` P(yes); ``contains``
computed here, model-free): one system's rate against a threshold; B − A of neighbouring systems,
paired per question; a true null (a system against itself re-judged by ``contains``) and a
near-null pair. TREC DL 2019 confirm (the 615 pairs of the stored ``llm`` relevance pass, people's
label = NIST grade ≥ 2): the rate of relevant pairs against a threshold (the pass covers too few of
each run's top 10 for a paired run comparison).

Run:  .venv/bin/python bench/bench_sequential.py [--draws 1000] [--seed 0]   (about 2 min, one core)
It writes bench/data/sequential-bench.json (per-design numbers, seed, draws, command).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from splits import BENCHMARKS  # noqa: E402
from stored_passes import dl19_pairs, evouna_correctness  # noqa: E402

from ragjury.evals.stats.sequential import (  # noqa: E402
    NO_DIFFERENCE,
    Decision,
    active_weights,
    confidence_sequence,
    draw_orders,
    horizons_for,
    parse_decision,
    verdicts_of,
    weighted_stream,
)
from ragjury.evals.stats.sequential_best import pairwise_sequences, settle_best  # noqa: E402

OUT = HERE / "data" / "sequential-bench.json"
LEVEL = 0.95


@dataclass
class Design:
    """One thing a person labels for: the units, people's value and the judge's on each."""

    name: str
    decision: Decision
    y: np.ndarray
    h: np.ndarray
    spread: np.ndarray
    """The judge's residual spread per unit (what the active order favours)."""
    budget: int

    @property
    def truth(self) -> float:
        return float(self.y.mean())

    @property
    def paired(self) -> bool:
        return self.decision.paired


def evouna() -> dict[str, dict[str, tuple[float, float, float]]]:
    """Per system, per question: (people's label, llm P(yes), contains verdict) on the confirm half."""
    from ragjury.rag_agent.core.items import CorrectnessItem
    from ragjury.rag_agent.judges.model_free.contains import ContainsJudge

    rows = {}
    for line in (BENCHMARKS / "evouna-nq" / "correctness.jsonl").open():
        if line.strip():
            row = json.loads(line)
            rows[row["id"]] = row
    stored = evouna_correctness("llm")
    ids = sorted(i for i in stored if i in rows)
    items = [CorrectnessItem(question=rows[i]["question"], answer=rows[i]["answer"] or " ",
                             references=rows[i]["references"]) for i in ids]
    contains, _ = ContainsJudge().decide(items)
    out: dict[str, dict[str, tuple[float, float, float]]] = {}
    for i, verdict in zip(ids, contains):
        system = stored[i]["system"]
        out.setdefault(system, {})[i.rsplit("-", 1)[0]] = (
            float(bool(rows[i]["label"])), stored[i]["p"], float(bool(verdict)))
    return out


def designs() -> list[Design]:
    systems = evouna()
    questions = sorted(set.intersection(*(set(v) for v in systems.values())))

    def arr(system: str, k: int) -> np.ndarray:
        return np.array([systems[system][q][k] for q in questions])

    def spread(p: np.ndarray) -> np.ndarray:
        return p * (1 - p)

    out = []
    for system, until in (("gpt4", "rate >= 0.7"), ("chatgpt", "rate >= 0.8"), ("newbing", "rate >= 0.8")):
        p = arr(system, 1)
        out.append(Design(f"evouna-nq {system}, llm: {until}", parse_decision(until), arr(system, 0), p,
                          np.sqrt(spread(p)), 150))
    for a, b, judge in (("gpt35", "chatgpt", 1), ("chatgpt", "gpt4", 1), ("gpt4", "newbing", 1),
                        ("fid", "gpt35", 1), ("gpt35", "chatgpt", 2)):
        pa, pb = arr(a, judge), arr(b, judge)
        name = "llm" if judge == 1 else "contains"
        out.append(Design(f"evouna-nq {b} − {a}, {name}: B - A", parse_decision("B - A"), arr(b, 0) - arr(a, 0),
                          pb - pa, np.sqrt(spread(pa) + spread(pb)), 150))
    pa, pb = arr("gpt4", 1), arr("gpt4", 2)
    out.append(Design("evouna-nq gpt4 (contains) − gpt4 (llm): true null, B - A", parse_decision("B - A"),
                      arr("gpt4", 0) - arr("gpt4", 0), pb - pa, np.sqrt(spread(pa)), 150))
    out.append(Design("evouna-nq gpt35 − fid, llm: B >= A - 0.05", parse_decision("B >= A - 0.05"),
                      arr("gpt35", 0) - arr("fid", 0), arr("gpt35", 1) - arr("fid", 1),
                      np.sqrt(spread(arr("gpt35", 1)) + spread(arr("fid", 1))), 150))
    pairs = dl19_pairs()
    confirm = pairs["half"] == "confirm"
    y = (pairs["grade"][confirm] >= 2).astype(float)
    p = pairs["p_llm"][confirm]
    truth = y.mean()
    for until in (f"rate >= {math.floor(100 * truth - 8) / 100:.2f}", f"rate >= {math.ceil(100 * truth + 6) / 100:.2f}"):
        out.append(Design(f"dl19 relevance, llm: {until}", parse_decision(until), y, p, np.sqrt(spread(p)), 300))
    return out


def right_verdicts(design: Design) -> dict[int, bool]:
    """Which settled verdict (+1, −1, 2) is right for the design's true value."""
    c, t = design.decision.threshold, design.truth
    if design.decision.kind == "rate":
        return {1: t >= c, -1: t < c, 2: False}
    if design.decision.kind == "difference":
        return {1: t > 0, -1: t < 0, 2: abs(t) < c}
    return {1: t > -c, -1: t <= -c, 2: False}


def fixed_intervals(y: np.ndarray, h: np.ndarray, n_units: int, h_mean: float | np.ndarray,
                    level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """The fixed-n PPI++ interval after each step of each order (arrays (draws, T)): λ fitted on the
    n labels, t-quantile, finite-population correction and Wilson's term (as ``estimate``)."""
    from scipy import stats

    n = np.arange(1, y.shape[1] + 1, dtype=np.float64)[None, :]
    sy, sh = np.cumsum(y, 1), np.cumsum(h, 1)
    syy, shh, syh = np.cumsum(y * y, 1), np.cumsum(h * h, 1), np.cumsum(y * h, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        var_h = shh - sh**2 / n
        cov = syh - sy * sh / n
        lam = np.where(var_h > 1e-9, np.clip(cov / var_h, 0, 1), 0.0)
        mean_r = (sy - lam * sh) / n
        ss_r = (syy - 2 * lam * syh + lam**2 * shh) - n * mean_r**2
        var_r = np.maximum(ss_r, 0) / np.maximum(n - 1, 1)
        fpc = np.maximum(0.0, 1 - n / n_units)
        z = stats.norm.ppf(1 - (1 - level) / 2)
        se = np.sqrt(var_r / n * fpc + fpc * (z / (2 * n)) ** 2)
        crit = stats.t.ppf(1 - (1 - level) / 2, np.maximum(n - 1, 1))
    value = lam * h_mean + mean_r
    return value - crit * se, value + crit * se


def summarise(design: Design, low: np.ndarray, high: np.ndarray) -> dict[str, object]:
    """Stop at the first settled step (or the budget): coverage, wrong verdicts, labels."""
    truth = design.truth
    verdicts = verdicts_of(design.decision, low, high)
    settled = verdicts != 0
    any_settled = settled.any(axis=1)
    stop = np.where(any_settled, settled.argmax(axis=1), low.shape[1] - 1)
    rows = np.arange(low.shape[0])
    at_stop = verdicts[rows, stop]
    cover_stop = (low[rows, stop] <= truth + 1e-9) & (high[rows, stop] >= truth - 1e-9)
    miss_ever = ((low > truth + 1e-9) | (high < truth - 1e-9)).any(axis=1)
    right = right_verdicts(design)
    wrong = np.array([v != 0 and not right[int(v)] for v in at_stop])
    labels = stop + 1
    return {
        "settled": round(float(any_settled.mean()), 4),
        "coverage_at_stop": round(float(cover_stop.mean()), 4),
        "coverage_every_step": round(float(1 - miss_ever.mean()), 4),
        "wrong_settled": round(float(wrong.mean()), 4),
        "wrong_settled_high": round(float((wrong & (at_stop == 1)).mean()), 4),
        "wrong_settled_low": round(float((wrong & (at_stop == -1)).mean()), 4),
        "wrong_settled_no_difference": round(float((wrong & (at_stop == 2)).mean()), 4),
        "labels_median": int(np.median(labels)),
        "labels_p90": int(np.percentile(labels, 90)),
        "labels_median_settled": int(np.median(labels[any_settled])) if any_settled.any() else None,
        "width_at_stop_median": round(float(np.median(high[rows, stop] - low[rows, stop])), 4),
    }


def run_design(design: Design, draws: int, seed: int) -> dict[str, object]:
    n = design.y.shape[0]
    steps = min(design.budget, n)
    span = (-1.0, 1.0) if design.paired else (0.0, 1.0)
    rng = np.random.default_rng(seed)
    uniform = np.ones(n)
    order = draw_orders(uniform, draws, steps, rng)
    result: dict[str, object] = {"design": design.name, "until": design.decision.text, "truth": round(design.truth, 4),
                                 "units": n, "budget": steps, "judge_mean": round(float(design.h.mean()), 4)}
    horizons = horizons_for(steps)
    seq = confidence_sequence(weighted_stream(design.y, design.h, design.h, order, uniform), n,
                              y_range=span, h_range=span, level=LEVEL, horizons=horizons)
    result["sequence_uniform"] = summarise(design, seq.low, seq.high)
    people_only = confidence_sequence(weighted_stream(design.y, design.h, design.h, order, uniform), n,
                                      y_range=span, h_range=span, level=LEVEL, lam=0.0, horizons=horizons)
    result["sequence_people_only"] = summarise(design, people_only.low, people_only.high)
    f_low, f_high = fixed_intervals(design.y[order], design.h[order], n, float(design.h.mean()))
    result["fixed_n_peeking"] = summarise(design, f_low[:, 1:], f_high[:, 1:])  # from 2 labels: a t needs 2
    fixed_width = np.nanmean(f_high - f_low, axis=0)
    seq_width = result["sequence_uniform"]["width_at_stop_median"]  # type: ignore[index]
    same_width = int(np.argmax(fixed_width <= seq_width) + 1) if (fixed_width <= seq_width).any() else None
    once = verdicts_of(design.decision, f_low, f_high)
    right = right_verdicts(design)
    right_rate = sum((once == k) & right[k] for k in (1, -1, 2)).mean(axis=0)  # settled right, per n, looked at once
    power90 = int(np.argmax(right_rate >= 0.9) + 1) if (right_rate >= 0.9).any() else None
    result["fixed_plan_same_width"] = same_width
    result["fixed_plan_settles_90pct"] = power90
    width_at = lambda k: round(float(np.mean(seq.high[:, k - 1] - seq.low[:, k - 1]) /  # noqa: E731
                                     np.nanmean(f_high[:, k - 1] - f_low[:, k - 1])), 3)
    result["width_ratio_sequence_to_fixed"] = {str(k): width_at(k) for k in (20, 50, 100, steps) if k <= steps}
    a = active_weights(design.spread)
    if np.ptp(a) > 0:
        rng_active = np.random.default_rng(seed)
        active_order = draw_orders(a, draws, steps, rng_active)
        act = confidence_sequence(weighted_stream(design.y, design.h, design.h, active_order, a), n,
                                  y_range=span, h_range=span, level=LEVEL, horizons=horizons)
        result["sequence_active"] = summarise(design, act.low, act.high)
    else:
        result["sequence_active"] = None  # a 0/1 judge gives no per-item uncertainty: the order stays uniform
    return result


@dataclass
class BestDesign:
    """``--until best`` over N configs: people's value and the judge's per question and config."""

    name: str
    names: tuple[str, ...]
    y: np.ndarray
    """(units, N)"""
    h: np.ndarray
    budget: int
    """In questions (each costs N labels)."""

    @property
    def truth(self) -> np.ndarray:
        return self.y.mean(axis=0)


def best_designs() -> list[BestDesign]:
    """All five EVOUNA-NQ systems; the top three; and a true tie at the top (gpt4's labels under two
    judges: one config twice, so naming either as best is wrong)."""
    systems = evouna()
    questions = sorted(set.intersection(*(set(v) for v in systems.values())))

    def col(system: str, k: int) -> np.ndarray:
        return np.array([systems[system][q][k] for q in questions])

    def design(name: str, configs: list[tuple[str, int]], budget: int) -> BestDesign:
        label = tuple(f"{s} ({'llm' if k == 1 else 'contains'})" for s, k in configs)
        return BestDesign(name, label, np.stack([col(s, 0) for s, _ in configs], axis=1),
                          np.stack([col(s, k) for s, k in configs], axis=1), budget)

    five = [(s, 1) for s in ("fid", "gpt35", "chatgpt", "gpt4", "newbing")]
    return [
        design("evouna-nq, 5 systems, llm: best", five, 212),
        design("evouna-nq fid, gpt35, newbing, llm: a clear best", [(s, 1) for s in ("fid", "gpt35", "newbing")], 212),
        design("evouna-nq chatgpt, gpt4, newbing, llm: best", [(s, 1) for s in ("chatgpt", "gpt4", "newbing")], 212),
        design("evouna-nq gpt4 twice (llm, contains) + chatgpt: a tie at the top, best", [("gpt4", 1), ("gpt4", 2),
                                                                                          ("chatgpt", 1)], 212),
    ]


def best_right(design: BestDesign, code: np.ndarray, running: np.ndarray) -> np.ndarray:
    """Whether each settled verdict is right for the design's true rates (False where not settled)."""
    truth = design.truth
    top = truth.max()
    unique = (np.isclose(truth, top)).sum() == 1
    out = np.zeros(code.shape, dtype=bool)
    if unique:
        out |= code == int(truth.argmax())
    tied_best = np.isclose(truth, top)
    close_ok = np.ones(code.shape, dtype=bool)
    n = truth.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            both = running[..., i] & running[..., j]
            close_ok &= ~both | (abs(truth[j] - truth[i]) < NO_DIFFERENCE)
    has_best = (running & tied_best).any(axis=-1)
    out |= (code == -2) & close_ok & has_best
    return out


def best_summary(design: BestDesign, low: np.ndarray, high: np.ndarray, pairs: list, offset: int = 0) -> dict[str, object]:
    """Stop at the first settled step: joint coverage of every pair, wrong verdicts, labels (N per question)."""
    n = len(design.names)
    truth_pairs = np.array([design.truth[j] - design.truth[i] for i, j in pairs])
    code, running = settle_best(low.transpose(0, 2, 1), high.transpose(0, 2, 1), pairs, n)  # (draws, T)
    settled = code != -1
    any_settled = settled.any(axis=1)
    stop = np.where(any_settled, settled.argmax(axis=1), low.shape[2] - 1)
    rows = np.arange(low.shape[0])
    covers = (low <= truth_pairs[None, :, None] + 1e-9) & (high >= truth_pairs[None, :, None] - 1e-9)  # (d, K, T)
    joint = covers.all(axis=1)  # (d, T)
    at_stop = code[rows, stop]
    right = best_right(design, at_stop, running[rows, stop])
    wrong = (at_stop != -1) & ~right
    labels = (stop + 1 + offset) * n
    return {
        "settled": round(float(any_settled.mean()), 4),
        "settled_best": round(float((at_stop >= 0).mean()), 4),
        "settled_no_difference": round(float((at_stop == -2).mean()), 4),
        "joint_coverage_at_stop": round(float(joint[rows, stop].mean()), 4),
        "joint_coverage_every_step": round(float(joint.all(axis=1).mean()), 4),
        "wrong_settled": round(float(wrong.mean()), 4),
        "labels_median": int(np.median(labels)),
        "labels_p90": int(np.percentile(labels, 90)),
    }


def run_best_design(design: BestDesign, draws: int, seed: int) -> dict[str, object]:
    units, n = design.y.shape
    steps = min(design.budget, units)
    rng = np.random.default_rng(seed)
    order = draw_orders(np.ones(units), draws, steps, rng)
    y, h = design.y[order], design.h[order]  # (draws, T, N)
    seq, pairs = pairwise_sequences(y, h, design.h, level=LEVEL, budget=steps)
    result: dict[str, object] = {
        "design": design.name, "configs": list(design.names), "units": units, "budget_questions": steps,
        "truth": {name: round(float(t), 4) for name, t in zip(design.names, design.truth)},
        "pairs": len(pairs), "level_each_pair": round(1 - (1 - LEVEL) / len(pairs), 6),
    }
    result["sequence_uniform"] = best_summary(design, seq.low, seq.high, pairs)
    each = 1 - (1 - LEVEL) / len(pairs)
    f_low = np.empty((draws, len(pairs), steps))
    f_high = np.empty_like(f_low)
    for k, (i, j) in enumerate(pairs):
        lo, hi = fixed_intervals(y[:, :, j] - y[:, :, i], h[:, :, j] - h[:, :, i], units,
                                 float((design.h[:, j] - design.h[:, i]).mean()), level=each)
        f_low[:, k], f_high[:, k] = lo, hi
    result["fixed_n_peeking"] = best_summary(design, f_low[:, :, 1:], f_high[:, :, 1:], pairs, offset=1)
    code, running = settle_best(f_low.transpose(0, 2, 1), f_high.transpose(0, 2, 1), pairs, n)
    right_rate = np.stack([best_right(design, code[:, t], running[:, t]) for t in range(steps)], axis=1).mean(axis=0)
    power90 = int(np.argmax(right_rate >= 0.9) + 1) if (right_rate >= 0.9).any() else None
    result["fixed_plan_settles_90pct_labels"] = None if power90 is None else power90 * n
    return result


def best_table(results: list[dict]) -> str:
    head = ("| design | true rates | joint cover at stop / every step | wrong settled | settled (best / no diff) "
            "| labels median (p90) | fixed n, 90 % right (labels) | peeking fixed-n: joint cover at stop, wrong |")
    lines = [head, "|" + "---|" * 8]
    for r in results:
        s, f = r["sequence_uniform"], r["fixed_n_peeking"]
        truth = ", ".join(f"{name} {100 * v:.1f}" for name, v in r["truth"].items())
        lines.append(
            f"| {r['design']} | {truth} | {100 * s['joint_coverage_at_stop']:.1f} / {100 * s['joint_coverage_every_step']:.1f} % "
            f"| {100 * s['wrong_settled']:.1f} % | {100 * s['settled']:.0f} % ({100 * s['settled_best']:.0f} / "
            f"{100 * s['settled_no_difference']:.0f}) | {s['labels_median']} ({s['labels_p90']}) "
            f"| {r['fixed_plan_settles_90pct_labels']} | {100 * f['joint_coverage_at_stop']:.1f} %, {100 * f['wrong_settled']:.1f} % |")
    return "\n".join(lines)


def table(results: list[dict]) -> str:
    head = ("| design | truth | covers at stop / every step | wrong settled (high / low / no-diff) | settled | labels median (p90) "
            "| fixed n, same width | fixed n, 90 % right | peeking fixed-n: covers at stop, wrong | active: labels median (p90), wrong |")
    lines = [head, "|" + "---|" * 10]
    for r in results:
        s, f, a = r["sequence_uniform"], r["fixed_n_peeking"], r["sequence_active"]
        truth = f"{100 * r['truth']:.1f} %" if r["until"].startswith("rate") else f"{100 * r['truth']:+.1f} pts"
        active = "uniform (0/1 judge)" if a is None else f"{a['labels_median']} ({a['labels_p90']}), {100 * a['wrong_settled']:.1f} %"
        lines.append(
            f"| {r['design']} | {truth} | {100 * s['coverage_at_stop']:.1f} / {100 * s['coverage_every_step']:.1f} % "
            f"| {100 * s['wrong_settled']:.1f} % ({100 * s['wrong_settled_high']:.1f} / {100 * s['wrong_settled_low']:.1f} / "
            f"{100 * s['wrong_settled_no_difference']:.1f}) | {100 * s['settled']:.0f} % | {s['labels_median']} ({s['labels_p90']}) "
            f"| {r['fixed_plan_same_width']} | {r['fixed_plan_settles_90pct']} "
            f"| {100 * f['coverage_at_stop']:.1f} %, {100 * f['wrong_settled']:.1f} % | {active} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--only-best", action="store_true", help="only the --until best designs (kept results of "
                        "the others are read from --out)")
    args = parser.parse_args()
    started = time.process_time()
    best = []
    for index, design in enumerate(best_designs()):
        t0 = time.process_time()
        best.append(run_best_design(design, args.draws, args.seed + 100 + index))
        print(f"{design.name}: {time.process_time() - t0:.1f} s CPU", file=sys.stderr)
    print(best_table(best))
    results = []
    kept = json.loads(args.out.read_text()) if args.only_best and args.out.exists() else None
    for index, design in enumerate([] if args.only_best else designs()):
        t0 = time.process_time()
        results.append(run_design(design, args.draws, args.seed + index))
        print(f"{design.name}: {time.process_time() - t0:.1f} s CPU", file=sys.stderr)
    if kept is not None:
        results = kept["results"]
    print(table(results))
    payload = {
        "command": "python bench/bench_sequential.py " + " ".join(sys.argv[1:]),
        "seed": args.seed, "draws": args.draws, "level": LEVEL, "cpu_seconds": round(time.process_time() - started, 1),
        "sequence": "betting CS without replacement (evals/stats/sequential.py), λ predictable, bets a mixture "
                    "tuned to 1/4, 1/2 and all of the budget",
        "people_only": "the same sequence with λ = 0 (no judge)",
        "fixed_n": "PPI++ t-interval, λ fitted on the n labels, FPC and Wilson's term, looked at after every label",
        "results": results,
        "best": best,
        "best_sequence": "one sequence per pair of configs (B − A per question, the judge's difference as control "
                         "variate), each at 1 − α/K (K pairs): simultaneous by a union bound; a config is out once "
                         "another is shown better; settled when one is left or those left are within ± 2 points",
    }
    args.out.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
