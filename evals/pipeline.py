"""The async evaluation API: batch-judge a dataset, an agent's answers, or retrieval pairs.

Every entry point goes through ``run_judgments`` and the cache, so each judgment is stored the
moment it completes and a re-run resumes instead of starting over. Agent answers are cached too
(key: the agent's identity, i.e. model, prompt, retrieval settings and corpus, plus the question),
so a resumed ``evaluate --agent`` run asks the agent only the questions it has no answer for.

- ``evaluate_dataset(task, rows, judge)``: predictions, run stats and, when the rows carry human
  labels, agreement figures (``evals.agreement``) and the per-system ranking correlation.
- ``evaluate_rag_answers(ground_truth, agent, judge)``: run any agent with
  ``async query(question) -> RAGAnswer | AgentResponse`` over questions, then judge each answer
  (multi-dimension score, and faithfulness / correctness when those judges are given).
- ``judge_pairs(pairs, topics, passages, judge)``: relevance of (query, passage) pairs, the core
  of ``ragjury relevance``.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from rich.progress import Progress

from ragjury.evals.cache import JudgmentCache
from ragjury.evals.registry import label_of
from ragjury.evals.report import VerdictSources
from ragjury.evals.runner import RunStats, make_progress, run_judgments
from ragjury.evals.tasks import DataSource, Question, TaskRow, as_task_rows, task_spec
from ragjury.rag_agent.items import CorrectnessItem, FaithfulnessItem, JudgmentContext, ScoreItem
from ragjury.rag_agent.models import RAGAnswer, SourceDocument
from ragjury.rag_agent.protocol import Judge
from ragjury.rag_agent.results import Judgment, Usage

Label = bool | int | float


# -- datasets ----------------------------------------------------------------------------------


@dataclass
class Prediction:
    """One dataset row's judgment and the label taken from it (None when unscored)."""

    id: str
    system: str | None
    gold: bool | float | None
    judgment: Judgment[Any]
    label: Label | None
    task: str | None = None
    item: Any = None
    """The judged item (``rag_agent.items``), written to the row so that a report can be
    rebuilt from the predictions file alone (``ragjury report``)."""

    def as_dict(self, output_key: str = "label") -> dict[str, object]:
        """The predictions-JSONL row: id, system, task, label (or score), gold, the value's
        details, the envelope, and last the item that was judged (its text)."""
        row: dict[str, object] = {"id": self.id}
        if self.system is not None:
            row["system"] = self.system
        if self.task is not None:
            row["task"] = self.task
        row[output_key] = self.label
        if self.gold is not None:
            row["gold"] = self.gold
        value = self.judgment.value
        if value is not None and hasattr(value, "model_dump"):
            row["value"] = value.model_dump(mode="json")
        row.update(self.judgment.envelope())
        if self.item is not None:
            row["item"] = self.item.model_dump(mode="json") if hasattr(self.item, "model_dump") else self.item
        return row


@dataclass
class SystemRanking:
    """Mean gold label and mean judge label per system, and how the two rankings correlate."""

    human: dict[str, float]
    judge: dict[str, float]
    correlation: Any
    """``evals.agreement.RankCorrelation`` (Kendall's tau, Spearman)."""

    def as_dict(self) -> dict[str, Any]:
        """The ``ranking`` object every ``--json`` shares (``rag_agent.json_contract.ranking``)."""
        from ragjury.rag_agent.json_contract import ranking

        return ranking("mean label", self.human, self.judge, self.correlation)


