"""``ragjury agreement``: how far do a judge's labels agree with people's?

Two input modes, detected from the files: TREC qrels (gold vs judged relevance grades, with
optional runs to compare the system rankings both produce), or JSONL labels (gold rows vs
prediction rows joined on ``id``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ragjury.commands._common import (
    EXIT_BELOW_THRESHOLD,
    PEOPLE_LABELS,
    JsonOption,
    fail,
    print_json,
    stderr,
    stdout,
    user_errors,
)


@user_errors
@PEOPLE_LABELS.after("gold")
def agreement(
    *,
    gold: Annotated[
        Path | None,
        typer.Option("--gold", help="The same as --labels (its older name): people's labels, or gold TREC qrels "
                     "(qid 0 docid grade)."),
    ] = None,
    judged: Annotated[
        Path,
        typer.Option(
            "--judged", help="The judge's labels: TREC qrels, or JSONL {id, label} (label null = unscored)."
        ),
    ],
    runs: Annotated[
        Path | None,
        typer.Option(
            "--runs", help="Folder of TREC runs (*.trec): compare nDCG@k system rankings under both qrels."
        ),
    ] = None,
    judged_rel: Annotated[
        int | None,
        typer.Option("--judged-rel", help="Qrels mode: a judged pair is relevant from this grade (default: "
                     "--rel, or 1 when the judged qrels hold only 0/1 grades, as a binary judge writes them)."),
    ] = None,
    rel: Annotated[
        int, typer.Option("--rel", help="Qrels mode: relevant means grade >= REL (binary figures).")
    ] = 2,
    k: Annotated[int, typer.Option("--k", min=1, help="Cutoff of the nDCG used to rank runs.")] = 10,
    json_output: JsonOption = False,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write a self-contained HTML report to this file.")
    ] = None,
    fail_under: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-under",
            help="CI gate METRIC=VALUE, repeatable: exit 1 if the figure is lower or undefined. "
            "Names: accuracy, kappa (cohen_kappa), qwk (quadratic_kappa), alpha (krippendorff_alpha, graded), binary_alpha (binary_krippendorff_alpha), "
            "coverage, tau (kendall_tau), spearman, graded_cohen_kappa, ...",
        ),
    ] = None,
    **options: Any,
) -> None:
    """Measure agreement between a judge and people, on the items both labelled.

    Qrels mode (TREC qrels for both): accuracy and Cohen's kappa on binary relevance
    (grade >= --rel) and on the grades, quadratic-weighted kappa, Krippendorff's alpha (ordinal),
    the confusion matrix and coverage (gold pairs the judge labelled). With --runs, nDCG@k of
    every run under both qrels and Kendall tau / Spearman between the two system rankings.

    JSONL mode (files ending .jsonl, or whose rows are JSON objects): gold rows {id, label,
    system?} and prediction rows {id, label} joined on id; a null label (or "unscored": true),
    or a missing prediction, is unscored: it lowers coverage and is never counted as wrong.
    When rows carry a system, systems are ranked by mean label and the rankings correlated.

    Examples:

      ragjury agreement --gold qrels.txt --judged judged.qrels --runs runs/ --rel 2

      ragjury agreement --gold data.jsonl --judged predictions.jsonl --json

      ragjury agreement --gold qrels.txt --judged judged.qrels --html report.html --fail-under kappa=0.4

    Exit codes: 0 ok, 1 a --fail-under gate failed, 2 bad input.
    """
    from ragjury.evals.pipelines.agreement_run import AgreementOptionError, run_agreement
    from ragjury.evals.results.gates import parse_gates

    labels = options["labels"]
    if labels is not None and gold is not None:
        raise fail("--gold is the older name of --labels: give one of them")
    labels = labels if labels is not None else gold
    if labels is None:
        raise fail("give people's labels: --labels FILE (a labels file, JSONL/CSV rows {id, label}, or TREC qrels)")
    gates = parse_gates(fail_under or [])
    try:
        result = run_agreement(labels, judged, runs=runs, rel=rel, k=k, gates=gates, html=html, judged_rel=judged_rel,
                               allow_shown_judge=options["allow_shown_judge"])
    except AgreementOptionError as error:
        raise fail(str(error)) from None
    if json_output:
        print_json(result.payload(), command="agreement")
    else:
        result.render(stdout)
        if result.html is not None:
            stdout.print(f"HTML report: {result.html}", highlight=False)
    if result.gate_failures:
        for failure in result.gate_failures:
            stderr.print(f"[bold red]gate failed:[/] {failure}", highlight=False)
        raise typer.Exit(EXIT_BELOW_THRESHOLD)


def register(app: typer.Typer) -> None:
    app.command("agreement")(agreement)


__all__ = ["agreement", "register"]
