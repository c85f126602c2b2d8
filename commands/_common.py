"""Options, judge selection and error handling shared by the CLI commands."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

import typer
from rich.console import Console

from ragjury.commands._options import OptionSet
from ragjury.rag_agent.core.input_files import InputError
from ragjury.rag_agent.core.judge_spec import JudgeSpec, parse

if TYPE_CHECKING:
    from ragjury.config.settings import RagjurySettings

P = ParamSpec("P")
R = TypeVar("R")

class WordWrapConsole(Console):
    """A console whose one-line messages (``soft_wrap=True``) stay one line where they are read
    as a log (a pipe, a file, CI) and wrap between words on a terminal: a terminal would otherwise
    cut them at its width inside a word ("pre / ds.jsonl"). Tables are widened to their title."""

    def on_broken_pipe(self) -> None:
        """The reader went away (``ragjury report A B | head -1``): print nothing more, quietly, and
        let the command finish with its own exit code (rich exits 1 here, the gate-failed code)."""
        self.quiet = True
        stdout_gone()

    def print(self, *objects: Any, **options: Any) -> None:  # type: ignore[override]
        if options.get("soft_wrap") and self.is_terminal:
            options["soft_wrap"] = False
        for table in objects:
            _title_fits(table)
            _words_kept_whole(table, self)
        super().print(*objects, **options)


def _title_fits(table: object) -> None:
    """Widen a narrow table to its title and caption, so they read as one line above and below
    it (a 25-column table squeezed "correctness judged by evaluator:slow on d500.jsonl" into
    three centred lines)."""
    from rich.table import Table
    from rich.text import Text

    if not isinstance(table, Table):
        return
    widths = [Text.from_markup(str(part)).cell_len for part in (table.title, table.caption) if part]
    if widths:
        table.min_width = max(table.min_width or 0, *widths)


ID_FOLD_MIN = 8
"""The narrowest a table's first column (a row's name: a system, an id) folds to when the table
cannot fit otherwise."""


def _words_kept_whole(table: object, console: Console) -> None:
    """Give a table too wide for the console column widths that never cut a number, and a word only
    where nothing else fits.

    Rich squeezes the widest columns evenly and folds what no longer fits, inside a word: "judg|e",
    "1|00 %", "42/|167" at 80 columns. Here the widest columns give way first, each down to its
    longest word (all of its widest line where it does not wrap); then the first column (a row's
    name: a system, an id) folds, down to ``ID_FOLD_MIN``; then names in the other columns (words
    with a letter: a run's name in a header) end in "…" where they must, but a number is always
    whole. A table that fits is not touched."""
    from rich.cells import cell_len
    from rich.table import Table
    from rich.text import Text

    if not isinstance(table, Table) or not table.columns:
        return
    columns = table.columns
    if any(column.width is not None or column.ratio for column in columns):
        return  # the table sets its own widths
    widest: list[int] = []
    longest: list[int] = []
    numbers: list[int] = []
    for column in columns:
        lines: list[str] = []
        for cell in [column.header if table.show_header else "", *column._cells]:
            if isinstance(cell, str):
                cell = console.render_str(cell)
            if not isinstance(cell, Text):
                return  # a renderable of its own: rich measures it
            lines.extend(cell.plain.splitlines())
        words = [word for line in lines for word in _WORD.findall(line)]  # an indent stays with its word
        wide = max([cell_len(line) for line in lines] or [0])
        if column.min_width is not None:
            wide = max(wide, column.min_width)
        if column.max_width is not None:
            wide = min(wide, column.max_width)
        widest.append(wide)
        longest.append(min(wide, wide if column.no_wrap else max([cell_len(word) for word in words] or [0])))
        numbers.append(min(wide, max([cell_len(word) for word in words if _NUMBER.fullmatch(word.strip())] or [1])))
    room = console.width - table._extra_width - sum(table._get_padding_width(i) for i in range(len(columns)))
    if sum(widest) <= room:
        return
    widths = list(widest)

    def shrink(floors: list[int]) -> bool:
        while sum(widths) > room:
            over = [i for i in range(len(widths)) if widths[i] > floors[i]]
            if not over:
                return False
            widths[max(over, key=lambda i: (widths[i], -i))] -= 1
        return True

    first = min(longest[0], max(numbers[0], ID_FOLD_MIN))
    for floors in ([*longest], [first, *longest[1:]], [longest[0], *numbers[1:]], [first, *numbers[1:]]):
        widths = list(widest)
        if shrink(floors):
            break
    else:
        return  # no width keeps every number whole: rich's squeeze
    if widths[0] < longest[0]:
        columns[0].overflow, columns[0].no_wrap = "fold", False
    for column, width, word in zip(columns[1:], widths[1:], longest[1:], strict=True):
        if width < word:
            column.overflow, column.no_wrap = "ellipsis", False
    for column, width in zip(columns, widths, strict=True):
        column.width = width


_WORD = re.compile(r"^\s*\S+|\S+")
_NUMBER = re.compile(r"[^A-Za-z]*\d[^A-Za-z]*")
"""A word with a digit and no letter: a count, a rate, an interval's end ("42/167", "[0.783,")."""


def stdout_gone() -> None:
    """Point standard output at the null device once its reader has closed the pipe, so that later
    writes (and Python's flush at exit) neither raise nor print "Exception ignored … BrokenPipeError"."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real stdout (embedded, captured): nothing to redirect
        pass


stderr = WordWrapConsole(stderr=True)
stdout = WordWrapConsole()

EXIT_BAD_INPUT = 2
EXIT_BELOW_THRESHOLD = 1
EXIT_UNSCORED = 3
"""Nothing could be scored: distinct from a low score, so scripts can tell them apart."""


PANEL_MODEL = "Model"
PANEL_INPUT = "Input"
PANEL_OUTPUT = "Output"
PANEL_GATES = "Gates"
PANEL_RUN = "Run"
"""``--help`` groups (typer's ``rich_help_panel``): a long option list reads by what it is about."""


class JudgeMode(str, Enum):
    """Which score judge answers: the model with model-free fallback, the model only, or the
    model-free heuristic."""

    auto = "auto"
    llm = "llm"
    heuristic = "heuristic"


RETIRED_JUDGE_MODES: dict[str, JudgeMode] = {"deterministic": JudgeMode.heuristic}
"""Old spellings still accepted (issue #30), listed nowhere: scripts written before keep working."""


def judge_mode(value: str | JudgeMode) -> JudgeMode:
    """A ``JudgeMode`` from what was typed, a retired spelling included (exit 2 for anything else)."""
    if isinstance(value, JudgeMode):
        return value
    if value in RETIRED_JUDGE_MODES:
        return RETIRED_JUDGE_MODES[value]
    try:
        return JudgeMode(value)
    except ValueError:
        raise typer.BadParameter(
            f"'{value}' is not one of {', '.join(mode.value for mode in JudgeMode)}"
        ) from None


ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        help="Judge model name (default: $RAGJURY_JUDGE_MODEL or phi3:mini).",
        rich_help_panel=PANEL_MODEL,
    ),
]
BaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1, or several separated by commas "
        "(the same model on each; default: $RAGJURY_BASE_URL, else Ollama at $OLLAMA_HOST/v1).",
        rich_help_panel=PANEL_MODEL,
    ),
]
ApiKeyOption = Annotated[
    str | None,
    typer.Option(
        "--api-key",
        metavar="KEY",
        show_default=False,
        help="API key of the model server (default: $RAGJURY_API_KEY, else $OPENAI_API_KEY); never printed.",
        rich_help_panel=PANEL_MODEL,
    ),
]
TimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        min=0.001,
        metavar="SECONDS",
        help="Deadline of one model request, retries included (default: $RAGJURY_TIMEOUT_S, else 120). Raise it "
        "for a slow CPU server.",
        rich_help_panel=PANEL_MODEL,
    ),
]
MODEL_SERVER = OptionSet(base_url=(BaseUrlOption, None), api_key=(ApiKeyOption, None), timeout=(TimeoutOption, None))
"""Where the model servers are and the key they take (``ask`` names its two models itself)."""
CheckTimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--check-timeout",
        min=0.001,
        metavar="SECONDS",
        help="Deadline of one Python check (python:MODULE:CHECK) on one item (default: $RAGJURY_CHECK_TIMEOUT_S, "
        "else 60); a check still running then is unscored with the reason, and Ctrl-C never waits for it.",
        rich_help_panel=PANEL_MODEL,
    ),
]
MODEL_CONNECTION = OptionSet(model=(ModelOption, None), check_timeout=(CheckTimeoutOption, None)) + MODEL_SERVER
"""The model connection every judging command takes (``@MODEL_CONNECTION``, values in
``**connection``, read by ``settings_for(**connection)``): a new connection option is one line here."""
JudgeOption = Annotated[
    JudgeMode,
    typer.Option(
        "--judge",
        parser=judge_mode,
        metavar="[auto|llm|heuristic]",
        help="auto: the model, its model-free judge answering where it fails; "
        "llm: the model only (never falls back: failures are unscored); heuristic: no model at all.",
        rich_help_panel=PANEL_MODEL,
    ),
]
PeopleLabelsOption = Annotated[
    Path | None,
    typer.Option("--labels", help="People's labels apart from --data: the labels file of 'ragjury label' (or "
                 "{\"id\", \"label\"} rows), joined on id; they replace the dataset's own (correctness, "
                 "faithfulness).", rich_help_panel=PANEL_INPUT),
]
"""``calibrate --labels`` and ``fit --labels``: people's labels beside a labelled dataset."""
LabelsOption = Annotated[
    Path | None,
    typer.Option("--labels", help="People's labels: the labels file of 'ragjury label' (several annotators: each "
                 "person's last label, the majority, ties left out), or JSONL/CSV rows {id, label[, system, "
                 "inclusion_probability]} (a filled label-plan, a dataset's label). Read once, joined on id with its "
                 "weights; every trust command reads it the same way.", rich_help_panel=PANEL_INPUT),
]
AllowShownJudgeOption = Annotated[
    bool,
    typer.Option("--allow-shown-judge", help="Count labels given with the judge's verdict shown ('ragjury label "
                 "--reveal'); refused by default, since they measure the judge with its own help.",
                 rich_help_panel=PANEL_INPUT),
]
PEOPLE_LABELS = OptionSet(labels=(LabelsOption, None), allow_shown_judge=(AllowShownJudgeOption, False))
"""People's labels, as every trust command takes them (``evals.io.people`` reads them, once)."""
CacheOption = Annotated[
    Path | None,
    typer.Option(
        "--cache", help="SQLite judgment cache (default: $RAGJURY_CACHE_PATH).", rich_help_panel=PANEL_RUN
    ),
]
NoCacheOption = Annotated[
    bool, typer.Option("--no-cache", help="Judge everything again; store nothing.", rich_help_panel=PANEL_RUN)
]
NoRetryUnscoredOption = Annotated[
    bool,
    typer.Option(
        "--no-retry-unscored",
        help="Keep cached unscored judgments instead of retrying them.",
        rich_help_panel=PANEL_RUN,
    ),
]
ConcurrencyOption = Annotated[
    int | None,
    typer.Option(
        "--concurrency", "-j", min=1, help="Judgments in flight (default: settings).", rich_help_panel=PANEL_RUN
    ),
]
JsonOption = Annotated[
    bool,
    typer.Option(
        "--json", help="Print one JSON object on stdout (machine-readable).", rich_help_panel=PANEL_OUTPUT
    ),
]
NoProgressOption = Annotated[
    bool, typer.Option("--no-progress", help="No progress bar.", rich_help_panel=PANEL_OUTPUT)
]
MaxFallbackOption = Annotated[
    float | None,
    typer.Option(
        "--max-fallback",
        min=0.0,
        max=1.0,
        metavar="SHARE",
        help="Fail (exit 1) when more than this share of the verdicts came from the fallback judge "
        "(e.g. the model-free one behind --judge auto). Default: 0 with any --fail-under gate "
        "(a gate passed by the fallback says nothing about the model), no limit without one.",
        rich_help_panel=PANEL_GATES,
    ),
]
MaxUnscoredOption = Annotated[
    float | None,
    typer.Option(
        "--max-unscored",
        min=0.0,
        max=1.0,
        metavar="SHARE",
        help="Fail (exit 1) when more than this share of the judgments is unscored (a server error, "
        "invalid output, ...). Default: 0 with any --fail-under gate (the gates measure only the "
        "scored items), no limit without one.",
        rich_help_panel=PANEL_GATES,
    ),
]
TraceOption = Annotated[
    bool,
    typer.Option(
        "--trace",
        help="OpenTelemetry spans: one per judgment (judge, prompt version, cache hit/miss, "
        "unscored, fallback) over pydantic-ai's model calls; to $OTEL_EXPORTER_OTLP_ENDPOINT, else "
        "to .ragjury/traces.jsonl ($RAGJURY_TRACE_FILE). Needs the 'trace' extra. Or RAGJURY_TRACE=1.",
        rich_help_panel=PANEL_RUN,
    ),
]
DryRunOption = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Send nothing: count the prompts the run would send (items not in the cache), their "
        "estimated input tokens, the output token cap and, for a hosted model, the price; exit 0.",
        rich_help_panel=PANEL_RUN,
    ),
]
@dataclass(frozen=True)
class RunOptions:
    """How a judging run goes (``--cache``, ``--no-cache``, ``--no-retry-unscored``, ``--concurrency``,
    ``--json``, ``--no-progress``, ``--dry-run``, ``--trace``), declared once: each field is an
    option of ``RUN_OPTIONS`` (its ``Annotated`` type and default, in ``--help`` in this order), and a
    command that takes the set gathers its values into one of these (``RunOptions.gather``), which
    the evaluate paths receive. A new run option is one field here."""

    cache_path: CacheOption = None
    no_cache: NoCacheOption = False
    no_retry_unscored: NoRetryUnscoredOption = False
    concurrency: ConcurrencyOption = None
    json_output: JsonOption = False
    no_progress: NoProgressOption = False
    dry_run: DryRunOption = False
    trace: TraceOption = False

    @classmethod
    def gather(cls, options: Mapping[str, Any]) -> RunOptions:
        """This class's values out of a command's ``**options`` (a field the command leaves out of
        its set keeps its default)."""
        return cls(**{field.name: options[field.name] for field in fields(cls) if field.name in options})

    @property
    def progress(self) -> bool:
        return not self.no_progress

    def cache_file(self, settings: RagjurySettings) -> Path | None:
        """The cache this run reads and writes (None with ``--no-cache``): an input no output may replace."""
        return None if self.no_cache else Path(self.cache_path or settings.cache_path)

    def open_cache(self, settings: RagjurySettings) -> Any:
        from ragjury.evals.runs.cache import open_cache

        return open_cache(self.cache_path or settings.cache_path, enabled=not self.no_cache,
                          retry_unscored=not self.no_retry_unscored)


