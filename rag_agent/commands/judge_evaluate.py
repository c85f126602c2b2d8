"""``ragjury judge-evaluate``: score one answer on five dimensions, from the terminal or CI."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ragjury.rag_agent._sync import run_sync
from ragjury.rag_agent.commands._common import (
    EXIT_BELOW_THRESHOLD,
    EXIT_UNSCORED,
    BaseUrlOption,
    JsonOption,
    JudgeMode,
    JudgeOption,
    MaxFallbackOption,
    ModelOption,
    fail,
    print_json,
    settings_for,
    stderr,
    stdout,
    user_errors,
)
from ragjury.rag_agent.inputs import load_answer, load_sources

if TYPE_CHECKING:  # annotations only: pydantic and the schemas load when the command runs, not for --help
    from ragjury.rag_agent.models import JudgeScore
    from ragjury.rag_agent.results import Judgment

def judgment_payload(judgment: Judgment[JudgeScore]) -> dict[str, object]:
    """One score judgment as JSON, shaped as every one-judgment object (``verdict --json``):
    ``task``, ``label`` (here the overall score; null when unscored), ``value`` (the JudgeScore:
    each dimension, confidence, reasoning), the envelope, and the same ``judges`` / ``fallback``
    / ``verdicts_by`` as ``evaluate --json``, so a script reads who produced the verdict the same
    way in every command (never just "auto")."""
    from ragjury.evals.report import VerdictSources
    from ragjury.rag_agent.json_contract import judgment_fields

    value = judgment.value
    return {
        "task": "score",
        "label": value.overall_score if value is not None else None,
        "value": value.model_dump(mode="json") if value is not None else None,
        **judgment_fields(judgment),
        **VerdictSources.of([judgment]).as_dict(),
    }


def gate_failures(judgment: Judgment[JudgeScore], fail_under: float | None, max_fallback: float | None) -> list[str]:
    """``--fail-under`` and ``--max-fallback`` failures of one scored judgment (none when unscored:
    that exits 3 on its own)."""
    if judgment.value is None:
        return []
    failures: list[str] = []
    if fail_under is not None and judgment.value.overall_score < fail_under:
        failures.append(f"overall {judgment.value.overall_score:.3f} < {fail_under}")
    if judgment.fallback_used:
        from ragjury.evals.gates import fallback_failure, max_fallback_limit
        from ragjury.evals.report import VerdictSources

        limit = max_fallback_limit(max_fallback, gated=fail_under is not None)
        failure = fallback_failure(VerdictSources.of([judgment]), limit, explicit=max_fallback is not None)
        if failure is not None:
            failures.append(failure)
    return failures


def _print_human(judgment: Judgment[JudgeScore], verbose: bool) -> None:
    origin = f"{judgment.judge} ({judgment.model or 'no model'})"
    if judgment.fallback_used:
        origin += " as fallback"
        stdout.print(
            f"[yellow]fallback:[/] the model could not judge ({judgment.fallback_reason}); "
            "a deterministic heuristic answered instead.",
            highlight=False,
        )
    if judgment.value is None:
        stdout.print(f"[bold red]unscored[/] by {origin}: {judgment.unscored_reason}")
        return
    score = judgment.value
    stdout.print(f"overall [bold]{score.overall_score:.3f}[/] by {origin} in {judgment.latency_s:.2f}s")
    if verbose:
        table = Table(title="JudgeScore", show_lines=False)
        table.add_column("dimension")
        table.add_column("score", justify="right")
        from ragjury.rag_agent.models import DIMENSIONS

        for name in (*DIMENSIONS, "confidence"):
            table.add_row(name, f"{getattr(score, name):.3f}")
        table.add_row("[bold]overall_score", f"[bold]{score.overall_score:.3f}")
        stdout.print(table)
        stdout.print(
            f"prompt {judgment.prompt_version}  tokens in/out {judgment.usage.input_tokens}/"
            f"{judgment.usage.output_tokens}  requests {judgment.usage.requests}"
        )
    stdout.print(f"reasoning: {score.reasoning}", highlight=False)


@user_errors
def judge_evaluate(
    question: Annotated[str, typer.Argument(help="The question the answer responds to.")],
    answer: Annotated[str | None, typer.Option("--answer", "-a", help="The answer text to judge.")] = None,
    answer_file: Annotated[
        Path | None,
        typer.Option("--answer-file", help="A JSON RAGAnswer or plain text file with the answer; '-' for stdin."),
    ] = None,
    sources_file: Annotated[
        Path | None,
        typer.Option("--sources-file", "-s", help="Sources as a JSON list or JSONL of {id, title, content}."),
    ] = None,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    judge: JudgeOption = JudgeMode.auto,
    json_output: JsonOption = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show a per-dimension table.")] = False,
    fail_under: Annotated[
        float | None,
        typer.Option("--fail-under", min=0.0, max=1.0, help="Exit 1 when overall_score is below this (CI gate)."),
    ] = None,
    max_fallback: MaxFallbackOption = None,
) -> None:
    """Judge one RAG answer on relevance, completeness, accuracy, source attribution and coherence.

    Examples:

      ragjury judge-evaluate "What is RAG?" --answer "RAG combines retrieval with generation." --json

      ragjury judge-evaluate "Q?" --answer-file answer.json --sources-file sources.jsonl --verbose --fail-under 0.6

    With --judge auto (default) a deterministic heuristic answers when the model server is down
    or the model's output stays invalid, and the result says so (fallback_used). An unscored
    judgment (--judge llm with the server down) exits 3: it is never read as a score. With
    --fail-under, a verdict from the fallback fails the gate too (exit 1) unless --max-fallback 1:
    the gate is meant for the model's verdict, not the heuristic's.

    Exit codes: 0 scored (and above --fail-under), 1 below --fail-under or answered by the fallback
    under a gate, 2 bad input, 3 unscored.
    """
    if (answer is None) == (answer_file is None):
        raise fail("give exactly one of --answer TEXT or --answer-file FILE")
    from ragjury.rag_agent.items import ScoreItem  # deferred: pydantic loads when the command runs
    from ragjury.rag_agent.models import RAGAnswer

    rag_answer = RAGAnswer(answer=answer) if answer is not None else load_answer(str(answer_file))
    if not rag_answer.answer.strip():
        raise fail("the answer is empty")
    sources = load_sources(str(sources_file)) if sources_file else []
    settings = settings_for(model, base_url)
    item = ScoreItem(question=question, answer=rag_answer.answer, sources=sources, sources_used=rag_answer.sources_used)
    from ragjury.rag_agent import catalogue  # judges (and pydantic-ai) load only when built

    judgment = run_sync(catalogue.build("score", judge.value, settings).ajudge(item))
    failures = gate_failures(judgment, fail_under, max_fallback)
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
    "gate_failures",
    "judge_evaluate",
    "judgment_payload",
    "register",
]
