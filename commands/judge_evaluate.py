"""``ragjury judge-evaluate``: score one answer on five dimensions, from the terminal or CI."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, TYPE_CHECKING

import typer
from rich.markup import escape
from rich.table import Table

from ragjury.commands._common import (
    MODEL_CONNECTION,
    EXIT_BELOW_THRESHOLD,
    EXIT_UNSCORED,
    JsonOption,
    JudgeMode,
    JudgeOption,
    MaxFallbackOption,
    QuestionArgument,
    QuestionOption,
    fail,
    judge_one,
    usage_text,
    why_unscored,
    one_question,
    print_json,
    settings_for,
    stderr,
    stdout,
    user_errors,
)
from ragjury.rag_agent.core.input_files import load_answer, load_sources

if TYPE_CHECKING:  # annotations only: pydantic and the schemas load when the command runs, not for --help
    from ragjury.rag_agent.core.results import Judgment
    from ragjury.rag_agent.core.schemas import JudgeScore

def judgment_payload(judgment: Judgment[JudgeScore]) -> dict[str, object]:
    """One score judgment as JSON (``evals.single_judgment``); the label is the overall score."""
    from ragjury.evals.pipelines.single_judgment import judgment_payload as payload

    return payload("score", judgment, judgment.value.overall_score if judgment.value is not None else None)


def _print_human(judgment: Judgment[JudgeScore], verbose: bool) -> None:
    from ragjury.rag_agent.judges.catalogue import catalogue_name

    origin = f"{catalogue_name('score', judgment.judge)} ({judgment.model or 'no model'})"
    if judgment.fallback_used:
        origin += " as fallback"
        why = why_unscored(judgment.fallback_reason)
        stdout.print(
            f"[yellow]fallback:[/] the model could not judge ({escape(str(why))}); "
            "a model-free heuristic answered instead.",
            highlight=False,
            soft_wrap=True,
        )
    if judgment.value is None:
        why = why_unscored(judgment.unscored_reason)
        stdout.print(f"[bold red]unscored[/] by {origin}: {escape(str(why))}", highlight=False, soft_wrap=True)
        return
    score = judgment.value
    stdout.print(f"overall [bold]{score.overall_score:.3f}[/] by {origin} in {judgment.latency_s:.2f}s")
    if verbose:
        table = Table(title="JudgeScore", show_lines=False)
        table.add_column("dimension")
        table.add_column("score", justify="right")
        from ragjury.rag_agent.core.schemas import DIMENSIONS

        for name in (*DIMENSIONS, "confidence"):
            table.add_row(name, f"{getattr(score, name):.3f}")
        table.add_row("[bold]overall_score", f"[bold]{score.overall_score:.3f}")
        stdout.print(table)

        stdout.print(f"prompt {judgment.prompt_version}  {usage_text(judgment)}", highlight=False)
    stdout.print(f"reasoning: {score.reasoning}", highlight=False)


@user_errors
@MODEL_CONNECTION
def judge_evaluate(
    question_argument: QuestionArgument = None,
    question: QuestionOption = None,
    answer: Annotated[str | None, typer.Option("--answer", "-a", help="The answer text to judge.")] = None,
    answer_file: Annotated[
        Path | None,
        typer.Option("--answer-file", help="A JSON RAGAnswer or plain text file with the answer; '-' for stdin."),
    ] = None,
    sources_file: Annotated[
        Path | None,
        typer.Option("--sources-file", "-s", help="Sources as a JSON list or JSONL of {id, title, content}."),
    ] = None,
    judge: JudgeOption = JudgeMode.auto,
    json_output: JsonOption = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show a per-dimension table.")] = False,
    fail_under: Annotated[
        float | None,
        typer.Option("--fail-under", min=0.0, max=1.0, help="Exit 1 when overall_score is below this (CI gate)."),
    ] = None,
    max_fallback: MaxFallbackOption = None,
    **connection: Any,
) -> None:
    """One answer, a 0-1 score on five dimensions: relevance, completeness, accuracy, attribution, coherence.

    Examples:

      ragjury judge-evaluate "What is RAG?" --answer "RAG combines retrieval with generation." --json

      ragjury judge-evaluate "Q?" --answer-file answer.json --sources-file sources.jsonl --verbose --fail-under 0.6

    With --judge auto (default) a model-free heuristic answers when the model server is down
    or the model's output stays invalid, and the result says so (fallback_used). An unscored
    judgment (--judge llm with the server down) exits 3: it is never read as a score. With
    --fail-under, a verdict from the fallback fails the gate too (exit 1) unless --max-fallback 1:
    the gate is meant for the model's verdict, not the heuristic's.

    Exit codes: 0 scored (and above --fail-under), 1 below --fail-under or answered by the fallback
    under a gate, 2 bad input, 3 unscored.
    """
    question = one_question(question_argument, question)
    if question is None:
        raise fail("give the question: as the first argument or with --question/-q")
    if (answer is None) == (answer_file is None):
        raise fail("give exactly one of --answer TEXT or --answer-file FILE")
    from ragjury.rag_agent.core.items import ScoreItem  # deferred: pydantic loads when the command runs
    from ragjury.rag_agent.core.schemas import RAGAnswer

    rag_answer = RAGAnswer(answer=answer) if answer is not None else load_answer(str(answer_file))
    if not rag_answer.answer.strip():
        raise fail("the answer is empty")
    sources = load_sources(str(sources_file)) if sources_file else []
    settings = settings_for(**connection)
    item = ScoreItem(question=question, answer=rag_answer.answer, sources=sources, sources_used=rag_answer.sources_used)
    from ragjury.rag_agent.core.judge_spec import parse
    from ragjury.rag_agent.judges import catalogue  # judges (and pydantic-ai) load only when built

    scorer = catalogue.build_judge("score", parse(judge.value), settings)  # --judge parsed once, carried parsed
    judgment = judge_one(scorer, item)  # a refused key or an unknown model: one line, exit 2
    from ragjury.evals.pipelines.single_judgment import score_gate_failures

    failures = score_gate_failures(judgment, fail_under, max_fallback)
    if json_output:
        print_json({**judgment_payload(judgment), "gate_failures": failures}, command="judge-evaluate")
    else:
        _print_human(judgment, verbose)
    if judgment.value is None:
        raise typer.Exit(EXIT_UNSCORED)
    for failure in failures:
        stderr.print(f"[red]gate failed:[/] {escape(failure)}", highlight=False, soft_wrap=True)
    if failures:
        raise typer.Exit(EXIT_BELOW_THRESHOLD)


def register(app: typer.Typer) -> None:
    app.command("judge-evaluate")(judge_evaluate)


__all__ = [
    "judge_evaluate",
    "judgment_payload",
    "register",
]
