"""Stored model pass: the last-token hidden state of a short relevance prompt, per TREC DL 2019 pair.

Why: a head fitted on a user's labels can read what the model "thinks" of a pair (its final hidden
state) rather than only the one-token verdict; the probe is a measured candidate signal (issue 34).
The pairs are exactly those of the stored `llm` pass (bench/data/dl19-relevance-llm.jsonl), confirm
topics first, so that a pass stopped early still covers the confirm pool. Resumable: pairs already
in OUT are skipped. One row per pair: qid, docid, the vector as base64 float16, tokens, latency.
The server is a llama-server started with `--embeddings --pooling last` (it then serves no chat).

  python bench/passes/hidden_state_pass.py bench/data/dl19-relevance-hidden.jsonl \
      --base http://127.0.0.1:8092 --flags "-np 1 -c 2048 --embeddings --pooling last -t 2"
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))
from splits import BENCHMARKS, half_of  # noqa: E402

PROMPT_VERSION = "hidden_relevance@1.0"
MAX_WORDS = 120


def prompt(query: str, passage: str) -> str:
    """Short on purpose: embedding mode re-reads the whole prompt for every pair."""
    words = passage.split()
    text = " ".join(words[:MAX_WORDS]) + (" ..." if len(words) > MAX_WORDS else "")
    return f"Query: {query}\nPassage: {text}\nDoes the passage answer the query? Answer yes or no:"


def embed(base: str, text: str) -> tuple[list[float], int]:
    body = json.dumps({"input": text, "model": "x"}).encode()
    request = urllib.request.Request(f"{base}/v1/embeddings", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as response:
        data = json.loads(response.read())
    return data["data"][0]["embedding"], int(data.get("usage", {}).get("prompt_tokens", 0))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--base", default="http://127.0.0.1:8092")
    parser.add_argument("--pairs", default=str(HERE / "data" / "dl19-relevance-llm.jsonl"))
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    parser.add_argument("--flags", default="", help="the server's flags, recorded in every row")
    args = parser.parse_args()
    bench = BENCHMARKS / "trec-dl19"
    topics = {str(o["qid"]): o["query"] for o in map(json.loads, open(bench / "topics.jsonl"))}
    passages = {str(o["docid"]): o["text"] for o in map(json.loads, open(bench / "passages.jsonl"))}
    pairs = [(o["qid"], o["docid"]) for o in map(json.loads, open(args.pairs))]
    pairs.sort(key=lambda p: half_of("trec-dl19", {"qid": p[0]}) != "confirm")  # stable: confirm first
    out = Path(args.out)
    done = {(o["qid"], o["docid"]) for o in map(json.loads, out.open())} if out.exists() else set()
    todo = [p for p in pairs if p not in done]
    print(f"{len(pairs)} pairs, {len(todo)} to embed", file=sys.stderr, flush=True)
    started = time.time()
    with out.open("a") as handle:
        for i, (qid, docid) in enumerate(todo, 1):
            t = time.perf_counter()
            vector, tokens = embed(args.base, prompt(topics[qid], passages[docid]))
            row = {"qid": qid, "docid": docid, "prompt_version": PROMPT_VERSION, "model": args.model,
                   "flags": args.flags, "tokens": tokens, "latency_s": round(time.perf_counter() - t, 3),
                   "dim": len(vector),
                   "f16": base64.b64encode(np.asarray(vector, dtype=np.float16).tobytes()).decode()}
            handle.write(json.dumps(row) + "\n")
            handle.flush()
            if i % 25 == 0:
                print(f"{i}/{len(todo)} {(time.time() - started) / i:.2f} s/pair", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
