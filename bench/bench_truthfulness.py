"""How far can each judge be trusted? One table of judge x public dev set, peers included.

For every judge on every dev set (read-only, see ../shared/benchmarks/PROVENANCE.md):

- trec-dl19 relevance: (query, passage) pairs from the depth-10 pool of the six runs, NIST grades;
  binary agreement at grade >= 2 (TREC's boundary);
- evouna-nq correctness: answers of five QA systems with human true/false labels;
- begin-dev faithfulness: dialogue responses with human "fully attributable" labels;

it prints n, coverage (scored / n), accuracy and Cohen's kappa with a 95 % bootstrap interval
(on the scored items), AUC of the judge's continuous score where it has one, Kendall tau between
the systems' ranking by the judge and by people (runs for trec-dl19, QA systems for evouna-nq,
dialogue systems for begin-dev), and tokens and seconds per judgment (mean latency of one
judgment at concurrency 1; cached judgments keep the latency they were measured with).

Judges whose value carries a probability (the logprob path) get a second row, "CV-calibrated":
the threshold on P(1) or the expected grade fitted by 5-fold cross-validation (each fold labelled
by a threshold fitted on the other four, pooled) — the figure that ``ragjury calibrate`` reports
and that holds out of sample. The in-sample fit is never reported as a result.

Peers run on the same server and the same items, through their own PyPI packages, which
``bench/peers.py`` installs into a cache outside the clone on first use: UMBRELA's prompt and parser as ``umbrela`` 0.0.7 ships them
(``umbrela/prompts/qrel_fewshot_bing.txt`` with the package's default of no examples, and
``umbrela.utils.common_utils.parse_fewshot_response``, whose "invalid -> 0" rule is kept and whose
invalid answers are counted in coverage), and Ragas ``Faithfulness`` (ragas 0.4.3, in a venv of its
own: it needs ``openai<3``, ragjury ``openai>=3.26``; ``bench/ragas_worker.py``). A peer that cannot
be installed is listed as such, never silently left out.

Examples::

    python bench/bench_truthfulness.py --start-server qwen1.5b                 # reference model
    python bench/bench_truthfulness.py --base-url http://127.0.0.1:8080/v1 --sets trec-dl19
    python bench/bench_truthfulness.py --start-server qwen1.5b --json bench-truthfulness.json

Judgments are cached (``--cache``, default ``~/.cache/ragjury-bench/truthfulness.sqlite``) keyed by
judge, model, prompt version and item, so a re-run only pays for what changed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))

import numpy as np
from rich.console import Console
from rich.table import Table
from scipy.stats import kendalltau

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.judges.catalogue import build_judge
from ragjury.evals.runs.cache import JudgmentCache, open_cache
from ragjury.evals.runs.runner import run_judgments
from ragjury.evals.stats.calibration import auc, binary_kappa, bootstrap_interval, cross_validate
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem, RelevanceItem
from ragjury.rag_agent.core.labels import label_of
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment, Usage

console = Console(stderr=True)
DEFAULT_DATA = REPO.parent / "shared" / "benchmarks"
SETS = ("trec-dl19", "evouna-nq", "begin-dev")


# -- data ------------------------------------------------------------------------------------------------


@dataclass
class Case:
    """One labelled item: what the judge sees, the people's label, and which systems produced it."""

    item: Any
    gold: bool
    systems: tuple[str, ...]
    grade: int | None = None


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8-sig") as handle:
        for line in handle.read().split("\n"):
            if line.strip():
                yield json.loads(line)


def stratified(cases: list[Case], key: Callable[[Case], Any], n: int, seed: int) -> list[Case]:
    """A seeded sample of ``n`` that keeps each stratum's share (largest remainders)."""
    if n >= len(cases):
        return cases
    groups: dict[Any, list[Case]] = defaultdict(list)
    for case in cases:
        groups[key(case)].append(case)
    rng = random.Random(seed)
    quotas = {k: n * len(v) / len(cases) for k, v in groups.items()}
    counts = {k: int(q) for k, q in quotas.items()}
    for k in sorted(quotas, key=lambda k: quotas[k] - counts[k], reverse=True)[: n - sum(counts.values())]:
        counts[k] += 1
    sample: list[Case] = []
    for k in sorted(groups, key=str):
        sample.extend(rng.sample(groups[k], counts[k]))
    rng.shuffle(sample)
    return sample


