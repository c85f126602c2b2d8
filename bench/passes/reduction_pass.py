"""Stored model pass: the short answer ``llm-guarded`` judged (``judged_answer``), with its verdict, on the injection
set's correctness pairs (clean and injected), so the reduction's own flip rate can be measured: how often one sentence
addressed to the grader changes the short answer itself (#54 item 25). Resumable; one request at a time.

    python bench/passes/reduction_pass.py --half confirm --base http://127.0.0.1:8091/v1
"""
import argparse, json, sys, time
from pathlib import Path

from ragjury import RagjurySettings, build_judge
from ragjury.rag_agent.core.items import CorrectnessItem

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data"
ap = argparse.ArgumentParser()
ap.add_argument("--half", default="confirm"); ap.add_argument("--base", default="http://127.0.0.1:8091/v1")
ap.add_argument("--model", default="qwen2.5-coder:1.5b"); ap.add_argument("--server-flags", default="-np 1 -c 8192 --no-repack")
ap.add_argument("--out", default=str(DATA / "injection-correctness-reduction.jsonl"))
a = ap.parse_args()
rows = [r for r in map(json.loads, open(DATA / "injection-set.jsonl"))
        if r["task"] == "correctness" and r["half"] == a.half and r["variant"] in ("clean", "injected")]
out = Path(a.out)
done = {(o["pair"], o["variant"]) for o in map(json.loads, open(out))} if out.exists() else set()
todo = [r for r in rows if (r["pair"], r["variant"]) not in done]
judge = build_judge("correctness", "llm-guarded", RagjurySettings(base_url=a.base, judge_model=a.model, concurrency=1))
print(f"{len(todo)} items to judge", file=sys.stderr)
t0 = time.time()
with open(out, "a") as f:
    for i, r in enumerate(todo, 1):
        j = judge.judge_sync(CorrectnessItem(question=r["question"], answer=r["answer"], references=r["references"]))
        v = j.value.model_dump() if j.value is not None else None
        f.write(json.dumps({
            "pair": r["pair"], "variant": r["variant"], "id": r["id"], "half": a.half, "label": r["label"],
            "judged_answer": j.judged_answer, "verdict": None if v is None else int(v["verdict"]),
            "probability": None if v is None else v.get("probability"), "unscored": j.unscored,
            "unscored_reason": j.unscored_reason, "prompt_version": j.prompt_version, "model": j.model,
            "server_flags": a.server_flags, "latency_s": round(j.latency_s or 0, 3),
            "usage": j.usage.model_dump() if j.usage else None}) + "\n")
        f.flush()
        if i % 20 == 0:
            print(f"{i}/{len(todo)} {(time.time() - t0) / i:.2f} s/item", file=sys.stderr)
print(f"done: {len(todo)} in {time.time() - t0:.0f} s", file=sys.stderr)
