"""Agent evaluation: ask an agent every question, judge each answer, and hand back a finished
``AgentEvaluation``.

Why a finished result: ``ragjury evaluate --agent`` and a Python user want the same figures,
gates, answers file, JSON and HTML report from a run, meaning the same wherever they are made.
Each judge stage is a finished run (``FinishedRun``, as a dataset run is), so a stage's figures
are measured once and mean what a dataset run's do; the result keeps the answers and its stages,
and its views read the stages' figures. The command parses options, calls ``evaluate_agent``
and prints.

Answers and judgments go through the same cached runner (``evals.agent_answers.ask_agent``, then
``run_judgments`` per judge): a resumed run asks the agent only the questions it has no answer
for, and judges only what was not judged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import Progress

from ragjury.evals.io.predictions import Prediction, write_jsonl
from ragjury.evals.io.tasks import Question
from ragjury.evals.results.finished_run import FinishedRun
from ragjury.evals.results.sources import VerdictSources, fallback_note
from ragjury.evals.runs.agent_answers import AgentAnswer, RAGAgentLike, agent_identity, ask_agent
from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.runner import RunStats, make_progress, run_judgments
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem, ScoreItem
from ragjury.rag_agent.core.labels import label_of
from ragjury.rag_agent.core.protocol import Judge
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.model.unreachable import unreachable_cause

if TYPE_CHECKING:
    from ragjury.evals.results.gates import Gates
    from ragjury.evals.report.page import HtmlReport

STAGES: tuple[str, ...] = ("score", "faithfulness", "correctness")
"""The judge stages of an agent run, in the order they run and are reported."""


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
        """The answers-JSONL row: the answer or the agent's error, the sources, then per judge
        its label (``score``, ``faithful``, ``correct``) and its judgment (value and envelope)."""
        answer = self.answer.answer
        row: dict[str, object] = {
            "id": self.id,
            "question": self.question,
            "answer": answer.answer if answer else None,
            "agent_error": self.answer.error,
            "sources": [s.id for s in self.answer.sources],
            "sources_used": answer.sources_used if answer else [],
        }
        for name, judgment in (
            ("score", self.score),
            ("faithful", self.faithfulness),
            ("correct", self.correctness),
        ):
            if judgment is None:
                continue
            row[name] = label_of(judgment.value)
            row[f"{name}_judgment"] = {
                **({"value": _dump(judgment.value)} if judgment.value is not None else {}),
                **judgment.envelope(),
            }
        return row


def _dump(value: Any) -> Any:
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value


def _agent_figures(stats: RunStats) -> dict[str, object]:
    """The agent's run as ``--json`` names it (questions, answered, errors, cached, asked, ...)."""
    return {
        "questions": stats.total,
        "answered": stats.total - stats.unscored,
        "errors": stats.unscored,
        "cached": stats.cached,
        "asked": stats.judged,
        "tokens": stats.tokens,
        "requests": stats.requests,
        "wall_s": round(stats.wall_s, 3),
    }


@dataclass(frozen=True)
class AgentFiles:
    """The files of one agent run: the questions and corpus read, the answers and report written
    (None: not written). The JSON payload names them; ``AgentEvaluation.write`` writes the outputs."""

    questions: Path
    corpus: Path | None = None
    answers: Path | None = None
    html: Path | None = None


