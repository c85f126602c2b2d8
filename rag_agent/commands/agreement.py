"""``ragjury agreement``: how far do a judge's labels agree with people's?

Two input modes, detected from the files: TREC qrels (gold vs judged relevance grades, with
optional runs to compare the system rankings both produce), or JSONL labels (gold rows vs
prediction rows joined on ``id``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragjury.evals.atomic_io import check_output_paths
from ragjury.evals.gates import LABEL_FIGURES, QRELS_FIGURES, check_gate_names
from ragjury.evals.loaders import RUN_SUFFIXES, LabelRow, Qrels, load_labels, load_qrels, load_runs
from ragjury.evals.report import (
    HtmlReport,
    agreement_table,
    confusion_table,
    correlation_text,
    failed_gates,
    fmt,
    metrics_table,
    parse_gates,
    write_html,
)
from ragjury.rag_agent.commands._common import (
    EXIT_BELOW_THRESHOLD,
    JsonOption,
    fail,
    print_json,
    stderr,
    stdout,
    user_errors,
)
from ragjury.rag_agent.inputs import InputError, read_text
from ragjury.rag_agent.json_contract import paths, ranking

if TYPE_CHECKING:  # annotations only: numpy and scipy load when the command runs, not on --help
    from ragjury.evals.agreement import AgreementFigures, RankCorrelation
    from ragjury.evals.intervals import Interval

JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")


def is_jsonl(path: Path) -> bool:
    """JSONL by extension, else by content: a first non-blank character ``{`` means JSON rows."""
    if path.suffix.lower() in JSONL_SUFFIXES:
        return True
    text = read_text(path)
    return text.lstrip().startswith("{")


def _run_inputs(runs: Path | None) -> list[tuple[str, Path | None]]:
    """``--runs`` as inputs to protect: the folder's run files (or the one file given)."""
    if runs is None or not runs.is_dir():
        return [("--runs", runs)]
    return [("--runs", path) for path in sorted(runs.iterdir()) if path.suffix in RUN_SUFFIXES]


def _restrict(qrels: Qrels, qids: set[str]) -> Qrels:
    return {qid: docs for qid, docs in qrels.items() if qid in qids}


def _qrels_mode(
    gold_path: Path, judged_path: Path, runs_dir: Path | None, rel: int, k: int
) -> tuple[dict[str, object], dict[str, float | None], HtmlReport]:
    from ragjury.evals.agreement import qrels_agreement, ranking_correlation
    from ragjury.evals.intervals import bootstrap_ranking_tau
    from ragjury.evals.metrics import evaluate_runs

    gold, judged = load_qrels(gold_path), load_qrels(judged_path)
    agreement = qrels_agreement(gold, judged, rel=rel)
    figures = agreement.figures()
    payload: dict[str, object] = {
        "mode": "qrels",
        **agreement.model_dump(mode="json", exclude={"binary", "graded"}),
        "agreement": agreement.binary.model_dump(mode="json"),
        "graded_agreement": agreement.graded.model_dump(mode="json"),
    }
    binary_name, graded_name = f"binary (grade >= {rel})", "graded"
    labels_by_pair = [
        (grade, judged.get(qid, {}).get(docid)) for qid, docs in gold.items() for docid, grade in docs.items()
    ]
    shared_pairs = [(g, j) for g, j in labels_by_pair if j is not None]
    report = HtmlReport(
        title="ragjury agreement: judged qrels vs gold qrels",
        meta={"gold": str(gold_path), "judged": str(judged_path), "relevant": f"grade >= {rel}"},
        figures={binary_name: agreement.binary, graded_name: agreement.graded},
        intervals=_qrels_intervals(labels_by_pair, rel, agreement.graded.labels, binary_name, graded_name),
        distributions={"gold": [g for g, _ in shared_pairs], "judge": [j for _, j in shared_pairs]},
        distribution_note=(
            f"Both sides count the same {len(shared_pairs):,} (query, passage) pairs, those with a gold "
            f"grade and a judged grade. Not shown: {agreement.n_gold - agreement.n_shared:,} of the "
            f"{agreement.n_gold:,} gold pairs, which the judge never labelled (not in its pool), and "
            f"{agreement.n_judged_only:,} judged pairs without a gold grade."
        ),
        axis_labels=(f"nDCG@{k}, gold qrels", f"nDCG@{k}, judged qrels"),
    )
    if runs_dir is not None:
        runs = load_runs(runs_dir)
        shared = set(gold) & set(judged)
        if not shared:
            raise InputError(judged_path, "no query in common with the gold qrels; cannot compare runs")
        measure = f"nDCG@{k}"
        under_gold = evaluate_runs(runs, _restrict(gold, shared), ks=(k,), measures=("nDCG",))
        under_judged = evaluate_runs(runs, _restrict(judged, shared), ks=(k,), measures=("nDCG",))
        gold_scores = {name: evaluation.mean[measure] for name, evaluation in under_gold.items()}
        judged_scores = {name: evaluation.mean[measure] for name, evaluation in under_judged.items()}
        correlation = ranking_correlation(gold_scores, judged_scores)
        payload["ranking"] = ranking(measure, gold_scores, judged_scores, correlation, k=k, queries=len(shared))
        figures.update({"kendall_tau": correlation.kendall_tau, "spearman": correlation.spearman})
        report.systems = {name: (gold_scores[name], judged_scores[name]) for name in runs}
        report.correlation = correlation
        report.tau_interval = bootstrap_ranking_tau(
            {name: {q: v[measure] for q, v in e.per_query.items()} for name, e in under_gold.items()},
            {name: {q: v[measure] for q, v in e.per_query.items()} for name, e in under_judged.items()},
        )
        report.tables = {
            f"{measure} per run ({len(shared)} queries)": _run_rows(gold_scores, judged_scores, measure)
        }
    return payload, figures, report


def _qrels_intervals(
    labels_by_pair: list[tuple[int, int | None]], rel: int, grades: list[int], binary_name: str, graded_name: str
) -> dict[str, dict[str, Interval | None]]:
    """Bootstrap 95 % intervals of the binary and graded figures, gold pairs resampled (a pair
    the judge never labelled stays unscored on every draw, as in the figures)."""
    from ragjury.evals.intervals import bootstrap_agreement

    gold = [g for g, _ in labels_by_pair]
    judged = [j for _, j in labels_by_pair]
    return {
        binary_name: dict(
            bootstrap_agreement(
                [g >= rel for g in gold], [None if j is None else j >= rel for j in judged], labels=[False, True]
            )
        ),
        graded_name: dict(bootstrap_agreement(gold, judged, labels=grades, ordinal=True)),
    }


def _ranks(scores: dict[str, float]) -> dict[str, int]:
    ordered = sorted(scores, key=lambda name: scores[name], reverse=True)
    return {name: position for position, name in enumerate(ordered, start=1)}


def _run_rows(gold: dict[str, float], judged: dict[str, float], measure: str) -> dict[str, dict[str, object]]:
    gold_rank, judged_rank = _ranks(gold), _ranks(judged)
    return {
        name: {
            f"{measure} gold": gold[name],
            f"{measure} judged": judged[name],
            "rank gold": gold_rank[name],
            "rank judged": judged_rank[name],
        }
        for name in sorted(gold, key=lambda n: gold_rank[n])
    }


def _system_scores(
    gold: dict[str, LabelRow], predicted: dict[str, LabelRow]
) -> tuple[dict[str, float], dict[str, float]]:
    """Mean gold label per system over all its rows; mean predicted label over its scored rows."""
    gold_sums: dict[str, list[float]] = {}
    judged_sums: dict[str, list[float]] = {}
    for key, row in gold.items():
        prediction = predicted.get(key)
        system = row.system or (prediction.system if prediction else None)
        if system is None:
            continue
        gold_sums.setdefault(system, []).append(float(row.label))  # type: ignore[arg-type]
        if prediction is not None and prediction.label is not None:
            judged_sums.setdefault(system, []).append(float(prediction.label))
    gold_means = {name: sum(v) / len(v) for name, v in gold_sums.items()}
    judged_means = {name: sum(v) / len(v) for name, v in judged_sums.items()}
    return gold_means, judged_means


def _jsonl_mode(
    gold_path: Path, judged_path: Path
) -> tuple[dict[str, object], AgreementFigures, RankCorrelation | None, HtmlReport]:
    from ragjury.evals.agreement import label_agreement, ranking_correlation
    from ragjury.evals.intervals import bootstrap_agreement

    gold = load_labels(gold_path)
    predicted = load_labels(judged_path, allow_unscored=True)
    keys = list(gold)
    gold_labels = [gold[key].label for key in keys]
    predicted_labels = [predicted[key].label if key in predicted else None for key in keys]
    graded = any(not isinstance(label, bool) and label not in (0, 1) for label in gold_labels)
    binary_labels = None if graded else [False, True]
    figures = label_agreement(gold_labels, predicted_labels, labels=binary_labels, ordinal=graded)  # type: ignore[arg-type]
    payload: dict[str, object] = {
        "mode": "jsonl",
        "n_missing_predictions": sum(1 for key in keys if key not in predicted),
        "n_predictions_without_gold": sum(1 for key in predicted if key not in gold),
        "agreement": figures.model_dump(mode="json"),
    }
    gold_scores, judged_scores = _system_scores(gold, predicted)
    correlation = ranking_correlation(gold_scores, judged_scores) if gold_scores else None
    systems = [gold[key].system or (predicted[key].system if key in predicted else None) for key in keys]
    intervals = bootstrap_agreement(
        gold_labels,  # type: ignore[arg-type]
        predicted_labels,  # type: ignore[arg-type]
        labels=figures.labels,
        ordinal=graded,
        systems=systems if any(s is not None for s in systems) else None,
    )
    both = [(g, p) for g, p in zip(gold_labels, predicted_labels, strict=True) if p is not None]
    missing = payload["n_missing_predictions"]
    report = HtmlReport(
        title="ragjury agreement: predictions vs gold labels",
        meta={"gold": str(gold_path), "judged": str(judged_path)},
        figures={"labels": figures},
        intervals={"labels": {k: v for k, v in intervals.items() if k != "kendall_tau"}},
        distributions={"gold": [g for g, _ in both], "judge": [p for _, p in both]},  # type: ignore[dict-item]
        distribution_note=(
            f"Both sides count the same {len(both):,} items, those with a gold label and a scored "
            f"prediction. Not shown: {len(keys) - len(both) - missing:,} unscored prediction(s), "  # type: ignore[operator]
            f"{missing:,} gold item(s) without a prediction and "
            f"{payload['n_predictions_without_gold']:,} prediction(s) without a gold label."
        ),
        axis_labels=("mean gold label", "mean judge label"),
    )
    report.tau_interval = intervals.get("kendall_tau")
    if correlation is not None:
        payload["ranking"] = ranking("mean label", gold_scores, judged_scores, correlation)
        shared = [name for name in gold_scores if name in judged_scores]
        report.systems = {name: (gold_scores[name], judged_scores[name]) for name in shared}
        report.correlation = correlation
        report.tables = {
            "system scores (mean label)": _run_rows(
                {n: gold_scores[n] for n in shared}, {n: judged_scores[n] for n in shared}, "mean label"
            )
        }
    return payload, figures, correlation, report


@user_errors
def agreement(
    gold: Annotated[
        Path,
        typer.Option("--gold", help="Gold labels: TREC qrels (qid 0 docid grade) or JSONL rows {id, label}."),
    ],
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
            "Names: accuracy, kappa (cohen_kappa), qwk (quadratic_kappa), alpha (krippendorff_alpha), "
            "coverage, tau (kendall_tau), spearman, graded_cohen_kappa, ...",
        ),
    ] = None,
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
    gates = parse_gates(fail_under or [])
    gold_jsonl, judged_jsonl = is_jsonl(gold), is_jsonl(judged)
    if gold_jsonl != judged_jsonl:
        kinds = {True: "JSONL", False: "TREC qrels"}
        raise fail(
            f"--gold is {kinds[gold_jsonl]} but --judged is {kinds[judged_jsonl]}; "
            "give two qrels or two JSONL files"
        )
    check_gate_names(gates, LABEL_FIGURES if gold_jsonl else QRELS_FIGURES)
    check_output_paths([("--html", html)], [("--gold", gold), ("--judged", judged), *_run_inputs(runs)])
    correlation: RankCorrelation | None
    if gold_jsonl:
        if runs is not None:
            raise fail("--runs applies to qrels mode only (JSONL rows rank systems by their 'system' field)")
        payload, label_figures, correlation, report = _jsonl_mode(gold, judged)
        figures = label_figures.figures()
        if correlation is not None:
            figures.update({"kendall_tau": correlation.kendall_tau, "spearman": correlation.spearman})
    else:
        payload, figures, report = _qrels_mode(gold, judged, runs, rel, k)
        correlation = report.correlation
    failures = failed_gates(figures, gates)
    payload["figures"] = figures
    payload["inputs"] = paths(gold=gold, judged=judged, runs=runs)
    payload["outputs"] = paths(html=html)
    payload["gate_failures"] = failures
    report.gate_failures = failures
    if html is not None:
        write_html(html, report)
    if json_output:
        print_json(payload, command="agreement")
    else:
        _print_human(payload, report, correlation)
        if html is not None:
            stdout.print(f"HTML report: {html}", highlight=False)
    if failures:
        for failure in failures:
            stderr.print(f"[bold red]gate failed:[/] {failure}", highlight=False)
        raise typer.Exit(EXIT_BELOW_THRESHOLD)


