"""What the guarded default costs against the one-call ``llm``: seconds, requests and tokens per answer, interleaved.

Reads the stored pass ``bench/data/guarded-cost-interleaved.jsonl`` (``bench/passes/guarded_cost_pass.py``: blocks
of answers, each judged by ``llm``, by ``llm-guarded`` one answer at a time and by ``llm-guarded`` as a batch, the
arms one after the other in a seeded order, one request at a time, so all see about the same load) and prints,
over the answers all three judged: median and mean seconds a run spends per answer (``wall_s``; a batch's wall time
shared out evenly), requests and tokens per answer, the ratios to ``llm`` with 95 % bootstrap intervals over
answers, and the same for answers that are already a short answer (one call) and the rest (two). The issue's goal:
≤ 1.3× the one-call ``llm``.

    python bench/bench_guarded_cost.py [PASS.jsonl]

PASS defaults to the first pass (reduction ``short_answer_extraction@1.1``, a JSON object); the pass of 2.0 (one
plain line) is ``bench/data/guarded-cost-interleaved-2.0.jsonl``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "guarded-cost-interleaved.jsonl"
if len(sys.argv) > 1:  # another pass of the same script, e.g. bench/data/guarded-cost-interleaved-2.0.jsonl
    DATA = Path(sys.argv[1]).resolve()
SERVER = DATA.with_name(DATA.name.replace(".jsonl", "-server.jsonl"))
RESAMPLES = 2000


def load() -> dict[str, dict[str, dict]]:
    by: dict[str, dict[str, dict]] = {}
    for row in map(json.loads, DATA.open()):
        by.setdefault(row["id"], {})[row["judge"]] = row
    return {ident: pair for ident, pair in by.items() if len(pair) == 3}


def tokens(row: dict) -> float:
    usage = row.get("usage") or {}
    return float((usage.get("input_tokens") or 0) + (usage.get("output_tokens") or 0))


def requests(row: dict) -> float:
    return float((row.get("usage") or {}).get("requests") or 0)


def ratio_ci(a: np.ndarray, b: np.ndarray, stat, seed: int = 0) -> tuple[float, float, float]:  # type: ignore[no-untyped-def]
    """stat(b) / stat(a) with a percentile bootstrap over answers (paired)."""
    rng = np.random.default_rng(seed)
    n = a.shape[0]
    draws = rng.integers(0, n, size=(RESAMPLES, n))
    values = np.array([stat(b[d]) / stat(a[d]) for d in draws])
    return float(stat(b) / stat(a)), float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))


def rows_for(pairs: dict[str, dict[str, dict]], keep, arm: str) -> list[str]:  # type: ignore[no-untyped-def]
    chosen = [p for p in pairs.values() if keep(p)]
    if not chosen:
        return []
    out = []
    for what, get in (("seconds a run spends on it", lambda r: float(r["wall_s"])),
                      ("requests", requests), ("tokens (in + out)", tokens)):
        a = np.array([get(p["llm"]) for p in chosen])
        b = np.array([get(p[arm]) for p in chosen])
        med = ratio_ci(a, b, np.median)
        mean = ratio_ci(a, b, np.mean)
        out.append(f"| {what} | {len(chosen)} | {np.median(a):.3g} / {np.mean(a):.3g} | {np.median(b):.3g} / "
                   f"{np.mean(b):.3g} | {med[0]:.2f}× [{med[1]:.2f}, {med[2]:.2f}] | {mean[0]:.2f}× [{mean[1]:.2f}, {mean[2]:.2f}] |")
    return out


def server_table() -> None:
    """What the server did per answer, from its own counters (``--metrics``): prompt tokens it had to
    process and those its prompt cache served, prompt seconds; ratios to ``llm`` over whole blocks."""
    per: dict[int, dict[str, dict]] = {}
    for row in map(json.loads, SERVER.open()):
        per.setdefault(row["block"], {})[row["judge"]] = row
    whole = [b for b in per.values() if len(b) == 3]
    if not whole:
        return
    rng = np.random.default_rng(0)
    draws = rng.integers(0, len(whole), size=(RESAMPLES, len(whole)))
    answers = sum(b["llm"]["answers"] for b in whole)
    print(f"\nthe server's own counters (llama-server --metrics), {len(whole)} blocks, {answers} answers; ratio to `llm` "
          "over blocks (95 % bootstrap):\n")
    print("| per answer | `llm` | `llm-guarded` one at a time | `llm-guarded` batch (reductions first: withdrawn) |")
    print("|---|---|---|---|")
    for key, said in (("prompt_tokens_total", "prompt tokens the server processed"),
                      ("prompt_tokens_cached_total", "prompt tokens its cache served"),
                      ("prompt_seconds_total", "prompt seconds"),
                      ("tokens_predicted_total", "tokens generated")):
        base = np.array([b["llm"].get(key, 0.0) for b in whole])
        cells = [f"{base.sum() / answers:.1f}"]
        for arm in ("llm-guarded", "llm-guarded-batch"):
            value = np.array([b[arm].get(key, 0.0) for b in whole])
            if base.sum() > 0:
                boot = value[draws].sum(axis=1) / np.maximum(base[draws].sum(axis=1), 1e-9)
                cells.append(f"{value.sum() / answers:.1f} ({value.sum() / base.sum():.2f}× [{np.percentile(boot, 2.5):.2f}, "
                             f"{np.percentile(boot, 97.5):.2f}])")
            else:
                cells.append(f"{value.sum() / answers:.1f}")
        print(f"| {said} | " + " | ".join(cells) + " |")


def main() -> int:
    pairs = load()
    if not pairs:
        print(f"no answer judged by both in {DATA}", file=sys.stderr)
        return 1
    rows = [json.loads(line) for line in DATA.open()]
    load_avg = [r["load1"] for r in rows]
    arms = ("llm", "llm-guarded", "llm-guarded-batch")
    unscored = {j: sum(1 for p in pairs.values() if p[j]["unscored"]) for j in arms}
    print(f"{len(pairs)} EVOUNA-NQ confirm answers judged by all three arms in blocks (load average {min(load_avg):.1f}–"
          f"{max(load_avg):.1f}, median {np.median(load_avg):.1f}); unscored: "
          + ", ".join(f"{j} {n}" for j, n in unscored.items()) + f"; model {rows[0]['model']}, server {rows[0]['server_flags']}")
    same = sum(1 for p in pairs.values() if p["llm-guarded"]["verdict"] == p["llm-guarded-batch"]["verdict"])
    print(f"llm-guarded one at a time and in a batch gave the same verdict on {same} of {len(pairs)} answers")
    blocks: dict[int, dict[str, float]] = {}
    for r in rows:
        if r["id"] in pairs:
            blocks.setdefault(r["block"], {}).setdefault(r["judge"], 0.0)
            blocks[r["block"]][r["judge"]] += float(r["wall_s"])
    whole = [b for b in blocks.values() if len(b) == 3]
    if whole:
        answers = sum(1 for r in rows if r["judge"] == "llm" and len(blocks.get(r["block"], {})) == 3)
        rng = np.random.default_rng(0)
        print(f"\nper block of answers, the run's seconds against llm's (ratio of totals, 95 % bootstrap over "
              f"{len(whole)} blocks; the fairest figure: a batch's time cannot be split by answer):")
        for arm in ("llm-guarded", "llm-guarded-batch"):
            a = np.array([b["llm"] for b in whole])
            g = np.array([b[arm] for b in whole])
            draws = rng.integers(0, len(whole), size=(RESAMPLES, len(whole)))
            boot = g[draws].sum(axis=1) / a[draws].sum(axis=1)
            print(f"  {arm}: {g.sum() / a.sum():.2f}× [{np.percentile(boot, 2.5):.2f}, {np.percentile(boot, 97.5):.2f}] "
                  f"({g.sum() / answers:.2f} s an answer against {a.sum() / answers:.2f})")
    if SERVER.exists():
        server_table()
    for arm, said in (("llm-guarded", "one answer at a time (reduction, verdict, reduction, ...)"),
                      ("llm-guarded-batch", "a batch: every reduction, then every verdict (measured, withdrawn)")):
        head = [f"| per answer | n | `llm` median / mean | `{arm}` median / mean | ratio of medians | ratio of means |",
                "|---|---|---|---|---|---|"]
        for title, keep in (("all answers", lambda p: True),
                            ("already a short answer (one call)", lambda p: p["llm"]["short_answer"]),
                            ("sentences (reduction + verdict)", lambda p: not p["llm"]["short_answer"])):
            print(f"\n{arm}, {said}: {title}\n")
            print("\n".join(head + rows_for(pairs, keep, arm)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