@dataclass
class EvaluationResult:
    """What ``evaluate_dataset`` returns: predictions, run stats, and agreement when labelled."""

    task: str
    judge: str
    predictions: list[Prediction]
    stats: RunStats
    agreement: Any = None
    """Binary tasks: ``evals.agreement.AgreementFigures`` against the gold labels."""
    correlation: dict[str, Any] | None = None
    """Score tasks: Pearson / Spearman / MAE of judge scores against gold scores."""
    ranking: SystemRanking | None = None
    """Per-system scores under people and the judge, and the rank correlation between them."""

    @property
    def labelled(self) -> int:
        return sum(p.gold is not None for p in self.predictions)

    def figures(self) -> dict[str, float | None]:
        """Flat figures for ``--fail-under`` gates: coverage, agreement, correlations, mean label."""
        return flat_figures(
            scored=self.stats.scored,
            total=self.stats.total,
            labels=[p.label for p in self.predictions],
            agreement=self.agreement,
            correlation=self.correlation,
            ranking=self.ranking,
        )

    @property
    def sources(self) -> VerdictSources:
        """Which judges produced the scored verdicts (``judge`` names the requested one, e.g. "auto")."""
        return VerdictSources.of([p.judgment for p in self.predictions])

    def summary(self) -> dict[str, Any]:
        """Everything for ``--json``: run stats, the judges that produced the verdicts (and the
        fallback's share), figures, agreement details and the ranking."""
        out: dict[str, Any] = {"task": self.task, "judge": self.judge, **self.stats.as_dict()}
        out.update(self.sources.as_dict())
        out["labelled"] = self.labelled
        out["figures"] = self.figures()
        if self.agreement is not None:
            out["agreement"] = _as_dict(self.agreement)
        if self.correlation:
            out["score_correlation"] = self.correlation
        if self.ranking is not None:
            out["ranking"] = self.ranking.as_dict()
        return out


def flat_figures(
    *,
    scored: int,
    total: int,
    labels: Sequence[float | bool | None],
    agreement: Any,
    correlation: Mapping[str, Any] | None,
    ranking: SystemRanking | None,
) -> dict[str, float | None]:
    """The flat figures ``--fail-under`` gates and every JSON read: coverage (of the labelled
    items when there is agreement), mean label, agreement, score correlations and the system
    ranking's correlation. One definition for a fresh run and for a report rebuilt from
    predictions, so a gate means the same in both."""
    known = [float(label) for label in labels if label is not None]
    flat: dict[str, float | None] = {
        "coverage": scored / total if total else None,
        "mean_label": sum(known) / len(known) if known else None,
    }
    if agreement is not None:
        flat.update(agreement.figures())
        flat["coverage"] = agreement.coverage
    if correlation:
        flat.update({k: v for k, v in correlation.items() if k in ("pearson", "spearman", "mae")})
    if ranking is not None:
        flat["kendall_tau"] = ranking.correlation.kendall_tau
        flat["system_spearman"] = ranking.correlation.spearman
    return flat


async def evaluate_dataset(
    task: str,
    rows: Sequence[TaskRow] | DataSource,
    judge: Judge[Any, Any],
    *,
    cache: JudgmentCache | None = None,
    concurrency: int | None = None,
    progress: bool | Progress = True,
    judge_name: str | None = None,
) -> EvaluationResult:
    """Judge every row's item and compare with the rows' gold labels when they have them.

    ``rows`` are ``TaskRow``s (``evals.tasks.load_dataset``), or anything that loads into them:
    a path, a pandas DataFrame, a ``datasets.Dataset`` or a list of dicts (Ragas and DeepEval
    column names recognised).
    """
    spec = task_spec(task)
    rows = as_task_rows(task, rows)
    judgments, stats = await run_judgments(
        judge,
        [row.item for row in rows],
        cache=cache,
        concurrency=concurrency,
        progress=progress,
        description=f"{task}: {judge_name or judge.identity.name}",
    )
    predictions = [
        Prediction(
            row.id,
            row.system,
            row.gold,
            judgment,
            label_of(judgment.value) if judgment.scored else None,
            task=task,
            item=row.item,
        )
        for row, judgment in zip(rows, judgments, strict=True)
    ]
    result = EvaluationResult(task, judge_name or judge.identity.name, predictions, stats)
    if any(p.gold is not None for p in predictions):
        if spec.gold_kind == "binary":
            result.agreement = binary_agreement(predictions)
        else:
            result.correlation = score_correlation(predictions)
        result.ranking = system_ranking(predictions)
    return result


def binary_agreement(predictions: Sequence[Prediction]) -> Any:
    """``evals.agreement.label_agreement`` of the judge's labels with the gold labels, over the
    labelled rows; unscored rows are passed as None, so they lower coverage, never count as wrong."""
    from ragjury.evals.agreement import label_agreement

    labelled = [p for p in predictions if p.gold is not None]
    gold = [bool(p.gold) for p in labelled]
    predicted = [None if p.label is None else bool(p.label) for p in labelled]
    return label_agreement(gold, predicted, labels=[False, True])


