"""What the guarded default costs against the one-call ``llm``: seconds, requests and tokens per answer, interleaved.

Reads the stored pass ``bench/data/guarded-cost-interleaved.jsonl`` (``bench/passes/guarded_cost_pass.py``: per
answer, both judges one right after the other in a seeded order, one request at a time, so both see the same load)
and prints, over the answers both judged: median and mean seconds, requests and tokens per answer for each, the
ratios guarded / llm with 95 % bootstrap intervals over answers, and the same for answers that are already a short
answer (one call) and the rest (two). The issue's goal: ≤ 1.3× the one-call ``llm``.

    python bench/bench_guarded_cost.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "guarded-cost-interleaved.jsonl"
RESAMPLES = 2000


def load() -> dict[str, dict[str, dict]]:
    by: dict[str, dict[str, dict]] = {}
    for row in map(json.loads, DATA.open()):
        by.setdefault(row["id"], {})[row["judge"]] = row
    return {ident: pair for ident, pair in by.items() if len(pair) == 2}


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


def rows_for(pairs: dict[str, dict[str, dict]], keep) -> list[str]:  # type: ignore[no-untyped-def]
    chosen = [p for p in pairs.values() if keep(p)]
    if not chosen:
        return []
    out = []
    for what, get in (("seconds (the judge's latency)", lambda r: float(r["latency_s"])),
                      ("requests", requests), ("tokens (in + out)", tokens)):
        a = np.array([get(p["llm"]) for p in chosen])
        b = np.array([get(p["llm-guarded"]) for p in chosen])
        med = ratio_ci(a, b, np.median)
        mean = ratio_ci(a, b, np.mean)
        out.append(f"| {what} | {len(chosen)} | {np.median(a):.3g} / {np.mean(a):.3g} | {np.median(b):.3g} / "
                   f"{np.mean(b):.3g} | {med[0]:.2f}× [{med[1]:.2f}, {med[2]:.2f}] | {mean[0]:.2f}× [{mean[1]:.2f}, {mean[2]:.2f}] |")
    return out


def main() -> int:
    pairs = load()
    if not pairs:
        print(f"no answer judged by both in {DATA}", file=sys.stderr)
        return 1
    rows = [json.loads(line) for line in DATA.open()]
    load_avg = [r["load1"] for r in rows]
    unscored = {j: sum(1 for p in pairs.values() if p[j]["unscored"]) for j in ("llm", "llm-guarded")}
    print(f"{len(pairs)} EVOUNA-NQ confirm answers judged by both, interleaved (load average {min(load_avg):.1f}–"
          f"{max(load_avg):.1f}, median {np.median(load_avg):.1f}); unscored: llm {unscored['llm']}, "
          f"llm-guarded {unscored['llm-guarded']}; model {rows[0]['model']}, server {rows[0]['server_flags']}")
    head = ["| per answer | n | `llm` median / mean | `llm-guarded` median / mean | ratio of medians | ratio of means |",
            "|---|---|---|---|---|---|"]
    for title, keep in (("all answers", lambda p: True),
                        ("already a short answer (one call)", lambda p: p["llm"]["short_answer"]),
                        ("sentences (reduction + verdict)", lambda p: not p["llm"]["short_answer"])):
        print(f"\n{title}\n")
        print("\n".join(head + rows_for(pairs, keep)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