RUN_OPTIONS = OptionSet.of(RunOptions)
"""The run options (``@RUN_OPTIONS``, values in ``**options``, read by ``RunOptions.gather(options)``);
``OptionSet.of(RunOptions, leave_out=...)`` for a command without some, ``.after(NAME)`` to keep
them where ``--help`` listed them."""


RelevanceTopicsOption = Annotated[
    Path | None,
    typer.Option("--topics", help="relevance: topics.jsonl {qid, query}.", rich_help_panel=PANEL_INPUT),
]
"""The topics beside gold qrels (``calibrate`` and ``fit`` of relevance): declared once."""
RelevancePassagesOption = Annotated[
    Path | None,
    typer.Option("--passages", help="relevance: passages.jsonl {docid, text}.", rich_help_panel=PANEL_INPUT),
]
"""The passages beside gold qrels (``calibrate`` and ``fit`` of relevance): declared once."""
CalibrationOption = Annotated[
    Path | None,
    typer.Option(
        "--calibration",
        help="A calibration file from `ragjury calibrate` (fitted on other, labelled data): "
        "its threshold or cut points replace the judge's defaults.",
        rich_help_panel=PANEL_MODEL,
    ),
]


def calibration_options(path: Path | None, task: str, judge: JudgeSpec | str,
                        model: str | None = None) -> dict[str, object]:
    """Judge options of a calibration file, after checking it was fitted for this task and judge
    (the command's parsed ``--judge``; a string is parsed here).

    A calibration fitted on another model is applied, with a warning: cut-offs on one model's
    probabilities rarely transfer to another's, and the user should know to re-fit.
    """
    if path is None:
        return {}
    from ragjury.evals.stats.calibration import CalibrationError, check_applies, load_calibration

    spec = judge if isinstance(judge, JudgeSpec) else parse(judge)
    try:
        calibration = load_calibration(path)
        check_applies(calibration, task, spec.value, path)
    except CalibrationError as error:
        raise fail(str(error)) from None
    if model is not None and calibration.model is not None and calibration.model != model:
        stderr.print(
            f"warning: {path} was fitted on model {calibration.model}, this run uses {model}: "
            "its cut-offs may not transfer (re-fit with `ragjury calibrate` on this model)",
            markup=False,
        )
    from ragjury.rag_agent.judges.catalogue import one_token_path  # source text only: no judge imported

    return calibration.judge_options(one_token_path=one_token_path(task, spec))