def trec_cases(root: Path, n: int, seed: int, depth: int = 10) -> list[Case]:
    base = root / "trec-dl19"
    topics = {row["qid"]: row["query"] for row in read_jsonl(base / "topics.jsonl")}
    passages = {row["docid"]: row["text"] for row in read_jsonl(base / "passages.jsonl")}
    qrels: dict[tuple[str, str], int] = {}
    for line in (base / "qrels.txt").read_text(encoding="utf-8-sig").split("\n"):
        if line.strip():
            qid, _, docid, grade = line.split()
            qrels[(qid, docid)] = int(grade)
    pool: dict[tuple[str, str], set[str]] = defaultdict(set)
    for run_file in sorted((base / "runs").glob("*.trec")):
        for line in run_file.read_text(encoding="utf-8-sig").split("\n"):
            if not line.strip():
                continue
            qid, _, docid, rank, _, _ = line.split()
            if int(rank) <= depth:
                pool[(qid, docid)].add(run_file.stem)
    cases = [
        Case(
            RelevanceItem(query=topics[qid], retrieved_text=passages[docid]),
            qrels[(qid, docid)] >= 2,
            tuple(sorted(systems)),
            grade=qrels[(qid, docid)],
        )
        for (qid, docid), systems in sorted(pool.items())
        if (qid, docid) in qrels and docid in passages and qid in topics
    ]
    sample = stratified(cases, lambda c: c.grade, n, seed)
    # Same query next to each other: the server's prompt cache keeps the shared prefix.
    return sorted(sample, key=lambda c: c.item.query)


def evouna_cases(root: Path, n: int, seed: int) -> list[Case]:
    cases = [
        Case(
            CorrectnessItem(question=row["question"], answer=row["answer"], references=row["references"]),
            bool(row["label"]),
            (row["system"],),
        )
        for row in read_jsonl(root / "evouna-nq" / "correctness.jsonl")
        if row["answer"].strip() and row["references"]
    ]
    return stratified(cases, lambda c: (c.systems, c.gold), n, seed)


def begin_cases(root: Path, n: int, seed: int) -> list[Case]:
    cases = [
        Case(
            FaithfulnessItem(answer=row["answer"], contexts=[row["context"]], question=row.get("question") or None),
            bool(row["label"]),
            (row["system"],),
        )
        for row in read_jsonl(root / "begin-dev" / "faithfulness.jsonl")
        if row["answer"].strip() and row["context"].strip()
    ]
    return stratified(cases, lambda c: (c.systems, c.gold), n, seed)


# -- peers (their own packages, on our server) -----------------------------------------------------------


