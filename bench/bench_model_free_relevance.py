"""Can a model-free relevance judge rank retrieval systems? TREC DL 2019, *confirm* topics.

The model-free graders (``non-llm``, ``token-overlap``) read query-passage word overlap. This
bench judges every passage in the top 10 of the six runs for the confirm topics
(``bench/splits/trec-dl19.json``), builds qrels from the judge, and compares the runs' nDCG@10
under the judge's qrels with NIST's (Kendall tau over the six runs), plus the pairs' kappa at
NIST grade >= 2. ``ragjury relevance`` prints the figures as its warning for these judges.

Run:  .venv/bin/python bench/bench_model_free_relevance.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import pytrec_eval  # noqa: E402
from scipy.stats import kendalltau  # noqa: E402
from splits import BENCHMARKS, half_of  # noqa: E402

from ragjury.evals.stats.agreement import label_agreement  # noqa: E402
from ragjury.rag_agent.core.items import RelevanceItem  # noqa: E402
from ragjury.rag_agent.judges.model_free.non_llm import NonLLMJudge  # noqa: E402
from ragjury.rag_agent.judges.model_free.token_overlap import TokenOverlapJudge  # noqa: E402


def main() -> None:
    root = BENCHMARKS / "trec-dl19"
    passages = {str(r["docid"]): r["text"] for r in map(json.loads, (root / "passages.jsonl").open())}
    topics = {
        str(r["qid"]): r["query"]
        for r in map(json.loads, (root / "topics.jsonl").open())
        if half_of("trec-dl19", r) == "confirm"
    }
    nist: dict[str, dict[str, int]] = {}
    for line in (root / "qrels.txt").open():
        qid, _, docid, grade = line.split()
        if qid in topics:
            nist.setdefault(qid, {})[docid] = int(grade)
    runs: dict[str, dict[str, dict[str, float]]] = {}
    pairs: set[tuple[str, str]] = set()
    for path in sorted((root / "runs").glob("*.trec")):
        run: dict[str, dict[str, float]] = {}
        for line in path.open():
            qid, _, docid, rank, score, _ = line.split()
            if qid in topics and int(rank) <= 10 and docid in passages:
                run.setdefault(qid, {})[docid] = float(score)
                pairs.add((qid, docid))
        runs[path.stem] = run
    keys = sorted(pairs)
    print(f"confirm topics: {len(topics)}; pairs in the runs' top 10: {len(keys)}; runs: {len(runs)}")
    grades = {
        "non-llm": NonLLMJudge().grade_texts([topics[q] for q, _ in keys], [passages[d] for _, d in keys]),
        "token-overlap": [
            2 * int(v)
            for v in TokenOverlapJudge().decide([RelevanceItem(query=topics[q], retrieved_text=passages[d]) for q, d in keys])[0].tolist()
        ],
    }

    def ndcg(qrels: dict[str, dict[str, int]]) -> dict[str, float]:
        out = {}
        for name, run in runs.items():
            evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
            per_query = evaluator.evaluate({q: r for q, r in run.items() if q in qrels})
            out[name] = sum(v["ndcg_cut_10"] for v in per_query.values()) / max(1, len(per_query))
        return out

    truth = ndcg(nist)
    for judge, values in grades.items():
        qrels: dict[str, dict[str, int]] = {}
        for (q, d), g in zip(keys, values):
            qrels.setdefault(q, {})[d] = int(g)
        judged = ndcg(qrels)
        tau = kendalltau([truth[r] for r in runs], [judged[r] for r in runs]).statistic
        labelled = [(q, d) for q, d in keys if d in nist.get(q, {})]
        index = {key: i for i, key in enumerate(keys)}
        kappa = label_agreement(
            [nist[q][d] >= 2 for q, d in labelled], [values[index[(q, d)]] >= 2 for q, d in labelled]
        ).cohen_kappa
        print(f"{judge:<14} kappa (grade >= 2) {kappa:+.2f} on {len(labelled)} NIST-judged pairs; "
              f"Kendall tau of the {len(runs)} runs' nDCG@10 vs NIST {tau:+.2f}")


if __name__ == "__main__":
    main()