def _print_human(payload: dict[str, object], report: HtmlReport, correlation: RankCorrelation | None) -> None:
    inputs: dict[str, str] = payload["inputs"]  # type: ignore[assignment]
    if payload["mode"] == "qrels":
        stdout.print(
            f"gold {inputs['gold']}: {payload['n_gold']} pairs   judged {inputs['judged']}: "
            f"{payload['n_judged']} pairs   shared {payload['n_shared']} "
            f"(ignored {payload['n_judged_only']} judged pairs without gold)",
            highlight=False,
        )
    else:
        stdout.print(
            f"gold {inputs['gold']}   judged {inputs['judged']}   missing predictions "
            f"{payload['n_missing_predictions']}   predictions without gold "
            f"{payload['n_predictions_without_gold']}",
            highlight=False,
        )
    stdout.print(agreement_table(dict(report.figures)))
    for name, figures in report.figures.items():
        stdout.print(confusion_table(figures, title=f"Confusion, {name} (rows: gold, columns: judge)"))
    for title, rows in report.tables.items():
        stdout.print(metrics_table(rows, title=title, row_header="system"))
    if correlation is not None:
        stdout.print(correlation_text(correlation), highlight=False)
    summary = "  ".join(f"{name}={fmt(value)}" for name, value in (payload.get("figures") or {}).items())  # type: ignore[union-attr]
    stdout.print(summary, highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("agreement")(agreement)