def score_correlation(predictions: Sequence[Prediction]) -> dict[str, Any]:
    """Pearson, Spearman and mean absolute error of judge scores against gold scores (rows both scored)."""
    labelled = [p for p in predictions if p.gold is not None]
    pairs = [(float(p.gold), float(p.label)) for p in labelled if p.label is not None]  # type: ignore[arg-type]
    figures: dict[str, Any] = {"n_total": len(labelled), "n_scored": len(pairs)}
    if len(pairs) >= 2:
        from scipy import stats as scipy_stats

        xs, ys = zip(*pairs, strict=True)
        if len(set(xs)) > 1 and len(set(ys)) > 1:
            figures["pearson"] = float(scipy_stats.pearsonr(xs, ys).statistic)
            figures["spearman"] = float(scipy_stats.spearmanr(xs, ys).statistic)
        figures["mae"] = sum(abs(x - y) for x, y in pairs) / len(pairs)
    return figures


def system_ranking(predictions: Sequence[Prediction]) -> SystemRanking | None:
    """Mean gold label and mean judge label per system, and Kendall's tau between the rankings
    (``evals.agreement.ranking_correlation``); None with fewer than two systems."""
    human: dict[str, list[float]] = defaultdict(list)
    judged: dict[str, list[float]] = defaultdict(list)
    for p in predictions:
        if p.system is None or p.gold is None:
            continue
        human[p.system].append(float(p.gold))
        if p.label is not None:
            judged[p.system].append(float(p.label))
    systems = sorted(s for s in human if judged.get(s))
    if len(systems) < 2:
        return None
    from ragjury.evals.agreement import ranking_correlation

    human_scores = {s: sum(human[s]) / len(human[s]) for s in systems}
    judge_scores = {s: sum(judged[s]) / len(judged[s]) for s in systems}
    return SystemRanking(human_scores, judge_scores, ranking_correlation(human_scores, judge_scores))


def _as_dict(figures: Any) -> dict[str, Any]:
    """Agreement results may be pydantic models, dataclasses or dicts; summaries want dicts."""
    if isinstance(figures, Mapping):
        return dict(figures)
    if hasattr(figures, "model_dump"):
        return figures.model_dump(mode="json")
    import dataclasses

    if dataclasses.is_dataclass(figures):
        return dataclasses.asdict(figures)  # type: ignore[arg-type]
    return {"value": figures}


# -- agents ------------------------------------------------------------------------------------


class RAGAgentLike(Protocol):
    """Anything with ``async query(question)`` returning a ``RAGAnswer`` or an ``AgentResponse``."""

    async def query(self, question: str) -> Any: ...


@dataclass
class AgentAnswer:
    """One agent run, normalised: the answer (or the error) and the sources it retrieved."""

    question: str
    answer: RAGAnswer | None
    sources: list[SourceDocument] = field(default_factory=list)
    error: str | None = None
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    cached: bool = False

    def record(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer.model_dump(mode="json") if self.answer else None,
            "sources": [s.model_dump(mode="json") for s in self.sources],
            "usage": self.usage.model_dump(),
            "latency_s": self.latency_s,
        }

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> AgentAnswer:
        return cls(
            question=data["question"],
            answer=RAGAnswer.model_validate(data["answer"]) if data.get("answer") else None,
            sources=[SourceDocument.model_validate(s) for s in data.get("sources", [])],
            usage=Usage.model_validate(data.get("usage") or {}),
            latency_s=float(data.get("latency_s", 0.0)),
            cached=True,
        )


def agent_key(agent: object) -> str:
    """What identifies an agent's answers: its ``identity`` when it has one (``RAGAgent`` does:
    model, prompt, retrieval and corpus fingerprint), else its class and model name."""
    identity = getattr(agent, "identity", None)
    if identity is not None and hasattr(identity, "key"):
        return str(identity.key())
    model = getattr(agent, "model_name", None) or getattr(
        getattr(agent, "settings", None), "agent_model", None
    )
    return f"{type(agent).__module__}.{type(agent).__qualname__}|{model or '-'}"


def answer_cache_key(agent_id: str, question: str) -> str:
    return hashlib.sha256(f"agent\x00{agent_id}\x00{question}".encode()).hexdigest()


