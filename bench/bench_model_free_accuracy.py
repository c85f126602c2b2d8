"""Agreement of the model-free judges with people, on the shared benchmarks.

- ``evouna-nq`` (15,094 QA answers, people say correct or not): ContainsJudge, TokenOverlapJudge
  (each reference as the expected text, the answer as the retrieved text; correct when any
  reference matches) and SemanticJudge (cosine of answer and reference, best reference).
- ``begin-dev`` (1,148 dialogue responses, people say fully attributable to the knowledge
  passage or not): TokenOverlapJudge (the response as the expected text, the passage as the
  retrieved text: the share of the response's token weight found in the passage), Contains
  (the response occurs in the passage) and SemanticJudge (cosine of response and passage).
- ``trec-dl19`` (NIST grades 0-3 of 4,337 query-passage pairs with text): NonLLMJudge grades
  against NIST grades (exact accuracy, Cohen's kappa, quadratic-weighted kappa, and binary
  relevance, grade >= 2), plus TokenOverlapJudge and SemanticJudge without expected text
  (relevance to the query) against NIST's binary relevance.

Each judge runs with its defaults, and TokenOverlap also with ``min_tokens=1`` (its default 15
shared content tokens is meant for passages, never reached by short answers). SemanticJudge
uses the offline all-MiniLM-L6-v2 of the ``[embeddings]`` extra; it is skipped, with the
reason, when that is not installed. Kappa is computed here (a small function, no sklearn).

Run: ``.venv/bin/python bench/bench_model_free_accuracy.py [--semantic-rows N] [--no-semantic]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragjury.rag_agent.core.items import CorrectnessItem, RelevanceItem
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge
from ragjury.rag_agent.judges.model_free.non_llm import NonLLMJudge
from ragjury.rag_agent.judges.model_free.token_overlap import TokenOverlapJudge

BENCHMARKS = Path(os.environ.get("RAGJURY_BENCHMARKS", ROOT.parent / "shared" / "benchmarks"))


def cohen_kappa(a: Sequence[int], b: Sequence[int], *, weights: str | None = None) -> float:
    """Cohen's kappa of two label sequences; ``weights="quadratic"`` for ordinal grades."""
    labels = sorted(set(a) | set(b))
    index = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    observed = np.zeros((k, k))
    for x, y in zip(a, b):
        observed[index[x], index[y]] += 1
    observed /= observed.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    if weights == "quadratic":
        values = np.asarray(labels, dtype=float)
        penalty = (values[:, None] - values[None, :]) ** 2
    else:
        penalty = 1.0 - np.eye(k)
    denominator = (penalty * expected).sum()
    return 1.0 - (penalty * observed).sum() / denominator if denominator else 1.0


def report(name: str, predicted: Sequence[bool], truth: Sequence[bool], seconds: float) -> None:
    n = len(truth)
    accuracy = sum(p == t for p, t in zip(predicted, truth)) / n
    kappa = cohen_kappa([int(p) for p in predicted], [int(t) for t in truth])
    tp = sum(p and t for p, t in zip(predicted, truth))
    precision = tp / max(1, sum(predicted))
    recall = tp / max(1, sum(truth))
    print(
        f"  {name:<50} acc {accuracy:.3f}  kappa {kappa:.3f}  P {precision:.3f}  R {recall:.3f}"
        f"  ({sum(predicted):,}/{n:,} positive, {seconds:.1f} s)"
    )


def timed(func: Callable[[], list[bool]]) -> tuple[list[bool], float]:
    started = time.perf_counter()
    result = func()
    return result, time.perf_counter() - started


def any_reference(judge: TokenOverlapJudge, rows: list[dict]) -> list[bool]:
    """Correct when the answer matches any reference (one batch over all references)."""
    contexts, owner = [], []
    for i, row in enumerate(rows):
        for reference in row["references"]:
            contexts.append(
                RelevanceItem(query=row["question"], expected_text=reference, retrieved_text=row["answer"])
            )
            owner.append(i)
    verdicts, _ = judge.decide(contexts)
    out = [False] * len(rows)
    for i, verdict in zip(owner, verdicts.tolist()):
        out[i] = out[i] or verdict
    return out