class UmbrelaJudge(BaseJudge[RelevanceItem, int]):
    """UMBRELA's prompt and parser exactly as the ``umbrela`` package ships them, on our model.

    The package's default is zero examples (``few_shot_count=0``): its template with ``examples=""``.
    The package maps an unparsable answer to grade 0; that is kept (so the figures are the
    package's), and such answers are also marked so coverage can count them.
    """

    name = "umbrela"

    def __init__(self, settings: RagjurySettings, max_tokens: int = 100) -> None:
        from importlib.resources import files

        from peers import ensure_umbrela

        sys.path.insert(0, str(ensure_umbrela()))
        from umbrela.utils import common_utils  # the peer's own code

        from ragjury.rag_agent.model.server_model import build_model

        self._common = common_utils
        self.template = files("umbrela").joinpath("prompts/qrel_fewshot_bing.txt").read_text().strip()
        self.model = build_model(settings)
        self.settings = settings
        self.max_tokens = max_tokens
        self.concurrency = 1
        self.invalid: set[tuple[str, str]] = set()

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(name=self.name, model=self.model.model_name, prompt_version="umbrela-0.0.7-bing-0shot")

    async def _judge(self, item: RelevanceItem) -> Judgment[int]:
        from pydantic_ai.direct import model_request
        from pydantic_ai.messages import ModelRequest, UserPromptPart
        from pydantic_ai.settings import ModelSettings

        (prompt,) = self._common.generate_prompts([(item.query, item.retrieved_text)], "", self.template)
        started = time.perf_counter()
        response = await model_request(
            self.model,
            [ModelRequest(parts=[UserPromptPart(content=prompt)])],
            model_settings=ModelSettings(temperature=0.0, max_tokens=self.max_tokens, timeout=self.settings.timeout_s),
        )
        text = "".join(getattr(part, "content", "") for part in response.parts)
        with contextlib.redirect_stdout(open(os.devnull, "w")):  # noqa: SIM115 - the parser prints invalid answers
            grade, valid = self._common.parse_fewshot_response(text, item.retrieved_text, item.query)
        usage = Usage(
            input_tokens=response.usage.input_tokens or 0, output_tokens=response.usage.output_tokens or 0, requests=1
        )
        judgment = self.scored(int(grade), started=started, usage=usage)
        return judgment.model_copy(update={"method": "umbrela-valid" if valid else "umbrela-invalid->0"})


class RagasFaithfulnessJudge(BaseJudge[FaithfulnessItem, float]):
    """Ragas ``Faithfulness`` (ragas 0.4.3) on our server, in its own venv (``bench/ragas_worker.py``).

    Ragas' score is supported / total statements; BEGIN's label is "fully attributable", so the
    label needs every statement supported (the same rule as ragjury's statement judge). Its tokens
    are counted from the ``usage`` of every HTTP response its client received.
    """

    name = "ragas_faithfulness"

    def __init__(self, settings: RagjurySettings) -> None:
        from peers import ensure_ragas_python

        self.settings = settings
        self.python = ensure_ragas_python()
        self.concurrency = 1
        self._worker: asyncio.subprocess.Process | None = None
        self._count = 0

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(name=self.name, model=self.settings.judge_model, prompt_version="ragas-0.4.3")

    async def _ensure_worker(self) -> asyncio.subprocess.Process:
        if self._worker is None or self._worker.returncode is not None:
            self._worker = await asyncio.create_subprocess_exec(
                str(self.python), str(REPO / "bench" / "ragas_worker.py"), self.settings.openai_base_url,
                self.settings.judge_model, str(self.settings.max_tokens),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
                limit=1 << 24,
            )
        return self._worker

    async def _judge(self, item: FaithfulnessItem) -> Judgment[float]:
        worker = await self._ensure_worker()
        assert worker.stdin is not None and worker.stdout is not None
        self._count += 1
        request = {"id": self._count, "question": item.question, "answer": item.answer, "contexts": item.contexts}
        worker.stdin.write((json.dumps(request) + "\n").encode())
        await worker.stdin.drain()
        line = await worker.stdout.readline()
        if not line:
            return self.unscored("the ragas worker exited")
        out = json.loads(line)
        usage = Usage(input_tokens=out["input_tokens"], output_tokens=out["output_tokens"], requests=out["requests"])
        if out["score"] is None:
            judgment = self.unscored(out["error"] or "no score", usage=usage)
        else:
            judgment = self.scored(float(out["score"]), usage=usage)
        return judgment.model_copy(update={"latency_s": float(out["latency_s"])})


# -- measuring ---------------------------------------------------------------------------------------------


@dataclass
class Row:
    dataset: str
    judge: str
    n: int
    scored: int
    accuracy: float | None
    kappa: float | None
    interval: tuple[float, float] | None
    auc: float | None = None
    tau: float | None = None
    tokens: float | None = None
    output_tokens: float | None = None
    seconds: float | None = None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


