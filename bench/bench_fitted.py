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


def signals(task: str) -> dict[str, tuple[np.ndarray, np.ndarray, list[str], list[str]]]:
    """Per half: signals, people's labels, groups and systems of every labelled item with signals."""
    dataset, path = DATA[task]
    raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = load_task_rows(task, path)
    out: dict[str, tuple[list[list[float]], list[bool], list[str], list[str]]] = {
        "tune": ([], [], [], []), "confirm": ([], [], [], [])}
    for source, row in zip(raw, rows, strict=True):
        if not isinstance(row.gold, bool):
            continue
        values, reason = feature_values(task, row.item)
        if reason is not None:
            continue
        x, y, g, s = out[half_of(dataset, source)]
        x.append(values)
        y.append(row.gold)
        g.append(group_of(task, row.item))
        s.append(str(source.get("system", "all")))
    return {half: (np.array(x), np.array(y, dtype=bool), g, s) for half, (x, y, g, s) in out.items()}


def kappa_text(gold: np.ndarray, verdict: np.ndarray) -> str:
    interval = bootstrap_agreement(list(gold), list(verdict), seed=0)["cohen_kappa"]
    k = kappa_of(gold, verdict)
    return f"{k:.3f} [{interval.low:.3f}, {interval.high:.3f}]" if interval and k is not None else "—"


def estimate_coverage(task: str, labels_per_system: int, draws: int) -> list[str]:
    """Coverage and width of each system's 95 % interval when the judge is a head fitted on the
    estimate's own labels: cross-fitted (``estimate --fit``), in-sample (the mistake it avoids),
    the base judge, and people only. Truth: the mean of all the system's labels on confirm."""
    from ragjury.evals.stats.cross_fit import cross_fit_scores
    from ragjury.evals.stats.logistic import fit_logistic
    from ragjury.evals.stats.prediction_powered import finite_population_mean

    x, y, _, systems = signals(task)["confirm"]
    names = sorted(set(systems))
    where = {name: np.flatnonzero(np.array(systems) == name) for name in names}
    truth = {name: float(y[rows].mean()) for name, rows in where.items()}
    base = base_verdicts(task, x).astype(float)
    kinds = ("cross-fitted head", "in-sample head", f"{BASE_JUDGES[task]} (base)", "people only")
    covered = {(k, s): 0 for k in kinds for s in names}
    widths = {(k, s): [] for k in kinds for s in names}
    for draw in range(draws):
        rng = np.random.default_rng(5000 + draw)
        labelled = np.zeros(len(y), dtype=bool)
        for rows in where.values():
            labelled[rng.choice(rows, size=min(labels_per_system, len(rows)), replace=False)] = True
        scores = {
            kinds[0]: cross_fit_scores(x, labelled, y[labelled], seed=draw),
            kinds[1]: fit_logistic(x[labelled], y[labelled]).probability(x),
            kinds[2]: base,
        }
        for name, rows in where.items():
            mine = rows[labelled[rows]]
            for kind in kinds:
                score = scores.get(kind, base)
                est = finite_population_mean(y[mine].astype(float), score[mine], score[rows],
                                             lam=0.0 if kind == "people only" else None)
                covered[(kind, name)] += int(est.low <= truth[name] <= est.high)
                widths[(kind, name)].append(est.high - est.low)
    lines = []
    people = {name: float(np.mean(widths[("people only", name)])) for name in names}
    for kind in kinds:
        cover = [covered[(kind, name)] / draws for name in names]
        ratio = [float(np.mean(widths[(kind, name)])) / people[name] for name in names]
        lines.append(f"| {task} | {labels_per_system} | {kind} | {min(cover):.3f}-{max(cover):.3f} | "
                     f"{min(ratio):.2f}-{max(ratio):.2f} |")
    return lines


def with_llm_signal(task: str, pass_file: str) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per half: the task's model-free signals with the stored pass's logit P(yes) as a last column,
    people's labels and P itself, for the labelled items the pass scored (``bench/data/PASS_FILE``)."""
    import math

    from stored_passes import DATA as PASSES

    stored: dict[str, float] = {}
    for line in (PASSES / pass_file).read_text().splitlines():
        row = json.loads(line)
        value = row.get("value") or {}
        if not row["unscored"] and value.get("probability") is not None:
            stored[row["id"]] = float(value["probability"])
    dataset, path = DATA[task]
    raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = load_task_rows(task, path)
    halves: dict[str, tuple[list, list, list]] = {"tune": ([], [], []), "confirm": ([], [], [])}
    for source, row in zip(raw, rows, strict=True):
        if source["id"] not in stored or not isinstance(row.gold, bool):
            continue
        values, reason = feature_values(task, row.item)
        if reason is not None:
            continue
        probability = min(max(stored[source["id"]], 1e-4), 1 - 1e-4)
        x, y, p = halves[half_of(dataset, source)]
        x.append(values + [math.log(probability / (1 - probability))])
        y.append(row.gold)
        p.append(stored[source["id"]])
    return {half: (np.array(x), np.array(y, dtype=bool), np.array(p)) for half, (x, y, p) in halves.items()}