def start_trace(trace: bool, settings: RagjurySettings) -> Any:
    """Start tracing when ``--trace`` or ``RAGJURY_TRACE`` asks for it (``rag_agent.tracing``);
    returns the session for ``end_trace``, or None. Without the OpenTelemetry SDK: one line, exit 2."""
    if not (trace or settings.trace):
        return None
    from ragjury.rag_agent.tracing import TracingUnavailable, start_tracing

    try:
        return start_tracing(settings)
    except TracingUnavailable as error:
        raise fail(str(error)) from None


def end_trace(session: Any) -> None:
    """Flush the spans and say on stderr how many went where."""
    if session is not None:
        stderr.print(session.close(), style="dim", highlight=False, soft_wrap=True)


def check_model_servers(user: object) -> None:
    """Preflight every model server a judge (or the agent) declares it calls, and raise the
    configuration error one answered: an unknown model or a URL that is no API is one line and
    exit 2 before anything is judged (``rag_agent.model.preflight``)."""
    from ragjury.rag_agent.core.sync import run_sync
    from ragjury.rag_agent.model.preflight import check_servers

    run_sync(check_servers(user))


def judge_one(judge: Any, item: Any) -> Any:
    """The judgment of one item, for the commands that judge without the runner: the servers
    checked first, and a 401/403/404 a request got raised after it (one line, exit 2), never an
    unscored verdict or a silent fallback."""
    from ragjury.rag_agent.core.sync import run_sync
    from ragjury.rag_agent.model.breaker import raise_config_error

    from ragjury.rag_agent.core.items import CorrectnessItem
    from ragjury.rag_agent.judges.combined.empty_answer import EmptyAnswerIsWrong, is_empty_answer

    if isinstance(item, CorrectnessItem) and is_empty_answer(item):  # a wrong answer, not a judge failure
        return run_sync(EmptyAnswerIsWrong(judge).ajudge(item))
    check_model_servers(judge)
    judgment = run_sync(judge.ajudge(item))
    raise_config_error(judge)
    return judgment


