"""A judge against people, from files: the whole analysis behind ``ragjury agreement``.

Why a module of its own: reading the two label files, computing binary and graded agreement
with bootstrap intervals, ranking systems under both label sets, gating, and building the HTML
report is analysis, not command-line parsing. ``run_agreement`` returns one
``AgreementRunResult`` that owns its figures, its ``--json`` payload, its HTML report and its
printed summary; the command parses options, calls it and prints.

Two modes, detected from the files (``agreement_mode``): TREC qrels for both (gold vs judged
relevance grades; with runs, the nDCG@k system rankings under both), or JSONL labels for both
(gold rows vs prediction rows joined on ``id``; rows that name a ``system`` rank systems by
their mean label). The figures themselves are ``evals.agreement``'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ragjury.evals.io.atomic_io import check_output_paths
from ragjury.evals.io.json_contract import paths, ranking
from ragjury.evals.io.loaders import LabelRow, Qrels, find_run_files, load_labels, load_qrels, load_runs
from ragjury.evals.report.page import HtmlReport, write_html
from ragjury.evals.report.terminal import agreement_table, confusion_table, correlation_text, metrics_table
from ragjury.evals.results.formatting import fmt
from ragjury.evals.results.gates import LABEL_FIGURES, QRELS_FIGURES, check_gate_names, failed_gates
from ragjury.evals.stats.agreement import (
    AgreementFigures,
    RankCorrelation,
    label_agreement,
    qrels_agreement,
    ranking_correlation,
)
from ragjury.evals.stats.intervals import Interval, bootstrap_agreement, bootstrap_ranking_tau
from ragjury.rag_agent.core.input_files import InputError, read_text

if TYPE_CHECKING:  # annotations only
    from rich.console import Console

Mode = Literal["qrels", "jsonl"]

JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson", ".csv")
"""File names read as labels rows (JSONL, or a CSV of labels) whatever their first character."""


class AgreementOptionError(ValueError):
    """Options that cannot go together (a qrels file with a JSONL file, ``runs`` with JSONL)."""


def is_jsonl(path: Path) -> bool:
    """Labels rows (JSONL, CSV) by extension, else by content: a first non-blank character ``{``
    means JSON rows."""
    if path.suffix.lower() in JSONL_SUFFIXES:
        return True
    text = read_text(path)
    return text.lstrip().startswith("{")


def agreement_mode(gold: Path, judged: Path) -> Mode:
    """``jsonl`` or ``qrels``, the same for both files, else ``AgreementOptionError``."""
    gold_jsonl, judged_jsonl = is_jsonl(gold), is_jsonl(judged)
    if gold_jsonl != judged_jsonl:
        def kind(path: Path, rows: bool) -> str:
            return "TREC qrels" if not rows else "a CSV of labels" if path.suffix.lower() == ".csv" else "JSONL"

        raise AgreementOptionError(
            f"--labels (--gold) is {kind(gold, gold_jsonl)} but --judged is {kind(judged, judged_jsonl)}; "
            "give two qrels files, or labels rows with the judge's predictions (JSONL)"
        )
    return "jsonl" if gold_jsonl else "qrels"


def run_inputs(runs: Path | None) -> list[tuple[str, Path | None]]:
    """``runs`` as inputs an output must not overwrite: the run files it names (a folder's, a
    glob's, or the one file). Lenient on purpose: a missing or empty folder is reported when the
    runs are read, after the other inputs' errors."""
    if runs is None:
        return [("--runs", None)]
    try:
        return [("--runs", path) for path in find_run_files(runs)]
    except InputError:
        return [("--runs", runs)]


def ranks(scores: Mapping[str, float]) -> dict[str, int]:
    """Positions 1, 2, 3... by score, best first (ties keep their first-seen order)."""
    ordered = sorted(scores, key=lambda name: scores[name], reverse=True)
    return {name: position for position, name in enumerate(ordered, start=1)}


def ranking_rows(
    gold: Mapping[str, float], judged: Mapping[str, float], measure: str
) -> dict[str, dict[str, object]]:
    """One row per system, in the gold order: its score and rank under each label set."""
    gold_rank, judged_rank = ranks(gold), ranks(judged)
    return {
        name: {
            f"{measure} gold": gold[name],
            f"{measure} judged": judged[name],
            "rank gold": gold_rank[name],
            "rank judged": judged_rank[name],
        }
        for name in sorted(gold, key=lambda n: gold_rank[n])
    }


def system_scores(
    gold: Mapping[str, LabelRow], predicted: Mapping[str, LabelRow]
) -> tuple[dict[str, float], dict[str, float]]:
    """Mean gold label per system over all its rows; mean predicted label over its scored rows
    (an unscored prediction is left out, never read as 0). A row's system is the gold row's,
    else the prediction's; rows with neither are left out."""
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


def _restrict(qrels: Qrels, qids: set[str]) -> Qrels:
    return {qid: docs for qid, docs in qrels.items() if qid in qids}


def qrels_intervals(
    labels_by_pair: Sequence[tuple[int, int | None]],
    rel: int,
    grades: Sequence[int],
    binary_name: str,
    graded_name: str,
    judged_rel: int | None = None,
) -> dict[str, dict[str, Interval | None]]:
    """Bootstrap 95 % intervals of the binary and graded figures, gold pairs resampled (a pair
    the judge never labelled stays unscored on every draw, as in the figures)."""
    gold = [g for g, _ in labels_by_pair]
    judged = [j for _, j in labels_by_pair]
    return {
        binary_name: dict(
            bootstrap_agreement(
                [g >= rel for g in gold],
                [None if j is None else j >= (rel if judged_rel is None else judged_rel) for j in judged],
                labels=[False, True],
            )
        ),
        graded_name: dict(bootstrap_agreement(gold, judged, labels=list(grades), ordinal=True)),
    }


@dataclass
class AgreementRunResult:
    """What ``run_agreement`` found: the flat figures that gates read, the ``--json`` payload,
    the HTML report, and the system ranking correlation (``None`` without systems)."""

    mode: Mode
    payload_fields: dict[str, object]
    """The mode's own keys (counts, agreement sections, ranking), before the shared ones."""
    figures: dict[str, float | None]
    report: HtmlReport
    correlation: RankCorrelation | None = None
    gate_failures: list[str] = field(default_factory=list)
    inputs: dict[str, object] = field(default_factory=dict)
    html: Path | None = None
    """The HTML report's path, once ``write_html`` wrote it."""

    def gate(self, gates: Mapping[str, float]) -> list[str]:
        """Check ``--fail-under`` gates against the figures; the failures (also in the report)."""
        self.gate_failures = failed_gates(self.figures, gates)
        self.report.gate_failures = self.gate_failures
        return self.gate_failures

    def write_html(self, path: Path) -> Path:
        """Write the self-contained HTML report, atomically."""
        self.html = write_html(path, self.report)
        return self.html

    def flat_intervals(self) -> dict[str, list[float] | None]:
        """Bootstrap 95 % intervals under the flat figures' names (the graded section's
        ``graded_accuracy``, ...; ``kendall_tau``): every figure printed gets its interval."""
        out: dict[str, list[float] | None] = {}
        for section, intervals in self.report.intervals.items():
            for name, interval in intervals.items():
                flat = f"graded_{name}" if section == "graded" and f"graded_{name}" in self.figures else name
                if flat in self.figures and flat not in out:
                    out[flat] = None if interval is None else interval.as_list()
        if "kendall_tau" in self.figures and self.report.tau_interval is not None:
            out["kendall_tau"] = self.report.tau_interval.as_list()
        return out

    def payload(self) -> dict[str, object]:
        """The ``--json`` object (without the contract's ``schema_version`` / ``command``)."""
        return {
            **self.payload_fields,
            "figures": self.figures,
            "intervals": self.flat_intervals(),
            "inputs": self.inputs,
            "outputs": paths(html=self.html),
            "gate_failures": self.gate_failures,
        }

    def render(self, console: Console) -> None:
        """The human summary: counts, agreement and confusion tables, system ranks, figures."""
        payload, inputs = self.payload(), self.inputs
        if self.mode == "qrels":
            console.print(
                f"gold {inputs['gold']}: {payload['n_gold']} pairs   judged {inputs['judged']}: "
                f"{payload['n_judged']} pairs   shared {payload['n_shared']} "
                f"(ignored {payload['n_judged_only']} judged pairs without gold)",
                highlight=False,
            )
        else:
            console.print(
                f"gold {inputs['gold']}   judged {inputs['judged']}   missing predictions "
                f"{payload['n_missing_predictions']}   predictions without gold "
                f"{payload['n_predictions_without_gold']}",
                highlight=False,
            )
        for note in self.report.notes:
            console.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)
        console.print(agreement_table(dict(self.report.figures), intervals=self.report.intervals))
        for name, figures in self.report.figures.items():
            console.print(confusion_table(figures, title=f"Confusion, {name} (rows: gold, columns: judge)"))
        for title, rows in self.report.tables.items():
            console.print(metrics_table(rows, title=title, row_header="system"))
        if self.correlation is not None:
            console.print(correlation_text(self.correlation, tau_interval=self.report.tau_interval), highlight=False)
        intervals = self.flat_intervals()

        def shown(name: str, value: float | None) -> str:
            interval = intervals.get(name)
            return f"{name}={fmt(value)}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval and value is not None else "")

        summary = "  ".join(shown(name, value) for name, value in self.figures.items())
        console.print(summary, highlight=False, soft_wrap=True)


def judged_cut(judged: Qrels, rel: int, judged_rel: int | None) -> tuple[int, str | None]:
    """The grade from which a judged pair counts as relevant, and why when it is not ``rel``: a
    judged file holding only 0/1 comes from a binary judge, and cutting it at 2 would call every
    pair non-relevant (a kappa of 0 that measures the cut, not the judge)."""
    if judged_rel is not None:
        return judged_rel, None
    grades = {grade for docs in judged.values() for grade in docs.values()}
    if rel > 1 and grades and grades <= {0, 1}:
        return 1, (f"the judged qrels hold only grades 0 and 1 (a binary judge): judged pairs count as "
                   f"relevant from grade 1, gold pairs from grade {rel} (--judged-rel sets it)")
    return rel, None


def qrels_agreement_run(
    gold_path: Path, judged_path: Path, runs: Path | None, rel: int, k: int, judged_rel: int | None = None
) -> AgreementRunResult:
    """Judged qrels against gold qrels: binary (grade >= ``rel``) and graded figures with
    intervals; with ``runs``, nDCG@``k`` of every run under both qrels (on the queries both
    label) and the correlation of the two system rankings."""
    from ragjury.evals.stats.metrics import evaluate_runs

    from ragjury.evals.io.people import read_people

    # people's grades through the labels type (0-3, file/line/field); the judge's qrels as a TREC file
    gold, judged = read_people(gold_path, "score").qrels(), load_qrels(judged_path)
    judged_rel, cut_note = judged_cut(judged, rel, judged_rel)
    agreement = qrels_agreement(gold, judged, rel=rel, judged_rel=judged_rel)
    figures = agreement.figures()
    fields: dict[str, object] = {
        "mode": "qrels",
        **agreement.model_dump(mode="json", exclude={"binary", "graded"}),
        "agreement": agreement.binary.model_dump(mode="json"),
        "graded_agreement": agreement.graded.model_dump(mode="json"),
    }
    binary_name = f"binary (grade >= {rel})" if judged_rel == rel else f"binary (gold >= {rel}, judged >= {judged_rel})"
    graded_name = "graded"
    labels_by_pair = [
        (grade, judged.get(qid, {}).get(docid)) for qid, docs in gold.items() for docid, grade in docs.items()
    ]
    shared_pairs = [(g, j) for g, j in labels_by_pair if j is not None]
    report = HtmlReport(
        title="ragjury agreement: judged qrels vs gold qrels",
        meta={"gold": str(gold_path), "judged": str(judged_path),
              "relevant": f"grade >= {rel}" if judged_rel == rel else f"gold grade >= {rel}, judged grade >= {judged_rel}"},
        figures={binary_name: agreement.binary, graded_name: agreement.graded},
        intervals=qrels_intervals(labels_by_pair, rel, agreement.graded.labels, binary_name, graded_name, judged_rel),
        notes=[cut_note] if cut_note else [],
        distributions={"gold": [g for g, _ in shared_pairs], "judge": [j for _, j in shared_pairs]},
        distribution_note=(
            f"Both sides count the same {len(shared_pairs):,} (query, passage) pairs, those with a gold "
            f"grade and a judged grade. Not shown: {agreement.n_gold - agreement.n_shared:,} of the "
            f"{agreement.n_gold:,} gold pairs, which the judge never labelled (not in its pool), and "
            f"{agreement.n_judged_only:,} judged pairs without a gold grade."
        ),
        axis_labels=(f"nDCG@{k}, gold qrels", f"nDCG@{k}, judged qrels"),
    )
    result = AgreementRunResult(mode="qrels", payload_fields=fields, figures=figures, report=report)
    if runs is None:
        return result
    loaded = load_runs(runs)
    shared = set(gold) & set(judged)
    if not shared:
        raise InputError(judged_path, "no query in common with the gold qrels; cannot compare runs")
    measure = f"nDCG@{k}"
    under_gold = evaluate_runs(loaded, _restrict(gold, shared), ks=(k,), measures=("nDCG",))
    under_judged = evaluate_runs(loaded, _restrict(judged, shared), ks=(k,), measures=("nDCG",))
    gold_scores = {name: evaluation.mean[measure] for name, evaluation in under_gold.items()}
    judged_scores = {name: evaluation.mean[measure] for name, evaluation in under_judged.items()}
    correlation = ranking_correlation(gold_scores, judged_scores)
    fields["ranking"] = ranking(measure, gold_scores, judged_scores, correlation, k=k, queries=len(shared))
    report.notes = [*report.notes, f"{measure} uses each file's grades as gains: the gold grades under the "
                    f"gold qrels, the judged grades under the judged qrels."]
    figures.update({"kendall_tau": correlation.kendall_tau, "spearman": correlation.spearman})
    report.systems = {name: (gold_scores[name], judged_scores[name]) for name in loaded}
    report.correlation = correlation
    report.tau_interval = bootstrap_ranking_tau(
        {name: {q: v[measure] for q, v in e.per_query.items()} for name, e in under_gold.items()},
        {name: {q: v[measure] for q, v in e.per_query.items()} for name, e in under_judged.items()},
    )
    report.tables = {
        f"{measure} per run ({len(shared)} queries)": ranking_rows(gold_scores, judged_scores, measure)
    }
    result.correlation = correlation
    return result


def labels_agreement_run(gold_path: Path, judged_path: Path, *, allow_shown_judge: bool = False) -> AgreementRunResult:
    """Prediction rows against people's labels (read once by ``evals.io.people``, any form), joined
    on ``id``: a missing or unscored prediction lowers coverage and is never counted wrong; labels
    other than 0/1/true/false are graded (ordinal figures). Rows naming a ``system`` rank systems by
    mean label under both. What the labels file left out (ties, unsure) is counted (``people``)."""
    from ragjury.evals.io.people import label_rows, read_people_any

    people = read_people_any(gold_path, allow_shown_judge=allow_shown_judge)
    gold = {ident: LabelRow(line, value, system) for ident, (line, value, system) in label_rows(people).items()}
    predicted = load_labels(judged_path, allow_unscored=True)
    keys = list(gold)
    gold_labels = [gold[key].label for key in keys]
    predicted_labels = [predicted[key].label if key in predicted else None for key in keys]
    graded = any(not isinstance(label, bool) and label not in (0, 1) for label in gold_labels)
    binary_labels = None if graded else [False, True]
    label_figures: AgreementFigures = label_agreement(
        gold_labels,  # type: ignore[arg-type]
        predicted_labels,
        labels=binary_labels,
        ordinal=graded,
    )
    missing = sum(1 for key in keys if key not in predicted)
    without_gold = sum(1 for key in predicted if key not in gold)
    from ragjury.evals.stats.judge_card import people_block

    fields: dict[str, object] = {
        "mode": "jsonl",
        "people_labels": people_block(people),
        "n_missing_predictions": missing,
        "n_predictions_without_gold": without_gold,
        "agreement": label_figures.model_dump(mode="json"),
    }
    gold_scores, judged_scores = system_scores(gold, predicted)
    correlation = ranking_correlation(gold_scores, judged_scores) if gold_scores else None
    systems = [gold[key].system or (predicted[key].system if key in predicted else None) for key in keys]
    intervals = bootstrap_agreement(
        gold_labels,  # type: ignore[arg-type]
        predicted_labels,  # type: ignore[arg-type]
        labels=label_figures.labels,
        ordinal=graded,
        systems=systems if any(s is not None for s in systems) else None,
    )
    both = [(g, p) for g, p in zip(gold_labels, predicted_labels, strict=True) if p is not None]
    report = HtmlReport(
        title="ragjury agreement: predictions vs gold labels",
        meta={"gold": str(gold_path), "judged": str(judged_path)},
        figures={"labels": label_figures},
        intervals={"labels": {k: v for k, v in intervals.items() if k != "kendall_tau"}},
        distributions={"gold": [g for g, _ in both], "judge": [p for _, p in both]},  # type: ignore[dict-item]
        distribution_note=(
            f"Both sides count the same {len(both):,} items, those with a gold label and a scored "
            f"prediction. Not shown: {len(keys) - len(both) - missing:,} unscored prediction(s), "
            f"{missing:,} gold item(s) without a prediction and "
            f"{without_gold:,} prediction(s) without a gold label."
        ),
        axis_labels=("mean gold label", "mean judge label"),
    )
    report.tau_interval = intervals.get("kendall_tau")
    report.notes = [*report.notes, *people.notes()]  # what the labels file left out (ties, unsure), said
    figures = label_figures.figures()
    if correlation is not None:
        figures.update({"kendall_tau": correlation.kendall_tau, "spearman": correlation.spearman})
        fields["ranking"] = ranking("mean label", gold_scores, judged_scores, correlation)
        shared = [name for name in gold_scores if name in judged_scores]
        report.systems = {name: (gold_scores[name], judged_scores[name]) for name in shared}
        report.correlation = correlation
        report.tables = {
            "system scores (mean label)": ranking_rows(
                {n: gold_scores[n] for n in shared}, {n: judged_scores[n] for n in shared}, "mean label"
            )
        }
    return AgreementRunResult(
        mode="jsonl", payload_fields=fields, figures=figures, report=report, correlation=correlation
    )


def run_agreement(
    gold: Path,
    judged: Path,
    *,
    runs: Path | None = None,
    rel: int = 2,
    k: int = 10,
    gates: Mapping[str, float] | None = None,
    html: Path | None = None,
    judged_rel: int | None = None,
    allow_shown_judge: bool = False,
) -> AgreementRunResult:
    """Measure how far ``judged`` labels agree with ``gold`` labels, in the mode the files say.

    ``gates`` (``{figure: minimum}``, aliases resolved by ``evals.report.parse_gates``) are
    checked by name before anything is read and by value at the end (``gate_failures``). With
    ``html`` the report is written there, after checking that it overwrites no input. Bad files
    raise ``InputError``; options that cannot go together ``AgreementOptionError``.
    """
    gates = dict(gates or {})
    mode = agreement_mode(gold, judged)
    check_gate_names(gates, LABEL_FIGURES if mode == "jsonl" else QRELS_FIGURES)
    check_output_paths([("--html", html)], [("--gold", gold), ("--judged", judged), *run_inputs(runs)])
    if mode == "jsonl":
        if runs is not None:
            raise AgreementOptionError(
                "--runs applies to qrels mode only (JSONL rows rank systems by their 'system' field)"
            )
        result = labels_agreement_run(gold, judged, allow_shown_judge=allow_shown_judge)
    else:
        result = qrels_agreement_run(gold, judged, runs, rel, k, judged_rel)
    result.inputs = paths(gold=gold, judged=judged, runs=runs)
    result.gate(gates)
    if html is not None:
        result.write_html(html)
    return result


__all__ = [
    "JSONL_SUFFIXES",
    "AgreementOptionError",
    "AgreementRunResult",
    "Mode",
    "agreement_mode",
    "is_jsonl",
    "labels_agreement_run",
    "qrels_agreement_run",
    "qrels_intervals",
    "ranking_rows",
    "ranks",
    "run_agreement",
    "run_inputs",
    "system_scores",
]