@dataclass
class AgentEvaluation:
    """What ``evaluate_agent`` returns: the answers (one row per question, the agent's run stats
    and identity) and each judge stage that ran as a finished run over the questions answered
    (``FinishedRun``: its records, stats and every figure, each measured once). It holds no figure
    of its own: the summary, gates, page and payload are views of the stages' figures."""

    rows: list[AgentRow]
    agent_stats: RunStats
    """The agent's run: ``unscored`` are the questions it gave no answer to."""
    stages: dict[str, FinishedRun]
    """Judge stage (score, faithfulness, correctness) -> its finished run, in report order."""
    agent: str = ""
    """The agent's identity key (model, prompt, retrieval, corpus): what its answers are cached under."""

    @property
    def answered(self) -> int:
        return self.agent_stats.total - self.agent_stats.unscored

    @property
    def errors(self) -> list[str]:
        """The agent's error on each question it failed, in question order."""
        return [row.answer.error for row in self.rows if row.answer.error]

    @property
    def scored(self) -> int:
        """Scored judgments over all stages: 0 means nothing could be judged (exit 3)."""
        return sum(run.scored for run in self.stages.values())

    @property
    def why_unscored(self) -> str | None:
        """Why nothing was scored when the agent answered no question; None otherwise."""
        errors = self.errors
        if errors and not self.answered:
            return f"the agent answered no question ({errors[0]})"

        reasons = (r.unscored_reason for run in self.stages.values() for r in run.records if r.unscored)
        return next((cause for reason in reasons if (cause := unreachable_cause(reason))), None)

    def summary(self) -> dict[str, Any]:
        """The agent's stats (and identity), then per judge stage its stats, mean and result and
        the judges that produced its verdicts (``judges``, ``fallback``, ``verdicts_by``)."""
        agent = _agent_figures(self.agent_stats)
        if self.agent:
            agent["identity"] = self.agent
        out: dict[str, Any] = {"agent": agent}
        for name, run in self.stages.items():
            figures = run.stats.as_dict() if run.stats is not None else run.counts()
            figures["skipped_no_answer"] = len(self.rows) - len(run.records)
            figures["mean"] = _mean(run)
            figures["result"] = run.result.as_dict()
            figures.update(run.sources.as_dict())
            out[name] = figures
        return out

    def figures(self) -> dict[str, float | None]:
        """Flat figures for ``--fail-under`` gates: the share answered, then each stage's mean
        label and coverage (scored / judged), as the stage measured them."""
        total = self.agent_stats.total
        figures: dict[str, float | None] = {"answered": self.answered / max(1, total)}
        for name, run in self.stages.items():
            figures[name] = _mean(run)
            figures[f"{name}_coverage"] = run.figures()["coverage"]
        return figures

    def gate(self, gates: Gates) -> list[str]:
        """Failed ``--fail-under`` thresholds on ``figures()``, then each stage whose unscored
        share (``--max-unscored``) or fallback share (``--max-fallback``) is over its limit; empty
        when the run passes."""
        unscored = {name: run.unscored_share() for name, run in self.stages.items()}
        return gates.failures(self.figures(), self.stage_sources(), unscored)

    def stage_sources(self) -> dict[str, VerdictSources]:
        """Stage -> who produced its verdicts, for every stage that ran."""
        return {name: run.sources for name, run in self.stages.items()}

    def answer_rows(self) -> list[dict[str, object]]:
        """The answers JSONL rows, in question order (``AgentRow.as_dict``)."""
        return [row.as_dict() for row in self.rows]

    def html_report(self, files: AgentFiles, *, gate_failures: Sequence[str] = ()) -> HtmlReport:
        """The HTML report: inputs and the agent, who produced each stage's verdicts (and a
        warning where a fallback did), each stage's label distribution, the summary table and the
        gate failures."""
        from ragjury.evals.report.page import HtmlReport

        summary = self.summary()
        notes = [
            note
            for stage, run in self.stages.items()
            if (note := fallback_note(run.sources, run.records, f"{stage}: "))
        ]
        meta = {"questions": str(files.questions)}
        if files.corpus is not None:
            meta["corpus"] = str(files.corpus)
        meta["agent"] = self.agent
        meta.update({f"{stage} verdicts by": run.sources.describe() for stage, run in self.stages.items()})
        return HtmlReport(
            title="ragjury evaluate --agent",
            meta=meta,
            notes=notes,
            distributions={name: [r.label for r in run.records] for name, run in self.stages.items()},
            tables={
                "Summary": {
                    k: {kk: vv for kk, vv in v.items() if isinstance(vv, int | float)}
                    for k, v in summary.items()
                    if isinstance(v, dict)
                }
            },
            gate_failures=list(gate_failures),
        )

    def write(self, files: AgentFiles, *, gate_failures: Sequence[str] = ()) -> None:
        """Write the answers JSONL, then the HTML report (with ``gate_failures``, so the page and
        the exit code agree), each where ``files`` names a path; both atomically."""
        if files.answers is not None:
            write_jsonl(files.answers, self.answer_rows())
        if files.html is not None:
            from ragjury.evals.report.page import write_html

            write_html(files.html, self.html_report(files, gate_failures=gate_failures))

    def payload(self, files: AgentFiles, *, gate_failures: Sequence[str] = ()) -> dict[str, Any]:
        """The ``evaluate --agent --json`` document (before ``schema_version`` and ``command``):
        the ``summary``, then the mode, the figures, the files read and written, the failed gates."""
        from ragjury.evals.io.json_contract import paths

        out = self.summary()
        out["mode"] = "agent"
        out["figures"] = self.figures()
        out["inputs"] = paths(data=files.questions, corpus=files.corpus)
        out["outputs"] = paths(answers=files.answers, html=files.html)
        out["gate_failures"] = list(gate_failures)
        return out


