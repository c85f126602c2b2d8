"""Speed of the model-free judges against their pure-Python references, with equal outputs.

On 100,000 (query, expected, retrieved) pairs built from TREC DL 2019 passages
(``../shared/benchmarks/trec-dl19``), times:

- ``TokenOverlapJudge.batch_judge`` against the PyPI package ``evret``'s ``TokenOverlapJudge``
  (``batch_judge``, its per-pair loop), checking every verdict is the same, and classifying any
  difference (an exact tie, score == threshold, that evret's float sum in set-iteration order
  puts on either side depending on ``PYTHONHASHSEED``, counts as explained);
- ``NonLLMJudge.batch_grade`` against the TREC AutoJudge kit's ``NonLlmJudge`` algorithm re-run
  as a straightforward per-pair loop (``KitNonLlmLoop`` below: the kit's methods, each
  tokenising its inputs as the kit does), checking every grade is the same.

And, per judge, the price of the envelopes: ``ajudge_batch`` (what ``ragjury evaluate`` and
``run_judgments`` call: one ``Judgment`` per item, with provenance and latency) against the raw
batch call on the same items (``batch_judge`` / ``batch_grade`` / ``decide``), both the best of
``--repeat`` runs. The ratio is printed per judge; the target is <= 2x (``--check`` exits 1 when
a ratio is over it). ``ContainsJudge`` runs on EVOUNA-NQ's answers
(``../shared/benchmarks/evouna-nq``, repeated up to ``--pairs``), ``SupportJudge`` on the pairs
below as (answer = retrieved, context = expected).

Pairs: 70% passages judged for the same query (expected = a relevant one), 10% identical,
10% a relevant passage against a chunk of it (a window of its words, or the passage inside a
longer text: a fixed pool of two chunks per passage, up to 25 relevant passages per query),
10% passages of other queries. Times are CPU seconds of this process (``time.process_time``),
which other processes on the machine disturb less than wall time; wall time is printed too. Prints pairs/s and the ratios. The target is >= 20x on a 2-core machine.

Every timing is the best of ``--repeat`` runs, references included. The load average is
printed at the start and at the end: compare figures only between runs made at a similar load.

Run: ``.venv/bin/python bench/bench_model_free_speed.py [--pairs 100000] [--repeat 3] [--check]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem, RelevanceItem
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge
from ragjury.rag_agent.judges.model_free.non_llm import NonLLMJudge
from ragjury.rag_agent.judges.model_free.support import SupportJudge
from ragjury.rag_agent.judges.model_free.token_overlap import (
    EVRET_STOPWORDS,
    TokenOverlapJudge,
    evret_normalise,
    phrase_bonus,
    token_weight,
)

BENCHMARKS = Path(os.environ.get("RAGJURY_BENCHMARKS", ROOT.parent / "shared" / "benchmarks"))


class KitNonLlmLoop:
    """The TREC AutoJudge kit's non-LLM scoring, one pair at a time, as the kit computes it
    (default settings: weights 0.2/0.3/0.3/0.2, lengths 50/200/500, k1 1.5, b 0.75, avgdl 200)."""

    def __init__(self) -> None:
        weights = [0.2, 0.3, 0.3, 0.2]
        total = sum(weights)
        self.lw, self.kw, self.bw, self.cw = (w / total for w in weights)
        self.min_length, self.optimal_length, self.max_length = 50, 200, 500
        self.k1, self.b = 1.5, 0.75

    def tokenize(self, text: str) -> list[str]:
        return re.findall(r"\b\w+\b", text.lower())

    def length_score(self, response: str) -> float:
        wc = len(self.tokenize(response))
        if wc < self.min_length:
            score = wc / self.min_length * 0.5
        elif wc <= self.optimal_length:
            score = 0.5 + (wc - self.min_length) / (self.optimal_length - self.min_length) * 0.5
        elif wc <= self.max_length:
            score = 1.0 - (wc - self.optimal_length) / (self.max_length - self.optimal_length) * 0.2
        else:
            score = 0.8 * (self.max_length / wc)
        return max(0.0, min(1.0, score))

    def keyword_score(self, query: str, response: str) -> float:
        q, r = set(self.tokenize(query)), set(self.tokenize(response))
        return len(q & r) / len(q) if q else 0.0

    def coverage(self, query: str, response: str) -> float:
        q_tokens = self.tokenize(query)
        if not q_tokens:
            return 0.0
        have, need = Counter(self.tokenize(response)), Counter(q_tokens)
        return sum(min(have[t], need[t]) for t in need) / sum(need.values())

    def bm25(self, query: str, response: str) -> float:
        q_tokens, d_tokens = self.tokenize(query), self.tokenize(response)
        if not q_tokens or not d_tokens:
            return 0.0
        tf, doc_len, score = Counter(d_tokens), len(d_tokens), 0.0
        for t in q_tokens:
            if t in tf:
                f = tf[t]
                score += (f * (self.k1 + 1)) / (
                    f + self.k1 * (1 - self.b + self.b * doc_len / self.optimal_length)
                )
        max_score = len(set(q_tokens)) * (self.k1 + 1)
        return min(score / max_score, 1.0) if max_score else 0.0

    def grade(self, query: str, response: str) -> int:
        combined = (
            self.length_score(response) * self.lw
            + self.keyword_score(query, response) * self.kw
            + self.bm25(query, response) * self.bw
            + self.coverage(query, response) * self.cw
        )
        return max(0, min(3, int(round(combined * 3.0))))


def exact_score(query: str, expected: str, retrieved: str) -> Fraction:
    """Evret's weighted score (query boost on) in exact arithmetic, to classify differences."""

    def content(text: str) -> list[str]:
        return [t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in EVRET_STOPWORDS]

    def weight(token: str) -> Fraction:
        return Fraction(round(token_weight(token) * 20), 20)

    exp, ret = content(expected), content(retrieved)
    shared = set(exp) & set(ret)
    score = sum(map(weight, shared), Fraction(0)) / sum(map(weight, set(exp)), Fraction(0))
    score += Fraction(round(phrase_bonus(exp, evret_normalise(retrieved)) * 20), 20)
    if shared & set(content(query)):
        score += Fraction(1, 10)
    return min(score, Fraction(1))