@dataclass
class Spec:
    """A judge to run on one dataset, how to read a binary label and a score from its values."""

    label: str
    build: Callable[[], Any]
    binary: Callable[[Any], bool | None]
    score: Callable[[Any], float | None] | None = None
    note: str = ""
    calibrate: bool = False
    panel_score: Callable[[Any], float | None] | None = None
    """P(positive) for a panel vote; None: the 0/1 label votes."""


def system_tau(cases: Sequence[Case], predicted: Sequence[bool | None]) -> float | None:
    """Kendall tau between systems ranked by the judge's positive rate and by the people's, same items."""
    judged: dict[str, list[float]] = defaultdict(list)
    gold: dict[str, list[float]] = defaultdict(list)
    for case, label in zip(cases, predicted, strict=True):
        if label is None:
            continue
        for system in case.systems:
            judged[system].append(float(label))
            gold[system].append(float(case.gold))
    systems = sorted(judged)
    if len(systems) < 3:
        return None
    tau = kendalltau([np.mean(judged[s]) for s in systems], [np.mean(gold[s]) for s in systems]).statistic
    return None if tau != tau else float(tau)


def figures(
    dataset: str, label: str, cases: Sequence[Case], predicted: Sequence[bool | None],
    judgments: Sequence[Judgment[Any]] | None, scores: Sequence[float | None] | None, note: str,
) -> Row:
    pairs = [(p, c.gold) for p, c in zip(predicted, cases, strict=True) if p is not None]
    n = len(cases)
    if not pairs:
        return Row(dataset, label, n, 0, None, None, None, note=note or "nothing scored")
    p = np.array([a for a, _ in pairs], dtype=bool)
    g = np.array([b for _, b in pairs], dtype=bool)
    scored_scores = [(s, c.gold) for s, c, pr in zip(scores or [], cases, predicted, strict=False) if s is not None and pr is not None]
    row = Row(
        dataset, label, n, len(pairs), float((p == g).mean()), binary_kappa(p, g), bootstrap_interval(p, g),
        auc=auc([s for s, _ in scored_scores], [b for _, b in scored_scores]) if scored_scores else None,
        tau=system_tau(cases, predicted), note=note,
    )
    if judgments:
        live = [j for j in judgments if j.usage.requests > 0]
        if live:
            row.tokens = statistics.fmean(j.usage.total_tokens for j in live)
            row.output_tokens = statistics.fmean(j.usage.output_tokens for j in live)
            row.seconds = statistics.fmean(j.latency_s for j in live)
    return row


PANEL_VOTES: dict[str, list[float | None]] = {}
"""Per judge label: each case's P(positive) (its probability, else its 0/1 label), for panel rows."""


def panel_rows(dataset: str, cases: Sequence[Case], members: Sequence[str], folds: int, seed: int) -> list[Row]:
    """A mean-probability panel of judges already measured on these cases, from their own judgments.

    The same rule as ``Panel(combine="mean")``: members without a verdict on a case do not vote; fewer
    than half voting leaves the case unscored; label = mean >= 0.5 (and a CV-fitted threshold row).
    """
    if any(m not in PANEL_VOTES for m in members):
        return []
    label = "panel-mean(" + " + ".join(members) + ")"
    means: list[float | None] = []
    for index in range(len(cases)):
        votes = [PANEL_VOTES[m][index] for m in members if PANEL_VOTES[m][index] is not None]
        means.append(float(np.mean(votes)) if len(votes) * 2 >= len(members) and votes else None)
    predicted = [None if m is None else m >= 0.5 for m in means]
    rows = [figures(dataset, label, cases, predicted, None, means, "from the members' judgments")]
    usable = [(m, c.gold) for m, c in zip(means, cases, strict=True) if m is not None]
    if len(usable) >= 2 * folds:
        from ragjury.evals.stats.calibration import fit_threshold, fold_indices

        s = np.array([m for m, _ in usable])
        g = np.array([b for _, b in usable])
        index_of = [i for i, m in enumerate(means) if m is not None]
        oof: list[bool | None] = [None] * len(cases)
        for held in fold_indices(len(usable), folds, seed):
            train = np.setdiff1d(np.arange(len(usable)), held)
            t = fit_threshold(s[train], g[train])
            for k in held:
                oof[index_of[k]] = bool(s[k] >= t)
        rows.append(figures(dataset, label + f" + {folds}-fold CV threshold", cases, oof, None, means, ""))
    return rows


