"""``ragjury evaluate --agent``: the reference agent answers every question, its answers are judged."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table

from ragjury.commands._common import fail, print_json, stderr, stdout
from ragjury.commands.evaluate_output import finish_run, nothing_scored_line, unscored_lines, verdict_lines
from ragjury.rag_agent.core.sync import run_sync

if TYPE_CHECKING:
    from ragjury.commands._common import RunOptions
    from ragjury.evals.results.gates import Gates


def agent_judges(
    *,
    corpus: Path | None,
    task: str | None,
    retrieval: str,
    mapping: list[str] | None,
    rubric: str | None,
    dry_run: bool,
    judge: list[str] | None,
    faithfulness_judge: str,
    correctness_judge: str,
) -> tuple[str, list[tuple[str, str]]]:
    """The options an ``--agent`` run refuses (one line, exit 2), else its score judge and the
    (task, judge) pairs it runs."""
    if corpus is None:
        raise fail("--agent needs --corpus passages.jsonl to retrieve from")
    if task not in (None, "score"):
        raise fail("--agent judges answers with a score judge: leave out --task (or use --task score)")
    if retrieval not in ("tool", "pre"):
        raise fail(f"--retrieval must be tool or pre, got {retrieval!r}")
    if mapping:
        raise fail("--map applies to datasets, not to --agent question files")
    if rubric is not None:
        raise fail("--rubric applies to dataset evaluation (--task), not to --agent")
    if dry_run:
        raise fail(
            "--dry-run applies to dataset evaluation (--task): with --agent the judges' prompts "
            "hold answers the agent has not written yet"
        )
    if judge is not None and len(judge) > 1:
        raise fail("--agent takes one --judge (the score judge); several criteria apply to --task runs")
    judge_name = judge[0] if judge else "auto"
    return judge_name, [("score", judge_name), ("faithfulness", faithfulness_judge), ("correctness", correctness_judge)]


def evaluate_agent_run(
    *,
    data: Path,
    corpus: Path,
    judge_name: str,
    faithfulness_judge: str,
    correctness_judge: str,
    agent_model: str | None,
    retrieval: str,
    top_k: int,
    out: Path | None,
    limit: int | None,
    html: Path | None,
    gates: Gates,
    settings: Any,
    cache: Any,
    run: RunOptions,
) -> None:
    json_output = run.json_output
    from ragjury.evals.io.tasks import load_questions
    from ragjury.evals.pipelines.agent_evaluation import AgentFiles, evaluate_agent
    from ragjury.rag_agent.agent.reference_agent import RAGAgent
    from ragjury.rag_agent.core.judge_spec import parse
    from ragjury.rag_agent.judges.catalogue import build_judge

    questions = load_questions(data, limit=limit)
    agent = RAGAgent(corpus, model=agent_model, settings=settings, retrieval=retrieval, top_k=top_k)  # type: ignore[arg-type]
    # each stage's --judge words parsed once here; the catalogue gets the JudgeSpec
    scorer = build_judge("score", parse(judge_name), settings)
    faithful = (
        None if faithfulness_judge == "none" else build_judge("faithfulness", parse(faithfulness_judge), settings)
    )
    correct = None if correctness_judge == "none" else build_judge("correctness", parse(correctness_judge), settings)
    evaluation = run_sync(
        evaluate_agent(
            questions,
            agent,
            scorer,
            faithfulness_judge=faithful,
            correctness_judge=correct,
            cache=cache,
            concurrency=run.concurrency or settings.concurrency,
            progress=run.progress,
        )
    )
    files = AgentFiles(data, corpus, answers=out, html=html)
    failures = evaluation.gate(gates)
    evaluation.write(files, gate_failures=failures)
    nothing = evaluation.scored == 0
    if json_output:
        print_json(evaluation.payload(files, gate_failures=failures), command="evaluate")
    elif nothing:  # the cause first, alone: a table of zeros would bury it
        nothing_scored_line(evaluation.why_unscored)
    else:
        for stage, judged in evaluation.stages.items():  # what each stage scored, first
            result = judged.result
            line = result.lines(stage)[0] if result.binary or stage == "score" else f"{stage} {result.lines(stage)[0]}"
            stdout.print(escape(line), highlight=False, soft_wrap=True)
        stdout.print(agent_table(evaluation.summary(), f"agent {agent.model_name} on {data.name}"))
        verdict_lines(evaluation.stage_sources())
        unscored_lines({name: judged.unscored_share() for name, judged in evaluation.stages.items()})
        if out is not None:
            stdout.print(f"answers and judgments written to {out}", highlight=False)
    errors = evaluation.errors
    if errors and not json_output:
        stderr.print(
            f"[yellow]the agent failed on {len(errors)} question(s)[/], e.g.: {escape(errors[0])}",
            highlight=False,
            soft_wrap=True,
        )
    finish_run(failures, evaluation.scored, json_output, html, why_unscored=evaluation.why_unscored,
               cause_shown=nothing and not json_output)


def agent_table(summary: dict[str, Any], title: str) -> Table:
    """One row per stage (the agent, then each judge): done, failed, cached, new, mean, cost."""
    table = Table(title=title)
    for column in ("stage", "n", "ok", "failed", "cached", "new", "mean", "tokens", "wall s"):
        table.add_column(column, justify="left" if column == "stage" else "right")
    agent = summary["agent"]
    table.add_row(
        "agent answers",
        str(agent["questions"]),
        str(agent["answered"]),
        str(agent["errors"]),
        str(agent["cached"]),
        str(agent["asked"]),
        "-",
        f"{agent['tokens']:,}",
        f"{agent['wall_s']:.1f}",
    )
    for name in ("score", "faithfulness", "correctness"):
        if name not in summary:
            continue
        row = summary[name]
        mean = "-" if row["mean"] is None else f"{row['mean']:.3f}"
        table.add_row(
            name,
            str(row["n"]),
            str(row["scored"]),
            str(row["unscored"]),
            str(row["cached"]),
            str(row["judged"]),
            mean,
            f"{row['tokens']:,}",
            f"{row['wall_s']:.1f}",
        )
    table.caption = "failed: agent errors / unscored judgments; questions the agent failed on are not judged"
    return table


__all__ = ["agent_judges", "agent_table", "evaluate_agent_run"]
