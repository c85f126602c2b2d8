"""``ragjury evaluate``: batch-judge a dataset (or an agent's answers), resumably, and report
how far the judge agrees with people."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ragjury.rag_agent._sync import run_sync
from ragjury.rag_agent.commands._common import (
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
    EXIT_BELOW_THRESHOLD,
    EXIT_UNSCORED,
    BaseUrlOption,
    JsonOption,
    MaxFallbackOption,
    ModelOption,
    calibration_options,
    fail,
    print_json,
    settings_for,
    stderr,
    stdout,
    user_errors,
)
from ragjury.rag_agent.json_contract import paths

EXIT_INTERRUPTED = 130

DEFAULT_JUDGES: dict[str, str] = {"correctness": "auto", "faithfulness": "llm", "score": "auto"}


class Task(str, Enum):
    correctness = "correctness"
    faithfulness = "faithfulness"
    score = "score"


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    """Write all rows to ``path`` atomically, so a kill never leaves half a file (the judgments
    themselves are in the cache already). The path was checked before judging
    (``check_output_paths``): never an input, its folder exists."""
    from ragjury.evals.atomic_io import open_atomic

    with open_atomic(path) as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def _check_before_judging(
    gates: dict[str, float],
    *,
    task: Task | None,
    agent: bool,
    faithfulness_judge: str,
    correctness_judge: str,
    paths: dict[str, Path | None],
) -> None:
    """User mistakes that would otherwise surface after the whole batch: a gate on a figure this
    run never reports, an output that would overwrite an input (or land in a missing folder)."""
    from ragjury.evals.atomic_io import check_output_paths
    from ragjury.evals.gates import agent_figures, check_gate_names, task_figures
    from ragjury.evals.tasks import task_spec

    if agent:
        known = agent_figures(
            faithfulness=faithfulness_judge != "none", correctness=correctness_judge != "none"
        )
    else:
        assert task is not None
        known = task_figures(task_spec(task.value).gold_kind)
    check_gate_names(gates, known)
    outputs = [(name, paths[name]) for name in ("--out", "--html")]
    inputs = [(name, paths.get(name)) for name in ("--data", "--corpus", "--calibration")]
    check_output_paths(outputs, inputs)


def _run_table(title: str, stats: dict[str, Any]) -> Table:
    table = Table(title=title, show_header=False)
    table.add_column("figure")
    table.add_column("value", justify="right")
    for name in ("n", "scored", "unscored", "fallback_used", "cached", "judged", "duplicates", "tokens", "requests"):
        if name in stats:
            value = stats[name]
            table.add_row(name, f"{value:,}" if isinstance(value, int) else str(value))
    table.add_row("wall time", f"{stats['wall_s']:.2f}s")
    table.add_row("judgments/s", f"{stats['judgments_per_s']:.1f}")
    return table


def _verdict_lines(stages: dict[str, Any]) -> None:
    """Print which judges produced the verdicts, per stage (yellow when a fallback answered): the
    requested judge ("auto") is a policy, the judgments say who actually judged."""
    for stage, sources in stages.items():
        prefix = f"{stage} verdicts by" if stage else "verdicts by"
        style = "yellow" if sources.fallback else None
        stdout.print(f"{prefix}: {escape(sources.describe())}", style=style, highlight=False, soft_wrap=True)


def _fallback_note(stage: str | None, sources: Any, judgments: list[Any]) -> str | None:
    """The HTML report's warning when a fallback produced verdicts, with one reason it was needed."""
    if not sources.fallback:
        return None
    from ragjury.evals.report import percent

    reason = next(
        (j.fallback_reason for j in judgments if j is not None and j.fallback_used and j.fallback_reason), None
    )
    prefix = f"{stage}: " if stage else ""
    because = f" (e.g. because: {reason})" if reason else ""
    return (
        f"{prefix}{sources.fallback} of {sources.scored} verdicts ({percent(sources.share or 0.0)}) came "
        f"from the fallback judge '{sources.fallback_judge}', not the judge asked for{because}."
    )