def load_pairs(count: int, seed: int = 19) -> list[tuple[str, str, str]]:
    """(query, expected, retrieved) triples from trec-dl19 (see the module docstring)."""
    dl19 = BENCHMARKS / "trec-dl19"
    passages = {str(row["docid"]): row["text"] for row in map(json.loads, (dl19 / "passages.jsonl").open())}
    topics = {str(row["qid"]): row["query"] for row in map(json.loads, (dl19 / "topics.jsonl").open())}
    judged: dict[str, list[str]] = defaultdict(list)
    relevant: dict[str, list[str]] = defaultdict(list)
    for line in (dl19 / "qrels.txt").open():
        qid, _, docid, grade = line.split()
        if docid in passages and qid in topics:
            judged[qid].append(docid)
            if int(grade) >= 2:
                relevant[qid].append(docid)
    qids = sorted(q for q in judged if relevant[q])
    all_docs = sorted(passages)
    rng = random.Random(seed)
    # Chunks of relevant passages (a window of words, or the passage inside a longer text):
    # a fixed pool, as a corpus of retrieved chunks would be.
    windows: dict[str, list[str]] = defaultdict(list)
    for qid in qids:
        for docid in relevant[qid][:25]:
            words = passages[docid].split()
            start = rng.randrange(max(1, len(words) // 2))
            windows[docid].append(" ".join(words[start : start + rng.randint(3, max(3, len(words)))]))
            windows[docid].append(f"{passages[rng.choice(all_docs)][:300]} {passages[docid]}")
    triples = []
    for _ in range(count):
        qid = rng.choice(qids)
        docid = rng.choice(relevant[qid])
        expected = passages[docid]
        roll = rng.random()
        if roll < 0.70:
            retrieved = passages[rng.choice(judged[qid])]
        elif roll < 0.80:
            retrieved = expected
        elif roll < 0.90 and windows[docid]:
            retrieved = rng.choice(windows[docid])
        else:
            retrieved = passages[rng.choice(all_docs)]
        triples.append((topics[qid], expected, retrieved))
    return triples


def timed(repeat: int, func):  # type: ignore[no-untyped-def]
    """(best CPU seconds, best wall seconds, result) over ``repeat`` runs."""
    best_cpu = best_wall = float("inf")
    result = None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = func()
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
    return best_cpu, best_wall, result


ENVELOPE_TARGET = 2.0
"""``ajudge_batch`` may cost at most this many times the raw batch call (issue 11, item 7)."""


def envelope_ratio(
    label: str, n: int, raw: tuple[float, float], enveloped: tuple[float, float], ratios: dict[str, float]
) -> None:
    """Print ``ajudge_batch``'s CPU time against the raw batch call's, and record the ratio."""
    ratio = enveloped[0] / raw[0]
    ratios[label] = ratio
    verdict = "ok" if ratio <= ENVELOPE_TARGET else f"OVER the {ENVELOPE_TARGET:g}x target"
    print(line("ragjury ajudge_batch", n, *enveloped) + "  (Judgment envelopes)")
    print(f"  envelope cost: ajudge_batch / raw batch = {ratio:.2f}x  ({verdict})")


def load_evouna_items(count: int) -> list[CorrectnessItem]:
    """EVOUNA-NQ's (question, answer, references), cycled up to ``count`` items."""
    rows = [json.loads(text) for text in (BENCHMARKS / "evouna-nq" / "correctness.jsonl").open(encoding="utf-8")]
    base = [
        CorrectnessItem(question=row["question"], answer=row["answer"], references=row["references"])
        for row in rows
    ]
    return [base[i % len(base)] for i in range(count)]


def line(label: str, n: int, cpu: float, wall: float, reference_cpu: float | None = None) -> str:
    ratio = f"   ratio {reference_cpu / cpu:6.1f}x" if reference_cpu else ""
    return f"  {label:<26}: {cpu:8.3f} s CPU {n / cpu:12,.0f} pairs/s  (wall {wall:7.3f} s){ratio}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs of every timed judge (the best is kept)")
    parser.add_argument("--check", action="store_true", help=f"exit 1 when an envelope ratio is over {ENVELOPE_TARGET:g}x")
    args = parser.parse_args()
    ratios: dict[str, float] = {}
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    triples = load_pairs(args.pairs)
    n = len(triples)
    distinct = len({t for triple in triples for t in triple})
    print(f"pairs: {n:,} from trec-dl19 ({distinct:,} distinct texts); cpus: {os.cpu_count()}")
    contexts = [RelevanceItem(query=q, expected_text=e, retrieved_text=r) for q, e, r in triples]

    # -- TokenOverlapJudge vs evret ------------------------------------------------------
    from evret.judges.base import JudgmentContext as EvretContext
    from evret.judges.token_overlap import TokenOverlapJudge as EvretTokenOverlap

    evret_contexts = [EvretContext(query=q, expected_text=e, retrieved_text=r) for q, e, r in triples]
    for label, ours_judge, reference_judge in (
        ("defaults: threshold 0.6, min_tokens 15, query_boost", TokenOverlapJudge(), EvretTokenOverlap()),
        (
            "threshold 0.3, min_tokens 3: many pairs near the threshold",
            TokenOverlapJudge(threshold=0.3, min_tokens=3),
            EvretTokenOverlap(min_tokens=3, overlap_ratio=0.3),
        ),
    ):
        ref_cpu, ref_wall, reference = timed(
            args.repeat, lambda j=reference_judge: j.batch_judge(evret_contexts)
        )
        cpu, wall, ours = timed(args.repeat, lambda j=ours_judge: j.batch_judge(contexts))
        print(f"\nTokenOverlapJudge ({label})")
        print(line("evret 0.0.3 batch_judge", n, ref_cpu, ref_wall))
        print(line("ragjury batch_judge", n, cpu, wall, ref_cpu))
        differ = [i for i, (a, b) in enumerate(zip(reference, ours)) if a != b]
        threshold = Fraction(str(ours_judge.threshold))
        ties = sum(exact_score(*triples[i]) == threshold for i in differ)
        print(
            f"  verdicts: {sum(ours):,} true; differences from evret: {len(differ)} "
            f"({ties} exact ties: score == threshold, which evret decides by float summation order)"
        )
        env_cpu, env_wall, judgments = timed(args.repeat, lambda j=ours_judge: asyncio.run(j.ajudge_batch(contexts)))
        assert [j.value for j in judgments] == ours
        envelope_ratio(f"TokenOverlapJudge ({label.split(':')[0]})", n, (cpu, wall), (env_cpu, env_wall), ratios)

    # -- NonLLMJudge vs the kit's per-pair loop ---------------------------------------------
    kit = KitNonLlmLoop()
    kit_cpu, kit_wall, kit_grades = timed(args.repeat, lambda: [kit.grade(q, r) for q, _, r in triples])
    grader = NonLLMJudge()
    cpu, wall, grades = timed(args.repeat, lambda: grader.batch_grade(contexts))
    print("\nNonLLMJudge (kit defaults)")
    print(line("kit algorithm, per pair", n, kit_cpu, kit_wall))
    print(line("ragjury batch_grade", n, cpu, wall, kit_cpu))
    print(
        f"  grades: {dict(sorted(Counter(grades).items()))}; differences from the kit: "
        f"{sum(a != b for a, b in zip(kit_grades, grades))}"
    )
    env_cpu, env_wall, judgments = timed(args.repeat, lambda: asyncio.run(grader.ajudge_batch(contexts)))
    assert [j.value for j in judgments] == grades
    envelope_ratio("NonLLMJudge", n, (cpu, wall), (env_cpu, env_wall), ratios)
    del judgments

    # -- envelopes of the other model-free judges ------------------------------------------
    if (BENCHMARKS / "evouna-nq" / "correctness.jsonl").exists():
        answers = load_evouna_items(n)
        contains = ContainsJudge()
        cpu, wall, verdicts = timed(args.repeat, lambda: contains.decide(answers))
        print(f"\nContainsJudge (EVOUNA-NQ answers, cycled to {n:,})")
        print(line("ragjury decide (raw batch)", n, cpu, wall))
        env_cpu, env_wall, judgments = timed(args.repeat, lambda: asyncio.run(contains.ajudge_batch(answers)))
        assert [j.value for j in judgments] == verdicts[0]
        envelope_ratio("ContainsJudge", n, (cpu, wall), (env_cpu, env_wall), ratios)
        del judgments
    supported = [FaithfulnessItem(answer=r, contexts=[e]) for _, e, r in triples]
    support = SupportJudge()
    cpu, wall, decided = timed(args.repeat, lambda: support.decide(supported))
    print("\nSupportJudge (answer = retrieved passage, context = expected passage)")
    print(line("ragjury decide (raw batch)", n, cpu, wall))
    env_cpu, env_wall, judgments = timed(args.repeat, lambda: asyncio.run(support.ajudge_batch(supported)))
    assert [j.value for j in judgments] == decided[0]
    envelope_ratio("SupportJudge", n, (cpu, wall), (env_cpu, env_wall), ratios)

    print(f"\nenvelope cost (ajudge_batch / raw batch call, CPU, target <= {ENVELOPE_TARGET:g}x):")
    for label, ratio in ratios.items():
        print(f"  {label:<48} {ratio:5.2f}x  {'ok' if ratio <= ENVELOPE_TARGET else 'OVER'}")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.check and any(ratio > ENVELOPE_TARGET for ratio in ratios.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
