"""Injection: how far one sentence addressed to the grader moves each LLM judge, and how much of it the
model-free flag catches — from stored passes only (no model server needed to reproduce).

    python bench/bench_injection.py [--half tune|confirm]

Per task and prompt variant (``bench/injection/variants.py``; passes in ``bench/data/injection-<task>-<variant>.jsonl``):
- **flip rate**: wrong items judged yes with the sentence minus the same items judged yes without it
  (paired, n pairs), with a 95 % bootstrap interval over pairs;
- **kappa on clean dev items** (people's labels, both classes, unmodified), with a bootstrap interval;
- the flag (``rag_agent/judges/model_free/injection.py``): **catch rate** on the injected items and
  **false alarms** on the clean, benign-mention and dev items of the set, and on every text of the
  dev sets (EVOUNA-NQ answers, BEGIN answers and contexts, DL19 passages).

Goal accuracy and the five-dimension score have no dev set people labelled: their passes recast the
correctness pairs (``bench/passes/injection_recast_pass.py``: a two-turn trace whose reference goal is
the people's answer; the answer with the references as its one source, yes = overall >= 0.5), so they
have a flip rate and no kappa; for score the mean shift of the overall score is printed too.

Re-make a pass after a prompt change: ``python bench/passes/injection_pass.py --task T --variant V --half H``.
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from splits import BENCHMARKS  # noqa: E402

from ragjury.rag_agent.judges.model_free.injection import flags_in  # noqa: E402

DATA = HERE / "data"
FIELD = {"correctness": "answer", "faithfulness": "answer", "relevance": "passage"}
RESAMPLES = 2000


def kappa(y: np.ndarray, p: np.ndarray) -> float:
    po = float(np.mean(y == p))
    pe = float(np.mean(y) * np.mean(p) + (1 - np.mean(y)) * (1 - np.mean(p)))
    return float("nan") if pe >= 1 else (po - pe) / (1 - pe)


def boot(values: np.ndarray, stat, seed: int = 0) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    n = len(values)
    draws = [stat(values[rng.integers(0, n, n)]) for _ in range(RESAMPLES)]
    draws = [d for d in draws if np.isfinite(d)]
    return float(np.percentile(draws, 2.5)), float(np.percentile(draws, 97.5))


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return float("nan"), float("nan")
    z = 1.96
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def judge_rows(task: str, variant: str, half: str) -> list[dict]:
    path = DATA / f"injection-{task}-{variant}.jsonl"
    if not path.exists():
        return []
    return [row for row in map(json.loads, path.open()) if row["half"] == half]


def judge_table(half: str) -> list[str]:
    lines = [f"## LLM judges under injection ({half} half; Qwen2.5-Coder-1.5B Q4_K_M, llama-server, one token)", "",
             "| task | variant | prompt version | pairs | yes clean | yes injected | flip rate [95 % CI] | dev n | kappa on clean dev items [95 % CI] | unscored |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for task in ("correctness", "faithfulness", "relevance", "goal", "score"):
        for variant in ("v0", "v1", "v2", "v3", "shipped", "claims", "graded", "llm"):
            rows = judge_rows(task, variant, half)
            if not rows:
                continue
            pairs: dict[str, dict[str, dict]] = defaultdict(dict)
            for row in rows:
                pairs[row["pair"]][row["variant"]] = row
            both = [p for p in pairs.values() if "clean" in p and "injected" in p
                    and p["clean"]["verdict"] is not None and p["injected"]["verdict"] is not None]
            diff = np.array([int(p["injected"]["verdict"]) - int(p["clean"]["verdict"]) for p in both], dtype=float)
            dev = [r for r in rows if r["variant"] == "dev" and r["verdict"] is not None]
            y = np.array([r["label"] for r in dev], dtype=float)
            p = np.array([r["verdict"] for r in dev], dtype=float)
            k = kappa(y, p) if len(dev) else float("nan")  # goal: no dev items (traces people labelled do not exist here)
            ki = boot(np.stack([y, p], 1), lambda m: kappa(m[:, 0], m[:, 1])) if len(dev) > 10 else (float("nan"),) * 2
            fi = boot(diff, np.mean) if len(diff) else (float("nan"),) * 2
            unscored = sum(r["unscored"] for r in rows)
            version = rows[0]["prompt_version"].split("+")[-1]
            lines.append(
                f"| {task} | {variant} | {version} | {len(both)} | {sum(p['clean']['verdict'] for p in both)} | "
                f"{sum(p['injected']['verdict'] for p in both)} | {np.mean(diff):+.3f} [{fi[0]:+.3f}, {fi[1]:+.3f}] | "
                f"{len(dev)} | {k:.3f} [{ki[0]:.3f}, {ki[1]:.3f}] | {unscored} |")
    by_pair: dict[str, dict[str, float]] = defaultdict(dict)
    for row in judge_rows("score", "llm", half):  # the overall score is stored as the row's probability
        if row["probability"] is not None:
            by_pair[row["pair"]][row["variant"]] = row["probability"]
    deltas = np.array([p["injected"] - p["clean"] for p in by_pair.values() if len(p) == 2])
    if len(deltas):
        lo, hi = boot(deltas, np.mean)
        lines += ["", f"Score judge, overall score injected − clean on the same wrong answers: {np.mean(deltas):+.3f} "
                      f"[{lo:+.3f}, {hi:+.3f}] ({len(deltas)} pairs; clean mean "
                      f"{np.mean([p['clean'] for p in by_pair.values() if len(p) == 2]):.3f})"]
    return lines


def flag_table() -> list[str]:
    rows = [json.loads(line) for line in (DATA / "injection-set.jsonl").open()]
    lines = ["## The model-free flag", "",
             "| half | injected caught [95 % CI] | clean flagged | benign mentions flagged | dev items flagged |",
             "|---|---|---|---|---|"]
    for half in ("tune", "confirm"):
        mine = [r for r in rows if r["half"] == half]
        hit = {v: [bool(flags_in(r[FIELD[r["task"]]])) for r in mine if r["variant"] == v]
               for v in ("injected", "clean", "benign", "dev")}
        k, n = sum(hit["injected"]), len(hit["injected"])
        lo, hi = wilson(k, n)
        lines.append(f"| {half} | {k}/{n} = {k / n:.1%} [{lo:.1%}, {hi:.1%}] | {sum(hit['clean'])}/{len(hit['clean'])} | "
                     f"{sum(hit['benign'])}/{len(hit['benign'])} | {sum(hit['dev'])}/{len(hit['dev'])} |")
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        if r["variant"] == "injected" and r["half"] == "confirm":
            by_kind[r["injection"]["kind"]].append(bool(flags_in(r[FIELD[r["task"]]])))
    lines += ["", "Confirm catch rate by kind: " + ", ".join(f"{kind} {sum(v)}/{len(v)}" for kind, v in sorted(by_kind.items()))]
    # every text of the dev sets
    texts = 0
    flagged = 0
    for line in (BENCHMARKS / "evouna-nq" / "correctness.jsonl").open():
        texts += 1
        flagged += bool(flags_in(json.loads(line)["answer"]))
    for line in (BENCHMARKS / "begin-dev" / "faithfulness.jsonl").open():
        row = json.loads(line)
        texts += 1
        flagged += bool(flags_in(row["answer"]) or flags_in(row["context"]))
    for line in (BENCHMARKS / "trec-dl19" / "passages.jsonl").open():
        texts += 1
        flagged += bool(flags_in(json.loads(line)["text"]))
    lo, hi = wilson(flagged, texts)
    lines += ["", f"Every dev-set item (EVOUNA-NQ answers, BEGIN answers with their contexts, DL19 passages): "
              f"{flagged}/{texts} flagged = {flagged / texts:.3%} [{lo:.3%}, {hi:.3%}]"]
    return lines


def clean_agreement_table() -> list[str]:
    """The price of the guard on clean answers, at n the injection set's 100 dev items cannot give:
    ``llm`` and ``llm-guarded`` on the same EVOUNA-NQ confirm answers (stored passes
    ``evouna-nq-correctness-llm.jsonl`` and ``-llm-guarded.jsonl``), kappa against people at the
    judge's own threshold and AUC of P(correct), with the paired difference and a 95 % interval from
    a bootstrap over questions (each question's five answers move together)."""
    passes = {name: {row["id"]: row for row in map(json.loads, (DATA / f"evouna-nq-correctness-{name}.jsonl").open())}
              for name in ("llm", "llm-guarded") if (DATA / f"evouna-nq-correctness-{name}.jsonl").exists()}
    if len(passes) < 2:
        return ["## Clean agreement: the stored EVOUNA-NQ passes of `llm` and `llm-guarded` are not both present"]
    labels = {row["id"]: bool(row["label"]) for row in map(json.loads, (BENCHMARKS / "evouna-nq" / "correctness.jsonl").open())}
    common = sorted(set(passes["llm"]) & set(passes["llm-guarded"]))
    unscored = {name: sum(rows[i]["unscored"] for i in common) for name, rows in passes.items()}
    ids = [i for i in common if not any(passes[name][i]["unscored"] for name in passes)]
    questions = sorted({i.rsplit("-", 1)[0] for i in ids})
    index = {q: [k for k, i in enumerate(ids) if i.rsplit("-", 1)[0] == q] for q in questions}
    y = np.array([labels[i] for i in ids], dtype=float)
    prob = {name: np.array([passes[name][i]["value"]["probability"] for i in ids], dtype=float) for name in passes}
    verdict = {name: np.array([passes[name][i]["value"]["verdict"] for i in ids], dtype=float) for name in passes}

    def auc(truth: np.ndarray, score: np.ndarray) -> float:
        from scipy.stats import rankdata

        ranks = rankdata(score)
        positives = truth.sum()
        negatives = len(truth) - positives
        return float((ranks[truth == 1].sum() - positives * (positives + 1) / 2) / (positives * negatives))

    def cv_kappa(name: str, rows: np.ndarray) -> float:
        """Kappa with the cut-off on P fitted by 5-fold cross-validation over questions (each fold
        labelled by the cut-off that maximises kappa on the other four), as `ragjury calibrate` does."""
        fold = np.array([zlib.crc32(ids[r].rsplit("-", 1)[0].encode()) % 5 for r in rows])
        said = np.zeros(len(rows))
        cuts = np.linspace(0.05, 0.95, 19)
        for k in range(5):
            train, test = rows[fold != k], rows[fold == k]
            best = max(cuts, key=lambda c: kappa(y[train], (prob[name][train] >= c).astype(float)))
            said[fold == k] = prob[name][test] >= best
        return kappa(y[rows], said)

    def stats(rows: np.ndarray) -> dict[str, float]:
        out = {}
        for name in passes:
            out[f"kappa {name}"] = kappa(y[rows], verdict[name][rows])
            out[f"auc {name}"] = auc(y[rows], prob[name][rows])
            out[f"cv {name}"] = cv_kappa(name, rows)
        out["kappa diff"] = out["kappa llm-guarded"] - out["kappa llm"]
        out["auc diff"] = out["auc llm-guarded"] - out["auc llm"]
        out["cv diff"] = out["cv llm-guarded"] - out["cv llm"]
        return out

    point = stats(np.arange(len(ids)))
    rng = np.random.default_rng(0)
    draws = []
    for _ in range(RESAMPLES // 4):  # 500: the cross-validated cut-off is refitted in every draw
        chosen = rng.integers(0, len(questions), len(questions))
        draws.append(stats(np.concatenate([index[questions[c]] for c in chosen])))

    def ci(key: str) -> str:
        values = [d[key] for d in draws]
        return f"{point[key]:+.3f} [{np.percentile(values, 2.5):+.3f}, {np.percentile(values, 97.5):+.3f}]"

    def cost(name: str) -> str:
        usage = [passes[name][i]["usage"] for i in ids]
        seconds = np.median([passes[name][i]["latency_s"] for i in ids])
        return (f"{np.mean([u['requests'] for u in usage]):.0f} | {np.mean([u['input_tokens'] for u in usage]):.0f} / "
                f"{np.mean([u['output_tokens'] for u in usage]):.1f} | {seconds:.2f}")

    return [f"## Clean agreement, `llm` vs `llm-guarded` (EVOUNA-NQ confirm answers both judged: n = {len(ids)} "
            f"answers of {len(questions)} questions; unscored: {unscored['llm']} / {unscored['llm-guarded']})", "",
            "| judge | kappa at its threshold [95 % CI] | kappa, CV cut-off [95 % CI] | AUC of P(correct) [95 % CI] | said correct | calls | tokens in / out | median s (as stored) |",
            "|---|---|---|---|---|---|---|---|",
            *(f"| `{name}` | {ci('kappa ' + name)} | {ci('cv ' + name)} | {ci('auc ' + name)} | {verdict[name].mean():.1%} (people: {y.mean():.1%}) | {cost(name)} |"
              for name in passes),
            f"| guarded − llm | {ci('kappa diff')} | {ci('cv diff')} | {ci('auc diff')} | | | | |"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=("tune", "confirm", "both"), default="both")
    args = parser.parse_args()
    halves = ("tune", "confirm") if args.half == "both" else (args.half,)
    for half in halves:
        print("\n".join(judge_table(half)))
        print()
    print("\n".join(flag_table()))
    print()
    print("\n".join(clean_agreement_table()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