def _gate(
    gates: dict[str, float],
    figures: dict[str, Any],
    html_report: Any | None,
    html: Path | None,
    fallback_failures: list[str] | None = None,
) -> list[str]:
    """Failed ``--fail-under`` gates, then failed ``--max-fallback`` limits; written into the HTML
    report (when asked for) before anything is printed, so the page and the exit code agree."""
    from ragjury.evals.report import failed_gates, write_html

    failures = failed_gates(figures, gates) if gates else []
    failures += fallback_failures or []
    if html is not None and html_report is not None:
        html_report.gate_failures = failures
        write_html(html, html_report)
    return failures


def _finish(
    failures: list[str], scored: int, json_output: bool, html: Path | None, *, why_unscored: str | None = None
) -> None:
    if html is not None and not json_output:
        stdout.print(f"HTML report written to {html}", highlight=False)
    for failure in failures:
        stderr.print(f"[red]gate failed:[/] {escape(failure)}", highlight=False, soft_wrap=True)
    if scored == 0:
        why = why_unscored or "every judgment is unscored (see the reasons in the predictions)"
        stderr.print(f"[red]nothing was scored[/]: {escape(why)}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_UNSCORED)
    if failures:
        raise typer.Exit(EXIT_BELOW_THRESHOLD)


def _evaluate_dataset(
    *,
    task: str,
    data: Path,
    judge_name: str,
    mapping: list[str],
    judge_options: dict[str, Any],
    out: Path | None,
    limit: int | None,
    html: Path | None,
    json_output: bool,
    gates: dict[str, float],
    max_fallback: float | None,
    max_fallback_explicit: bool,
    settings: Any,
    cache: Any,
    concurrency: int | None,
    progress: bool,
    dry_run: bool = False,
) -> None:
    from ragjury.evals.gates import fallback_failure
    from ragjury.evals.pipeline import evaluate_dataset
    from ragjury.evals.registry import build_judge
    from ragjury.evals.report import agreement_table, confusion_table, correlation_text, metrics_table
    from ragjury.evals.tasks import load_dataset, parse_mapping, task_spec

    spec = task_spec(task)
    dataset = load_dataset(task, data, mapping=parse_mapping(mapping, task), limit=limit)
    rows = dataset.rows
    if (applied := dataset.input_mapping.describe()) is not None:
        stderr.print(escape(applied), highlight=False, soft_wrap=True)
    if dry_run:
        from ragjury.rag_agent.commands._dry_run import dry_run_batch

        dry_run_batch(
            command="evaluate",
            build=lambda: build_judge(task, judge_name, settings, **judge_options),
            items=[row.item for row in rows],
            cache=cache,
            json_output=json_output,
            title=f"dry run: {task} judged by {judge_name} on {data.name}",
            header={"task": task, "judge": judge_name, "inputs": paths(data=data)},
        )
        return
    judge = build_judge(task, judge_name, settings, **judge_options)
    result = run_sync(
        evaluate_dataset(
            task, rows, judge, cache=cache, concurrency=concurrency, progress=progress, judge_name=judge_name
        )
    )
    if out is not None:
        write_jsonl(out, [p.as_dict(spec.output_key) for p in result.predictions])
    summary = result.summary()
    figures = result.figures()
    sources = result.sources
    verdict_judges = ", ".join(sources.judges) or judge_name
    fallback_gate = fallback_failure(sources, max_fallback, explicit=max_fallback_explicit)
    fallback_failures = [fallback_gate] if fallback_gate else []

    html_report = None
    if html is not None:
        html_report = _dataset_report(
            task, spec.output_key, data, judge_name, judge, verdict_judges, len(rows), result
        )
    failures = _gate(gates, figures, html_report, html, fallback_failures)
    if json_output:
        summary["mode"] = "dataset"
        summary["inputs"] = paths(data=data)
        summary["input_mapping"] = dataset.input_mapping.as_dict()
        summary["outputs"] = paths(predictions=out, html=html)
        summary["gate_failures"] = failures
        print_json(summary, command="evaluate")
    else:
        stdout.print(_run_table(f"{task} judged by {verdict_judges} on {data.name}", result.stats.as_dict()))
        _verdict_lines({"": sources})
        if result.agreement is not None:
            stdout.print(agreement_table({"judge vs people": result.agreement}))
            stdout.print(confusion_table(result.agreement))
        if result.correlation:
            stdout.print(metrics_table({"judge vs people": result.correlation}, title="Score correlation"))
        if result.ranking is not None:
            per_system = {
                s: {"people": result.ranking.human[s], "judge": result.ranking.judge[s]}
                for s in result.ranking.human
            }
            stdout.print(metrics_table(per_system, title="Per-system mean label", row_header="system"))
            stdout.print(correlation_text(result.ranking.correlation), highlight=False)
        if not result.labelled:
            stdout.print("no gold labels in the data: agreement not computed", style="dim")
        if out is not None:
            stdout.print(f"predictions written to {out}", highlight=False)
    reasons = [p.judgment.unscored_reason for p in result.predictions if p.judgment.unscored]
    why = f"every judgment is unscored, e.g.: {reasons[0]}" if reasons else None
    _finish(failures, result.stats.scored, json_output, html, why_unscored=why)


def _dataset_report(
    task: str,
    output_key: str,
    data: Path,
    judge_name: str,
    judge: Any,
    verdict_judges: str,
    n_rows: int,
    result: Any,
) -> Any:
    """The HTML report of a dataset run, built from its predictions rows exactly as
    ``ragjury report PRED.jsonl`` builds it (so the two pages agree), plus what only the run
    knows: the data file, the judge asked for, its identity and the run's statistics."""
    from ragjury.evals.predictions import run_of_rows
    from ragjury.evals.report import describe_identity
    from ragjury.evals.run_report import build_report

    rows = [(number, p.as_dict(output_key)) for number, p in enumerate(result.predictions, start=1)]
    run = run_of_rows(rows, path=str(data), name=data.stem)
    report, figures = build_report([run], run_stats=result.stats.as_dict())
    report.title = f"ragjury evaluate: {task} judged by {verdict_judges}"
    report.meta = {
        "data": str(data),
        "task": task,
        "judge": judge_name,
        "verdicts by": result.sources.describe(),
        "identity": describe_identity(judge.identity),
        "rows": f"{n_rows:,}",
    }
    return report


def _evaluate_agent(
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
    json_output: bool,
    gates: dict[str, float],
    max_fallback: float | None,
    max_fallback_explicit: bool,
    settings: Any,
    cache: Any,
    concurrency: int | None,
    progress: bool,
) -> None:
    from ragjury.evals.gates import fallback_failure
    from ragjury.evals.pipeline import evaluate_rag_answers
    from ragjury.evals.registry import build_judge
    from ragjury.evals.report import HtmlReport
    from ragjury.evals.tasks import load_questions
    from ragjury.rag_agent.agent import RAGAgent

    questions = load_questions(data, limit=limit)
    agent = RAGAgent(corpus, model=agent_model, settings=settings, retrieval=retrieval, top_k=top_k)  # type: ignore[arg-type]
    scorer = build_judge("score", judge_name, settings)
    faithful = (
        None if faithfulness_judge == "none" else build_judge("faithfulness", faithfulness_judge, settings)
    )
    correct = None if correctness_judge == "none" else build_judge("correctness", correctness_judge, settings)
    evaluation = run_sync(
        evaluate_rag_answers(
            questions,
            agent,
            scorer,
            faithfulness_judge=faithful,
            correctness_judge=correct,
            cache=cache,
            concurrency=concurrency or settings.concurrency,
            progress=progress,
        )
    )
    if out is not None:
        write_jsonl(out, [row.as_dict() for row in evaluation.rows])
    summary = evaluation.summary()
    summary["agent"] = {**summary["agent"], "identity": agent.identity.key()}
    figures: dict[str, float | None] = {
        "answered": (evaluation.agent_stats.total - evaluation.agent_stats.errors)
        / max(1, evaluation.agent_stats.total)
    }
    for name in ("score", "faithfulness", "correctness"):
        if name in summary:
            figures[name] = summary[name]["mean"]
            total = summary[name]["n"]
            figures[f"{name}_coverage"] = summary[name]["scored"] / total if total else None
    scored = sum(
        summary[name]["scored"] for name in ("score", "faithfulness", "correctness") if name in summary
    )
    stages = {
        name: evaluation.sources(name)
        for name in ("score", "faithfulness", "correctness")
        if name in evaluation.judge_stats
    }
    fallback_failures = [
        failure
        for stage, sources in stages.items()
        if (failure := fallback_failure(sources, max_fallback, explicit=max_fallback_explicit, stage=stage))
    ]
    html_report = None
    if html is not None:
        distributions = {
            name: [_label(getattr(r, name)) for r in evaluation.rows if getattr(r, name) is not None]
            for name in ("score", "faithfulness", "correctness")
            if name in evaluation.judge_stats
        }
        notes = [
            note
            for stage, sources in stages.items()
            if (note := _fallback_note(stage, sources, [getattr(r, stage) for r in evaluation.rows]))
        ]
        html_report = HtmlReport(
            title="ragjury evaluate --agent",
            meta={
                "questions": str(data),
                "corpus": str(corpus),
                "agent": agent.identity.key(),
                **{f"{stage} verdicts by": sources.describe() for stage, sources in stages.items()},
            },
            notes=notes,
            distributions=distributions,
            tables={
                "Summary": {
                    k: {kk: vv for kk, vv in v.items() if isinstance(vv, int | float)}
                    for k, v in summary.items()
                    if isinstance(v, dict)
                }
            },
        )
    failures = _gate(gates, figures, html_report, html, fallback_failures)
    if json_output:
        summary["mode"] = "agent"
        summary["figures"] = figures
        summary["inputs"] = paths(data=data, corpus=corpus)
        summary["outputs"] = paths(answers=out, html=html)
        summary["gate_failures"] = failures
        print_json(summary, command="evaluate")
    else:
        stdout.print(_agent_table(summary, f"agent {agent.model_name} on {data.name}"))
        _verdict_lines(stages)
        if out is not None:
            stdout.print(f"answers and judgments written to {out}", highlight=False)
    errors = [row.answer.error for row in evaluation.rows if row.answer.error]
    if errors and not json_output:
        stderr.print(
            f"[yellow]the agent failed on {len(errors)} question(s)[/], e.g.: {escape(errors[0])}",
            highlight=False,
            soft_wrap=True,
        )
    answered = evaluation.agent_stats.total - evaluation.agent_stats.errors
    why = f"the agent answered no question ({errors[0]})" if errors and not answered else None
    _finish(failures, scored, json_output, html, why_unscored=why)


def _agent_table(summary: dict[str, Any], title: str) -> Table:
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


def _label(judgment: Any) -> Any:
    """The label of a judgment, None when unscored (histograms count those apart)."""
    from ragjury.evals.registry import label_of

    return label_of(judgment.value) if judgment.scored else None


@user_errors
def evaluate(
    data: Annotated[
        Path,
        typer.Option("--data", "-d", help="Dataset: JSONL, JSON array or CSV (or questions with --agent)."),
    ],
    task: Annotated[
        Task | None,
        typer.Option("--task", "-t", help="What the judge decides: correctness, faithfulness or score."),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            help="Judge name for the task. correctness: contains, llm, auto (llm, 'contains' fallback), "
            "token-overlap, semantic; faithfulness: llm (statements), llm-attribution (one verdict, "
            "P(supported) from one token), support (no model), token-overlap; score: auto, llm, "
            "deterministic; any task: panel:A,B,C (majority), panel-mean:A,B,C (mean probability), "
            "python:module:Factory. Default: correctness auto, faithfulness llm, score auto.",
        ),
    ] = None,
    mapping: Annotated[
        list[str] | None,
        typer.Option("--map", help="field=column when the data names a field differently (repeatable)."),
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write predictions JSONL here.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="Only the first N rows.")] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Write a self-contained HTML report here.")
    ] = None,
    json_output: JsonOption = False,
    fail_under: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-under", help="METRIC=VALUE gate, e.g. kappa=0.5 or tau=0.8 (repeatable); exit 1 below."
        ),
    ] = None,
    max_fallback: MaxFallbackOption = None,
    cache_path: CacheOption = None,
    no_cache: NoCacheOption = False,
    no_retry_unscored: NoRetryUnscoredOption = False,
    concurrency: ConcurrencyOption = None,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    no_progress: NoProgressOption = False,
    agent: Annotated[
        bool,
        typer.Option("--agent", help="Run the reference RAG agent over the questions in --data, then judge."),
    ] = False,
    corpus: Annotated[
        Path | None,
        typer.Option("--corpus", "-c", help="With --agent: passages JSONL {docid, text} to retrieve from."),
    ] = None,
    agent_model: Annotated[
        str | None,
        typer.Option("--agent-model", help="With --agent: agent model (default: $RAGJURY_AGENT_MODEL)."),
    ] = None,
    retrieval: Annotated[
        str,
        typer.Option("--retrieval", help="With --agent: 'tool' (model calls search) or 'pre' (any model)."),
    ] = "tool",
    top_k: Annotated[
        int, typer.Option("--top-k", "-k", min=1, help="With --agent: passages per search.")
    ] = 5,
    faithfulness_judge: Annotated[
        str, typer.Option("--faithfulness-judge", help="With --agent: llm, token-overlap or none.")
    ] = "llm",
    correctness_judge: Annotated[
        str,
        typer.Option(
            "--correctness-judge",
            help="With --agent: judge answers against the questions' references "
            "(contains, llm, auto, ...) or none.",
        ),
    ] = "none",
    calibration: CalibrationOption = None,
    dry_run: DryRunOption = False,
    trace: TraceOption = False,
) -> None:
    """Batch-judge a dataset and, when it has human labels, measure agreement with people.

    Every judgment is written to the SQLite cache as it completes, so a run that is killed
    (Ctrl-C, crash, power) resumes where it stopped when the same command is run again, with
    nothing judged twice. Cached unscored judgments are retried on re-run (a server that was down
    must not freeze "unscored" forever); --no-retry-unscored keeps them.

    Datasets: JSONL, a JSON array or CSV (list cells as JSON arrays), one row per item. Ragas
    (user_input, response, retrieved_contexts, reference) and DeepEval (input, actual_output,
    retrieval_context, expected_output) column names are detected, and the mapping applied is
    printed on stderr (--json: input_mapping). correctness reads question, answer, references (or
    reference); faithfulness reads answer and contexts (or context); score reads question, answer
    and optional sources. An id, a system and a gold label (label) are optional; with labels the
    summary adds accuracy, Cohen's kappa and, per system, Kendall's tau between the system ranking
    by people and by the judge. --map field=column renames (e.g. --map answer=response).

    Predictions JSONL: id, system, label (score for --task score), gold, the value's details and
    the envelope (judge, model, prompt_version, unscored, unscored_reason, usage, ...).

    Examples:

      ragjury evaluate --task correctness --judge contains --data correctness.jsonl --out preds.jsonl

      ragjury evaluate --task faithfulness --judge llm --data faithfulness.jsonl --limit 200
        --html report.html --fail-under kappa=0.4

      ragjury evaluate --agent --corpus passages.jsonl --data topics.jsonl --limit 5
        --retrieval pre --out answers.jsonl

    --agent: the questions file is {id?, question} or topics {qid, query} (optional references);
    each answer is scored by --judge (auto, llm, deterministic) and checked for faithfulness
    against the passages the agent retrieved. Answers are cached too (key: agent model, prompt,
    retrieval, corpus and question), so a resumed run does not ask the agent again.

    Gate figures (--fail-under): coverage, accuracy, cohen_kappa (kappa), krippendorff_alpha,
    precision, recall, f1, kendall_tau (tau), mean_label; score task: pearson, spearman;
    --agent: answered, score, faithfulness, correctness (means) and their *_coverage.

    Test or custom judges plug in as --judge python:package.module:Factory (called with
    settings=..., must follow the Judge protocol).

    Fallback (--judge auto, or any judge built on FallbackJudge): the summary, --json (judges,
    fallback) and the HTML report name the judges that actually produced the verdicts, e.g.
    "answer_correctness (model M) for 81.5 %, contains as fallback for 18.5 %". With a
    --fail-under gate, any verdict from the fallback fails the run (exit 1) unless --max-fallback
    allows its share: a gate passed by the deterministic fallback says nothing about the model.

    Exit codes: 0 done, 1 a --fail-under gate (or --max-fallback) failed, 2 bad input, 3 nothing
    could be scored, 130 interrupted (completed judgments are kept in the cache).
    """
    from ragjury.evals.cache import open_cache
    from ragjury.evals.gates import max_fallback_limit
    from ragjury.evals.registry import UnknownJudgeError, judge_entry
    from ragjury.evals.report import parse_gates
    from ragjury.evals.runner import interrupted_message

    gates = parse_gates(fail_under or [])
    fallback_limit = max_fallback_limit(max_fallback, gated=bool(gates))
    settings = settings_for(model, base_url)
    if agent:
        if corpus is None:
            raise fail("--agent needs --corpus passages.jsonl to retrieve from")
        if task not in (None, Task.score):
            raise fail("--agent judges answers with a score judge: leave out --task (or use --task score)")
        if retrieval not in ("tool", "pre"):
            raise fail(f"--retrieval must be tool or pre, got {retrieval!r}")
        if mapping:
            raise fail("--map applies to datasets, not to --agent question files")
        if dry_run:
            raise fail(
                "--dry-run applies to dataset evaluation (--task): with --agent the judges' prompts "
                "hold answers the agent has not written yet"
            )
        judge_name = judge or "auto"
        checks = [
            ("score", judge_name),
            ("faithfulness", faithfulness_judge),
            ("correctness", correctness_judge),
        ]
    else:
        if task is None:
            raise fail("give --task correctness|faithfulness|score (or --agent with --corpus)")
        judge_name = judge or DEFAULT_JUDGES[task.value]
        checks = [(task.value, judge_name)]
    for check_task, name in checks:
        if name == "none" and check_task != "score":
            continue
        try:
            judge_entry(check_task, name)
        except UnknownJudgeError as error:
            raise fail(str(error)) from None
    _check_before_judging(
        gates,
        task=task,
        agent=agent,
        faithfulness_judge=faithfulness_judge,
        correctness_judge=correctness_judge,
        paths={
            "--out": out,
            "--html": html,
            "--data": data,
            "--corpus": corpus if agent else None,
            "--calibration": calibration,
        },
    )

    if calibration is not None and agent:
        raise fail("--calibration applies to dataset evaluation (--task), not to --agent")
    judge_options = calibration_options(calibration, task.value, judge_name, settings.judge_model) if task is not None else {}
    cache = open_cache(
        cache_path or settings.cache_path, enabled=not no_cache, retry_unscored=not no_retry_unscored
    )
    common = dict(
        out=out,
        limit=limit,
        html=html,
        json_output=json_output,
        gates=gates,
        max_fallback=fallback_limit,
        max_fallback_explicit=max_fallback is not None,
        settings=settings,
        cache=cache,
        concurrency=concurrency,
        progress=not no_progress,
    )
    trace_session = None if dry_run else start_trace(trace, settings)
    try:
        if agent:
            assert corpus is not None
            _evaluate_agent(
                data=data,
                corpus=corpus,
                judge_name=judge_name,
                faithfulness_judge=faithfulness_judge,
                correctness_judge=correctness_judge,
                agent_model=agent_model,
                retrieval=retrieval,
                top_k=top_k,
                **common,
            )  # type: ignore[arg-type]
        else:
            assert task is not None
            _evaluate_dataset(
                task=task.value,
                data=data,
                judge_name=judge_name,
                mapping=mapping or [],
                judge_options=judge_options,
                dry_run=dry_run,
                **common,
            )  # type: ignore[arg-type]
    except KeyboardInterrupt:
        stderr.print(interrupted_message(cache), highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except UnknownJudgeError as error:
        raise fail(str(error)) from None
    finally:
        if cache is not None:
            cache.close()
        end_trace(trace_session)


def register(app: typer.Typer) -> None:
    app.command("evaluate")(evaluate)
