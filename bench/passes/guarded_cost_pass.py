"""Stored model pass: what the guarded default costs against the one-call ``llm``, interleaved so both see one load.

A seeded sample of the 710 EVOUNA-NQ confirm answers of ``evouna-nq-correctness-llm-guarded.jsonl``, in blocks of
``--block`` answers: each arm judges the block's answers one after another, then the next arm the same answers
(the arms' order: seeded per block): ``llm``; ``llm-guarded`` one answer at a time; ``llm-guarded-batch``, the
block through ``ajudge_batch`` (the arm measured a change, since withdrawn, that asked every reduction of a batch
first, then every verdict; without it, this arm asks as a run does: reduction and verdict per answer, ``concurrency``
at a time); one request at a time, no run cache: seconds (the judge's own
latency), requests and tokens of each, with the load average at that moment. Blocks, not one answer each: a run
judges answer after answer with one judge; judges alternating answer by answer is not what a run does (a first
attempt that did so read 3× the seconds for the same tokens, at a load that made seconds unreadable; the server's
counters, stored since, show its prompt cache keeping both of the guarded judge's instructions anyway). Both judges
of a block see about the same load. Resumable (a block is redone whole).

    python bench/passes/guarded_cost_pass.py --base http://127.0.0.1:8091/v1 --server-flags "-np 1 -c 8192 --no-repack --metrics"

The server must run with ``--metrics``: per block and arm, ``*-server.jsonl`` keeps the prompt tokens the server
had to process and those it took from its cache (its counters' differences) — what the order of calls changes,
whatever the load — beside the seconds.
"""
import argparse
import asyncio
import json
import os
import random
import sys
import time
from pathlib import Path

from ragjury import RagjurySettings, build_judge
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.judges.llm.short_answers import is_short_answer

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data"
ap = argparse.ArgumentParser()
ap.add_argument("--base", default="http://127.0.0.1:8091/v1")
ap.add_argument("--model", default="qwen2.5-coder:1.5b")
ap.add_argument("--server-flags", default="-np 1 -c 8192 --no-repack --metrics")
ap.add_argument("--answers", type=int, default=96)
ap.add_argument("--seed", type=int, default=0)
ap.add_argument("--block", type=int, default=8)
ap.add_argument("--evouna", default=str(HERE.parents[2] / "shared" / "benchmarks" / "evouna-nq" / "correctness.jsonl"))
ap.add_argument("--out", default=str(DATA / "guarded-cost-interleaved.jsonl"))
a = ap.parse_args()
by_id = {o["id"]: o for o in map(json.loads, open(a.evouna))}
ids = [row["id"] for row in map(json.loads, open(DATA / "evouna-nq-correctness-llm-guarded.jsonl"))]
rng = random.Random(a.seed)
sample = rng.sample(ids, min(a.answers, len(ids)))
out = Path(a.out)
done = {(o["id"], o["judge"]) for o in map(json.loads, open(out))} if out.exists() else set()
# a block is kept only whole (both judges on every answer): a partial one is dropped and redone
if out.exists():
    kept = [o for o in map(json.loads, open(out))]
    whole = {o["block"] for o in kept} - {o["block"] for o in kept
                                          if sum(1 for p in kept if p["block"] == o["block"]) < 3 * a.block}
    done = {(o["id"], o["judge"]) for o in kept if o["block"] in whole}
settings = RagjurySettings(base_url=a.base, judge_model=a.model, concurrency=1)
judges = {name: build_judge("correctness", name, settings) for name in ("llm", "llm-guarded")}
ARMS = ("llm", "llm-guarded", "llm-guarded-batch")
"""``llm-guarded``: one answer at a time (reduction, verdict, reduction, ...: the order before #55's batching);
``llm-guarded-batch``: the block through ``ajudge_batch`` (every reduction, then every verdict), as a run does now."""
print(f"{len(sample)} answers, {len(done)} judgments already stored", file=sys.stderr)
t0 = time.time()
blocks = [sample[k:k + a.block] for k in range(0, len(sample), a.block)]
SERVER = Path(str(out).replace(".jsonl", "-server.jsonl"))
METRICS = a.base.rsplit("/v1", 1)[0] + "/metrics"


def metrics() -> dict[str, float]:
    """llama-server's counters (``--metrics``): prompt tokens it processed and took from its cache, seconds."""
    import urllib.request

    text = urllib.request.urlopen(METRICS, timeout=10).read().decode()
    return {line.split()[0].split(":", 1)[1]: float(line.split()[1]) for line in text.splitlines()
            if line.startswith("llamacpp:") and len(line.split()) == 2}


def row(ident: str, name: str, b: int, position: int, j, wall: float) -> str:  # type: ignore[no-untyped-def]
    o = by_id[ident]
    v = j.value.model_dump() if j.value is not None else None
    return json.dumps({
        "id": ident, "system": o.get("system"), "judge": name, "block": b, "position": position,
        "short_answer": is_short_answer(o["answer"] or " "), "label": o["label"],
        "verdict": None if v is None else int(v["verdict"]), "probability": None if v is None else v.get("probability"),
        "unscored": j.unscored, "unscored_reason": j.unscored_reason, "prompt_version": j.prompt_version,
        "model": j.model, "server_flags": a.server_flags, "latency_s": round(j.latency_s or 0, 3),
        "wall_s": round(wall, 3), "load1": round(os.getloadavg()[0], 2),
        "usage": j.usage.model_dump() if j.usage else None}) + "\n"


with open(out, "a") as f:
    for b, block in enumerate(blocks, 1):
        order = list(ARMS)
        random.Random(f"{a.seed}:block{b}").shuffle(order)
        if all((ident, name) in done for ident in block for name in order):
            continue
        items = [CorrectnessItem(question=by_id[i]["question"], answer=by_id[i]["answer"] or " ",
                                 references=by_id[i]["references"]) for i in block]
        for position, name in enumerate(order):
            before = metrics()
            if name == "llm-guarded-batch":  # the whole block at once: wall time shared out evenly
                started = time.perf_counter()
                out_batch = asyncio.run(judges["llm-guarded"].ajudge_batch(items))
                wall = (time.perf_counter() - started) / len(items)
                for ident, j in zip(block, out_batch):
                    f.write(row(ident, name, b, position, j, wall))
            else:
                for ident, item in zip(block, items):
                    started = time.perf_counter()
                    j = judges[name].judge_sync(item)
                    f.write(row(ident, name, b, position, j, time.perf_counter() - started))
            f.flush()
            after = metrics()
            with SERVER.open("a") as g:  # what the server did for this arm's block: independent of the load
                g.write(json.dumps({"block": b, "judge": name, "position": position, "answers": len(block),
                                    "load1": round(os.getloadavg()[0], 2),
                                    **{key: round(after[key] - before.get(key, 0.0), 3) for key in (
                                        "prompt_tokens_total", "prompt_tokens_cached_total", "prompt_seconds_total",
                                        "tokens_predicted_total", "tokens_predicted_seconds_total")
                                       if key in after}}) + "\n")
        print(f"block {b}/{len(blocks)} {(time.time() - t0) / b:.1f} s/block", file=sys.stderr)
print(f"done in {time.time() - t0:.0f} s", file=sys.stderr)
