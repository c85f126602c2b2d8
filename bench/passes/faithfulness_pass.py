"""Stored model pass: the project's own faithfulness judge (default `llm`) over the BEGIN dev answers
(shared/benchmarks/begin-dev), in a seeded order, confirm half first, one JSONL row per answer, resumable (answers
already in OUT are skipped). The half of each answer comes from bench/splits.py. Run with the project's venv python
and a llama-server on BASE; nothing else busy on the machine.
  python bench/passes/faithfulness_pass.py bench/data/begin-faithfulness-llm.jsonl --judge llm \
      --base http://127.0.0.1:8091/v1 --model qwen2.5-coder:1.5b --server-flags "-np 1 -c 8192 --no-repack"
"""
import argparse, json, os, random, sys, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from splits import BENCHMARKS, half_of  # noqa: E402
from ragjury import RagjurySettings, build_judge  # noqa: E402
from ragjury.rag_agent.core.items import FaithfulnessItem  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("out"); ap.add_argument("--judge", default="llm"); ap.add_argument("--seed", type=int, default=15)
ap.add_argument("--base", default="http://127.0.0.1:8091/v1"); ap.add_argument("--model", default="qwen2.5-coder:1.5b")
ap.add_argument("--server-flags", default="-np 1 -c 8192 --no-repack")
ap.add_argument("--data", default=str(BENCHMARKS / "begin-dev" / "faithfulness.jsonl"))
a = ap.parse_args()
rows = [json.loads(l) for l in open(a.data) if l.strip()]
random.Random(a.seed).shuffle(rows)
rows.sort(key=lambda o: half_of("begin-dev", o) != "confirm")  # confirm first, stable within a half
done = set()
if os.path.exists(a.out):
    done = {(json.loads(l)["id"], json.loads(l)["judge"]) for l in open(a.out) if l.strip()}
settings = RagjurySettings(base_url=a.base, judge_model=a.model, concurrency=1)
judge = build_judge("faithfulness", a.judge, settings)
todo = [o for o in rows if (o["id"], a.judge) not in done]
print(f"{len(rows)} answers, {len(todo)} to judge with {a.judge}", file=sys.stderr)
t0 = time.time()
with open(a.out, "a") as f:
    for i, o in enumerate(todo, 1):
        j = judge.judge_sync(FaithfulnessItem(answer=o["answer"], contexts=[o["context"]], question=o["question"]))
        v = j.value.model_dump() if j.value is not None else None
        row = {"id": o["id"], "system": o["system"], "half": half_of("begin-dev", o), "label": o.get("label"),
               "judge": a.judge, "value": v, "unscored": j.unscored, "unscored_reason": j.unscored_reason,
               "prompt_version": j.prompt_version, "model": j.model, "server_flags": a.server_flags,
               "latency_s": round(j.latency_s or 0, 3), "usage": j.usage.model_dump() if j.usage else None}
        f.write(json.dumps(row) + "\n"); f.flush()
        if i % 25 == 0:
            print(f"{i}/{len(todo)} {(time.time() - t0) / i:.2f} s/answer", file=sys.stderr)
print(f"done: {len(todo)} in {time.time() - t0:.0f} s", file=sys.stderr)
