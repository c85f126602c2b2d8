"""Agent evaluation: ask an agent every question, judge each answer, and hand back a finished
``AgentEvaluation``.

Why a finished result: ``ragjury evaluate --agent`` and a Python user want the same figures,
gates, answers file, JSON and HTML report from a run, meaning the same wherever they are made; so
the result owns them and the command only parses options, calls ``evaluate_agent`` and prints.

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

from ragjury.evals.io.tasks import Question
from ragjury.evals.results.sources import VerdictSources
from ragjury.evals.runs.agent_answers import AgentAnswer, RAGAgentLike, agent_identity, ask_agent
from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.runner import RunStats, make_progress, run_judgments
from ragjury.evals.stats.run_result import RunResult, run_result
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem, ScoreItem
from ragjury.rag_agent.core.labels import label_of
from ragjury.rag_agent.core.protocol import Judge
from ragjury.rag_agent.core.results import Judgment

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
    """What ``evaluate_agent`` returns: one row per question, the agent's and each judge's run
    stats, and everything the run hands on — figures, gates, the answers file, JSON and HTML."""

    rows: list[AgentRow]
    agent_stats: RunStats
    """The agent's run: ``unscored`` are the questions it gave no answer to."""
    judge_stats: dict[str, RunStats]
    """Per judge stage that ran (score, faithfulness, correctness)."""
    agent: str = ""
    """The agent's identity key (model, prompt, retrieval, corpus): what its answers are cached under."""

    @property
    def stages(self) -> list[str]:
        """The judge stages that ran, in report order."""
        return [name for name in STAGES if name in self.judge_stats]

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
        return sum(self.judge_stats[name].scored for name in self.stages)

    @property
    def why_unscored(self) -> str | None:
        """Why nothing was scored when the agent answered no question; None otherwise."""
        errors = self.errors
        if errors and not self.answered:
            return f"the agent answered no question ({errors[0]})"
        from ragjury.rag_agent.model.unreachable import unreachable_cause

        reasons = (j.unscored_reason for stage in self.stages for j in self.judgments(stage) if j.unscored)
        return next((cause for reason in reasons if (cause := unreachable_cause(reason))), None)

    def judgments(self, stage: str) -> list[Judgment[Any]]:
        """The judgments of ``stage``, in question order (questions not judged left out)."""
        return [judgment for row in self.rows if (judgment := getattr(row, stage)) is not None]

    def sources(self, stage: str) -> VerdictSources:
        """Which judges produced the scored verdicts of ``stage`` (score, faithfulness, correctness)."""
        return named_sources(stage, self.judgments(stage))

    def stage_sources(self) -> dict[str, VerdictSources]:
        """Stage -> who produced its verdicts, for every stage that ran."""
        return {name: self.sources(name) for name in self.stages}

    def stage_result(self, stage: str) -> RunResult:
        """What ``stage`` scored: the rate of true verdicts (Wilson interval) when its verdicts are
        true/false, else the mean score (bootstrap interval); unscored judgments left out, counted."""
        judgments = self.judgments(stage)
        labels = [None if j.unscored else label_of(j.value) for j in judgments]
        binary = all(isinstance(label, bool) for label in labels if label is not None)
        return run_result(labels, [None] * len(labels), binary=binary)

    def summary(self) -> dict[str, Any]:
        """The agent's stats (and identity), then per judge stage its stats, mean and the judges
        that produced its verdicts (``judges``, ``fallback``, ``verdicts_by``)."""
        agent = _agent_figures(self.agent_stats)
        if self.agent:
            agent["identity"] = self.agent
        out: dict[str, Any] = {"agent": agent}
        for name in self.stages:
            judgments = self.judgments(name)
            labels = [float(label) for j in judgments if (label := label_of(j.value)) is not None]
            figures = self.judge_stats[name].as_dict()
            figures["skipped_no_answer"] = len(self.rows) - len(judgments)
            figures["mean"] = round(sum(labels) / len(labels), 6) if labels else None
            figures["result"] = self.stage_result(name).as_dict()
            figures.update(named_sources(name, judgments).as_dict())
            out[name] = figures
        return out

    def figures(self) -> dict[str, float | None]:
        """Flat figures for ``--fail-under`` gates: the share answered, then each stage's mean
        label and coverage (scored / judged)."""
        total = self.agent_stats.total
        figures: dict[str, float | None] = {"answered": self.answered / max(1, total)}
        summary = self.summary()
        for name in self.stages:
            figures[name] = summary[name]["mean"]
            judged = summary[name]["n"]
            figures[f"{name}_coverage"] = summary[name]["scored"] / judged if judged else None
        return figures

    def gate(self, gates: Gates) -> list[str]:
        """Failed ``--fail-under`` thresholds on ``figures()``, then each stage whose fallback
        unscored share (``--max-unscored``) or fallback share (``--max-fallback``) is over its
        limit; empty when the run passes."""
        from ragjury.evals.results.unscored_share import UnscoredShare

        unscored = {name: UnscoredShare.of(self.judgments(name)) for name in self.stages}
        return gates.failures(self.figures(), self.stage_sources(), unscored)

    def answer_rows(self) -> list[dict[str, object]]:
        """The answers JSONL rows, in question order (``AgentRow.as_dict``)."""
        return [row.as_dict() for row in self.rows]

    def html_report(self, files: AgentFiles, *, gate_failures: Sequence[str] = ()) -> HtmlReport:
        """The HTML report: inputs and the agent, who produced each stage's verdicts (and a
        warning where a fallback did), each stage's label distribution, the summary table and the
        gate failures."""
        from ragjury.evals.report.page import HtmlReport
        from ragjury.evals.results.sources import fallback_note

        sources = self.stage_sources()
        summary = self.summary()
        notes = [
            note
            for stage, stage_sources in sources.items()
            if (note := fallback_note(stage_sources, self.judgments(stage), f"{stage}: "))
        ]
        meta = {"questions": str(files.questions)}
        if files.corpus is not None:
            meta["corpus"] = str(files.corpus)
        meta["agent"] = self.agent
        meta.update({f"{stage} verdicts by": s.describe() for stage, s in sources.items()})
        return HtmlReport(
            title="ragjury evaluate --agent",
            meta=meta,
            notes=notes,
            distributions={name: [label_of(j.value) for j in self.judgments(name)] for name in self.stages},
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
            from ragjury.evals.io.predictions import write_jsonl

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
    return AgentEvaluation(rows, agent_stats, judge_stats, agent=agent_identity(agent).key())


def named_sources(stage: str, judgments: Sequence[Judgment[Any]]) -> VerdictSources:
    """Who produced a stage's verdicts, each judge named as the user types it (``llm``): the
    judgments carry only their own names, so the catalogue maps them here, never in a report."""
    from ragjury.rag_agent.judges.catalogue import typed_names

    return VerdictSources.of(judgments, typed_names(stage, (j.judge for j in judgments if not j.unscored)))


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
