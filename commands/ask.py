"""``ragjury ask``: answer a question with the reference RAG agent, and optionally judge it.

Why one command does both: the fastest way to see what the judges say about a RAG answer is
to produce one and judge it on the spot, against exactly the passages the agent retrieved.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ragjury.evals.io.json_contract import paths
from ragjury.commands._common import (
    MODEL_SERVER,
    EXIT_UNSCORED,
    JsonOption,
    JudgeMode,
    judge_mode,
    check_model_servers,
    print_json,
    settings_for,
    stderr,
    stdout,
    user_errors,
)
from ragjury.commands.judge_evaluate import judgment_payload
from ragjury.rag_agent.core.sync import run_sync

if TYPE_CHECKING:  # annotations only: loading them here would cost every --help
    from ragjury.evals.pipelines.answer_judgments import AnswerJudgments
    from ragjury.rag_agent.agent.reference_agent import AgentResponse
    from ragjury.rag_agent.core.results import Judgment

SNIPPET_CHARS = 160


class RetrievalMode(str, Enum):
    """How the agent retrieves: the model calls the search tool, or passages are put in the prompt."""

    tool = "tool"
    pre = "pre"


def faithfulness_payload(judgment: Judgment[Any] | None, skipped: str | None) -> dict[str, object] | None:
    """The faithfulness judgment as ``verdict faithfulness --json`` prints it (``label``, ``value``
    with the score and every statement's verdict, the envelope), or why it was skipped."""
    from ragjury.commands.verdict import verdict_payload

    if judgment is None:
        return {"task": "faithfulness", "skipped": skipped} if skipped else None
    return verdict_payload("faithfulness", judgment)


def _print_answer(response: AgentResponse) -> None:
    used = set(response.answer.sources_used) if response.answer else set()
    if response.answer is None:
        stdout.print(f"[bold red]no answer[/] from {response.model}: {escape(response.error or '')}")
    else:
        answer = response.answer
        stdout.print(f"[bold]answer:[/] {escape(answer.answer)}")
        stdout.print(
            f"confidence {answer.confidence:.2f}  sources used: {', '.join(answer.sources_used) or 'none'}",
            highlight=False,
        )
        if answer.reasoning:
            stdout.print(f"reasoning: {escape(answer.reasoning)}", highlight=False)
    searches = "; ".join(f'"{query}"' for query in response.searches) or "none"
    stdout.print(
        f"[dim]{response.model} · retrieval {response.retrieval} · searches {escape(searches)} · "
        f"{response.usage.requests} requests · {response.latency_s:.2f}s[/]",
        highlight=False,
    )
    if response.sources:
        table = Table(title=f"Retrieved sources ({len(response.sources)})", show_lines=False)
        table.add_column("docid")
        table.add_column("used")
        table.add_column("passage")
        for source in response.sources:
            snippet = (
                source.content
                if len(source.content) <= SNIPPET_CHARS
                else source.content[:SNIPPET_CHARS] + "..."
            )
            table.add_row(source.id, "yes" if source.id in used else "", escape(snippet))
        stdout.print(table)


def _print_judgments(judgments: AnswerJudgments) -> None:
    score, faithful, skipped = judgments.score, judgments.faithfulness, judgments.skipped
    origin = f"{score.judge} ({score.model or 'no model'})"
    if score.fallback_used:
        stderr.print(
            f"[yellow]fallback:[/] the model-free judge answered: {escape(score.fallback_reason or '')}"
        )
    if score.value is None:
        stdout.print(f"[bold]judge:[/] [red]unscored[/] by {origin}: {escape(score.unscored_reason or '')}")
    else:
        overall, reasoning = score.value.overall_score, escape(score.value.reasoning)
        stdout.print(f"[bold]judge:[/] overall {overall:.3f} by {origin}: {reasoning}")
    if faithful is None:
        stdout.print(f"[bold]faithfulness:[/] skipped ({skipped})")
    elif faithful.value is None:
        stdout.print(f"[bold]faithfulness:[/] [red]unscored[/]: {escape(faithful.unscored_reason or '')}")
    else:
        result = faithful.value
        supported = f"{sum(s.verdict for s in result.statements)}/{len(result.statements)}"
        stdout.print(f"[bold]faithfulness:[/] {result.score:.3f} ({supported} statements supported)")
        for statement in result.statements:
            if not statement.verdict:
                stdout.print(f"  [red]unsupported:[/] {escape(statement.statement)}", highlight=False)


@user_errors
@MODEL_SERVER
def ask(
    question: Annotated[str, typer.Argument(help="The question to answer.")],
    corpus: Annotated[
        Path,
        typer.Option(
            "--corpus", "-c", help="JSONL of passages {docid, text} (id/content accepted) to retrieve from."
        ),
    ],
    judge: Annotated[
        bool,
        typer.Option("--judge", help="Also judge the answer: JudgeLLM score + faithfulness to the sources."),
    ] = False,
    judge_mode: Annotated[
        JudgeMode,
    judge_mode,
        typer.Option(
            "--judge-mode",
            parser=judge_mode,
            metavar="[auto|llm|heuristic]",
            help="auto: JudgeLLM with model-free fallback; llm: the model only; "
            "heuristic: no model (faithfulness is then skipped).",
        ),
    ] = JudgeMode.auto,
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, help="Passages per search.")] = 5,
    retrieval: Annotated[
        RetrievalMode,
        typer.Option(
            "--retrieval",
            help="tool: the model calls search_passages itself (tool-calling models, e.g. llama3.2); "
            "pre: passages are retrieved up front and put in the prompt (any model).",
        ),
    ] = RetrievalMode.tool,
    max_searches: Annotated[
        int, typer.Option("--max-searches", min=1, help="Tool searches allowed per question.")
    ] = 3,
    model: Annotated[
        str | None,
        typer.Option("--model", "-m", help="Agent model (default: $RAGJURY_AGENT_MODEL or llama3.2:3b)."),
    ] = None,
    judge_model: Annotated[
        str | None,
        typer.Option("--judge-model", help="Judge model (default: $RAGJURY_JUDGE_MODEL or phi3:mini)."),
    ] = None,
    json_output: JsonOption = False,
    **server: Any,
) -> None:
    """Your question answered by the reference RAG agent (BM25 + LLM) over your passages, then judged.

    Examples:

      ragjury ask "what causes left ventricular hypertrophy" --corpus passages.jsonl

      ragjury ask "what is a synaptic knob" -c passages.jsonl --judge --json

      ragjury ask "Q?" -c passages.jsonl --retrieval pre --base-url http://127.0.0.1:8080/v1

    Prints the typed answer (answer, confidence, sources_used, reasoning) and the passages the
    retriever returned. With --judge the answer is also scored by JudgeLLM and checked for
    faithfulness against exactly those passages. Small models that never call tools need
    --retrieval pre. A model failure prints the reason; it never prints a made-up answer.

    Exit codes: 0 answered (and judged), 2 bad input, 3 no answer (the agent failed) or
    --judge could not score it.
    """
    settings = settings_for(judge_model, **server)
    if model:
        settings = settings.model_copy(update={"agent_model": model})
    from ragjury.rag_agent.agent.reference_agent import (
        RAGAgent,  # deferred: pydantic-ai and the model clients
    )

    agent = RAGAgent(
        corpus, settings=settings, top_k=top_k, retrieval=retrieval.value, max_searches=max_searches
    )
    check_model_servers(agent)  # an unknown model or a URL that is no API: exit 2 first
    if json_output:
        response = run_sync(agent.query(question))
    else:
        with stderr.status(f"answering with {agent.model_name} over {len(agent.index)} passages..."):
            response = run_sync(agent.query(question))
    payload: dict[str, object] = response.model_dump(mode="json")
    judgments: AnswerJudgments | None = None
    if judge and response.answer is not None:
        from ragjury.evals.pipelines.answer_judgments import judge_answer
        from ragjury.rag_agent.core.judge_spec import parse

        spec = parse(judge_mode.value)  # --judge-mode parsed once; the catalogue gets the JudgeSpec
        if json_output:
            judgments = run_sync(judge_answer(response, settings, spec))
        else:
            _print_answer(response)
            with stderr.status("judging the answer..."):
                judgments = run_sync(judge_answer(response, settings, spec))
        payload["judgments"] = {
            "score": judgment_payload(judgments.score),
            "faithfulness": faithfulness_payload(judgments.faithfulness, judgments.skipped),
        }
        if not json_output:
            _print_judgments(judgments)
    else:
        payload["judgments"] = None  # not asked (--judge), or no answer to judge
        if not json_output:
            _print_answer(response)
    if json_output:
        payload["inputs"] = paths(corpus=corpus)
        print_json(payload, command="ask")
    if response.answer is None or (judgments is not None and not judgments.scored):
        raise typer.Exit(EXIT_UNSCORED)


def register(app: typer.Typer) -> None:
    app.command("ask")(ask)


__all__ = ["RetrievalMode", "ask", "faithfulness_payload", "register"]