def _normalise_response(question: str, response: Any, latency_s: float) -> AgentAnswer:
    if isinstance(response, RAGAnswer):
        return AgentAnswer(question, response, latency_s=latency_s)
    if isinstance(response, str):
        return AgentAnswer(question, RAGAnswer(answer=response), latency_s=latency_s)
    answer = getattr(response, "answer", None)
    if isinstance(answer, str):
        answer = RAGAnswer(answer=answer)
    sources = list(getattr(response, "sources", None) or [])
    error = getattr(response, "error", None)
    if answer is None and not error:
        error = f"the agent returned no answer ({type(response).__name__})"
    return AgentAnswer(
        question,
        answer if isinstance(answer, RAGAnswer) else None,
        sources=[s if isinstance(s, SourceDocument) else SourceDocument.model_validate(s) for s in sources],
        error=error if answer is None else None,
        usage=getattr(response, "usage", None) or Usage(),
        latency_s=float(getattr(response, "latency_s", 0.0) or latency_s),
    )


@dataclass
class AgentRunStats:
    total: int = 0
    cached: int = 0
    asked: int = 0
    errors: int = 0
    usage: Usage = field(default_factory=Usage)
    wall_s: float = 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "questions": self.total,
            "answered": self.total - self.errors,
            "errors": self.errors,
            "cached": self.cached,
            "asked": self.asked,
            "tokens": self.usage.total_tokens,
            "requests": self.usage.requests,
            "wall_s": round(self.wall_s, 3),
        }


async def collect_answers(
    agent: RAGAgentLike,
    questions: Sequence[str],
    *,
    cache: JudgmentCache | None = None,
    concurrency: int = 4,
    progress: bool | Progress = False,
) -> tuple[list[AgentAnswer], AgentRunStats]:
    """Ask ``agent`` every question (cached answers are reused); failures become ``error``s.

    Answers are stored as each completes; failed runs are not stored, so a re-run retries them.
    """
    started = time.perf_counter()
    stats = AgentRunStats(total=len(questions))
    agent_id = agent_key(agent)
    answers: list[AgentAnswer | None] = [None] * len(questions)
    todo: list[int] = []
    for index, question in enumerate(questions):
        record = cache.get_record(answer_cache_key(agent_id, question), kind="agent") if cache else None
        if record is not None:
            answers[index] = AgentAnswer.from_record(record)
            stats.cached += 1
        else:
            todo.append(index)

    own = progress is True
    bar: Progress | None = make_progress() if own else (progress or None)  # type: ignore[assignment]
    task_id = bar.add_task("agent", total=len(questions), completed=stats.cached, status="") if bar else None
    if bar is not None and own:
        bar.start()
    semaphore = asyncio.Semaphore(max(1, concurrency))

    async def one(index: int) -> None:
        question = questions[index]
        async with semaphore:
            begun = time.perf_counter()
            try:
                response = await agent.query(question)
                answer = _normalise_response(question, response, time.perf_counter() - begun)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - one failed question must not end the run
                answer = AgentAnswer(question, None, error=f"{type(error).__name__}: {error}")
        answers[index] = answer
        stats.asked += 1
        stats.usage = stats.usage + answer.usage
        if answer.answer is not None and cache is not None:
            cache.put_record(
                answer_cache_key(agent_id, question), answer.record(), kind="agent", owner=agent_id
            )
        if answer.answer is None:
            stats.errors += 1
        if bar is not None and task_id is not None:
            bar.update(
                task_id, advance=1, status=f"errors {stats.errors}  tokens {stats.usage.total_tokens:,}"
            )

    try:
        await asyncio.gather(*(one(i) for i in todo))
    finally:
        stats.wall_s = time.perf_counter() - started
        if bar is not None and own:
            bar.stop()
    return [a for a in answers if a is not None], stats


@dataclass
class GroundTruth:
    """A question to ask, with the reference answers when known."""

    question: str
    references: list[str] = field(default_factory=list)
    id: str | None = None


def _ground_truth(entry: Any, index: int) -> GroundTruth:
    if isinstance(entry, GroundTruth):
        return entry
    if isinstance(entry, Question):
        return GroundTruth(entry.question, list(entry.references), entry.id)
    if isinstance(entry, str):
        return GroundTruth(entry, id=str(index))
    if isinstance(entry, Mapping):
        question = entry.get("question") or entry.get("query")
        if not isinstance(question, str):
            raise ValueError(f"ground truth entry {index} has no 'question'")
        refs = entry.get("references") or entry.get("reference") or entry.get("ground_truth") or []
        refs = [refs] if isinstance(refs, str) else list(refs)
        ident = entry.get("id") or entry.get("qid")
        return GroundTruth(question, refs, str(ident) if ident is not None else str(index))
    raise TypeError(
        f"ground truth entry {index}: expected str, mapping or GroundTruth, got {type(entry).__name__}"
    )