async def measure(
    dataset: str, cases: list[Case], spec: Spec, cache: JudgmentCache | None, folds: int, seed: int
) -> list[Row]:
    try:
        judge = spec.build()
    except (ImportError, OSError, subprocess.CalledProcessError) as missing:
        return [Row(dataset, spec.label, len(cases), 0, None, None, None, note=f"not installed: {missing}")]
    result = await run_judgments(
        judge, [c.item for c in cases], cache=cache, concurrency=1, progress=True, description=f"{dataset}: {spec.label}"
    )
    judgments = result.judgments
    predicted = [spec.binary(j.value) if j.scored else None for j in judgments]
    scores = [spec.score(j.value) if (spec.score and j.scored) else None for j in judgments]
    PANEL_VOTES[spec.label] = [
        (sc if sc is not None and 0.0 <= sc <= 1.0 else float(pr)) if pr is not None else None
        for sc, pr in zip(
            [spec.panel_score(j.value) if (spec.panel_score and j.scored) else None for j in judgments],
            predicted, strict=True,
        )
    ]
    methods = {j.method for j in judgments if j.method}
    note = spec.note + (f" [{'/'.join(sorted(methods))}]" if methods else "")
    rows = [figures(dataset, spec.label, cases, predicted, judgments, scores, note)]
    if spec.calibrate and any(s is not None for s in scores):
        pairs = [(s, c) for s, c in zip(scores, cases, strict=True) if s is not None]
        s = np.array([x for x, _ in pairs])
        g = np.array([c.gold for _, c in pairs])
        try:
            cv = cross_validate(s, g, folds=folds, seed=seed)
        except ValueError as error:
            rows.append(Row(dataset, spec.label + " + CV threshold", len(cases), 0, None, None, None, note=str(error)))
        else:
            # Out-of-fold labels, for tau as well: refit per fold, as cross_validate does.
            oof: list[bool | None] = [None] * len(cases)
            from ragjury.evals.stats.calibration import fit_threshold, fold_indices

            index_of = [i for i, x in enumerate(scores) if x is not None]
            for held in fold_indices(len(pairs), folds, seed):
                train = np.setdiff1d(np.arange(len(pairs)), held)
                t = fit_threshold(s[train], g[train])
                for k in held:
                    oof[index_of[k]] = bool(s[k] >= t)
            row = figures(
                dataset, spec.label + f" + {folds}-fold CV threshold", cases, oof, judgments, scores,
                f"thresholds {min(cv.thresholds):.2f}-{max(cv.thresholds):.2f}",
            )
            rows.append(row)
    return rows


PANELS: dict[str, list[tuple[str, ...]]] = {
    "trec-dl19": [("llm, logprobs", "llm-graded, logprobs"), ("llm, logprobs", "llm-graded, logprobs", "non-llm")],
    "evouna-nq": [("llm, logprobs", "contains"), ("llm, logprobs", "contains", "token-overlap")],
    "begin-dev": [("llm-attribution, logprobs", "support"), ("llm-attribution, logprobs", "support", "token-overlap")],
}
"""Mean-probability panels measured beside their members (a panel of small judges vs each of them)."""


