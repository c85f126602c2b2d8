"""``ragjury fit``: a judge head fitted on your own labels, measured beside its base judge.

Why a command: the labels a user gives ``estimate`` can also make the judge better. The head is
written with its cross-validated figures and the base judge's on the same items, so the choice
to use it (``--judge fitted:HEAD``) is made on numbers, and a head that does not help says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ragjury.commands._common import PANEL_INPUT, PANEL_OUTPUT, JsonOption, fail, print_json, stderr, stdout, user_errors
from ragjury.evals.io.json_contract import paths


def _kappa_text(figures: dict[str, Any] | None) -> str:
    if figures is None or figures.get("kappa") is None:
        return "kappa —"
    low, high = figures["kappa_interval"] or (float("nan"), float("nan"))
    auc = f", AUC {figures['auc']:.3f}" if figures.get("auc") is not None else ""
    return f"kappa {figures['kappa']:.3f} [{low:.3f}, {high:.3f}]{auc}"


@user_errors
def fit(
    task: Annotated[
        str, typer.Option("--task", "-t", help="correctness or faithfulness.", rich_help_panel=PANEL_INPUT)
    ],
    data: Annotated[
        Path,
        typer.Option("--data", "-d", help="Your labelled items: a JSONL dataset with a label per row (the "
                     "rows `estimate` asked you to label will do).", rich_help_panel=PANEL_INPUT),
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Where to write the head (JSON).", rich_help_panel=PANEL_OUTPUT)
    ],
    limit: Annotated[
        int | None,
        typer.Option("--limit", "-n", min=20, help="Use a seeded sample of N labelled items.", rich_help_panel=PANEL_INPUT),
    ] = None,
    folds: Annotated[int, typer.Option("--folds", min=2, max=20, help="Cross-validation folds.")] = 5,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the sample and of the folds.")] = 0,
    json_output: JsonOption = False,
) -> None:
    """Fit a judge head on labelled items: a logistic model over model-free signals.

    The head reads what every item already has (containment, reference recall and precision and
    length for correctness; support's signals for faithfulness), with its strength and cut-off
    chosen by cross-validation. It is reported two ways beside the base judge (contains,
    support) on the same items: random folds (the head judging the rest of your labelled pool)
    and folds by question (the head judging new questions). Apply it with --judge fitted:HEAD
    on `evaluate` and `verdict`; with `estimate`, label items the head was not fitted on.

    Examples:

      ragjury fit --task correctness --data examples/data/correctness.jsonl --out out/head.json

      ragjury evaluate --task correctness --judge fitted:out/head.json --data answers.jsonl

    Exit codes: 0 written, 2 bad input (or too few labels of a class).
    """
    from ragjury.evals.io.atomic_io import check_output_paths
    from ragjury.evals.pipelines.calibration_data import calibration_items
    from ragjury.evals.pipelines.fit_run import fit_head, write_head

    if task not in ("correctness", "faithfulness"):
        raise fail(f"--task must be correctness or faithfulness, got '{task}' (relevance needs model "
                   "features, which fit does not read yet)")
    check_output_paths([("--out", out)], [("--data", data)])
    try:
        items, gold = calibration_items(task, data, limit=limit, seed=seed)
        report = fit_head(task, items, [bool(g) for g in gold], fitted_on=str(data), folds=folds, seed=seed)
    except ValueError as error:
        raise fail(f"{data}: {error}" if str(data) not in str(error) else str(error)) from None
    write_head(report.head, out)
    head, figures = report.head, report.head.figures
    if json_output:
        print_json({
            "task": task, "n": head.n, "positives": head.positives, "skipped": report.skipped,
            "threshold": head.threshold, "l2": head.l2, "features": list(head.features),
            "head_random": figures["head_random"], "head_by_question": figures["head_by_question"],
            "base": figures["base"], "beats_base": report.beats_base,
            "inputs": paths(data=data), "outputs": paths(head=out),
        }, command="fit")
        return
    gain = (figures["head_random"]["kappa"] or 0.0) - (figures["base"]["kappa"] or 0.0)
    verdict = (f"beats {figures['base']['judge']} by {gain:+.3f} kappa" if report.beats_base
               else f"does NOT beat {figures['base']['judge']} ({gain:+.3f} kappa): keep the base judge")
    stdout.print(f"[bold]{task}[/] head on {head.n} labelled items ({head.positives} yes): {verdict}",
                 highlight=False)
    stdout.print(f"{folds}-fold cross-validated; random folds = judging the rest of this pool, "
                 "by question = judging new questions", highlight=False, markup=False)
    for label, key in (("head, random folds", "head_random"), ("head, by question", "head_by_question"),
                       (f"{figures['base']['judge']} (base judge)", "base")):
        stdout.print(f"  {label:<24} {_kappa_text(figures[key])}", highlight=False, markup=False)
    if report.skipped:
        stderr.print(f"{report.skipped} items had no signals and were left out (first: {report.first_reason})",
                     highlight=False, markup=False)
    stderr.print(f"written {out}: use it with --judge fitted:{out}", highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    app.command("fit")(fit)


__all__ = ["fit", "register"]
