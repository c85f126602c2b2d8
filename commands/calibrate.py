"""``ragjury calibrate``: fit a judge's cut-offs on labelled dev data, report them cross-validated.

Why a command: the threshold at which a small judge model agrees best with people depends on the
model, the prompt and the kind of data. Fitting it is a deliberate step on *dev* data, written to a
file that later runs load with ``--calibration F``; nothing is ever fitted on the data being scored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ragjury.evals.io.json_contract import paths
from ragjury.commands._common import (
    EXIT_UNSCORED,
    PEOPLE_LABELS,
    MODEL_CONNECTION,
    PANEL_INPUT,
    PANEL_MODEL,
    PANEL_OUTPUT,
    RelevancePassagesOption,
    RelevanceTopicsOption,
    RunOptions,
    end_trace,
    fail,
    print_json,
    settings_for,
    start_trace,
    stderr,
    stdout,
    user_errors,
)
from ragjury.commands._options import OptionSet
from ragjury.rag_agent.core.sync import run_sync

CALIBRATE_RUN = OptionSet.of(RunOptions, leave_out=["no_retry_unscored"])
"""The run options but --no-retry-unscored (calibrate retries cached unscored judgments always)."""

DEFAULT_JUDGES = {"relevance": "llm-graded", "correctness": "llm-guarded", "faithfulness": "llm-attribution"}


@user_errors
@MODEL_CONNECTION
@CALIBRATE_RUN
@PEOPLE_LABELS.after("passages")
def calibrate(
    task: Annotated[
        str, typer.Option("--task", "-t", help="relevance, correctness or faithfulness.", rich_help_panel=PANEL_INPUT)
    ],
    data: Annotated[
        Path,
        typer.Option("--data", "-d", help="Labelled dev data: a JSONL dataset with labels (correctness, "
                     "faithfulness) or gold TREC qrels (relevance, with --topics and --passages).",
                     rich_help_panel=PANEL_INPUT),
    ],
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="Where to write the calibration file (JSON).", rich_help_panel=PANEL_OUTPUT),
    ],
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            help="Judge to calibrate (default: llm-graded, llm-guarded, llm-attribution by task; "
            "support fits the model-free faithfulness judge's cut-off).",
            rich_help_panel=PANEL_MODEL,
        ),
    ] = None,
    topics: RelevanceTopicsOption = None,
    passages: RelevancePassagesOption = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit", "-n", min=10, help="Use a seeded sample of N labelled items.", rich_help_panel=PANEL_INPUT
        ),
    ] = None,
    folds: Annotated[int, typer.Option("--folds", min=2, max=20, help="Cross-validation folds.")] = 5,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the sample and of the folds.")] = 0,
    **options: Any,
) -> None:
    """Fit the threshold (and a monotone map) at which a judge agrees best with people.

    The judge reads its verdict from one token's probabilities (the logprob path), so each item has
    P(1) — or for graded relevance an expected grade. This command judges the labelled dev data,
    fits the cut-off that maximises Cohen's kappa, and reports it k-fold cross-validated (each fold
    labelled by a cut-off fitted on the others), with a 95 % bootstrap interval, next to the
    uncalibrated kappa and the expected calibration error (ECE) of the probabilities before and
    after an isotonic map. The file it writes is applied with --calibration F on `evaluate` and
    `relevance`; use it on data other than the data it was fitted on.

    Examples:

      ragjury calibrate --task correctness --data dev.jsonl --base-url http://127.0.0.1:8080/v1
        --out correctness.calibration.json

      ragjury calibrate --task relevance --data qrels.txt --topics topics.jsonl --passages passages.jsonl
        --limit 300 --base-url http://127.0.0.1:8080/v1 --out relevance.calibration.json

    Exit codes: 0 written, 2 bad input (or too few usable judgments), 3 nothing scored.
    """
    from ragjury.evals.runs.runner import run_judgments
    from ragjury.evals.stats.calibration import fit_calibration, logprob_options
    from ragjury.rag_agent.core.judge_spec import parse
    from ragjury.rag_agent.judges.catalogue import UnknownJudgeError, build_judge, one_token_path

    if task not in DEFAULT_JUDGES:
        raise fail(f"--task must be one of {', '.join(DEFAULT_JUDGES)}, got '{task}'")
    judge_name = judge or DEFAULT_JUDGES[task]
    settings = settings_for(**MODEL_CONNECTION.pick(options))
    run = RunOptions.gather(options)
    from ragjury.evals.io.atomic_io import check_output_paths

    cache_file = run.cache_file(settings)
    labels = options["labels"]  # people's labels (PEOPLE_LABELS), read once by calibration_items
    check_output_paths([("--out", out)], [("--data", data), ("--labels", labels), ("--topics", topics), ("--passages", passages),
                                          ("--cache", cache_file)])
    from ragjury.evals.pipelines.calibration_data import calibration_items

    try:
        items, gold = calibration_items(task, data, topics=topics, passages=passages, limit=limit, seed=seed,
                                        labels=labels, allow_shown_judge=options["allow_shown_judge"])
    except ValueError as error:
        raise fail(str(error)) from None
    if len(items) < 2 * folds:
        raise fail(f"{data}: {len(items)} labelled items, too few for {folds}-fold cross-validation")
    judge_spec = parse(judge_name)  # the one parse of --judge in this run
    judge_opts = logprob_options(one_token_path=one_token_path(task, judge_spec))
    try:
        judge_obj = build_judge(task, judge_spec, settings, **judge_opts)
    except UnknownJudgeError as error:
        raise fail(str(error)) from None
    except TypeError:
        raise fail(f"judge '{judge_name}' has no logprob path to calibrate; "
                   "calibrate llm-graded or llm (relevance), llm (correctness), llm-attribution or support "
                   "(faithfulness)") from None
    cache = run.open_cache(settings)
    if run.dry_run:
        from ragjury.commands._dry_run import dry_run_batch

        try:
            dry_run_batch(
                command="calibrate",
                build=lambda: build_judge(task, judge_spec, settings, **judge_opts),
                items=items,
                cache=cache,
                json_output=run.json_output,
                title=f"dry run: calibrate {task} with {judge_name} on {len(items):,} items",
                header={
                    "task": task,
                    "judge": judge_name,
                    "inputs": paths(data=data, topics=topics, passages=passages),
                },
            )
        finally:
            if cache is not None:
                cache.close()
        return
    trace_session = start_trace(run.trace, settings)
    try:
        result = run_sync(run_judgments(judge_obj, items, cache=cache, concurrency=run.concurrency,
                                        progress=run.progress, description=f"calibrate {task}"))
    finally:
        if cache is not None:
            cache.close()
        end_trace(trace_session)
    if result.stats.scored == 0:
        first = next((j.unscored_reason for j in result.judgments if j.unscored), "unknown")
        raise fail(f"nothing was scored ({len(items)} items); first reason: {first}", EXIT_UNSCORED)
    identity = judge_obj.identity
    try:
        calibration = fit_calibration(
            task, judge_name, identity.name, identity.model, identity.prompt_version,  # type: ignore[arg-type]
            [j.value for j in result.judgments], gold, data=str(data), folds=folds, seed=seed,
        )
    except ValueError as error:
        raise fail(str(error)) from None
    calibration.write(out)
    figures = calibration.figures
    cv = figures.cross_validation
    summary = {
        "task": task, "judge": judge_name, "model": identity.model,
        "prompt_version": identity.prompt_version, **result.stats.as_dict(), "fitted": figures.n,
        "positives": figures.positives, "threshold": calibration.threshold, "cuts": calibration.cuts,
        "kappa_uncalibrated": figures.kappa_default, "kappa_in_sample": figures.kappa_in_sample,
        "kappa_cv": cv.kappa, "kappa_cv_interval": list(cv.kappa_interval), "accuracy_cv": cv.accuracy,
        "folds": cv.folds, "no_better_than_chance": figures.no_better_than_chance, "auc": figures.auc, "ece_before": figures.ece_before, "ece_after_cv": cv.ece_after,
        "inputs": paths(data=data, topics=topics, passages=passages), "outputs": paths(calibration=out),
    }
    if (chance := figures.chance_warning()) is not None:  # before the figures, in both modes
        stderr.print(chance, style="yellow", markup=False, highlight=False, soft_wrap=True)
    if run.json_output:
        print_json(summary, command="calibrate")
        return
    cut = (f"cuts {', '.join(f'{c:.2f}' for c in calibration.cuts)} on the expected grade"
           if calibration.cuts else f"threshold {calibration.threshold:.3f} on "
           + ("P(1)" if identity.model else "its score"))
    stdout.print(f"[bold]{task}[/] judge {judge_name} ({identity.model or 'no model'}, {identity.prompt_version})",
                 highlight=False)
    stdout.print(f"fitted {cut} on {figures.n} items ({figures.positives} positive, "
                 f"{result.stats.unscored} unscored left out)", highlight=False)
    stdout.print(f"kappa: uncalibrated {figures.kappa_default:.3f}; {cv.folds}-fold cross-validated "
                 f"{cv.kappa:.3f} [95% CI {cv.kappa_interval[0]:.3f}, {cv.kappa_interval[1]:.3f}], "
                 f"accuracy {cv.accuracy:.3f}; in-sample {figures.kappa_in_sample:.3f} (optimistic)", highlight=False)
    auc_text = f"AUC {figures.auc:.3f}; " if figures.auc is not None else ""
    after = f"{cv.ece_after:.3f}" if cv.ece_after is not None else "—"
    stdout.print(f"{auc_text}ECE {figures.ece_before:.3f} before, {after} after the isotonic map (cross-validated)",
                 highlight=False)
    stderr.print(f"written {out}: use it with --calibration {out}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("calibrate")(calibrate)


__all__ = ["calibrate", "register"]
