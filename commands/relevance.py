"""``ragjury relevance``: automatic qrels (UMBRELA-style) from any relevance judge."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, TYPE_CHECKING

import typer
from rich.markup import escape

from ragjury.commands._common import (
    MODEL_CONNECTION,
    EXIT_UNSCORED,
    RUN_OPTIONS,
    CalibrationOption,
    RunOptions,
    calibration_options,
    end_trace,
    fail,
    print_json,
    server_unreachable,
    settings_for,
    start_trace,
    stderr,
    stdout,
    user_errors,
)
from ragjury.rag_agent.core.sync import run_sync

if TYPE_CHECKING:  # annotations only: the pipeline loads when the command runs, not on --help
    from ragjury.evals.pipelines.relevance_run import RelevanceRunResult

EXIT_INTERRUPTED = 130


@user_errors
@MODEL_CONNECTION
@RUN_OPTIONS.after("judge")
def relevance(
    topics: Annotated[
        Path, typer.Option("--topics", help="topics.jsonl {qid, query} (or TSV qid<TAB>query).")
    ],
    passages: Annotated[Path, typer.Option("--passages", help="passages.jsonl {docid, text}.")],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Where to write the TREC qrels (qid 0 docid grade).")
    ],
    runs: Annotated[
        list[str] | None,
        typer.Option(
            "--runs", help="TREC run file(s), glob or folder; repeatable. Their top --depth are judged."
        ),
    ] = None,
    pairs: Annotated[
        Path | None, typer.Option("--pairs", help="A qrels file whose (qid, docid) pairs are judged exactly.")
    ] = None,
    depth: Annotated[int, typer.Option("--depth", min=1, help="Judge each run's top N per query.")] = 10,
    judge: Annotated[
        str,
        typer.Option(
            "--judge",
            help="Relevance judge: non-llm (graded 0-3, no model), token-overlap, semantic, "
            "llm (binary), llm-graded (0-3; both read one token's probabilities where the server "
            "returns logprobs), panel:A,B,C, panel-mean:A,B,C, or python:module:Factory.",
        ),
    ] = "non-llm",
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Judge only the first N pooled pairs.")
    ] = None,
    calibration: CalibrationOption = None,
    **options: Any,
) -> None:
    """Judge (query, passage) pairs and write TREC qrels: automatic relevance labels, UMBRELA-style.

    Pairs come from the top --depth of each run (pooled, de-duplicated) and/or exactly the pairs
    of a --pairs qrels file. Graded judges (non-llm, llm-graded) write grades 0-3; binary judges
    (llm, token-overlap, semantic) write 1 for relevant and 0 for not, so compare them with
    `ragjury agreement --rel 1`. Pairs the judge could not score are NOT written to the qrels
    (a missing label is not a 0): they go to OUT.unscored.tsv with the reason, and are counted.
    Pairs whose passage text or query is missing are skipped and counted.

    Every judgment is cached as it completes: re-running resumes, and cached pairs cost nothing.

    Examples:

      ragjury relevance --judge non-llm --topics topics.jsonl --passages passages.jsonl
        --runs 'runs/*.trec' --depth 10 --out judged.qrels

      ragjury relevance --judge llm-graded --base-url http://127.0.0.1:8080/v1
        --topics topics.jsonl --passages passages.jsonl --pairs qrels.txt --out llm.qrels

    Then: ragjury agreement --gold qrels.txt --judged judged.qrels --runs runs/

    --out is never an input file; it and OUT.unscored.tsv are written atomically.

    Exit codes: 0 done, 2 bad input, 3 nothing could be scored (OUT is not written),
    130 interrupted (completed judgments are kept in the cache).
    """
    from ragjury.evals.pipelines.relevance_run import NothingToJudge, plan_relevance, run_relevance
    from ragjury.evals.runs.runner import interrupted_message
    from ragjury.rag_agent.judges.catalogue import UnknownJudgeError, resolve

    if not runs and pairs is None:
        raise fail("give --runs RUN.trec (repeatable) and/or --pairs qrels.txt: the pairs to judge")
    settings = settings_for(**MODEL_CONNECTION.pick(options))
    run = RunOptions.gather(options)
    from ragjury.rag_agent.core.judge_spec import parse

    spec = parse(judge)  # --judge parsed once: the catalogue and the calibration get the JudgeSpec
    try:
        entry = resolve("relevance", spec)
        plan = plan_relevance(
            topics, passages, runs=runs or [], pairs=pairs, depth=depth, limit=limit, out=out
        )
    except (UnknownJudgeError, NothingToJudge) as error:
        raise fail(str(error)) from None
    _warn_unfit(judge)
    judge_options = calibration_options(calibration, "relevance", spec, settings.judge_model)
    try:
        judge_obj = entry.build(settings, **judge_options)
    except UnknownJudgeError as error:
        raise fail(str(error)) from None
    if not run.no_cache:
        from ragjury.evals.io.atomic_io import check_output_paths

        check_output_paths([("--out", out)], [("--cache", run.cache_file(settings))])
    cache = run.open_cache(settings)
    if run.dry_run:
        from ragjury.commands._dry_run import dry_run_batch

        try:
            dry_run_batch(
                command="relevance",
                build=lambda: entry.build(settings, **judge_options),
                items=plan.items(),
                cache=cache,
                json_output=run.json_output,
                title=f"dry run: relevance of {len(plan.todo):,} pairs judged by {judge}",
                header={"task": "relevance", "judge": judge, "inputs": plan.inputs()},
            )
        finally:
            if cache is not None:
                cache.close()
        return
    trace_session = start_trace(run.trace, settings)
    try:
        result = run_sync(
            run_relevance(
                plan,
                judge_obj,
                judge_name=judge,
                scale=entry.scale,
                out=out,
                cache=cache,
                concurrency=run.concurrency,
                progress=run.progress,
            )
        )
    except KeyboardInterrupt:
        stderr.print(interrupted_message(cache), highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        if cache is not None:
            cache.close()
        end_trace(trace_session)
    if run.json_output:
        print_json(result.payload(), command="relevance")
    elif result.grades:  # nothing scored: the cause alone, first; a table of zeros would bury it
        result.render(stdout)
    if not result.grades:
        _nothing_scored(out, result)


UNFIT_TO_RANK = {
    "non-llm": "kappa +0.01 with NIST and a ranking of six runs backwards (Kendall tau -0.87)",
    "token-overlap": "kappa +0.04 with NIST and a ranking of six runs backwards (Kendall tau -0.47)",
}
"""Measured on TREC DL 2019's confirm topics by bench/bench_model_free_relevance.py: word overlap
with the query rewards lexical runs (BM25) over better neural ones, so these qrels mislead."""


def _warn_unfit(judge: str) -> None:
    figure = UNFIT_TO_RANK.get(judge)
    if figure is not None:
        stderr.print(
            f"warning: --judge {judge} is unfit to rank retrieval systems: on TREC DL 2019 it has {figure}; "
            "use --judge llm (or label pairs) to compare systems",
            style="yellow",
            highlight=False,
            soft_wrap=True,
        )


def _nothing_scored(out: Path, result: RelevanceRunResult) -> None:
    """Exit 3, as ``evaluate`` does: an empty qrels file is not a result, and exit 0 would let a
    script carry on with it."""
    example = next(iter(result.unscored.values()), "no reason given")
    cause = server_unreachable(example) or f"all {len(result.unscored)} pair(s) unscored, e.g.: {example}"
    stderr.print(
        f"[red]nothing was scored[/]: {escape(cause)}; {out} not written (reasons in {result.unscored_path})",
        highlight=False,
        soft_wrap=True,
    )
    raise typer.Exit(EXIT_UNSCORED)


def register(app: typer.Typer) -> None:
    app.command("relevance")(relevance)


__all__ = ["EXIT_INTERRUPTED", "register", "relevance"]