def semantic_judge():  # type: ignore[no-untyped-def]
    """The SemanticJudge on the local MiniLM, or the reason it cannot run."""
    from ragjury.rag_agent.judges.model_free.embedders import EmbedderUnavailable, SentenceTransformerEmbedder
    from ragjury.rag_agent.judges.model_free.semantic import SemanticJudge

    embedder = SentenceTransformerEmbedder()
    try:
        embedder.load()
    except EmbedderUnavailable as error:
        return None, str(error)
    return SemanticJudge(embedder), None


def semantic_verdicts(judge, left: list[str], right: list[str], threshold: float) -> list[bool]:  # type: ignore[no-untyped-def]
    contexts = [RelevanceItem(query="-", expected_text=a, retrieved_text=b) for a, b in zip(left, right)]
    result = judge.similarities(contexts)
    return [bool(v >= threshold) for v in result.values]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-semantic", action="store_true", help="skip the SemanticJudge (no embeddings)")
    parser.add_argument(
        "--semantic-rows",
        type=int,
        default=0,
        help="evaluate SemanticJudge on this many random evouna rows (0: all)",
    )
    args = parser.parse_args()

    semantic, why_not = (None, "--no-semantic") if args.no_semantic else semantic_judge()

    # -- evouna-nq: correctness ---------------------------------------------------------------
    rows = [json.loads(line) for line in (BENCHMARKS / "evouna-nq" / "correctness.jsonl").open()]
    truth = [bool(row["label"]) for row in rows]
    print(f"evouna-nq: {len(rows):,} answers, {sum(truth):,} correct per people")
    contains = ContainsJudge()
    items = [
        CorrectnessItem(question=r["question"], answer=r["answer"], references=r["references"]) for r in rows
    ]
    predicted, seconds = timed(lambda: contains.batch_judge(items))
    report("ContainsJudge", predicted, truth, seconds)
    for label, judge in (
        ("TokenOverlapJudge (defaults)", TokenOverlapJudge()),
        ("TokenOverlapJudge (min_tokens=1)", TokenOverlapJudge(min_tokens=1)),
        ("TokenOverlapJudge (min_tokens=1, threshold=0.5)", TokenOverlapJudge(min_tokens=1, threshold=0.5)),
    ):
        predicted, seconds = timed(lambda j=judge: any_reference(j, rows))
        report(label, predicted, truth, seconds)
    if semantic is None:
        print(f"  SemanticJudge: skipped ({why_not})")
    else:
        sample = rows
        if args.semantic_rows and args.semantic_rows < len(rows):
            sample = random.Random(7).sample(rows, args.semantic_rows)
            print(f"  (SemanticJudge on a random sample of {len(sample):,} rows)")
        sample_truth = [bool(r["label"]) for r in sample]
        pairs = [(i, ref, r["answer"]) for i, r in enumerate(sample) for ref in r["references"]]
        started = time.perf_counter()
        contexts = [
            RelevanceItem(query="-", expected_text=ref, retrieved_text=ans) for _, ref, ans in pairs
        ]
        sims = semantic.similarities(contexts).values
        best = np.full(len(sample), -1.0)
        for (i, _, _), sim in zip(pairs, sims.tolist()):
            best[i] = max(best[i], sim)
        seconds = time.perf_counter() - started
        for threshold in (0.75, 0.6, 0.5):
            report(
                f"SemanticJudge (threshold {threshold})", (best >= threshold).tolist(), sample_truth, seconds
            )
        if sample is not rows:
            sample_items = [
                CorrectnessItem(question=r["question"], answer=r["answer"], references=r["references"])
                for r in sample
            ]
            report("ContainsJudge (same sample)", contains.batch_judge(sample_items), sample_truth, 0.0)

    # -- begin-dev: faithfulness --------------------------------------------------------------
    rows = [json.loads(line) for line in (BENCHMARKS / "begin-dev" / "faithfulness.jsonl").open()]
    truth = [bool(row["label"]) for row in rows]
    print(f"\nbegin-dev: {len(rows):,} responses, {sum(truth):,} fully attributable per people")
    contexts = [
        RelevanceItem(query=r["question"] or "-", expected_text=r["answer"], retrieved_text=r["context"])
        for r in rows
    ]
    for label, judge in (
        ("TokenOverlapJudge (defaults)", TokenOverlapJudge()),
        ("TokenOverlapJudge (min_tokens=1)", TokenOverlapJudge(min_tokens=1)),
        ("TokenOverlapJudge (min_tokens=1, threshold=0.8)", TokenOverlapJudge(min_tokens=1, threshold=0.8)),
    ):
        predicted, seconds = timed(lambda j=judge: j.decide(contexts)[0].tolist())
        report(label, predicted, truth, seconds)
    items = [CorrectnessItem(question="-", answer=r["context"], references=[r["answer"]]) for r in rows]
    predicted, seconds = timed(lambda: [bool(v) for v in (contains._decide(i)[0] for i in items)])
    report("ContainsJudge (response inside the passage)", predicted, truth, seconds)
    if semantic is None:
        print(f"  SemanticJudge: skipped ({why_not})")
    else:
        started = time.perf_counter()
        sims = semantic.similarities(contexts).values
        seconds = time.perf_counter() - started
        for threshold in (0.75, 0.6):
            report(f"SemanticJudge (threshold {threshold})", (sims >= threshold).tolist(), truth, seconds)

    # -- trec-dl19: graded relevance ---------------------------------------------------------
    dl19 = BENCHMARKS / "trec-dl19"
    passages = {str(r["docid"]): r["text"] for r in map(json.loads, (dl19 / "passages.jsonl").open())}
    topics = {str(r["qid"]): r["query"] for r in map(json.loads, (dl19 / "topics.jsonl").open())}
    qrels = []
    for line in (dl19 / "qrels.txt").open():
        qid, _, docid, grade = line.split()
        if docid in passages and qid in topics:
            qrels.append((topics[qid], passages[docid], int(grade)))
    nist = [grade for _, _, grade in qrels]
    print(
        f"\ntrec-dl19: {len(qrels):,} judged query-passage pairs with text; NIST grades {dict(sorted(Counter(nist).items()))}"
    )
    grader = NonLLMJudge()
    started = time.perf_counter()
    grades = grader.grade_texts([q for q, _, _ in qrels], [p for _, p, _ in qrels])
    seconds = time.perf_counter() - started
    exact = sum(g == n for g, n in zip(grades, nist)) / len(nist)
    print(
        f"  NonLLMJudge grades {dict(sorted(Counter(grades).items()))}: exact acc {exact:.3f}, "
        f"kappa {cohen_kappa(grades, nist):.3f}, quadratic-weighted kappa "
        f"{cohen_kappa(grades, nist, weights='quadratic'):.3f}, Spearman "
        f"{spearman(grades, nist):.3f} ({seconds:.2f} s)"
    )
    relevant = [n >= 2 for n in nist]
    report("NonLLMJudge grade >= 2 vs NIST grade >= 2", [g >= 2 for g in grades], relevant, seconds)
    report("NonLLMJudge grade >= 1 vs NIST grade >= 2", [g >= 1 for g in grades], relevant, seconds)
    query_contexts = [RelevanceItem(query=q, retrieved_text=p) for q, p, _ in qrels]
    for label, judge in (
        ("TokenOverlapJudge, query only (defaults)", TokenOverlapJudge()),
        ("TokenOverlapJudge, query only (threshold 0.8)", TokenOverlapJudge(threshold=0.8)),
    ):
        predicted, seconds = timed(lambda j=judge: j.decide(query_contexts)[0].tolist())
        report(label, predicted, relevant, seconds)
    if semantic is None:
        print(f"  SemanticJudge: skipped ({why_not})")
    else:
        started = time.perf_counter()
        sims = semantic.similarities(query_contexts).values
        seconds = time.perf_counter() - started
        for threshold in (0.5, 0.6):
            report(
                f"SemanticJudge, query only (threshold {threshold})",
                (sims >= threshold).tolist(),
                relevant,
                seconds,
            )


def spearman(a: Sequence[int], b: Sequence[int]) -> float:
    from scipy.stats import spearmanr

    return float(spearmanr(a, b).statistic)


if __name__ == "__main__":
    main()
