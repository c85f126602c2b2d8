"""The guarded correctness judge with its reduction skipped on short answers: what it keeps and what it saves,
from stored passes only.

    python bench/bench_short_answers.py

- **Who skips** (``rag_agent/judges/llm/short_answers.is_short_answer``): per half and kind of the injection set
  (no injected item may pass the rule) and per system of EVOUNA-NQ.
- **Flip rate** on the injection set's confirm half: the shipped ``llm-guarded`` judgments
  (``injection-correctness-shipped.jsonl``) with the short items replaced by the new pass
  (``short-answer-correctness-llm-guarded.jsonl``; every other item is asked the very same two calls, so its stored
  judgment stands), against today's: paired difference with a 95 % bootstrap interval over pairs.
- **Kappa on clean answers**: the 710 EVOUNA-NQ confirm answers of ``evouna-nq-correctness-llm-guarded.jsonl``,
  today's guarded judge vs the guarded judge with the skip (short answers from the new pass), and the one-call
  ``llm`` on the same answers; paired differences with a 95 % bootstrap over questions.
- **Cost**: requests, tokens and seconds per answer (median and mean) for the three, on the same answers.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))
from splits import BENCHMARKS, half_of  # noqa: E402

from ragjury.rag_agent.judges.llm.short_answers import is_short_answer  # noqa: E402

DATA = HERE / "data"
NEW = DATA / "short-answer-correctness-llm-guarded.jsonl"
RESAMPLES = 2000


def kappa(y: np.ndarray, p: np.ndarray) -> float:
    po = float(np.mean(y == p))
    pe = float(np.mean(y) * np.mean(p) + (1 - np.mean(y)) * (1 - np.mean(p)))
    return float("nan") if pe >= 1 else (po - pe) / (1 - pe)


def who_skips() -> list[str]:
    lines = ["## Who skips the reduction", "", "| set | half | kind | items | short (skip) |", "|---|---|---|---|---|"]
    counts: Counter[tuple[str, str, bool]] = Counter()
    for row in map(json.loads, (DATA / "injection-set.jsonl").open()):
        if row["task"] == "correctness":
            counts[(row["half"], row["variant"], is_short_answer(row["answer"]))] += 1
    for half in ("tune", "confirm"):
        for kind in ("clean", "injected", "benign", "dev"):
            short, long = counts[(half, kind, True)], counts[(half, kind, False)]
            lines.append(f"| injection set | {half} | {kind} | {short + long} | {short} |")
    systems: Counter[tuple[str, str, bool]] = Counter()
    for row in map(json.loads, (BENCHMARKS / "evouna-nq" / "correctness.jsonl").open()):
        systems[(half_of("evouna-nq", row), row["system"], is_short_answer(row["answer"]))] += 1
    for half in ("tune", "confirm"):
        for system in sorted({s for _, s, _ in systems}):
            short, long = systems[(half, system, True)], systems[(half, system, False)]
            lines.append(f"| EVOUNA-NQ | {half} | {system} | {short + long} | {short} ({short / (short + long):.1%}) |")
    return lines


def new_rows() -> dict[tuple[str, str, str | None], dict]:
    if not NEW.exists():
        return {}
    return {(r["source"], r["id"], r["case"]): r for r in map(json.loads, NEW.open())}


def flip_table(new: dict) -> list[str]:
    shipped = [r for r in map(json.loads, (DATA / "injection-correctness-shipped.jsonl").open()) if r["half"] == "confirm"]
    lines = ["## Flip rate, injection set confirm half (60 wrong answers, clean vs with one sentence to the grader)", "",
             "| judge | pairs | yes clean | yes injected | flip rate [95 % CI] | items from the new pass |", "|---|---|---|---|---|---|"]
    for name, swap in (("llm-guarded today", False), ("llm-guarded, short answers not reduced", True)):
        pairs: dict[str, dict[str, int]] = defaultdict(dict)
        replaced = 0
        for r in shipped:
            verdict = r["verdict"]
            key = ("injection", r["id"], f"{r['pair']}/{r['variant']}")
            if swap and key in new:
                verdict, replaced = new[key]["verdict"], replaced + 1
            elif swap and r["variant"] in ("clean", "injected") and is_short_answer(_injection_answer(r)):
                return lines + [f"| {name} | the new pass lacks {key} | | | | |"]
            pairs[r["pair"]][r["variant"]] = verdict
        both = [p for p in pairs.values() if p.get("clean") is not None and p.get("injected") is not None]
        diff = np.array([p["injected"] - p["clean"] for p in both], dtype=float)
        rng = np.random.default_rng(0)
        draws = [np.mean(diff[rng.integers(0, len(diff), len(diff))]) for _ in range(RESAMPLES)]
        lines.append(f"| {name} | {len(both)} | {sum(p['clean'] for p in both)} | {sum(p['injected'] for p in both)} | "
                     f"{np.mean(diff):+.3f} [{np.percentile(draws, 2.5):+.3f}, {np.percentile(draws, 97.5):+.3f}] | {replaced} |")
    return lines


_SET: dict[tuple[str, str], str] = {}


def _injection_answer(row: dict) -> str:
    if not _SET:
        for r in map(json.loads, (DATA / "injection-set.jsonl").open()):
            if r["task"] == "correctness":
                _SET[(r["pair"], r["variant"])] = r["answer"]
    return _SET[(row["pair"], row["variant"])]


def clean_tables(new: dict) -> list[str]:
    answers = {r["id"]: r for r in map(json.loads, (BENCHMARKS / "evouna-nq" / "correctness.jsonl").open())}
    guarded = {r["id"]: r for r in map(json.loads, (DATA / "evouna-nq-correctness-llm-guarded.jsonl").open())}
    llm = {r["id"]: r for r in map(json.loads, (DATA / "evouna-nq-correctness-llm.jsonl").open())}
    ids = sorted(i for i in guarded if i in llm)
    short = [i for i in ids if is_short_answer(answers[i]["answer"])]
    missing = [i for i in short if ("evouna-nq", i, None) not in new]
    if missing:
        return ["", f"## Clean answers: the new pass holds {len(short) - len(missing)} of the {len(short)} short answers; run "
                    "bench/passes/short_answer_pass.py"]
    def row_of(name: str, i: str) -> dict:
        if name == "llm":
            r = llm[i]
        elif name == "skip" and i in short:
            n = new[("evouna-nq", i, None)]
            return {"verdict": n["verdict"], "unscored": n["unscored"], "latency": n["latency_s"], "usage": n["usage"]}
        else:
            r = guarded[i]
        v = r["value"] or {}
        return {"verdict": None if r["unscored"] else int(v["verdict"]), "unscored": r["unscored"],
                "latency": r["latency_s"], "usage": r["usage"]}
    names = ("llm", "guarded", "skip")
    rows = {name: [row_of(name, i) for i in ids] for name in names}
    scored = [k for k in range(len(ids)) if all(not rows[n][k]["unscored"] for n in names)]
    y = np.array([bool(answers[ids[k]]["label"]) for k in scored], dtype=float)
    v = {n: np.array([rows[n][k]["verdict"] for k in scored], dtype=float) for n in names}
    questions = defaultdict(list)
    for pos, k in enumerate(scored):
        questions[ids[k].rsplit("-", 1)[0]].append(pos)
    groups = list(questions.values())
    rng = np.random.default_rng(0)
    boots = defaultdict(list)
    for _ in range(RESAMPLES):
        take = np.concatenate([groups[g] for g in rng.integers(0, len(groups), len(groups))])
        ks = {n: kappa(y[take], v[n][take]) for n in names}
        boots["skip - guarded"].append(ks["skip"] - ks["guarded"])
        boots["skip - llm"].append(ks["skip"] - ks["llm"])
        for n in names:
            boots[n].append(ks[n])
    def ci(key: str) -> str:
        return f"[{np.percentile(boots[key], 2.5):+.3f}, {np.percentile(boots[key], 97.5):+.3f}]"
    lines = ["", f"## Clean EVOUNA-NQ confirm answers ({len(ids)} answers, {len(short)} short; {len(scored)} scored by all three; "
                 f"95 % bootstrap over {len(groups)} questions)", "",
             "| judge | kappa vs people [95 % CI] | said correct | requests / answer | tokens / answer (in + out) | s / answer median (mean) |",
             "|---|---|---|---|---|---|"]
    for n, label in (("llm", "llm (one call)"), ("guarded", "llm-guarded today"), ("skip", "llm-guarded, short answers not reduced")):
        req = np.mean([r["usage"]["requests"] for r in rows[n]])
        tok = np.mean([r["usage"]["input_tokens"] + r["usage"]["output_tokens"] for r in rows[n]])
        lat = [r["latency"] for r in rows[n]]
        lines.append(f"| {label} | {kappa(y, v[n]):.3f} {ci(n)} | {np.mean(v[n]):.1%} | {req:.2f} | {tok:.0f} | "
                     f"{np.median(lat):.2f} ({np.mean(lat):.2f}) |")
    lines += ["", f"kappa, skip − today's guarded: {kappa(y, v['skip']) - kappa(y, v['guarded']):+.3f} {ci('skip - guarded')}; "
                  f"skip − llm: {kappa(y, v['skip']) - kappa(y, v['llm']):+.3f} {ci('skip - llm')}",
              f"verdicts changed by the skip: {int(np.sum(v['skip'] != v['guarded']))} of {len(scored)} (all on short answers)"]
    tok = {n: np.mean([r["usage"]["input_tokens"] + r["usage"]["output_tokens"] for r in rows[n]]) for n in names}
    lat = {n: np.median([r["latency"] for r in rows[n]]) for n in names}
    lines.append(f"cost ratio to llm: tokens {tok['guarded'] / tok['llm']:.2f}x today -> {tok['skip'] / tok['llm']:.2f}x; "
                 f"median seconds {lat['guarded'] / lat['llm']:.2f}x -> {lat['skip'] / lat['llm']:.2f}x "
                 "(seconds were measured in passes on differently loaded machines: tokens are the steadier figure)")
    return lines


def reduction_table() -> list[str]:
    """The reduction's own flip rate (#54 item 25): on the injection set's confirm pairs, how often the sentence
    addressed to the grader changed the short answer itself (``injection-correctness-reduction.jsonl``: the
    ``judged_answer`` of each clean and injected answer), and how often that change flipped the verdict to yes."""
    path = DATA / "injection-correctness-reduction.jsonl"
    if not path.exists():
        return []
    pairs: dict[str, dict[str, dict]] = defaultdict(dict)
    for row in map(json.loads, path.open()):
        pairs[row["pair"]][row["variant"]] = row
    both = [p for p in pairs.values() if "clean" in p and "injected" in p
            and not p["clean"]["unscored"] and not p["injected"]["unscored"]]
    unscored = sum(r["unscored"] for p in pairs.values() for r in p.values())
    if not both:
        return []

    def norm(text: str | None) -> str:
        return " ".join((text or "").lower().strip(" .").split())

    changed = [p for p in both if norm(p["clean"]["judged_answer"]) != norm(p["injected"]["judged_answer"])]
    flipped = [p for p in changed if p["injected"]["verdict"] and not p["clean"]["verdict"]]
    lines = ["", f"## The reduction under injection (confirm half, {len(both)} pairs both scored, {unscored} unscored)", "",
             f"short answer changed by the sentence: {len(changed)} of {len(both)} pairs "
             f"({len(changed) / len(both):.1%} [{_wilson(len(changed), len(both))}]); of those, verdict flipped to yes: "
             f"{len(flipped)}", ""]
    for p in changed[:12]:
        lines.append(f"- {p['clean']['id']}: {p['clean']['judged_answer']!r} -> {p['injected']['judged_answer']!r} "
                     f"(verdict {p['clean']['verdict']} -> {p['injected']['verdict']})")
    return lines


def _wilson(k: int, n: int) -> str:
    z = 1.96
    centre = (k / n + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(k / n * (1 - k / n) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{max(0.0, centre - half):.1%}, {min(1.0, centre + half):.1%}"


def main() -> None:
    new = new_rows()
    print("\n".join(who_skips() + [""] + flip_table(new) + clean_tables(new) + reduction_table()))


if __name__ == "__main__":
    main()
