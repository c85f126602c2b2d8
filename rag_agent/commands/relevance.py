"""``ragjury relevance``: automatic qrels (UMBRELA-style) from any relevance judge."""

from __future__ import annotations

import glob
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ragjury.evals.atomic_io import check_output_paths, open_atomic
from ragjury.rag_agent._sync import run_sync
from ragjury.rag_agent.commands._common import (
    EXIT_UNSCORED,
    CacheOption,
    CalibrationOption,
    ConcurrencyOption,
    DryRunOption,
    NoProgressOption,
    TraceOption,
    end_trace,
    start_trace,
    NoCacheOption,
    NoRetryUnscoredOption,
    BaseUrlOption,
    JsonOption,
    ModelOption,
    calibration_options,
    fail,
    print_json,
    settings_for,
    stderr,
    stdout,
    user_errors,
)
from ragjury.rag_agent.inputs import InputError
from ragjury.rag_agent.json_contract import paths

EXIT_INTERRUPTED = 130


def expand_run_paths(patterns: list[str]) -> list[Path]:
    """Run files from paths, globs (``runs/*.trec``) and folders (their ``*.trec``/``*.run``)."""
    files: list[Path] = []
    for pattern in patterns:
        matches = sorted(glob.glob(pattern)) if any(ch in pattern for ch in "*?[") else [pattern]
        if not matches:
            raise InputError(pattern, "no run file matches this pattern")
        for match in matches:
            path = Path(match)
            if path.is_dir():
                found = sorted(p for p in path.iterdir() if p.suffix in (".trec", ".run"))
                if not found:
                    raise InputError(path, "no run files (*.trec, *.run) in this folder")
                files.extend(found)
            elif not path.exists():
                raise InputError(path, "file not found")
            else:
                files.append(path)
    return list(dict.fromkeys(files))


def pool_pairs(
    runs: list[object], depth: int, pairs: dict[str, dict[str, int]] | None = None
) -> list[tuple[str, str]]:
    """The (qid, docid) pairs to judge: each run's top ``depth`` per query, then the ``pairs``
    file's pairs, de-duplicated in first-seen order."""
    pooled: dict[tuple[str, str], None] = {}
    for run in runs:
        for qid, ranking in run.items():  # type: ignore[attr-defined]
            for docid, _score in ranking[:depth]:
                pooled[(qid, docid)] = None
    for qid, docs in (pairs or {}).items():
        for docid in docs:
            pooled[(qid, docid)] = None
    return list(pooled)


def write_qrels(path: Path, grades: dict[tuple[str, str], int], order: list[tuple[str, str]]) -> None:
    """TREC qrels ``qid 0 docid grade``, grouped by query in pooling order."""
    by_qid: dict[str, list[str]] = {}
    for qid, docid in order:
        if (qid, docid) in grades:
            by_qid.setdefault(qid, []).append(docid)
    with open_atomic(path) as handle:
        for qid, docids in by_qid.items():
            for docid in docids:
                handle.write(f"{qid} 0 {docid} {grades[(qid, docid)]}\n")


def write_unscored(path: Path, unscored: dict[tuple[str, str], str]) -> None:
    """The pairs the judge could not score, with the reason: ``qid<TAB>docid<TAB>reason``."""
    with open_atomic(path) as handle:
        handle.write("qid\tdocid\treason\n")
        for (qid, docid), reason in unscored.items():
            handle.write(f"{qid}\t{docid}\t{' '.join(reason.split())}\n")


def unscored_path_of(out: Path) -> Path:
    """Where the pairs the judge could not score are listed, beside the qrels."""
    return Path(f"{out}.unscored.tsv")


def _check_paths(out: Path, topics: Path, passages: Path, run_paths: list[Path], pairs: Path | None) -> None:
    """Before any judging: neither output may overwrite an input (or land in a missing folder)."""
    inputs = [("--topics", topics), ("--passages", passages), ("--pairs", pairs)]
    inputs += [("--runs", path) for path in run_paths]
    check_output_paths([("--out", out), ("--out (unscored list)", unscored_path_of(out))], inputs)


