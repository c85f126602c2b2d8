"""Stored model pass: the guarded correctness judge (``llm-guarded``, reduction skipped where the answer already is
a short answer) on the answers where that skip changes what the model is asked, so that every other answer's
stored ``llm-guarded`` judgment stays valid (its two calls are unchanged): the EVOUNA-NQ confirm answers of
``evouna-nq-correctness-llm-guarded.jsonl`` and the injection set's correctness items (both halves) that pass
``rag_agent/judges/llm/short_answers.is_short_answer``. Resumable; one request at a time; nothing else heavy beside it.

    python bench/passes/short_answer_pass.py --base http://127.0.0.1:8091/v1 --server-flags "-np 1 -c 8192 --no-repack"
"""
import argparse, json, sys, time
from pathlib import Path

from ragjury import RagjurySettings, build_judge
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.judges.llm.short_answers import is_short_answer

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data"
ap = argparse.ArgumentParser()
ap.add_argument("--base", default="http://127.0.0.1:8091/v1"); ap.add_argument("--model", default="qwen2.5-coder:1.5b")
ap.add_argument("--server-flags", default="-np 1 -c 8192 --no-repack")
ap.add_argument("--evouna", default=str(HERE.parents[2] / "shared" / "benchmarks" / "evouna-nq" / "correctness.jsonl"))
ap.add_argument("--out", default=str(DATA / "short-answer-correctness-llm-guarded.jsonl"))
a = ap.parse_args()
by_id = {o["id"]: o for o in map(json.loads, open(a.evouna))}
todo = []
for row in map(json.loads, open(DATA / "evouna-nq-correctness-llm-guarded.jsonl")):
    o = by_id[row["id"]]
    if is_short_answer(o["answer"]):
        todo.append(("evouna-nq", o["id"], None, o))
for r in map(json.loads, open(DATA / "injection-set.jsonl")):
    if r["task"] == "correctness" and is_short_answer(r["answer"]):
        todo.append(("injection", r["id"], f"{r['pair']}/{r['variant']}", r))
out = Path(a.out)
done = {(o["source"], o["id"], o["case"]) for o in map(json.loads, open(out))} if out.exists() else set()
todo = [t for t in todo if (t[0], t[1], t[2]) not in done]
judge = build_judge("correctness", "llm-guarded", RagjurySettings(base_url=a.base, judge_model=a.model, concurrency=1))
print(f"{len(todo)} short answers to judge", file=sys.stderr)
t0 = time.time()
with open(out, "a") as f:
    for i, (source, ident, case, o) in enumerate(todo, 1):
        j = judge.judge_sync(CorrectnessItem(question=o["question"], answer=o["answer"], references=o["references"]))
        v = j.value.model_dump() if j.value is not None else None
        f.write(json.dumps({
            "source": source, "id": ident, "case": case, "half": o.get("half"), "label": o["label"],
            "judge": "llm-guarded", "verdict": None if v is None else int(v["verdict"]),
            "probability": None if v is None else v.get("probability"), "unscored": j.unscored,
            "unscored_reason": j.unscored_reason, "prompt_version": j.prompt_version, "model": j.model,
            "server_flags": a.server_flags, "latency_s": round(j.latency_s or 0, 3),
            "usage": j.usage.model_dump() if j.usage else None}) + "\n")
        f.flush()
        if i % 25 == 0:
            print(f"{i}/{len(todo)} {(time.time() - t0) / i:.2f} s/answer", file=sys.stderr)
print(f"done: {len(todo)} in {time.time() - t0:.0f} s", file=sys.stderr)
