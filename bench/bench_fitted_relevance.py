"""Go / no-go for relevance heads fitted on people's labels, from the stored model passes only.

Signals (``bench/data/``, see its README): the ``llm`` judge's P("1") for each pair (the output a
run already pays for), the embedding cosine of query and passage (MiniLM), and the model's
last-token hidden state (reduced to its first K principal components, computed on the pool's
vectors, labelled or not). Heads are the library's (``evals/stats/logistic``: strength and cut-off
by 5-fold CV on the labelled pairs). Figures on the *confirm* topics of ``bench/splits``:
- transfer: fit on every tune pair, judge every confirm pair;
- in-pool: label 5 / 10 / 20 % of the confirm pool at random, fit on those, judge the rest;
against ``llm`` on the same unlabelled pairs, at P >= 0.5 and calibrated (its cut-off chosen on
the same labelled pairs). Kappa is on NIST grade >= 2; the range is 2.5-97.5 % over draws. tau:
Kendall's tau of the six runs' precision (over their pairs in the pool) from the fitted labels
(people's where labelled, the head's elsewhere) against NIST's. Go: head - calibrated llm >= 0.08
kappa at 10 %, head kappa >= 0.40 and tau >= 0.8. No model runs.

Run:  .venv/bin/python bench/bench_fitted_relevance.py [--draws 20] [--k 16] [--choose-k]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stored_passes import dl19_cosine, dl19_hidden, dl19_pairs, dl19_runs  # noqa: E402

from ragjury.evals.stats.logistic import best_threshold, cross_validate, fit_logistic, kappa_of  # noqa: E402

BUDGETS = (0.05, 0.10, 0.20)
HIDDEN_ROWS: dict[int, np.ndarray] = {}
HIDDEN_SETS: set[str] = set()
"""Signal sets that add the hidden state's components (fitted per draw on the labelled pairs)."""
GO = 0.08
L2 = (0.1, 1.0, 10.0, 100.0)


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def components(vectors: np.ndarray, k: int) -> np.ndarray:
    """Scores on the first k principal directions of these vectors (no labels used)."""
    centred = vectors - vectors.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[:k].T


def with_hidden(x_lab: np.ndarray, x_rest: np.ndarray, hidden_lab: np.ndarray, hidden_rest: np.ndarray,
                k: int) -> tuple[np.ndarray, np.ndarray]:
    """The signals plus the hidden state's first k principal components, the basis computed from
    the labelled pairs' vectors only (what ``ragjury fit`` sees), applied to every pair."""
    mean = hidden_lab.mean(axis=0)
    _, _, vt = np.linalg.svd(hidden_lab - mean, full_matrices=False)
    basis = vt[:k]
    return (np.column_stack([x_lab, (hidden_lab - mean) @ basis.T]),
            np.column_stack([x_rest, (hidden_rest - mean) @ basis.T]))


def head_verdicts(x_lab: np.ndarray, y_lab: np.ndarray, x_rest: np.ndarray, seed: int) -> np.ndarray:
    cv = cross_validate(x_lab, y_lab, folds=5, seed=seed, l2_grid=L2)
    head = fit_logistic(x_lab, y_lab, cv.l2)
    return head.probability(x_rest) >= best_threshold(cv.probability, y_lab)


def calibrated_llm(p_lab: np.ndarray, y_lab: np.ndarray, p_rest: np.ndarray) -> np.ndarray:
    return p_rest >= best_threshold(p_lab, y_lab)


def run_tau(pairs: dict, rows: np.ndarray, verdict_of: dict[tuple[str, str], bool]) -> float:
    """Kendall tau of the runs' pooled precision from ``verdict_of`` against NIST's (grade >= 2)."""
    nist = {(pairs["qid"][i], pairs["docid"][i]): bool(pairs["grade"][i] >= 2) for i in rows}
    ours, theirs = [], []
    for ranked in dl19_runs().values():
        inside = [p for p in ranked if p in nist]
        ours.append(np.mean([verdict_of[p] for p in inside]))
        theirs.append(np.mean([nist[p] for p in inside]))
    return float(kendalltau(ours, theirs).statistic)