@dataclass
class AgentRow:
    """One question's answer and its judgments (None where that judge was not run)."""

    id: str
    question: str
    answer: AgentAnswer
    score: Judgment[Any] | None = None
    faithfulness: Judgment[Any] | None = None
    correctness: Judgment[Any] | None = None

    def as_dict(self) -> dict[str, object]:
        row: dict[str, object] = {
            "id": self.id,
            "question": self.question,
            "answer": self.answer.answer.answer if self.answer.answer else None,
            "agent_error": self.answer.error,
            "sources": [s.id for s in self.answer.sources],
            "sources_used": self.answer.answer.sources_used if self.answer.answer else [],
        }
        for name, judgment in (
            ("score", self.score),
            ("faithful", self.faithfulness),
            ("correct", self.correctness),
        ):
            if judgment is None:
                continue
            row[name] = label_of(judgment.value) if judgment.scored else None
            row[f"{name}_judgment"] = {
                **({"value": _dump(judgment.value)} if judgment.value is not None else {}),
                **judgment.envelope(),
            }
        return row


def _dump(value: Any) -> Any:
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value


@dataclass
class AgentEvaluation:
    """What ``evaluate_rag_answers`` returns."""

    rows: list[AgentRow]
    agent_stats: AgentRunStats
    judge_stats: dict[str, RunStats]

    def sources(self, stage: str) -> VerdictSources:
        """Which judges produced the scored verdicts of ``stage`` (score, faithfulness, correctness)."""
        return VerdictSources.of([getattr(r, stage) for r in self.rows if getattr(r, stage) is not None])

    def summary(self) -> dict[str, Any]:
        """The agent's stats, then per judge stage its stats, mean and the judges that produced
        its verdicts (``judges``, ``fallback``, ``verdicts_by``)."""
        out: dict[str, Any] = {"agent": self.agent_stats.as_dict()}
        for name, attr in (
            ("score", "score"),
            ("faithfulness", "faithfulness"),
            ("correctness", "correctness"),
        ):
            if name not in self.judge_stats:
                continue
            judgments = [getattr(r, attr) for r in self.rows if getattr(r, attr) is not None]
            labels = [float(label_of(j.value)) for j in judgments if j.scored]  # type: ignore[arg-type]
            figures = self.judge_stats[name].as_dict()
            figures["skipped_no_answer"] = len(self.rows) - len(judgments)
            figures["mean"] = round(sum(labels) / len(labels), 6) if labels else None
            figures.update(VerdictSources.of(judgments).as_dict())
            out[name] = figures
        return out