def specs_for(dataset: str, settings: RagjurySettings, peers: bool, include: set[str] | None) -> list[Spec]:
    def llm(task: str, name: str, **opts: Any) -> Callable[[], Any]:
        return lambda: build_judge(task, name, settings, **opts)

    def det(task: str, name: str) -> Callable[[], Any]:
        return lambda: build_judge(task, name, settings)

    def alternative(tag: str, task: str = "relevance", name: str = "llm-graded") -> Callable[[], Any]:
        """A judge with another version of its one-token prompt (before/after rows)."""
        from ragjury.rag_agent.judges.llm.alternative_prompts import ALTERNATIVE_INSTRUCTIONS

        def build() -> Any:
            judge = build_judge(task, name, settings, method="logprobs")
            judge.use_token_instruction(ALTERNATIVE_INSTRUCTIONS[tag])
            return judge

        return build

    def p_true(value: Any) -> float | None:
        return getattr(value, "probability", None)

    specs: list[Spec]
    if dataset == "trec-dl19":
        specs = [
            Spec("llm-graded, structured (before)", llm("relevance", "llm-graded", method="structured"),
                 lambda v: label_of(v) >= 2, note="JSON grade"),
            Spec("llm-graded, logprobs", llm("relevance", "llm-graded", method="logprobs"),
                 lambda v: label_of(v) >= 2, lambda v: v.expected_grade, note="argmax grade", calibrate=True,
                 panel_score=lambda v: v.p_relevant),
            Spec("llm-graded, logprobs, prompt 1.1 (rejected)", alternative("relevance_grade_token@1.1"),
                 lambda v: label_of(v) >= 2, lambda v: v.expected_grade, note="argmax grade", calibrate=True),
            Spec("llm, logprobs", llm("relevance", "llm", method="logprobs"),
                 lambda v: bool(label_of(v)), lambda v: v.probability, note="P(1) >= 0.5", calibrate=True,
                 panel_score=lambda v: v.probability),
            Spec("non-llm", det("relevance", "non-llm"), lambda v: label_of(v) >= 2, note="no model"),
            Spec("token-overlap", det("relevance", "token-overlap"), lambda v: bool(label_of(v)), note="no model"),
        ]
        if peers:
            specs.append(Spec("UMBRELA (umbrela 0.0.7 prompt+parser)", lambda: UmbrelaJudge(settings),
                              lambda v: int(v) >= 2, note="peer"))
    elif dataset == "evouna-nq":
        specs = [
            Spec("llm, structured (before)", llm("correctness", "llm", method="structured"),
                 lambda v: bool(label_of(v)), note="JSON verdict + reason"),
            Spec("llm, logprobs", llm("correctness", "llm", method="logprobs"),
                 lambda v: bool(label_of(v)), p_true, note="P(1) >= 0.5", calibrate=True, panel_score=p_true),
            Spec("llm, logprobs, prompt 1.1 (not adopted)", alternative("answer_correctness_token@1.1", "correctness", "llm"),
                 lambda v: bool(label_of(v)), p_true, note="P(1) >= 0.5", calibrate=True),
            Spec("llm-guarded, logprobs (the default)", llm("correctness", "llm-guarded", method="logprobs"),
                 lambda v: bool(label_of(v)), p_true, note="short answer, then P(1) >= 0.5", calibrate=True,
                 panel_score=p_true),
            Spec("contains", det("correctness", "contains"), lambda v: bool(label_of(v)), note="no model"),
            Spec("token-overlap", det("correctness", "token-overlap"), lambda v: bool(label_of(v)), note="no model"),
        ]
    else:
        specs = [
            Spec("llm (statements + NLI, structured)", llm("faithfulness", "llm"),
                 lambda v: bool(label_of(v)), lambda v: v.score, note="all statements supported"),
            Spec("llm-attribution, logprobs", llm("faithfulness", "llm-attribution", method="logprobs"),
                 lambda v: bool(label_of(v)), p_true, note="P(1) >= 0.5", calibrate=True, panel_score=p_true),
            Spec("token-overlap", det("faithfulness", "token-overlap"), lambda v: bool(label_of(v)), note="no model"),
        ]
        with contextlib.suppress(Exception):
            build_judge("faithfulness", "support", settings)
            specs.append(Spec("support", det("faithfulness", "support"), lambda v: bool(label_of(v)),
                              lambda v: getattr(v, "score", None), note="no model"))
        if peers:
            specs.append(Spec("Ragas Faithfulness (ragas 0.4.3)", lambda: RagasFaithfulnessJudge(settings),
                              lambda v: float(v) >= 1.0, lambda v: float(v), note="peer; score >= 1"))
    if include:
        specs = [s for s in specs if any(word in s.label for word in include)]
    return specs