def signal_sets(pairs: dict, k: int) -> dict[str, np.ndarray]:
    """Each candidate signal set as a matrix over all pairs (rows where a signal is missing are NaN)."""
    n = len(pairs["qid"])
    keys = list(zip(pairs["qid"], pairs["docid"], strict=True))
    sets = {"llm P": logit(pairs["p_llm"])[:, None]}
    cos = dl19_cosine()
    if cos:
        c = np.array([cos.get(key, np.nan) for key in keys])
        sets["cosine"] = c[:, None]
        sets["llm P + cosine"] = np.column_stack([sets["llm P"][:, 0], c])
    hidden = dl19_hidden()
    if hidden and cos:
        have = np.array([key in hidden for key in keys])
        sets[f"llm P + cosine + hidden (K={k}, basis from the labelled pairs)"] = sets["llm P + cosine"]
        HIDDEN_ROWS.update({i: hidden[keys[i]] for i in np.flatnonzero(have)})
        HIDDEN_SETS.add(f"llm P + cosine + hidden (K={k}, basis from the labelled pairs)")
    return sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--k", type=int, default=32, help="principal components of the hidden state (chosen on "
                        "tune: 32, basis from the labelled pairs)")
    parser.add_argument("--half", default="confirm", help="report on this half (tune: for choices)")
    args = parser.parse_args()
    pairs = dl19_pairs()
    y_all = pairs["grade"] >= 2
    sets = signal_sets(pairs, args.k)
    complete = np.all([~np.isnan(x).any(axis=1) for x in sets.values()], axis=0)
    if HIDDEN_SETS:
        complete &= np.array([i in HIDDEN_ROWS for i in range(len(complete))])
    hidden = np.array([HIDDEN_ROWS.get(i, np.zeros(1536)) for i in range(len(complete))]) if HIDDEN_SETS else None
    report = np.flatnonzero((pairs["half"] == args.half) & complete)
    train = np.flatnonzero((pairs["half"] != args.half) & complete)
    y, p = y_all[report], pairs["p_llm"][report]
    keys = list(zip(pairs["qid"], pairs["docid"], strict=True))
    print(f"{len(report)} {args.half} pairs with every signal ({int(y.sum())} relevant), {len(train)} pairs "
          f"to transfer from; llm P >= 0.5: kappa {kappa_of(y, p >= 0.5):.3f}")
    print("| signals | setting | n judged | head kappa (range) | llm >= 0.5 | llm calibrated | gain vs calibrated "
          "(range) | tau (range) | go |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, x_all in sets.items():
        x = x_all[report]
        def fit_judge(x_lab: np.ndarray, y_lab: np.ndarray, x_rest: np.ndarray, rows_lab: np.ndarray,
                      rows_rest: np.ndarray, seed: int, name: str = name) -> np.ndarray:
            if name in HIDDEN_SETS:
                assert hidden is not None
                x_lab, x_rest = with_hidden(x_lab, x_rest, hidden[rows_lab], hidden[rows_rest], args.k)
            return head_verdicts(x_lab, y_lab, x_rest, seed)

        if len(train):
            verdict = fit_judge(x_all[train], y_all[train], x, train, report, seed=0)
            cal = calibrated_llm(pairs["p_llm"][train], y_all[train], p)
            tau = run_tau(pairs, report, {keys[i]: bool(v) for i, v in zip(report, verdict, strict=True)})
            print(f"| {name} | transfer | {len(y)} | {kappa_of(y, verdict):.3f} | {kappa_of(y, p >= 0.5):.3f} | "
                  f"{kappa_of(y, cal):.3f} | {kappa_of(y, verdict) - kappa_of(y, cal):+.3f} | {tau:+.2f} | |")
        for budget in BUDGETS:
            heads, plain, cals, gains, taus, ns = [], [], [], [], [], []
            for draw in range(args.draws):
                rng = np.random.default_rng(1000 + draw)
                labelled = rng.random(len(y)) < budget
                if min(y[labelled].sum(), (~y[labelled]).sum()) < 5:
                    continue
                rest = ~labelled
                verdict = fit_judge(x[labelled], y[labelled], x[rest], report[labelled], report[rest], seed=draw)
                cal = calibrated_llm(p[labelled], y[labelled], p[rest])
                k_head, k_cal = kappa_of(y[rest], verdict), kappa_of(y[rest], cal)
                heads.append(k_head)
                cals.append(k_cal)
                plain.append(kappa_of(y[rest], p[rest] >= 0.5))
                gains.append(k_head - k_cal)
                fitted = {keys[i]: bool(y_all[i]) for i in report[labelled]}
                fitted.update({keys[i]: bool(v) for i, v in zip(report[rest], verdict, strict=True)})
                taus.append(run_tau(pairs, report, fitted))
                ns.append(int(rest.sum()))
            if not heads:
                continue
            rng_h, rng_g, rng_t = (np.percentile(v, [2.5, 97.5]) for v in (heads, gains, taus))
            go = ""
            if budget == 0.10:
                go = "go" if (np.mean(gains) >= GO and np.mean(heads) >= 0.40 and np.mean(taus) >= 0.8) else "no-go"
            print(f"| {name} | in-pool {budget:.0%} ({len(heads)} draws) | {int(np.mean(ns))} | {np.mean(heads):.3f} "
                  f"[{rng_h[0]:.3f}, {rng_h[1]:.3f}] | {np.mean(plain):.3f} | {np.mean(cals):.3f} | "
                  f"{np.mean(gains):+.3f} [{rng_g[0]:+.3f}, {rng_g[1]:+.3f}] | {np.mean(taus):+.2f} "
                  f"[{rng_t[0]:+.2f}, {rng_t[1]:+.2f}] | {go} |")


if __name__ == "__main__":
    main()
