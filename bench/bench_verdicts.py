"""Measure the LLM verdict judges against human labels: accuracy, Cohen's kappa, coverage, speed.

Data (read-only, see ../shared/benchmarks/PROVENANCE.md):

- relevance (binary and graded): TREC DL 2019 passage pairs with NIST grades 0-3; the binary
  judge is compared with ``grade >= 2``, the graded judge with the grade itself;
- correctness: EVOUNA-NQ answers with human true/false labels, any-of the gold references;
- faithfulness: BEGIN dev responses with human "fully attributable to the passage" labels;
  the judge's label is ``score >= 1.0`` (every statement supported).

Each benchmark is sampled with proportional stratified sampling (seeded), by NIST grade for
TREC and by (system, label) elsewhere, so a small sample keeps the label balance of the data.
Accuracy and kappa are computed on the scored judgments only; coverage says how many were
scored, so a judge cannot look good by abstaining. Judgments per second is items / wall time
of the batch (at the settings' concurrency).

Examples:

    python bench/bench_verdicts.py --start-test-server --n 30           # the test llama-server
    python bench/bench_verdicts.py --base-url http://127.0.0.1:8080/v1 --model my-model --n 200
    python bench/bench_verdicts.py --n 200                               # Ollama phi3:mini at $OLLAMA_HOST
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem, RelevanceItem
from ragjury.rag_agent.core.protocol import BaseJudge
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.judges.llm import (
    CorrectnessJudge,
    FaithfulnessJudge,
    GradedRelevanceJudge,
    RelevanceVerdictJudge,
)

T = TypeVar("T")
JUDGES = ("relevance", "graded", "correctness", "faithfulness")
console = Console(stderr=True)


# -- statistics ---------------------------------------------------------------------------------------------
def cohen_kappa(
    truth: Sequence[Hashable], predicted: Sequence[Hashable], *, weights: str | None = None
) -> float:
    """Cohen's kappa of two label sequences; ``weights="quadratic"`` for ordinal labels (integers).

    Returns NaN when chance agreement is total (both raters used one and the same label only).
    """
    if len(truth) != len(predicted):
        raise ValueError("label sequences differ in length")
    n = len(truth)
    if n == 0:
        return math.nan
    labels = sorted(set(truth) | set(predicted), key=repr)
    index = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    observed = [[0.0] * k for _ in range(k)]
    for a, b in zip(truth, predicted, strict=True):
        observed[index[a]][index[b]] += 1 / n
    row = [sum(observed[i]) for i in range(k)]
    col = [sum(observed[i][j] for i in range(k)) for j in range(k)]

    def disagreement(i: int, j: int) -> float:
        if weights == "quadratic":
            values = [float(label) for label in labels]  # type: ignore[arg-type]
            span = (max(values) - min(values)) or 1.0
            return ((values[i] - values[j]) / span) ** 2
        return 0.0 if i == j else 1.0

    observed_d = sum(disagreement(i, j) * observed[i][j] for i in range(k) for j in range(k))
    expected_d = sum(disagreement(i, j) * row[i] * col[j] for i in range(k) for j in range(k))
    if expected_d == 0:
        return math.nan
    return 1.0 - observed_d / expected_d


def stratified_sample(rows: Sequence[T], key: Callable[[T], Hashable], n: int, seed: int) -> list[T]:
    """``n`` rows, allocated to strata in proportion to their size (largest remainder, at least one
    per stratum when ``n`` allows), drawn without replacement with a seeded generator."""
    strata: dict[Hashable, list[T]] = defaultdict(list)
    for row in rows:
        strata[key(row)].append(row)
    keys = sorted(strata, key=repr)
    n = min(n, len(rows))
    quotas = {k: n * len(strata[k]) / len(rows) for k in keys}
    alloc = {k: int(quotas[k]) for k in keys}
    if n >= len(keys):
        for k in keys:
            alloc[k] = max(1, alloc[k])
    for k in sorted(keys, key=lambda k: quotas[k] - int(quotas[k]), reverse=True):
        if sum(alloc.values()) >= n:
            break
        if alloc[k] < len(strata[k]):
            alloc[k] += 1
    while sum(alloc.values()) > n:  # the minimum of one per stratum overshot: trim the largest
        largest = max(keys, key=lambda k: alloc[k])
        alloc[largest] -= 1
    rng = random.Random(seed)
    sample: list[T] = []
    for k in keys:
        sample.extend(rng.sample(strata[k], min(alloc[k], len(strata[k]))))
    rng.shuffle(sample)
    return sample


# -- data ---------------------------------------------------------------------------------------------------
def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


@dataclass
class Case:
    """One benchmark item and its human label."""

    item: Any
    truth: Any
    stratum: Hashable


def trec_cases(root: Path, n: int, seed: int) -> list[Case]:
    queries = {row["qid"]: row["query"] for row in read_jsonl(root / "trec-dl19" / "topics.jsonl")}
    passages = {row["docid"]: row["text"] for row in read_jsonl(root / "trec-dl19" / "passages.jsonl")}
    cases = []
    for line in (root / "trec-dl19" / "qrels.txt").read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) != 4:
            continue
        qid, _, docid, grade = parts
        if qid in queries and docid in passages:
            item = RelevanceItem(query=queries[qid], retrieved_text=passages[docid])
            cases.append(Case(item, int(grade), int(grade)))
    return stratified_sample(cases, lambda c: c.stratum, n, seed)


def evouna_cases(root: Path, n: int, seed: int) -> list[Case]:
    cases = [
        Case(
            CorrectnessItem(
                question=r["question"], answer=r["answer"], references=r["references"] or [r["reference"]]
            ),
            bool(r["label"]),
            (r["system"], bool(r["label"])),
        )
        for r in read_jsonl(root / "evouna-nq" / "correctness.jsonl")
        if r["answer"].strip()
    ]
    return stratified_sample(cases, lambda c: c.stratum, n, seed)


def begin_cases(root: Path, n: int, seed: int) -> list[Case]:
    cases = [
        Case(
            FaithfulnessItem(answer=r["answer"], contexts=[r["context"]], question=r.get("question") or None),
            bool(r["label"]),
            (r["system"], bool(r["label"])),
        )
        for r in read_jsonl(root / "begin-dev" / "faithfulness.jsonl")
    ]
    return stratified_sample(cases, lambda c: c.stratum, n, seed)


# -- running ------------------------------------------------------------------------------------------------
@dataclass
class Report:
    """The numbers of one judge on one benchmark."""

    judge: str
    dataset: str
    total: int
    scored: int
    accuracy: float
    kappa: float
    seconds: float
    extra: dict[str, float] = field(default_factory=dict)
    unscored_reasons: list[tuple[str, int]] = field(default_factory=list)
    tokens: int = 0
    requests: int = 0

    @property
    def coverage(self) -> float:
        return self.scored / self.total if self.total else 0.0

    @property
    def per_second(self) -> float:
        return self.total / self.seconds if self.seconds else 0.0


async def run_judge(
    judge: BaseJudge[Any, Any], cases: Sequence[Case], label: str
) -> tuple[list[Judgment[Any]], float]:
    with Progress(
        TextColumn(f"{label:<13}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as progress:
        task = progress.add_task(label, total=len(cases))
        started = time.perf_counter()
        judgments = await judge.ajudge_batch(
            [case.item for case in cases], on_result=lambda i, j: progress.advance(task)
        )
        return judgments, time.perf_counter() - started


def _as_bool(value: Any) -> bool:
    label = getattr(value, "label", value)
    return bool(label)


def summarise(
    judge: str,
    dataset: str,
    cases: Sequence[Case],
    judgments: Sequence[Judgment[Any]],
    seconds: float,
    *,
    graded: bool = False,
) -> Report:
    pairs = [(case.truth, j.value) for case, j in zip(cases, judgments, strict=True) if j.value is not None]
    reasons = Counter((j.unscored_reason or "")[:90] for j in judgments if j.value is None)
    tokens = sum(j.usage.total_tokens for j in judgments)
    requests = sum(j.usage.requests for j in judgments)
    extra: dict[str, float] = {}
    if graded:
        truth = [int(t) for t, _ in pairs]
        predicted = [int(getattr(v, "grade", v)) for _, v in pairs]
        accuracy = (
            sum(a == b for a, b in zip(truth, predicted, strict=True)) / len(pairs) if pairs else math.nan
        )
        kappa = cohen_kappa(truth, predicted)
        extra["qw_kappa"] = cohen_kappa(truth, predicted, weights="quadratic")
        binary_truth = [t >= 2 for t in truth]
        binary_pred = [p >= 2 for p in predicted]
        extra["acc@>=2"] = (
            sum(a == b for a, b in zip(binary_truth, binary_pred, strict=True)) / len(pairs)
            if pairs
            else math.nan
        )
        extra["kappa@>=2"] = cohen_kappa(binary_truth, binary_pred)
    else:
        truth_b = [
            bool(t >= 2) if isinstance(t, int) and not isinstance(t, bool) else bool(t) for t, _ in pairs
        ]
        predicted_b = [_as_bool(v) for _, v in pairs]
        accuracy = (
            sum(a == b for a, b in zip(truth_b, predicted_b, strict=True)) / len(pairs) if pairs else math.nan
        )
        kappa = cohen_kappa(truth_b, predicted_b)
        extra["pred_pos"] = sum(predicted_b) / len(pairs) if pairs else math.nan
        extra["true_pos"] = sum(truth_b) / len(pairs) if pairs else math.nan
    return Report(
        judge,
        dataset,
        len(cases),
        len(pairs),
        accuracy,
        kappa,
        seconds,
        extra,
        reasons.most_common(3),
        tokens,
        requests,
    )


def fmt(value: float) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


def print_reports(reports: Sequence[Report], settings: RagjurySettings, args: argparse.Namespace) -> None:
    """A plain-text table on stdout (copy-pasteable into notes and issues)."""
    print(
        f"verdict judges vs human labels: model {settings.judge_model} at {settings.openai_base_url}, "
        f"n={args.n} per judge, seed {args.seed}, samples {args.samples}, concurrency {settings.concurrency}"
    )
    header = (
        f"{'judge':<13}{'data':<17}{'scored/total':>13}{'coverage':>9}{'accuracy':>9}{'kappa':>8}"
        f"{'judg/s':>8}{'tokens':>9}  extra"
    )
    print(header)
    print("-" * len(header))
    for r in reports:
        extra = " ".join(f"{k}={fmt(v)}" for k, v in r.extra.items())
        print(
            f"{r.judge:<13}{r.dataset:<17}{f'{r.scored}/{r.total}':>13}{fmt(r.coverage):>9}{fmt(r.accuracy):>9}"
            f"{fmt(r.kappa):>8}{r.per_second:>8.3f}{r.tokens:>9}  {extra}"
        )
    for r in reports:
        for reason, count in r.unscored_reasons:
            print(f"  {r.judge}: {count} unscored: {reason}")


@contextmanager
def maybe_test_server(start: bool, context_tokens: int) -> Iterator[str | None]:
    """The test llama-server of ``tests/llama_server.py`` when asked for, else nothing."""
    if not start:
        yield None
        return
    sys.path.insert(0, str(REPO / "tests"))
    from llama_server import running_server

    with running_server(context_tokens=context_tokens) as server:
        yield server.base_url


async def bench(args: argparse.Namespace, settings: RagjurySettings) -> list[Report]:
    root = Path(args.data)
    wanted = [name.strip() for name in args.judges.split(",") if name.strip()]
    unknown = sorted(set(wanted) - set(JUDGES))
    if unknown:
        raise SystemExit(f"unknown judge(s) {unknown}; choose from {', '.join(JUDGES)}")
    kwargs = {"settings": settings, "samples": args.samples}
    reports: list[Report] = []
    trec = trec_cases(root, args.n, args.seed) if {"relevance", "graded"} & set(wanted) else []
    for name in wanted:
        if name == "relevance":
            judge: BaseJudge[Any, Any] = RelevanceVerdictJudge(**kwargs)
            cases, dataset, graded = trec, "trec-dl19 (>=2)", False
        elif name == "graded":
            judge, cases, dataset, graded = GradedRelevanceJudge(**kwargs), trec, "trec-dl19 (0-3)", True
        elif name == "correctness":
            judge, cases, dataset, graded = (
                CorrectnessJudge(**kwargs),
                evouna_cases(root, args.n, args.seed),
                "evouna-nq",
                False,
            )
        else:
            judge, cases, dataset, graded = (
                FaithfulnessJudge(**kwargs),
                begin_cases(root, args.n, args.seed),
                "begin-dev",
                False,
            )
        judgments, seconds = await run_judge(judge, cases, name)
        reports.append(summarise(name, dataset, cases, judgments, seconds, graded=graded))
    return reports


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=200, help="items per judge (default 200)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--judges", default=",".join(JUDGES), help=f"comma-separated subset of {', '.join(JUDGES)}"
    )
    parser.add_argument("--base-url", help="OpenAI-compatible base URL (default: Ollama at $OLLAMA_HOST/v1)")
    parser.add_argument("--model", help="judge model name (default: $RAGJURY_JUDGE_MODEL or phi3:mini)")
    parser.add_argument("--samples", type=int, default=1, help="self-consistency samples per verdict (odd)")
    parser.add_argument(
        "--concurrency", type=int, help="judgments in flight (default: $RAGJURY_CONCURRENCY or 4)"
    )
    parser.add_argument(
        "--data", default=os.environ.get("RAGJURY_BENCHMARKS", str(REPO.parent / "shared" / "benchmarks"))
    )
    parser.add_argument(
        "--start-test-server",
        action="store_true",
        help="start the test llama-server (tests/llama_server.py) and judge with it",
    )
    parser.add_argument(
        "--context-tokens", type=int, default=4096, help="context size of the started test server"
    )
    parser.add_argument("--json", dest="json_out", help="also write the reports as JSON to this file")
    args = parser.parse_args(argv)

    with maybe_test_server(args.start_test_server, args.context_tokens) as server_url:
        update: dict[str, object] = {}
        if server_url or args.base_url:
            update["base_url"] = server_url or args.base_url
        if args.model:
            update["judge_model"] = args.model
        if args.concurrency:
            update["concurrency"] = args.concurrency
        settings = RagjurySettings().model_copy(update=update)
        reports = asyncio.run(bench(args, settings))
    print_reports(reports, settings, args)
    if args.json_out:
        payload = [{**r.__dict__, "coverage": r.coverage, "judgments_per_s": r.per_second} for r in reports]
        Path(args.json_out).write_text(json.dumps(payload, indent=2, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