def server_unreachable(reason: str | None) -> str | None:
    """The one line for a judgment that never reached its model server (where, what the
    connection answered, the fix: ``rag_agent.model.unreachable``); None for any other reason."""
    from ragjury.rag_agent.model.unreachable import unreachable_cause

    return unreachable_cause(reason)


def why_unscored(reason: str | None) -> str | None:
    """What a command prints for an unscored (or fallen-back) judgment: ``server_unreachable``'s
    line where the server was not reached, else the reason as it is."""
    return server_unreachable(reason) or reason


def settings_for(
    model: str | None, base_url: str | None, api_key: str | None = None, timeout: float | None = None,
    check_timeout: float | None = None,
) -> RagjurySettings:
    """Settings read fresh from the environment, with the command-line overrides applied
    (``--api-key`` wins over $RAGJURY_API_KEY and $OPENAI_API_KEY)."""
    from ragjury.config.settings import RagjurySettings  # deferred: pydantic-settings costs every --help

    if not base_url:
        _one_base_url_variable()
    settings = RagjurySettings()
    update: dict[str, object] = {}
    if model:
        update["judge_model"] = model
    if timeout is not None:
        update["timeout_s"] = float(timeout)
    if check_timeout is not None:
        update["check_timeout_s"] = float(check_timeout)
    if base_url:
        from ragjury.config.settings import check_base_urls

        try:  # model_copy does not validate: a list of servers is checked here, each URL in it
            update["base_url"] = check_base_urls(base_url)
        except ValueError as error:
            raise fail(f"--base-url: {error}") from None
    if api_key:
        from ragjury.config.settings import check_api_key

        try:
            update["api_key"] = check_api_key(api_key)
        except ValueError as error:
            raise fail(f"--api-key: {error}") from None
    return settings.model_copy(update=update) if update else settings