def _mean(run: FinishedRun) -> float | None:
    """A stage's mean label as ``--json`` and the gates show it (the run's ``mean_label``, 6 places)."""
    mean = run.figures()["mean_label"]
    return None if mean is None else round(mean, 6)


async def evaluate_agent(
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
        answers, agent_stats = await ask_agent(
            agent, [t.question for t in truths], cache=cache, concurrency=concurrency, progress=bar or False
        )
        rows = [
            AgentRow(t.id or str(i), t.question, a)
            for i, (t, a) in enumerate(zip(truths, answers, strict=True))
        ]
        answered = [r for r in rows if r.answer.answer is not None]
        stages: dict[str, FinishedRun] = {}

        async def run(name: str, judge_: Judge[Any, Any], selected: list[AgentRow], items: list[Any]) -> None:
            judgments, stats = await run_judgments(
                judge_, items, cache=cache, concurrency=concurrency, progress=bar or False, description=name
            )
            for row, judgment in zip(selected, judgments, strict=True):
                setattr(row, name, judgment)
            stages[name] = stage_run(name, judge_, [row.id for row in selected], items, judgments, stats)

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
    return AgentEvaluation(rows, agent_stats, stages, agent=agent_identity(agent).key())


def stage_run(stage: str, judge: Judge[Any, Any], ids: Sequence[str], items: Sequence[Any],
              judgments: Sequence[Judgment[Any]], stats: RunStats) -> FinishedRun:
    """One judge stage as a finished run over the questions it judged: a prediction per answer
    (no gold label: people did not label agent answers), each verdict under the judge's name as the
    user types it (``llm``; the judgments carry only their own, so the catalogue maps them here,
    never in a report). A question id that repeats is told apart (``id#2``), so every answer counts."""
    from ragjury.rag_agent.judges.catalogue import typed_names

    names = typed_names(stage, (j.judge for j in judgments if not j.unscored))
    predictions = [
        Prediction(ident, None, None, judgment, label_of(judgment.value), task=stage, item=item,
                   judge_name=names.get(judgment.judge))
        for ident, item, judgment in zip(_distinct(ids), items, judgments, strict=True)
    ]
    return FinishedRun.of_predictions(stage, predictions, judge=judge.identity.name, stats=stats,
                                      identity=judge.identity)


def _distinct(ids: Sequence[str]) -> list[str]:
    """``ids`` with each repeat numbered (``q1``, ``q1#2``), none equal to another."""
    taken: set[str] = set()
    out = []
    for ident in ids:
        number, unique = 1, ident
        while unique in taken:
            number += 1
            unique = f"{ident}#{number}"
        taken.add(unique)
        out.append(unique)
    return out


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


__all__ = ["STAGES", "AgentEvaluation", "AgentFiles", "AgentRow", "GroundTruth", "evaluate_agent"]
