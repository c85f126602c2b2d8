"""``ragjury verdict faithfulness|correctness|relevance|goal``: one binary (or 0-3) verdict from the terminal.

Each subcommand takes its item from flags or from ``--item-file F.json`` (the item as a JSON
object; ``-`` reads standard input) and prints the typed result, or one JSON object with
``--json``. ``--judge`` picks the judge as in ``judge-evaluate``:

- ``llm``: the LLM verdict judge alone (a failure is reported unscored, exit 3);
- ``auto`` (default): the LLM judge, falling back to the task's model-free judge where one
  exists (``contains`` for correctness, ``token-overlap`` for binary relevance); where none
  exists ``auto`` is the same as ``llm``;
- any other judge name of the task, as in ``evaluate``: ``contains`` is that fallback alone.
  The retired word ``deterministic`` (issue #30) still means "the fallback alone"; faithfulness,
  graded relevance and goal have none and refuse it (exit 2).

Exit codes: 0 judged, 1 negative verdict with ``--fail-on-negative``, 2 bad input, 3 unscored.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import typer
from rich.table import Table

from ragjury.commands._options import OptionSet
from ragjury.commands._common import (
    MODEL_CONNECTION,
    EXIT_BELOW_THRESHOLD,
    EXIT_UNSCORED,
    JsonOption,
    PANEL_MODEL,
    QuestionArgument,
    QuestionOption,
    fail,
    judge_one,
    one_question,
    usage_text,
    why_unscored,
    print_json,
    settings_for,
    stderr,
    stdout,
    user_errors,
)
from ragjury.rag_agent.core.input_files import InputError, loads_json, parse_model, read_text
from ragjury.rag_agent.core.labels import binary_label

if TYPE_CHECKING:  # annotations only: pydantic and the items load when a command runs, not for --help
    from pydantic import BaseModel

    from ragjury.config.settings import RagjurySettings
    from ragjury.rag_agent.core.judge_spec import JudgeSpec
    from ragjury.rag_agent.core.items import TraceMessage
    from ragjury.rag_agent.core.protocol import BaseJudge
    from ragjury.rag_agent.core.results import Judgment

# The verdict judges (and pydantic-ai with them) are imported inside the functions that build or
# print them: `ragjury --help` and every other command start without them.

VerdictKind = Literal["faithfulness", "correctness", "relevance", "relevance_graded", "goal"]
ItemModelT = TypeVar("ItemModelT", bound="BaseModel")

verdict_app = typer.Typer(
    name="verdict",
    help="One item, a yes/no verdict (or a 0-3 grade) with reasons: faithful? correct? relevant? goal reached?",
    no_args_is_help=True,
)

SamplesOption = Annotated[
    int,
    typer.Option(
        "--samples",
        "-s",
        min=1,
        max=15,
        help="Self-consistency: draw this many verdicts (odd) and report the majority and the agreement rate.",
    ),
]
ItemFileOption = Annotated[
    Path | None,
    typer.Option("--item-file", "-f", help="The item as a JSON object (see the examples); '-' reads stdin."),
]
VerdictJudgeOption = Annotated[
    str,
    typer.Option(
        "--judge",
        help="auto: the task's default LLM judge (correctness: llm-guarded), its model-free judge "
        "answering where it fails; llm: that LLM judge only (never falls back); or any judge name of the "
        "task, as in evaluate, e.g. contains, the model-free judge auto falls back to (ragjury judges "
        "lists them and states the rule).",
        rich_help_panel=PANEL_MODEL,
    ),
]
FailOnNegativeOption = Annotated[
    bool, typer.Option("--fail-on-negative", help="Exit 1 when the verdict is negative (CI gate).")
]
VERDICT_OPTIONS = OptionSet(
    samples=(SamplesOption, 1),
    **MODEL_CONNECTION.options,
    judge=(VerdictJudgeOption, "auto"),
    json_output=(JsonOption, False),
    fail_on_negative=(FailOnNegativeOption, False),
)
"""What the four verdict subcommands share, declared once (each adds its own item's options)."""


# -- judge selection ---------------------------------------------------------------------------------------
CATALOGUE_NAMES: dict[str, tuple[str, str]] = {
    "faithfulness": ("faithfulness", "llm"),
    "correctness": ("correctness", "llm-guarded"),
    "relevance": ("relevance", "llm"),
    "relevance_graded": ("relevance", "llm-graded"),
    "goal": ("goal", "llm"),
}
"""Each verdict subcommand's LLM judge in the judge catalogue, as ``(task, name)``: the task's
default model judge (correctness: ``llm-guarded``, which the judged text cannot talk into "yes"),
so ``--judge llm`` here means "the model only", as ``auto`` means "the model, then its fallback"."""


def build_verdict_judge(
    kind: VerdictKind,
    choice: str | JudgeSpec,
    settings: RagjurySettings,
    *,
    samples: int = 1,
    threshold: float | None = None,
) -> BaseJudge[Any, Any]:
    """The subcommand's judge for a ``--judge`` choice (parsed once by the command), resolved by the catalogue."""
    from ragjury.rag_agent.judges import catalogue

    task, name = CATALOGUE_NAMES[kind]
    opts: dict[str, Any] = {"samples": samples}
    if threshold is not None:
        opts["threshold"] = int(threshold) if kind == "relevance_graded" else float(threshold)
    try:
        return catalogue.build_choice(task, name, choice, settings, **opts)  # type: ignore[return-value]
    except catalogue.UnknownJudgeError as error:
        raise InputError("--judge", str(error).replace(task, kind.replace("_", " "))) from None


# -- items ---------------------------------------------------------------------------------------------------
def load_item(path: Path, model: type[ItemModelT]) -> ItemModelT:
    """An item from a JSON object; errors name the file, the line and the field."""
    from ragjury.rag_agent.core.items import GoalItem
    text = read_text(str(path))
    if not text.strip():
        raise InputError(path, "file is empty")
    try:
        data = loads_json(text)
    except json.JSONDecodeError as error:
        raise InputError(
            path, f"malformed JSON: {error.msg} (column {error.colno})", line=error.lineno
        ) from None
    if model is GoalItem and isinstance(data, list):
        data = {"trace": data}
    if not isinstance(data, dict):
        raise InputError(path, f"expected a JSON object, got {type(data).__name__}")
    return parse_model(path, data, model)


_TURN = re.compile(r"^\s*(user|assistant|tool|system)\s*(?:\(([^)]*)\))?\s*:\s?(.*)$", re.DOTALL)


def parse_turn(text: str, index: int) -> TraceMessage:
    """``"user: text"`` or ``"tool(search): result"`` as a trace turn."""
    from ragjury.rag_agent.core.items import TraceMessage
    match = _TURN.match(text)
    if not match:
        raise InputError(
            "--turn", f"turn {index} must look like 'user: text' or 'tool(name): text', got {text[:40]!r}"
        )
    role, tool, content = match.groups()
    return TraceMessage(role=role, content=content, tool_name=(tool or "").strip() or None)  # type: ignore[arg-type]


def _exactly_one_source(item_file: Path | None, flags: dict[str, object]) -> None:
    given = [name for name, value in flags.items() if value not in (None, [], ())]
    if item_file is not None and given:
        raise fail(f"give either --item-file or the item flags, not both (also got {', '.join(given)})")


def _require(flags: dict[str, object], command: str) -> None:
    missing = [name for name, value in flags.items() if value in (None, [], ())]
    if missing:
        raise fail(f"{command}: missing {', '.join(missing)} (or give the whole item with --item-file)")


# -- output --------------------------------------------------------------------------------------------------
def label_of(judgment: Judgment[Any], threshold: int) -> bool | None:
    """The verdict as pass/fail: a grade counts from ``threshold`` (``--threshold`` of graded relevance)."""
    return binary_label(judgment.value, grade_cut=threshold)


def verdict_payload(kind: str, judgment: Judgment[Any], *, grade_threshold: int = 2) -> dict[str, object]:
    """One verdict as JSON (``evals.single_judgment``): ``task`` (faithfulness, correctness,
    relevance, relevance_graded, goal), the binary ``label``, the typed ``value``, the envelope."""
    from ragjury.evals.pipelines.single_judgment import judgment_payload

    return judgment_payload(kind, judgment, label_of(judgment, grade_threshold))


def _print_header(judgment: Judgment[Any], kind: str) -> bool:
    from ragjury.rag_agent.judges.catalogue import catalogue_name

    origin = f"{catalogue_name(kind, judgment.judge)} ({judgment.model or 'no model'})"
    from rich.markup import escape

    if judgment.fallback_used:
        why = why_unscored(judgment.fallback_reason)
        stderr.print(
            f"[yellow]fallback:[/] the model-free judge answered: {escape(str(why))}",
            highlight=False,
            soft_wrap=True,
        )
    if judgment.value is None:
        why = why_unscored(judgment.unscored_reason)
        stdout.print(f"[bold red]unscored[/] by {origin}: {escape(str(why))}", highlight=False, soft_wrap=True)
        return False
    stdout.print(
        f"judged by {origin} in {judgment.latency_s:.2f}s, prompt {judgment.prompt_version}", highlight=False
    )
    return True


def _yes_no(flag: bool) -> str:
    return "[green]yes[/]" if flag else "[red]no[/]"


def _print_footer(judgment: Judgment[Any]) -> None:
    agreement = getattr(judgment, "agreement", None)
    votes = getattr(judgment, "votes", None)
    if judgment.attempts > 1 and agreement is not None:
        stdout.print(
            f"agreement {agreement:.2f} over {judgment.attempts} samples: {', '.join(votes or [])}",
            highlight=False,
        )

    stdout.print(usage_text(judgment), highlight=False)


def print_human(kind: str, judgment: Judgment[Any], *, grade_threshold: int = 2) -> None:
    if not _print_header(judgment, kind):
        return
    from ragjury.rag_agent.judges.llm.correctness import Verdict
    from ragjury.rag_agent.judges.llm.faithfulness import FaithfulnessResult
    from ragjury.rag_agent.judges.llm.goal import GoalResult
    from ragjury.rag_agent.judges.llm.relevance import GRADE_NAMES, RelevanceGrade, RelevanceVerdict

    value = judgment.value
    if isinstance(value, FaithfulnessResult) and not value.statements:  # a model-free judge's score
        stdout.print(f"faithful: {_yes_no(value.label)}  score {value.score:.3f} (threshold {value.threshold:g})")
    elif isinstance(value, FaithfulnessResult):
        stdout.print(
            f"faithful: {_yes_no(value.label)}  score {value.score:.3f} "
            f"({sum(s.verdict for s in value.statements)}/{len(value.statements)} statements supported, "
            f"threshold {value.threshold:g})"
        )
        table = Table(show_lines=False)
        table.add_column("#", justify="right")
        table.add_column("supported")
        table.add_column("statement")
        table.add_column("reason")
        for number, statement in enumerate(value.statements, start=1):
            table.add_row(str(number), _yes_no(statement.verdict), statement.statement, statement.reason)
        stdout.print(table)
    elif isinstance(value, GoalResult):
        stdout.print(f"goal achieved: {_yes_no(value.verdict)}")
        if value.reference_goal:
            stdout.print(f"reference goal: {value.reference_goal}", highlight=False)
        stdout.print(f"inferred goal:  {value.user_goal}", highlight=False)
        stdout.print(f"end state:      {value.end_state}", highlight=False)
        stdout.print(f"reason: {value.reason}", highlight=False)
    elif isinstance(value, Verdict):
        stdout.print(f"correct: {_yes_no(value.verdict)}")
        stdout.print(f"reason: {value.reason}", highlight=False)
    elif isinstance(value, RelevanceVerdict):
        probability = f" (P = {value.probability:.3f})" if value.probability is not None else ""
        stdout.print(f"relevant: {_yes_no(value.verdict)}{probability}")
    elif isinstance(value, RelevanceGrade):
        expected = f", expected grade {value.expected_grade:.2f}" if value.expected_grade is not None else ""
        stdout.print(
            f"grade {value.grade} ({GRADE_NAMES.get(value.grade, '?')}{expected}); "
            f"relevant at >= {grade_threshold}: {_yes_no(value.grade >= grade_threshold)}"
        )
    elif (label := label_of(judgment, grade_threshold)) is not None:  # another judge of the task
        p = getattr(value, "probability", None)  # a fitted head's, a cross-encoder's P(yes)
        shown = f" (P = {p:.3f})" if isinstance(p, float) else ""
        stdout.print(f"{kind.split('_')[0]}: {_yes_no(label)}{shown}", highlight=False)
    _print_footer(judgment)


def finish(
    kind: str, judgment: Judgment[Any], *, json_output: bool, fail_on_negative: bool, grade_threshold: int = 2
) -> None:
    """Print the result and exit with the documented code."""
    negative = fail_on_negative and label_of(judgment, grade_threshold) is False
    failures = [f"{kind.replace('_', ' ')} verdict is negative (--fail-on-negative)"] if negative else []
    if json_output:
        payload = verdict_payload(kind, judgment, grade_threshold=grade_threshold)
        print_json({**payload, "gate_failures": failures}, command=f"verdict {kind.split('_')[0]}")
    else:
        print_human(kind, judgment, grade_threshold=grade_threshold)
    if judgment.value is None:
        raise typer.Exit(EXIT_UNSCORED)
    for failure in failures:
        stderr.print(f"[red]gate failed:[/] {failure}", highlight=False, soft_wrap=True)
    if failures:
        raise typer.Exit(EXIT_BELOW_THRESHOLD)


# -- commands ------------------------------------------------------------------------------------------------
def _judge_and_finish(
    kind: VerdictKind,
    item: Any,
    *,
    judge: str,
    samples: int,
    json_output: bool,
    fail_on_negative: bool,
    threshold: float | None = None,
    grade_threshold: int = 2,
    **connection: Any,
) -> None:
    """What every verdict subcommand does once it has its item (and ``VERDICT_OPTIONS``' values):
    judge it, print, exit."""
    if samples % 2 == 0:
        raise fail(f"--samples must be odd for a majority vote (got {samples}); use {samples - 1} or {samples + 1}")
    settings = settings_for(**MODEL_CONNECTION.pick(connection))
    from ragjury.rag_agent.core.judge_spec import parse

    # --judge parsed once here; the catalogue gets the JudgeSpec, never the words
    verdict_judge = build_verdict_judge(kind, parse(judge), settings, samples=samples, threshold=threshold)
    judgment = judge_one(verdict_judge, item)  # a refused key or an unknown model: one line, exit 2
    finish(kind, judgment, json_output=json_output, fail_on_negative=fail_on_negative, grade_threshold=grade_threshold)


@verdict_app.command("faithfulness")
@user_errors
@VERDICT_OPTIONS
def faithfulness(
    question_argument: QuestionArgument = None,
    answer: Annotated[str | None, typer.Option("--answer", "-a", help="The answer to check.")] = None,
    context: Annotated[
        list[str] | None, typer.Option("--context", "-c", help="A context passage (repeat for several).")
    ] = None,
    question: QuestionOption = None,
    item_file: ItemFileOption = None,
    threshold: Annotated[
        float,
        typer.Option("--threshold", min=0.0, max=1.0, help="Faithful when score >= this (default: all)."),
    ] = 1.0,
    **shared: Any,
) -> None:
    """Is every statement of the answer supported by the context? Lists each statement with its verdict.

    Examples:

      ragjury verdict faithfulness --answer "Paris is the capital of France. It has 2 million people." \\
          --context "Paris, the capital of France, has 2.1 million inhabitants."

      ragjury verdict faithfulness --item-file item.json --json   # {"answer": ..., "contexts": [...], "question": ...}

    The answer is split into standalone statements, then all are judged against the context in
    one call; score = supported / total. --judge auto falls back to the model-free support judge
    where the model fails; --judge support uses it alone (no model).
    """
    question = one_question(question_argument, question)
    flags = {"--answer": answer, "--context": context}
    _exactly_one_source(item_file, {**flags, "--question": question})
    from ragjury.rag_agent.core.items import (
        FaithfulnessItem,  # deferred: pydantic loads when the command runs
    )

    if item_file is not None:
        item = load_item(item_file, FaithfulnessItem)
    else:
        _require(flags, "faithfulness")
        item = FaithfulnessItem(answer=answer or "", contexts=list(context or []), question=question)
    _judge_and_finish("faithfulness", item, threshold=threshold, **shared)


@verdict_app.command("correctness")
@user_errors
@VERDICT_OPTIONS
def correctness(
    question_argument: QuestionArgument = None,
    question: QuestionOption = None,
    answer: Annotated[str | None, typer.Option("--answer", "-a", help="The answer to judge.")] = None,
    reference: Annotated[
        list[str] | None,
        typer.Option("--reference", "-r", help="A reference answer (repeat: any one suffices)."),
    ] = None,
    item_file: ItemFileOption = None,
    **shared: Any,
) -> None:
    """Is the answer correct against any of the reference answers? A binary verdict with a reason.

    Examples:

      ragjury verdict correctness -q "who got the first nobel prize in physics" \\
          -a "Wilhelm Röntgen, in 1901." -r "Wilhelm Conrad Röntgen"

      ragjury verdict correctness --item-file item.json --json   # {"question", "answer", "references": [...]}

    --judge auto falls back to the model-free ContainsJudge when the model fails.
    """
    question = one_question(question_argument, question)
    flags = {"--question": question, "--answer": answer, "--reference": reference}
    _exactly_one_source(item_file, flags)
    from ragjury.rag_agent.core.items import CorrectnessItem  # deferred: pydantic loads when the command runs

    if item_file is not None:
        item = load_item(item_file, CorrectnessItem)
    else:
        _require(flags, "correctness")
        item = CorrectnessItem(question=question or "", answer=answer or "", references=list(reference or []))
    _judge_and_finish("correctness", item, **shared)


@verdict_app.command("relevance")
@user_errors
@VERDICT_OPTIONS
def relevance(
    query: Annotated[str | None, typer.Option("--query", "-q", help="The search query.")] = None,
    passage: Annotated[
        str | None, typer.Option("--passage", "-p", help="The retrieved passage to judge.")
    ] = None,
    expected: Annotated[
        str | None,
        typer.Option("--expected", "-e", help="Expected content: judge whether the passage covers it."),
    ] = None,
    item_file: ItemFileOption = None,
    graded: Annotated[
        bool,
        typer.Option("--graded", help="Grade 0-3 on the TREC/UMBRELA scale instead of a yes/no verdict."),
    ] = False,
    threshold: Annotated[
        int, typer.Option("--threshold", min=1, max=3, help="With --graded: relevant when grade >= this.")
    ] = 2,
    **shared: Any,
) -> None:
    """Is the retrieved passage relevant to the query (Evret/UMBRELA)? Yes/no, or a 0-3 grade with --graded.

    Examples:

      ragjury verdict relevance -q "boiling point of water" -p "Water boils at 100 °C at sea level."

      ragjury verdict relevance --graded --item-file ctx.json --json   # {"query", "retrieved_text", "expected_text"}

    Grades: 0 irrelevant, 1 related, 2 highly relevant, 3 perfectly relevant. --judge auto falls
    back to the model-free TokenOverlapJudge for yes/no; --graded has no model-free
    equivalent (auto is llm).
    """
    flags = {"--query": query, "--passage": passage}
    _exactly_one_source(item_file, {**flags, "--expected": expected})
    from ragjury.rag_agent.core.items import RelevanceItem  # deferred: pydantic loads when the command runs

    if item_file is not None:
        item = load_item(item_file, RelevanceItem)
    else:
        _require(flags, "relevance")
        item = RelevanceItem(query=query or "", retrieved_text=passage or "", expected_text=expected)
    kind: VerdictKind = "relevance_graded" if graded else "relevance"
    _judge_and_finish(kind, item, threshold=threshold if graded else None, grade_threshold=threshold, **shared)


@verdict_app.command("goal")
@user_errors
@VERDICT_OPTIONS
def goal(
    turn: Annotated[
        list[str] | None,
        typer.Option(
            "--turn",
            "-t",
            help="A trace turn, 'user: text', 'assistant: text' or 'tool(name): text' (repeat, in order).",
        ),
    ] = None,
    reference_goal: Annotated[
        str | None, typer.Option("--reference-goal", "-g", help="The goal the user had, if known.")
    ] = None,
    item_file: ItemFileOption = None,
    **shared: Any,
) -> None:
    """Did the agent achieve the user's goal in this multi-turn trace? With or without a reference goal.

    Examples:

      ragjury verdict goal -t "user: Book a table for two at 8pm" -t "tool(book_table): confirmed 20:00, 2 people" \\
          -t "assistant: Booked for 8pm." --reference-goal "A table for two booked at 8pm"

      ragjury verdict goal --item-file trace.json --json

    trace.json: {"trace": [{"role": "user", "content": ...}, {"role": "tool", "tool_name": ...,
    "content": ...}], "reference_goal": null}, or a bare JSON list of turns.

    The judge infers the user's goal and the end state, then compares the end state with the
    reference goal (or the inferred goal). No model-free equivalent exists: --judge auto is llm.
    """
    _exactly_one_source(item_file, {"--turn": turn})
    from ragjury.rag_agent.core.items import GoalItem  # deferred: pydantic loads when the command runs

    if item_file is not None:
        item = load_item(item_file, GoalItem)
        if reference_goal:
            item = item.model_copy(update={"reference_goal": reference_goal})
    else:
        _require({"--turn": turn}, "goal")
        trace = [parse_turn(text, index) for index, text in enumerate(turn or [], start=1)]
        item = GoalItem(trace=trace, reference_goal=reference_goal)
    _judge_and_finish("goal", item, **shared)


def register(app: typer.Typer) -> None:
    app.add_typer(verdict_app, name="verdict")


__all__ = ["build_verdict_judge", "load_item", "parse_turn", "register", "verdict_app", "verdict_payload"]