async def evaluate_rag_answers(
    ground_truth: Sequence[Any],
    agent: RAGAgentLike,
    judge: Judge[ScoreItem, Any] | None,
    *,
    faithfulness_judge: Judge[FaithfulnessItem, Any] | None = None,
    correctness_judge: Judge[CorrectnessItem, Any] | None = None,
    cache: JudgmentCache | None = None,
    concurrency: int = 4,
    progress: bool | Progress = False,
) -> AgentEvaluation:
    """Ask ``agent`` each question, then judge every answer.

    ``ground_truth``: questions as strings, ``{"question", "references"?, "id"?}`` mappings,
    ``GroundTruth`` or ``evals.tasks.Question``. ``judge`` scores each answer on the five
    dimensions (e.g. ``JudgeLLM``) with the retrieved sources; ``faithfulness_judge`` checks the
    answer against the retrieved passages; ``correctness_judge`` compares it with the references
    of the questions that have them. A question the agent failed on is not judged (its row keeps
    the agent's error). All answers and judgments go through ``cache`` when given.
    """
    truths = [_ground_truth(entry, i) for i, entry in enumerate(ground_truth)]
    own = progress is True
    bar: Progress | None = make_progress() if own else (progress or None)  # type: ignore[assignment]
    if bar is not None and own:
        bar.start()
    try:
        answers, agent_stats = await collect_answers(
            agent, [t.question for t in truths], cache=cache, concurrency=concurrency, progress=bar or False
        )
        rows = [
            AgentRow(t.id or str(i), t.question, a)
            for i, (t, a) in enumerate(zip(truths, answers, strict=True))
        ]
        answered = [r for r in rows if r.answer.answer is not None]
        judge_stats: dict[str, RunStats] = {}

        async def run(name: str, judge_: Judge[Any, Any], selected: list[AgentRow], items: list[Any]) -> None:
            judgments, stats = await run_judgments(
                judge_, items, cache=cache, concurrency=concurrency, progress=bar or False, description=name
            )
            judge_stats[name] = stats
            for row, judgment in zip(selected, judgments, strict=True):
                setattr(row, name, judgment)

        if judge is not None:
            await run("score", judge, answered, [_score_item(r) for r in answered])
        if faithfulness_judge is not None:
            items = [
                FaithfulnessItem(
                    answer=_text(r), contexts=[s.content for s in r.answer.sources], question=r.question
                )
                for r in answered
            ]
            await run("faithfulness", faithfulness_judge, answered, items)
        if correctness_judge is not None:
            refs = {t.id or str(i): t.references for i, t in enumerate(truths)}
            with_refs = [r for r in answered if refs.get(r.id)]
            items = [
                CorrectnessItem(question=r.question, answer=_text(r), references=refs[r.id])
                for r in with_refs
            ]
            await run("correctness", correctness_judge, with_refs, items)
    finally:
        if bar is not None and own:
            bar.stop()
    return AgentEvaluation(rows, agent_stats, judge_stats)


def _text(row: AgentRow) -> str:
    assert row.answer.answer is not None
    return row.answer.answer.answer


def _score_item(row: AgentRow) -> ScoreItem:
    assert row.answer.answer is not None
    return ScoreItem(
        question=row.question,
        answer=row.answer.answer.answer,
        sources=row.answer.sources,
        sources_used=row.answer.answer.sources_used,
    )


# -- relevance pairs -----------------------------------------------------------------------------


@dataclass
class RelevanceResult:
    """Judged (qid, docid) pairs: grades of the scored ones, reasons of the unscored ones."""

    grades: dict[tuple[str, str], int]
    unscored: dict[tuple[str, str], str]
    stats: RunStats


def relevance_items(
    pairs: Sequence[tuple[str, str]], topics: Mapping[str, str], passages: Mapping[str, str]
) -> list[JudgmentContext]:
    """The items ``judge_pairs`` judges (``--dry-run`` counts the same ones, so the same cache keys)."""
    return [JudgmentContext(query=topics[qid], retrieved_text=passages[docid]) for qid, docid in pairs]


async def judge_pairs(
    pairs: Sequence[tuple[str, str]],
    topics: Mapping[str, str],
    passages: Mapping[str, str],
    judge: Judge[JudgmentContext, Any],
    *,
    cache: JudgmentCache | None = None,
    concurrency: int | None = None,
    progress: bool | Progress = True,
) -> RelevanceResult:
    """Judge the relevance of each (qid, docid) pair; every pair must have its query and text.

    Labels become integer grades: graded judges give 0-3, binary ones 1 (relevant) or 0.
    """
    items = relevance_items(pairs, topics, passages)
    judgments, stats = await run_judgments(
        judge, items, cache=cache, concurrency=concurrency, progress=progress, description="relevance"
    )
    grades: dict[tuple[str, str], int] = {}
    unscored: dict[tuple[str, str], str] = {}
    for pair, judgment in zip(pairs, judgments, strict=True):
        if judgment.unscored:
            unscored[pair] = judgment.unscored_reason or "unscored"
        else:
            grades[pair] = int(label_of(judgment.value))  # type: ignore[arg-type]
    return RelevanceResult(grades, unscored, stats)


__all__ = [
    "AgentAnswer",
    "AgentEvaluation",
    "AgentRow",
    "AgentRunStats",
    "EvaluationResult",
    "GroundTruth",
    "Prediction",
    "RAGAgentLike",
    "RelevanceResult",
    "agent_key",
    "collect_answers",
    "evaluate_dataset",
    "flat_figures",
    "evaluate_rag_answers",
    "SystemRanking",
    "binary_agreement",
    "score_correlation",
    "judge_pairs",
    "relevance_items",
    "system_ranking",
]
