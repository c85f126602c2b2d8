"""Stored model pass: a judge variant (bench/injection/variants.py) over the injection set
(bench/data/injection-set.jsonl), one JSONL row per item, resumable (items already in OUT skipped).
Run with the project's venv python and a llama-server on BASE; nothing else busy on the machine.
  python bench/passes/injection_pass.py --task correctness --variant v1 --half tune \
      --base http://127.0.0.1:8091/v1 --model qwen2.5-coder:1.5b --server-flags "-np 1 -c 8192 --no-repack"
Output: bench/data/injection-<task>-<variant>.jsonl (every row says model, prompt version and server flags).
"""
import argparse, json, os, sys, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "injection"))
from ragjury import RagjurySettings  # noqa: E402
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem, RelevanceItem  # noqa: E402
from ragjury.rag_agent.core.labels import binary_label  # noqa: E402
from variants import judge_class  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--task", required=True); ap.add_argument("--variant", required=True)
ap.add_argument("--half", default="tune"); ap.add_argument("--kinds", default="clean,injected,benign,dev")
ap.add_argument("--base", default="http://127.0.0.1:8091/v1"); ap.add_argument("--model", default="qwen2.5-coder:1.5b")
ap.add_argument("--server-flags", default="-np 1 -c 8192 --no-repack")
ap.add_argument("--set", default=str(HERE.parent / "data" / "injection-set.jsonl"))
ap.add_argument("--out")
a = ap.parse_args()
out = Path(a.out or HERE.parent / "data" / f"injection-{a.task}-{a.variant}.jsonl")
kinds = set(a.kinds.split(","))
rows = [r for r in map(json.loads, open(a.set)) if r["task"] == a.task and r["half"] == a.half and r["variant"] in kinds]
done = set()
if out.exists():
    done = {(o["pair"], o["variant"]) for o in map(json.loads, open(out))}
todo = [r for r in rows if (r["pair"], r["variant"]) not in done]
settings = RagjurySettings(base_url=a.base, judge_model=a.model, concurrency=1)
judge = judge_class(a.task, a.variant)(settings=settings)


def item(r):
    if a.task == "correctness":
        return CorrectnessItem(question=r["question"], answer=r["answer"], references=r["references"])
    if a.task == "faithfulness":
        return FaithfulnessItem(answer=r["answer"], contexts=[r["context"]], question=r["question"])
    return RelevanceItem(query=r["query"], retrieved_text=r["passage"])


print(f"{len(rows)} items ({a.task}, {a.half}), {len(todo)} to judge with {a.variant}", file=sys.stderr)
t0 = time.time()
with open(out, "a") as f:
    for i, r in enumerate(todo, 1):
        j = judge.judge_sync(item(r))
        v = j.value.model_dump() if j.value is not None else None
        yes = None if j.value is None else binary_label(j.value)  # a verdict, a claim check's label, a grade >= 2
        f.write(json.dumps({
            "pair": r["pair"], "variant": r["variant"], "id": r["id"], "task": a.task, "half": a.half,
            "label": r["label"], "judge_variant": a.variant, "verdict": None if yes is None else int(yes),
            "probability": None if v is None else v.get("probability", v.get("p_relevant", v.get("score"))), "unscored": j.unscored,
            "unscored_reason": j.unscored_reason, "prompt_version": j.prompt_version, "model": j.model,
            "server_flags": a.server_flags, "latency_s": round(j.latency_s or 0, 3),
            "usage": j.usage.model_dump() if j.usage else None,
            "judged_answer": getattr(j, "judged_answer", None)}) + "\n")
        f.flush()
        if i % 25 == 0:
            print(f"{i}/{len(todo)} {(time.time() - t0) / i:.2f} s/item", file=sys.stderr)
print(f"done: {len(todo)} in {time.time() - t0:.0f} s", file=sys.stderr)
