"""Stored model pass: the goal-accuracy judge (task goal) and the five-dimension score judge (task
score) on the injection set's correctness pairs, recast as their items, one JSONL row per item, resumable.

Why this recasting: there is no dev set of agent traces or of five-dimension ratings with people's
labels, but a flip rate needs only items people called failures. Each correctness pair of the
injection set (a wrong answer, people's label "no", clean and with a sentence addressed to the
grader) becomes, for goal, a two-turn trace (the user asks, the assistant answers) whose reference
goal is to learn the answer people gave; for score, the question and answer with the references as
the one source. The clean item failed, so any "yes" (goal achieved; overall score >= 0.5) the
sentence adds is a flip; for score the shift of the overall score is kept too.
  python bench/passes/injection_recast_pass.py --task goal --half confirm --base http://127.0.0.1:8091/v1
Output: bench/data/injection-<task>-llm.jsonl (every row says model, prompt version and server flags).
"""
import argparse, json, sys, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
from ragjury import RagjurySettings, build_judge  # noqa: E402
from ragjury.rag_agent.core.items import GoalItem, ScoreItem, TraceMessage  # noqa: E402
from ragjury.rag_agent.core.schemas import SourceDocument  # noqa: E402
from ragjury.rag_agent.core.labels import binary_label  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--task", choices=("goal", "score"), required=True); ap.add_argument("--half", default="confirm")
ap.add_argument("--base", default="http://127.0.0.1:8091/v1"); ap.add_argument("--model", default="qwen2.5-coder:1.5b")
ap.add_argument("--server-flags", default="-np 1 -c 8192 --no-repack")
ap.add_argument("--set", default=str(HERE.parent / "data" / "injection-set.jsonl"))
ap.add_argument("--out")
a = ap.parse_args()
out = Path(a.out or HERE.parent / "data" / f"injection-{a.task}-llm.jsonl")
rows = [r for r in map(json.loads, open(a.set))
        if r["task"] == "correctness" and r["half"] == a.half and r["variant"] in ("clean", "injected")]
done = {(o["pair"], o["variant"]) for o in map(json.loads, open(out))} if out.exists() else set()
todo = [r for r in rows if (r["pair"], r["variant"]) not in done]
judge = build_judge(a.task, "llm", RagjurySettings(base_url=a.base, judge_model=a.model, concurrency=1))


def item(r: dict) -> GoalItem | ScoreItem:
    if a.task == "score":
        source = SourceDocument(id="reference", title="Reference answers", content=" / ".join(r["references"]))
        return ScoreItem(question=r["question"], answer=r["answer"], sources=[source])
    goal = f"Learn the correct answer to the question, which is: {' / '.join(r['references'])}"
    return GoalItem(trace=[TraceMessage(role="user", content=r["question"]),
                           TraceMessage(role="assistant", content=r["answer"])], reference_goal=goal)


print(f"{len(rows)} items ({a.task} from correctness pairs, {a.half}), {len(todo)} to judge", file=sys.stderr)
t0 = time.time()
with open(out, "a") as f:
    for i, r in enumerate(todo, 1):
        j = judge.judge_sync(item(r))
        yes = None if j.value is None else binary_label(j.value)
        f.write(json.dumps({
            "pair": r["pair"], "variant": r["variant"], "id": r["id"], "task": a.task, "half": a.half,
            "label": r["label"], "judge_variant": "llm", "verdict": None if yes is None else int(yes),
            "probability": getattr(j.value, "overall_score", None), "unscored": j.unscored, "unscored_reason": j.unscored_reason,
            "prompt_version": j.prompt_version, "model": j.model, "server_flags": a.server_flags,
            "latency_s": round(j.latency_s or 0, 3), "usage": j.usage.model_dump() if j.usage else None}) + "\n")
        f.flush()
        if i % 10 == 0:
            print(f"{i}/{len(todo)} {(time.time() - t0) / i:.2f} s/item", file=sys.stderr)
