"""The guarded correctness judge's reduction as one plain line (``short_answer_extraction@2.0``) against its JSON
object (1.1): what the injection defence, the agreement with people and the tokens do, from stored passes only.

    python bench/bench_plain_reduction.py

- **Flip rate** on the injection set's confirm half (60 wrong answers, clean and with one sentence to the grader):
  1.1 is ``injection-correctness-shipped.jsonl`` with the short answers from ``short-answer-correctness-llm-guarded.jsonl``
  (the judge as it shipped before 2.0); 2.0 is ``injection-correctness-shipped-2.0.jsonl``. Paired difference
  (injected − clean) per judge with a 95 % bootstrap over pairs; the issue's bound is today's upper 0.117.
- **Kappa against people** on the 710 EVOUNA-NQ confirm answers: 1.1 from ``evouna-nq-correctness-llm-guarded.jsonl``
  with its short answers from the short-answer pass, 2.0 from ``evouna-nq-correctness-llm-guarded-2.0.jsonl``, the
  one-call ``llm`` from ``evouna-nq-correctness-llm.jsonl``; 95 % bootstrap over questions, and the paired difference.
- **Tokens** (prompt + generated) and generated tokens per answer of each, on the same answers.
The tune half decided the change (``injection-correctness-plain.jsonl``: flip 0.000 with 2.0 against 0.000 with
v3, the JSON reduction on every answer; generated tokens 6.2 against 11.4 an answer).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_short_answers import kappa  # noqa: E402  (the same kappa as the figures this file sets beside)
from splits import BENCHMARKS  # noqa: E402

DATA = HERE / "data"
RESAMPLES = 2000


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).open()]


def interval(draws: list[float]) -> str:
    return f"[{np.percentile(draws, 2.5):+.3f}, {np.percentile(draws, 97.5):+.3f}]"


def flips() -> list[str]:
    short = {r["case"]: r for r in rows("short-answer-correctness-llm-guarded.jsonl") if r["source"] == "injection"}
    arms: dict[str, dict[str, dict[str, dict]]] = {"1.1 (JSON object)": defaultdict(dict), "2.0 (one plain line)": defaultdict(dict)}
    for r in rows("injection-correctness-shipped.jsonl"):
        if r["half"] == "confirm" and r["variant"] in ("clean", "injected"):
            s = short.get(f"{r['pair']}/{r['variant']}")
            if s is not None:  # a short answer: one call, from the short-answer pass
                r = {**r, "verdict": s["verdict"], "unscored": s["unscored"], "usage": s["usage"]}
            arms["1.1 (JSON object)"][r["pair"]][r["variant"]] = r
    for r in rows("injection-correctness-shipped-2.0.jsonl"):
        arms["2.0 (one plain line)"][r["pair"]][r["variant"]] = r
    lines = ["## Flip rate, injection set confirm half (60 wrong answers, clean vs with one sentence to the grader)", "",
             "| reduction | pairs scored | unscored items | yes clean | yes injected | flip rate [95 % CI] | generated tokens / item | tokens / item |",
             "|---|---|---|---|---|---|---|---|"]
    for name, pairs in arms.items():
        items = [r for p in pairs.values() for r in p.values()]
        both = [p for p in pairs.values() if all(p.get(v) and not p[v]["unscored"] for v in ("clean", "injected"))]
        diff = np.array([p["injected"]["verdict"] - p["clean"]["verdict"] for p in both], dtype=float)
        rng = np.random.default_rng(0)
        draws = [float(np.mean(diff[rng.integers(0, len(diff), len(diff))])) for _ in range(RESAMPLES)]
        out = np.mean([r["usage"]["output_tokens"] for r in items if r.get("usage")])
        tok = np.mean([r["usage"]["input_tokens"] + r["usage"]["output_tokens"] for r in items if r.get("usage")])
        lines.append(f"| {name} | {len(both)} | {sum(r['unscored'] for r in items)} | "
                     f"{sum(p['clean']['verdict'] for p in both)} | {sum(p['injected']['verdict'] for p in both)} | "
                     f"{np.mean(diff):+.3f} {interval(draws)} | {out:.1f} | {tok:.0f} |")
    return lines


def clean() -> list[str]:
    people = {r["id"]: bool(r["label"]) for r in map(json.loads, (BENCHMARKS / "evouna-nq" / "correctness.jsonl").open())}
    short = {r["id"]: r for r in rows("short-answer-correctness-llm-guarded.jsonl") if r["source"] == "evouna-nq"}

    def verdict(r: dict) -> int | None:
        if r["unscored"]:
            return None
        return int(r["verdict"]) if "verdict" in r else int(r["value"]["verdict"])

    arms = {
        "llm (one call)": {r["id"]: r for r in rows("evouna-nq-correctness-llm.jsonl")},
        "1.1 (JSON object)": {r["id"]: short.get(r["id"], r) for r in rows("evouna-nq-correctness-llm-guarded.jsonl")},
        "2.0 (one plain line)": {r["id"]: r for r in rows("evouna-nq-correctness-llm-guarded-2.0.jsonl")},
    }
    ids = sorted(set.intersection(*(set(a) for a in arms.values())))
    unscored = {n: sum(a[i]["unscored"] for i in ids) for n, a in arms.items()}
    ids_scored = [i for i in ids if all(not a[i]["unscored"] for a in arms.values())]
    y = np.array([people[i] for i in ids_scored], dtype=float)
    v = {n: np.array([verdict(a[i]) for i in ids_scored], dtype=float) for n, a in arms.items()}
    groups = defaultdict(list)
    for pos, i in enumerate(ids_scored):
        groups[i.rsplit("-", 1)[0]].append(pos)
    blocks = list(groups.values())
    rng = np.random.default_rng(0)
    boots: dict[str, list[float]] = defaultdict(list)
    for _ in range(RESAMPLES):
        take = np.concatenate([blocks[g] for g in rng.integers(0, len(blocks), len(blocks))])
        ks = {n: kappa(y[take], v[n][take]) for n in arms}
        for n in arms:
            boots[n].append(ks[n])
        boots["diff"].append(ks["2.0 (one plain line)"] - ks["1.1 (JSON object)"])
    lines = ["", f"## Clean EVOUNA-NQ confirm answers ({len(ids)} answers; {len(ids_scored)} scored by all three; "
                 f"95 % bootstrap over {len(blocks)} questions)", "",
             "| judge | unscored | kappa vs people [95 % CI] | said correct | requests / answer | generated tokens / answer | tokens / answer |",
             "|---|---|---|---|---|---|---|"]
    for n, a in arms.items():
        usage = [a[i]["usage"] for i in ids]
        lines.append(f"| {n} | {unscored[n]} | {kappa(y, v[n]):.3f} {interval(boots[n])} | {np.mean(v[n]):.1%} | "
                     f"{np.mean([u['requests'] for u in usage]):.2f} | {np.mean([u['output_tokens'] for u in usage]):.1f} | "
                     f"{np.mean([u['input_tokens'] + u['output_tokens'] for u in usage]):.0f} |")
    changed = int(np.sum(v["2.0 (one plain line)"] != v["1.1 (JSON object)"]))
    lines += ["", f"kappa, 2.0 − 1.1: {kappa(y, v['2.0 (one plain line)']) - kappa(y, v['1.1 (JSON object)']):+.3f} "
                  f"{interval(boots['diff'])}; verdicts that differ: {changed} of {len(ids_scored)}"]
    return lines


if __name__ == "__main__":
    print("\n".join(flips() + clean()))
