"""Stored model pass: a rubric judge (``rubric:FILE``) over EVOUNA-NQ answers, in the same order and on the same
answers as correctness_pass.py (seeded question order, all answers of a question together), one JSONL row per answer,
resumable (answers already in OUT are skipped). The rubric restates the built-in correctness question, so its figures
can be compared with the ``llm`` judge's on the same items. Run with the project's venv python and a llama-server on
BASE; nothing else busy on the machine.
  python bench/passes/rubric_pass.py bench/data/evouna-nq-correctness-rubric.jsonl \
      --rubric bench/rubrics/states-reference-fact.yaml --splits bench/splits/evouna-nq.json --half confirm \
      --base http://127.0.0.1:8091/v1 --model qwen2.5-coder:1.5b
"""
import argparse, json, os, random, sys, time
from pathlib import Path

from ragjury import RagjurySettings, build_judge
from ragjury.rag_agent.core.items import CorrectnessItem

ap = argparse.ArgumentParser()
ap.add_argument("out"); ap.add_argument("--rubric", required=True); ap.add_argument("--splits", required=True)
ap.add_argument("--half", default="confirm"); ap.add_argument("--seed", type=int, default=15)
ap.add_argument("--base", default="http://127.0.0.1:8091/v1"); ap.add_argument("--model", default="qwen2.5-coder:1.5b")
ap.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "evouna-nq" / "correctness.jsonl"))
ap.add_argument("--server-flags", default="-np 1 -c 8192 --no-repack")
a = ap.parse_args()
keep = set(json.load(open(a.splits))[a.half])
by_q = {}
for l in open(a.data):
    if l.strip():
        o = json.loads(l); q = o["id"].rsplit("-", 1)[0]
        if q in keep: by_q.setdefault(q, []).append(o)
qs = sorted(by_q); random.Random(a.seed).shuffle(qs)
spec = f"rubric:{a.rubric}"
done = set()
if os.path.exists(a.out):
    done = {json.loads(l)["id"] for l in open(a.out) if l.strip()}
settings = RagjurySettings(base_url=a.base, judge_model=a.model, concurrency=1)
judge = build_judge("correctness", spec, settings)
todo = [o for q in qs for o in sorted(by_q[q], key=lambda o: o["id"]) if o["id"] not in done]
print(f"{sum(map(len, by_q.values()))} answers in the {a.half} half, {len(todo)} to judge with {spec}", file=sys.stderr)
t0 = time.time()
with open(a.out, "a") as f:
    for i, o in enumerate(todo, 1):
        j = judge.judge_sync(CorrectnessItem(question=o["question"], answer=o["answer"], references=o["references"]))
        v = j.value.model_dump() if j.value is not None else None
        row = {"id": o["id"], "system": o["system"], "judge": judge.name, "value": v, "unscored": j.unscored,
               "unscored_reason": j.unscored_reason, "prompt_version": j.prompt_version, "model": j.model,
               "server_flags": a.server_flags, "latency_s": round(j.latency_s or 0, 3),
               "usage": j.usage.model_dump() if j.usage else None}
        f.write(json.dumps(row) + "\n"); f.flush()
        if i % 25 == 0:
            print(f"{i}/{len(todo)} {(time.time() - t0) / i:.2f} s/answer", file=sys.stderr)