def print_table(rows: Sequence[Row], title: str) -> None:
    table = Table(title=title, show_lines=False)
    for column in ("set", "judge", "n", "cov", "acc", "kappa [95% CI]", "AUC", "tau", "tok/j", "out/j", "s/j", "note"):
        table.add_column(column, overflow="fold")

    def f(x: float | None, digits: int = 2) -> str:
        return "—" if x is None else f"{x:.{digits}f}"

    for r in rows:
        kappa = "—" if r.kappa is None else f"{r.kappa:.2f} [{r.interval[0]:.2f}, {r.interval[1]:.2f}]"  # type: ignore[index]
        table.add_row(
            r.dataset, r.judge, str(r.n), f(r.scored / r.n if r.n else None), f(r.accuracy), kappa, f(r.auc),
            f(r.tau), f(r.tokens, 0), f(r.output_tokens, 1), f(r.seconds), r.note,
        )
    Console(width=200).print(table)


@contextlib.contextmanager
def server(start: str | None) -> Iterator[str | None]:
    if not start:
        yield None
        return
    from llama_server import running_server

    log = Path(os.environ.get("TMPDIR", "/tmp")) / "ragjury-bench-llama-server.log"
    with running_server(context_tokens=8192, log_path=log, model_name=start) as running:
        yield running.base_url


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of the public dev sets")
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated subset of {','.join(SETS)}")
    parser.add_argument("--base-url", help="a running OpenAI-compatible server")
    parser.add_argument("--start-server", choices=("qwen1.5b", "smollm2"), help="start llama-server with this model")
    parser.add_argument("--model", default=None, help="model name sent to the server")
    parser.add_argument("--n-relevance", type=int, default=160)
    parser.add_argument("--n-correctness", type=int, default=300)
    parser.add_argument("--n-faithfulness", type=int, default=80)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--no-peers", action="store_true", help="skip UMBRELA and Ragas")
    parser.add_argument("--only", default="", help="';'-separated phrases: run only judges whose label has one")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "ragjury-bench" / "truthfulness.sqlite")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = parser.parse_args(argv)
    if not args.base_url and not args.start_server:
        parser.error("give --base-url URL or --start-server qwen1.5b")
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    include = {w.strip() for w in args.only.split(";") if w.strip()} or None
    with server(args.start_server) as started_url:
        base_url = started_url or args.base_url
        settings = RagjurySettings(
            base_url=base_url, judge_model=args.model or os.environ.get("RAGJURY_JUDGE_MODEL", "phi3:mini"),
            concurrency=1, max_tokens=512, timeout_s=300,
        )
        loaders = {"trec-dl19": (trec_cases, args.n_relevance), "evouna-nq": (evouna_cases, args.n_correctness),
                   "begin-dev": (begin_cases, args.n_faithfulness)}
        rows: list[Row] = []
        cache = open_cache(args.cache)
        started = time.perf_counter()
        for dataset in [s for s in args.sets.split(",") if s]:
            load, n = loaders[dataset]
            cases = load(args.data, n, args.seed)
            console.print(f"[bold]{dataset}[/]: {len(cases)} items, {sum(c.gold for c in cases)} positive")
            PANEL_VOTES.clear()
            for spec in specs_for(dataset, settings, not args.no_peers, include):
                rows.extend(asyncio.run(measure(dataset, cases, spec, cache, args.folds, args.seed)))
            for members in PANELS[dataset]:
                rows.extend(panel_rows(dataset, cases, members, args.folds, args.seed))
        load1 = os.getloadavg()[0]
        title = (f"model {settings.judge_model} at {base_url}; seed {args.seed}; "
                 f"{time.perf_counter() - started:.0f}s; load average at end {load1:.2f} on {os.cpu_count()} cores")
        print_table(rows, title)
        if args.json:
            args.json.write_text(json.dumps({"title": title, "rows": [r.as_dict() for r in rows]}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