def heads_with_and_without(task: str, x_fit: np.ndarray, y_fit: np.ndarray, x_judge: np.ndarray,
                           seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Verdicts on ``x_judge`` of the model-free head (``fit_signals``, the last column left out) and of a
    head over every column, the LLM signal included (penalty by 5-fold CV, cut-off on its out-of-fold P)."""
    from ragjury.evals.stats.logistic import best_threshold, cross_validate, fit_logistic

    free = fit_signals(task, x_fit[:, :-1], y_fit, [], fitted_on="pool", seed=seed, figures=False)
    v_free = np.array([free.probability(v) >= free.threshold for v in x_judge[:, :-1]])
    cv = cross_validate(x_fit, y_fit, folds=5, seed=seed)
    head = fit_logistic(x_fit, y_fit, cv.l2)
    return v_free, head.probability(x_judge) >= best_threshold(cv.probability, y_fit)


def spread(values: list[float], signed: bool = False) -> str:
    """``0.699 [0.652, 0.733]``: the mean over draws and the 2.5-97.5 % range of the draws."""
    lo, hi = np.percentile(values, [2.5, 97.5])
    sign = "+" if signed else ""
    return f"{np.mean(values):{sign}.3f} [{lo:{sign}.3f}, {hi:{sign}.3f}]"


def in_pool_llm_rows(task: str, x: np.ndarray, y: np.ndarray, p: np.ndarray, draws: int, seed: int,
                     setting: str) -> list[str]:
    """In-pool at 5 / 10 / 20 %: kappa of the head without and with the LLM signal, the base judge and the
    LLM alone (P >= 0.5) on the same unlabelled items, and the signal's gain; one table row per budget."""
    base = base_verdicts(task, x)
    lines = []
    for budget in BUDGETS:
        got: dict[str, list[float]] = {"free": [], "with": [], "base": [], "llm": [], "gain": []}
        ns = []
        for draw in range(draws):
            rng = np.random.default_rng(seed + draw)
            labelled = rng.random(len(y)) < budget
            if min(y[labelled].sum(), (~y[labelled]).sum()) < 10:
                continue
            rest = ~labelled
            v_free, v_with = heads_with_and_without(task, x[labelled], y[labelled], x[rest], draw)
            k = {"free": kappa_of(y[rest], v_free), "with": kappa_of(y[rest], v_with),
                 "base": kappa_of(y[rest], base[rest]), "llm": kappa_of(y[rest], p[rest] >= 0.5)}
            k["gain"] = k["with"] - k["free"]
            for name, value in k.items():
                got[name].append(value)
            ns.append(int(rest.sum()))
        if ns:
            lines.append(f"| {setting.format(budget=budget, draws=len(ns))} | {int(np.mean(ns))} | "
                         f"{spread(got['free'])} | {spread(got['with'])} | {spread(got['base'])} | "
                         f"{spread(got['llm'])} | {spread(got['gain'], signed=True)} |")
    return lines


def llm_signal_table(draws: int) -> list[str]:
    """Correctness on the confirm answers of the stored ``llm`` pass: does the model's P("1") add to
    the model-free head? In-pool at 5 / 10 / 20 %: head without and with logit P, ``contains`` and
    ``llm`` (P >= 0.5), all on the same unlabelled answers."""
    x_all, y_all, p_all = with_llm_signal("correctness", "evouna-nq-correctness-llm.jsonl")["confirm"]
    lines = [f"Correctness with the LLM signal: {len(y_all)} confirm answers of the stored `llm` pass "
             f"({int(y_all.sum())} correct); in-pool, mean over draws [2.5-97.5 % of draws]:",
             "| labelled | n judged | head (model-free) | head + llm P | contains | llm (P >= 0.5) | "
             "gain of llm P in the head |", "|---|---|---|---|---|---|---|"]
    return lines + in_pool_llm_rows("correctness", x_all, y_all, p_all, draws, 3000, "{budget:.0%} ({draws} draws)")


def faithfulness_llm_table(draws: int) -> list[str]:
    """Faithfulness with the LLM signal (issue 45 item 4): the stored ``llm-attribution`` pass over the
    BEGIN dev answers (``bench/data/begin-faithfulness-llm-attribution.jsonl``: P(supported) from one
    token) beside ``support``'s signals. Transfer (a head fitted on every tune answer judges every
    confirm answer) and in-pool at 5 / 10 / 20 % of confirm: the model-free head, the head with logit
    P, ``support`` (the base) and ``llm-attribution`` alone (P >= 0.5), all on the same answers."""
    halves = with_llm_signal("faithfulness", "begin-faithfulness-llm-attribution.jsonl")
    xc, yc, pc = halves["confirm"]
    xt, yt, _ = halves["tune"]
    lines = [f"Faithfulness with the LLM signal: {len(yt)} tune and {len(yc)} confirm BEGIN answers of the stored "
             f"`llm-attribution` pass ({int(yc.sum())} of confirm faithful); kappa, in-pool the mean over draws "
             "[2.5-97.5 % of draws]:",
             "| setting | n judged | head (support's signals) | head + llm P | support | llm-attribution (P >= 0.5) | "
             "gain of llm P in the head |", "|---|---|---|---|---|---|---|"]
    v_free, v_with = heads_with_and_without("faithfulness", xt, yt, xc, 0)
    base = base_verdicts("faithfulness", xc)
    lines.append(f"| transfer (fit on {len(yt)} tune answers) | {len(yc)} | {kappa_text(yc, v_free)} | "
                 f"{kappa_text(yc, v_with)} | {kappa_text(yc, base)} | {kappa_text(yc, pc >= 0.5)} | "
                 f"{kappa_of(yc, v_with) - kappa_of(yc, v_free):+.3f} |")
    return lines + in_pool_llm_rows("faithfulness", xc, yc, pc, draws, 4000, "in-pool, {budget:.0%} ({draws} draws)")


def honesty_table(task: str, draws: int, budget: float = 0.10) -> list[str]:
    """Is ``fit``'s reported gain what the head gains on the rest? Each draw labels ``budget`` of the
    confirm items, runs ``fit_signals`` (its report: nested CV, gain over the base with a paired
    bootstrap interval), then measures the head's gain over the base on the unlabelled rest."""
    x, y, _, _ = signals(task)["confirm"]
    base = base_verdicts(task, x)
    reported, measured, inside = [], [], 0
    for draw in range(draws):
        rng = np.random.default_rng(7000 + draw)
        labelled = rng.random(len(y)) < budget
        head = fit_signals(task, x[labelled], y[labelled], [str(i) for i in range(int(labelled.sum()))],
                           fitted_on="pool", seed=draw)
        rest = ~labelled
        verdict = np.array([head.probability(v) >= head.threshold for v in x[rest]])
        gain = kappa_of(y[rest], verdict) - kappa_of(y[rest], base[rest])
        low, high = head.figures["gain_interval"]
        reported.append(head.figures["gain"])
        measured.append(gain)
        inside += int(low <= gain <= high)
    return [f"| {task} | {budget:.0%} of {len(y)} | {draws} | {np.mean(reported):+.3f} | {np.mean(measured):+.3f} | "
            f"{np.mean(np.array(reported) - np.array(measured)):+.3f} | {inside}/{draws} |"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--tasks", default="correctness,faithfulness")
    parser.add_argument("--estimate-draws", type=int, default=1000,
                        help="draws of the estimate-coverage table (0: skip it)")
    parser.add_argument("--llm-signal", action="store_true", help="only the correctness table with the LLM signal")
    parser.add_argument("--honesty", action="store_true", help="only fit's reported vs measured gain")
    parser.add_argument("--faithfulness-llm", action="store_true",
                        help="only the faithfulness table with the stored llm-attribution pass as a signal")
    args = parser.parse_args()
    if args.llm_signal:
        print("\n".join(llm_signal_table(args.draws)))
        return
    if args.faithfulness_llm:
        print("\n".join(faithfulness_llm_table(args.draws)))
        return
    if args.honesty:
        print("fit's reported gain (nested CV on the labelled 10 %) against the gain measured on the other 90 %:")
        print("| task | labelled | draws | reported gain (mean) | measured gain (mean) | reported - measured | "
              "measured inside the reported interval |")
        print("|---|---|---|---|---|---|---|")
        for task in args.tasks.split(","):
            print("\n".join(honesty_table(task, args.draws)))
        return
    print("| task | setting | n judged | head kappa | base kappa | gain (range over draws) | go (>= 0.08 at 10 %) |")
    print("|---|---|---|---|---|---|---|")
    for task in args.tasks.split(","):
        started = time.perf_counter()
        halves = signals(task)
        per_item = (time.perf_counter() - started) / sum(len(h[1]) for h in halves.values())
        base = BASE_JUDGES[task]
        xt, yt, gt, _ = halves["tune"]
        xc, yc, _, _ = halves["confirm"]
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
                verdict = np.array([fitted.probability(v) >= fitted.threshold for v in xc[rest]])
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
    if args.estimate_draws:
        print()
        print(f"Estimates with the judge fitted on the same labels (confirm, {args.estimate_draws} draws):")
        print("| task | labels per system | judge scores | coverage of the 95 % interval (range over systems) "
              "| width vs people only |")
        print("|---|---|---|---|---|")
        for n in (50, 100):
            for line in estimate_coverage("correctness", n, args.estimate_draws):
                print(line)


if __name__ == "__main__":
    main()