@user_errors
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
    cache_path: CacheOption = None,
    no_cache: NoCacheOption = False,
    no_retry_unscored: NoRetryUnscoredOption = False,
    concurrency: ConcurrencyOption = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Judge only the first N pooled pairs.")
    ] = None,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    json_output: JsonOption = False,
    no_progress: NoProgressOption = False,
    calibration: CalibrationOption = None,
    dry_run: DryRunOption = False,
    trace: TraceOption = False,
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
    from ragjury.evals.cache import open_cache
    from ragjury.evals.loaders import load_passages, load_qrels, load_run, load_topics
    from ragjury.evals.pipeline import judge_pairs
    from ragjury.evals.registry import UnknownJudgeError, build_judge, judge_entry
    from ragjury.evals.runner import interrupted_message

    if not runs and pairs is None:
        raise fail("give --runs RUN.trec (repeatable) and/or --pairs qrels.txt: the pairs to judge")
    settings = settings_for(model, base_url)
    try:
        entry = judge_entry("relevance", judge)
    except UnknownJudgeError as error:
        raise fail(str(error)) from None
    run_paths = expand_run_paths(runs or [])
    _check_paths(out, topics, passages, run_paths, pairs)
    topic_texts = load_topics(topics)
    passage_texts = load_passages(passages)
    run_list = [load_run(path) for path in run_paths]
    pair_qrels = load_qrels(pairs) if pairs is not None else None
    pooled = pool_pairs(run_list, depth, pair_qrels)
    missing_topic = [p for p in pooled if p[0] not in topic_texts]
    missing_text = [p for p in pooled if p[0] in topic_texts and p[1] not in passage_texts]
    todo = [p for p in pooled if p[0] in topic_texts and p[1] in passage_texts]
    if limit is not None:
        todo = todo[:limit]
    if not todo:
        raise fail(
            f"no pair to judge: {len(missing_topic)} lack a query, {len(missing_text)} lack passage text"
        )
    judge_options = calibration_options(calibration, "relevance", judge, settings.judge_model)
    try:
        judge_obj = build_judge("relevance", judge, settings, **judge_options)
    except UnknownJudgeError as error:
        raise fail(str(error)) from None
    cache = open_cache(
        cache_path or settings.cache_path, enabled=not no_cache, retry_unscored=not no_retry_unscored
    )
    if dry_run:
        from ragjury.evals.pipeline import relevance_items
        from ragjury.rag_agent.commands._dry_run import dry_run_batch

        try:
            dry_run_batch(
                command="relevance",
                build=lambda: build_judge("relevance", judge, settings, **judge_options),
                items=relevance_items(todo, topic_texts, passage_texts),
                cache=cache,
                json_output=json_output,
                title=f"dry run: relevance of {len(todo):,} pairs judged by {judge}",
                header={
                    "task": "relevance",
                    "judge": judge,
                    "inputs": paths(topics=topics, passages=passages, runs=run_paths, pairs=pairs),
                },
            )
        finally:
            if cache is not None:
                cache.close()
        return
    trace_session = start_trace(trace, settings)
    try:
        result = run_sync(
            judge_pairs(
                todo,
                topic_texts,
                passage_texts,
                judge_obj,
                cache=cache,
                concurrency=concurrency,
                progress=not no_progress,
            )
        )
    except KeyboardInterrupt:
        stderr.print(interrupted_message(cache), highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    finally:
        if cache is not None:
            cache.close()
        end_trace(trace_session)
    if result.grades:  # with nothing scored, an earlier qrels file is kept, not emptied
        write_qrels(out, result.grades, todo)
    unscored_path = unscored_path_of(out)
    if result.unscored:
        write_unscored(unscored_path, result.unscored)
    elif unscored_path.exists():
        unscored_path.unlink()  # a stale list from an earlier run would mislead
    distribution = Counter(result.grades.values())
    summary = {
        "task": "relevance",
        "judge": judge,
        "scale": entry.scale,
        "pooled_runs": [run.name for run in run_list],
        "depth": depth if run_list else None,
        "pooled": len(pooled),
        "skipped_missing_query": len(missing_topic),
        "skipped_missing_passage": len(missing_text),
        "written": len(result.grades),
        "grades": {str(grade): distribution[grade] for grade in sorted(distribution)},
        **result.stats.as_dict(),
        "inputs": paths(topics=topics, passages=passages, runs=run_paths, pairs=pairs),
        "outputs": paths(
            qrels=out if result.grades else None, unscored=unscored_path if result.unscored else None
        ),
    }
    if json_output:
        print_json(summary, command="relevance")
    else:
        _print_summary(summary)
    if not result.grades:
        _nothing_scored(out, result.unscored)


def _nothing_scored(out: Path, unscored: dict[tuple[str, str], str]) -> None:
    """Exit 3, as ``evaluate`` does: an empty qrels file is not a result, and exit 0 would let a
    script carry on with it."""
    example = next(iter(unscored.values()), "no reason given")
    stderr.print(
        f"[red]nothing was scored[/]: all {len(unscored)} pair(s) unscored, e.g.: {escape(example)}; "
        f"{out} not written (reasons in {unscored_path_of(out)})",
        highlight=False,
        soft_wrap=True,
    )
    raise typer.Exit(EXIT_UNSCORED)


def _print_summary(summary: dict[str, object]) -> None:
    table = Table(title=f"relevance judged by {summary['judge']} ({summary['scale']})", show_header=False)
    table.add_column("figure")
    table.add_column("value", justify="right")
    rows = [
        ("pairs pooled", summary["pooled"]),
        ("skipped: no passage text", summary["skipped_missing_passage"]),
        ("skipped: no query", summary["skipped_missing_query"]),
        ("judged (n)", summary["n"]),
        ("written to qrels", summary["written"]),
        ("unscored (not written)", summary["unscored"]),
        ("from cache", summary["cached"]),
        ("judged now", summary["judged"]),
        ("grades", ", ".join(f"{g}: {c}" for g, c in summary["grades"].items())),  # type: ignore[attr-defined]
        ("tokens", f"{summary['tokens']:,}"),
        ("requests", summary["requests"]),
        ("wall time", f"{summary['wall_s']:.2f}s"),
        ("judgments/s", summary["judgments_per_s"]),
    ]
    for name, value in rows:
        table.add_row(name, str(value))
    stdout.print(table)
    outputs: dict[str, str | None] = summary["outputs"]  # type: ignore[assignment]
    if outputs["qrels"]:
        stdout.print(f"qrels written to {outputs['qrels']}", highlight=False)
    if outputs["unscored"]:
        stdout.print(f"[yellow]unscored pairs listed in {outputs['unscored']}[/]", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("relevance")(relevance)