def _one_base_url_variable() -> None:
    """$RAGJURY_BASE_URL and $RAGJURY_BASE_URLS are one setting: both set to different servers is
    a mistake (which was meant?), refused rather than one silently winning; --base-url wins over both."""
    from ragjury.config.settings import parse_base_urls, same_server

    one, several = os.environ.get("RAGJURY_BASE_URL"), os.environ.get("RAGJURY_BASE_URLS")
    if not one or not several:
        return
    try:
        differ = {same_server(url) for url in parse_base_urls(one)} != {same_server(url) for url in parse_base_urls(several)}
    except ValueError as error:
        raise fail(f"$RAGJURY_BASE_URL(S): {error}") from None
    if differ:
        raise fail("$RAGJURY_BASE_URL and $RAGJURY_BASE_URLS are both set, to different servers: unset one "
                   "(they are one setting), or give --base-url")


QuestionArgument = Annotated[
    str | None,
    typer.Argument(metavar="QUESTION", show_default=False, help="The question (or --question/-q)."),
]
QuestionOption = Annotated[
    str | None, typer.Option("--question", "-q", help="The question (or as the first argument).")
]


def one_question(positional: str | None, option: str | None) -> str | None:
    """The question, given as the first argument or with ``-q`` (the commands read it either way,
    so neither form is the wrong one); both and different is a mistake, said in one line."""
    if positional is not None and option is not None and positional != option:
        raise fail("give the question once: as the first argument or with --question/-q, not both")
    return option if option is not None else positional


def fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    """Print a one-line error (credentials in a URL hidden) and return the exit to raise. The message
    is text, never markup: a hint's ``'.[train]'`` or a file's ``[x]`` prints as written (#54 item 9)."""
    from rich.markup import escape

    from ragjury.config.redaction import redact_secrets

    stderr.print(f"[bold red]error:[/] {escape(redact_secrets(message))}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def check_one_or_two_runs(predictions: Sequence[Path]) -> None:
    """``PRED.jsonl [B.jsonl]`` (``estimate``, ``label-plan``): one predictions file, or config A's and
    config B's, never more and never one file twice."""
    from ragjury.evals.io.atomic_io import one_existing_file

    if len(predictions) > 2:
        raise fail(f"give one predictions file, or two (config A's and config B's), not {len(predictions)}")
    if len(predictions) == 2 and (predictions[0].resolve() == predictions[1].resolve()
                                  or one_existing_file(predictions[0], predictions[1])):
        raise fail(f"A and B are the same file ({predictions[0]}): give config A's and config B's predictions")


class _UserErrors(contextlib.ContextDecorator):
    """Turn user-input errors into one line on stderr and exit code 2, never a traceback.

    A context decorator (``@user_errors`` on a command, or ``with user_errors:``): it wraps the
    command without a frame of ragjury's own on every judge's stack."""

    def __enter__(self) -> _UserErrors:
        return self

    def __exit__(self, kind: object, error: BaseException | None, trace: object) -> bool:
        if error is None or isinstance(error, typer.Exit):
            return False
        if isinstance(error, InputError):  # a message is text: fail() prints it without markup
            raise fail(str(error)) from None
        if isinstance(error, ValueError | OSError):
            raise fail(_one_line(error)) from None
        return False


def _one_line(error: BaseException) -> str:
    """A setting pydantic refused reads as one line with the setting's name, not a report; a
    failed write as the file and what the system said."""
    errors = getattr(error, "errors", None)
    if type(error).__name__ == "ValidationError" and callable(errors):
        first = errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        where = {"api_key": "$RAGJURY_API_KEY (or $OPENAI_API_KEY)", "base_url": "$RAGJURY_BASE_URL(S)"}.get(where, where)
        message = str(first.get("msg", error)).removeprefix("Value error, ")
        return f"{where}: {message}" if where else message
    if isinstance(error, OSError) and error.strerror:  # "p.jsonl: No space left on device", not "[Errno 28]"
        full = " (the disk is full: free some space or write elsewhere; nothing was replaced)" if error.errno == errno.ENOSPC else ""
        return f"{error.filename}: {error.strerror}{full}" if error.filename else f"{error.strerror}{full}"
    if type(error) is ValueError and str(error):  # ragjury's own refusals say what is wrong: no class name
        return str(error)
    return f"{type(error).__name__}: {error}"


user_errors = _UserErrors()


def print_json(payload: Mapping[str, object], *, command: str) -> None:
    """One JSON object on stdout, nothing else (rich would wrap long lines), under the contract
    every command shares (``schema_version`` and ``command`` first; see ``rag_agent.json_contract``)."""
    from ragjury.evals.io.json_contract import document

    try:
        typer.echo(json.dumps(document(command, payload), ensure_ascii=False))
    except BrokenPipeError:  # ``... --json | head -c 100``: the reader has what it wanted
        stdout_gone()


def usage_text(judgment: Any) -> str:
    """What one judgment cost, as a one-item command prints it: "no model call" for a model-free
    answer; the requests a fallback's answer cost are said to be the failed model's."""
    usage = judgment.usage
    if not (usage.requests or usage.input_tokens or usage.output_tokens):
        return "no model call"
    spent = f"tokens in/out {usage.input_tokens}/{usage.output_tokens}  requests {usage.requests}"
    return f"{spent} (to the model, before the fallback answered)" if judgment.fallback_used else spent
