"""The HTML report of one predictions run, or of two side by side, built from predictions alone.

Why from predictions alone: ``ragjury evaluate --html`` and ``ragjury report PRED.jsonl`` must show
the same page, and a report must be rebuildable long after the run (no dataset, no cache). So
both go through ``build_report``: figures are recomputed from the records with the functions the
dataset evaluation uses (``evals.dataset_evaluation``: ``binary_agreement``, ``system_ranking``,
``score_correlation``), intervals come from ``evals.intervals``, and the per-item table from
``evals.report_items``.

Like with like: the people-vs-judge histogram counts the same items on both sides (those people
labelled and the judge scored) and says how many were left out and why, instead of setting all
gold labels against the judged ones beside a large "unscored" bar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ragjury.evals.io.predictions import PredictionRun
from ragjury.evals.results.breakdowns import cost_table, labelled_probabilities, system_table
from ragjury.evals.report.card_view import card_html
from ragjury.evals.report.estimates_view import estimates_html
from ragjury.evals.results.headline import people_lead, people_rates
from ragjury.evals.stats.public_measurements import trust_note
from ragjury.evals.results.finished_run import FinishedRun, figure_intervals, finished_run
from ragjury.evals.results.formatting import fmt, percent
from ragjury.evals.report.item_table import item_table
from ragjury.evals.report.page import HtmlReport, Ranking
from ragjury.evals.results.run_comparison import CAVEAT, as_note
from ragjury.evals.results.sources import fallback_note
from ragjury.evals.results.verdict_changes import Comparison, comparison_tables
from ragjury.evals.stats.intervals import RESAMPLES, Interval
from ragjury.evals.stats.run_result import VERDICT_WORDS, RunResult


def run_label(letter: str, name: str) -> str:
    """``A: contains`` for the first of two runs; just ``A`` when the run is named ``A`` already
    (files A.jsonl and B.jsonl), never ``A: A``."""
    return letter if name.strip() == letter else f"{letter}: {name}"


def _with_interval(value: float | None, interval: Interval | None) -> str:
    text = fmt(value, 3)
    return f"{text} {interval.text()}" if interval is not None and value is not None else text


def result_card(result: RunResult, task: str | None, prefix: str = "") -> tuple[str, str]:
    """The first card: the judged rate (or mean score) with its 95 % interval and its counts."""
    what = f"judged {VERDICT_WORDS.get(task or '', 'true')}" if result.binary else "mean score"
    method = "Wilson" if result.binary else "bootstrap"
    rate = result.overall
    return f"{prefix}{what} (95 % {method})", f"{rate.text(result.binary)} · {rate.counts()}"


def summary_cards(figures: FinishedRun) -> dict[str, str]:
    """The headline: items, coverage, accuracy / kappa / tau with intervals, fallback, tokens."""
    counts = figures.counts()
    n = counts["n"]
    title, value = result_card(figures.result, figures.run.task)
    people = people_rates(figures)  # where people labelled items, their rate comes first
    cards = {
        **({f"{people_lead(figures.verdict_task)} (95 %)":
            " · ".join(f"{'' if rate.system == 'all' else rate.system + ' '}{rate.text()} ({rate.n_labels:,} labels)"
                       for rate in people)} if people else {}),
        (f"the judge's own rate: {title}" if people else title): value,
        "items": f"{n:,}",
        "scored": f"{counts['scored']:,} ({percent(counts['scored'] / n) if n else '-'})",
    }
    if figures.agreement is not None:
        a = figures.agreement
        cards["accuracy"] = _with_interval(a.accuracy, figures.intervals.get("accuracy"))
        cards["Cohen's kappa"] = _with_interval(a.cohen_kappa, figures.intervals.get("cohen_kappa"))
    if figures.correlation:
        for name in ("pearson", "spearman", "mae"):
            if name in figures.correlation:
                cards[name] = fmt(figures.correlation[name], 3)
    if figures.ranking is not None and figures.ranking.correlation.n >= 3:  # 2 systems: tau is +/-1
        c = figures.ranking.correlation
        cards[f"Kendall tau ({c.n} systems)"] = _with_interval(c.kendall_tau, figures.intervals.get("kendall_tau"))
    share = figures.sources.share
    cards["fallback"] = "-" if share is None else percent(share)
    cards["tokens"] = f"{counts['tokens']:,}"
    return cards


def _distribution(
    runs: Sequence[FinishedRun],
) -> tuple[dict[str, list[Any]], str]:
    """People's labels and each run's verdicts over the same items, and a note saying which."""
    indexes = [f.run.by_id() for f in runs]
    ids = [r.id for r in runs[0].records if all(r.id in index for index in indexes[1:])]
    both = [i for i in ids if all(index[i].gold is not None and index[i].label is not None for index in indexes)]
    series: dict[str, list[Any]] = {}
    names = ["judge"] if len(runs) == 1 else [f"judge {chr(65 + k)}" for k in range(len(runs))]
    if both:
        series["people"] = [indexes[0][i].gold for i in both]
    for name, index in zip(names, indexes, strict=True):
        series[name] = [index[i].label for i in (both or [i for i in ids if index[i].label is not None])]
    labelled = sum(indexes[0][i].gold is not None for i in ids)
    unscored = sum(
        any(index[i].label is None for index in indexes) for i in ids if indexes[0][i].gold is not None
    )
    what = "people labelled and " + ("the judge" if len(runs) == 1 else "both runs") + " scored"
    if both:
        note = f"Both sides count the same {len(both):,} items, those {what}."
        left = []
        if unscored:
            left.append(f"{unscored:,} labelled item(s) unscored by the judge")
        if len(ids) - labelled:
            left.append(f"{len(ids) - labelled:,} item(s) without a gold label")
        if len(ids) < len(runs[0].records):
            left.append(f"{len(runs[0].records) - len(ids):,} item(s) not in every run")
        if left:
            note += " Not shown: " + ", ".join(left) + "."
    else:
        if len(names) == 2:  # each run's own count: two runs need not have scored the same items
            counts = ", ".join(f"{name} {len(series[name]):,}" for name in names)
            note = f"Each run's verdicts on its own scored items ({counts}); no item has both a gold label and a verdict."
        else:
            shown = len(series[names[0]])
            note = f"The judge's verdicts on the {shown:,} scored item(s); no item has both a gold label and a verdict."
    return series, note


def _flatten(figures: FinishedRun) -> dict[str, Any]:
    return {k: v for k, v in figures.counts().items()}


def measured_runs(runs: Sequence[PredictionRun], *, resamples: int = RESAMPLES) -> list[FinishedRun]:
    """One run, or two of the same kind to compare, as finished runs (measured on first use)."""
    if not runs or len(runs) > 2:
        raise ValueError("a report shows one run or compares two")
    if len(runs) == 2 and runs[0].kind != runs[1].kind:
        raise ValueError(
            f"{runs[0].path} holds {runs[0].kind} labels but {runs[1].path} holds {runs[1].kind} ones: "
            "compare runs of the same task"
        )
    return [finished_run(run, resamples=resamples) for run in runs]


def _sections(all_figures: Sequence[FinishedRun]) -> dict[str, str]:
    two = len(all_figures) == 2
    return {f.run.name: run_label(chr(65 + k), f.run.name) if two else "judge vs people" for k, f in enumerate(all_figures)}


def report_notes(all_figures: Sequence[FinishedRun]) -> list[str]:
    """The notes of one run or of two compared (fallbacks, missing text, repeated ids, unmatched
    rows, the caveat): what the page lists and the terminal prints."""
    comparison = Comparison.of(all_figures[0], all_figures[1]) if len(all_figures) == 2 else None
    return _notes(all_figures, _sections(all_figures), comparison)


def build_report(
    runs: Sequence[PredictionRun],
    *,
    title: str | None = None,
    meta: Mapping[str, str] | None = None,
    notes: Sequence[str] | None = None,
    run_stats: Mapping[str, Any] | None = None,
    resamples: int = RESAMPLES,
    measured: Sequence[FinishedRun] | None = None,
) -> tuple[HtmlReport, list[FinishedRun]]:
    """The report of one run (summary, figures with intervals, plots, per-item table), or of two
    runs side by side (figures of each, paired differences, verdict changes, per-item diff).

    ``run_stats`` (one run): the run's own statistics (wall time, cached, ...) for the Run table,
    which a predictions file alone cannot know; without them the table counts the records.
    ``measured``: the runs' figures made already (a finished ``evaluate`` run has them), in place
    of ``runs``, so nothing is measured twice.
    """
    all_figures = list(measured) if measured is not None else measured_runs(runs, resamples=resamples)
    runs = [figures.run for figures in all_figures]
    two = len(runs) == 2
    section = _sections(all_figures)
    first = all_figures[0]
    task = runs[0].task or runs[0].kind
    comparison = Comparison.of(all_figures[0], all_figures[1], resamples=resamples) if two else None
    kind = {"runs": "run comparison, ", "judges": "judge comparison, "}.get(comparison.kind, "") if comparison else ""
    report = HtmlReport(
        title=title
        or (
            f"ragjury report: {kind}{task}, {runs[0].name} vs {runs[1].name}"
            if two
            else f"ragjury report: {task} judged by {', '.join(first.sources.judges) or '?'}"
        )
    )
    report.meta = dict(meta) if meta is not None else _meta(all_figures, section)
    report.notes = list(notes) if notes is not None else _notes(all_figures, section, comparison)
    if comparison is None:
        report.summary = summary_cards(first)
        estimates = first.estimates
        if estimates is not None:  # people labelled some items: each system's rate, three ways
            report.sections = [estimates_html(estimates)]
        card = first.card
        if card is not None:  # people labelled items: how the judge leans, per system and with length
            report.sections = [*report.sections, card_html(card)]
    else:
        report.summary = _compare_cards(all_figures, comparison)
    report.summary_bands = _card_bands(all_figures)
    report.summary_band_n = {
        name: f.agreement.n_scored
        for name, f in zip(report.summary_bands, [f for f in all_figures if f.agreement is not None], strict=False)
    }
    agreements = {section[f.run.name]: f.agreement for f in all_figures if f.agreement is not None}
    if agreements:
        report.figures = agreements
        report.intervals = {section[f.run.name]: f.intervals for f in all_figures if f.agreement is not None}
    series, note = _distribution(all_figures)
    report.distributions = series
    report.distribution_note = note
    rankings = [(f, f.ranking) for f in all_figures if f.ranking is not None]
    if rankings and not two:
        f, ranking = rankings[0]
        report.systems = {s: (ranking.human[s], ranking.judge[s]) for s in ranking.human}
        report.correlation = ranking.correlation
        report.tau_interval = f.intervals.get("kendall_tau")
        report.axis_labels = ("people (mean label)", "judge (mean label)")
    elif rankings:
        report.rankings = {
            section[f.run.name]: Ranking(
                {s: (ranking.human[s], ranking.judge[s]) for s in ranking.human},
                ranking.correlation,
                f.intervals.get("kendall_tau"),
                ("people (mean label)", f"{chr(65 + all_figures.index(f))} (mean label)"),
            )
            for f, ranking in rankings
        }
    probabilities = {}
    for f in all_figures:
        p, gold = labelled_probabilities(f.run)
        if len(p) >= 2:
            probabilities[section[f.run.name] if two else ""] = (p, gold)
    report.probabilities = probabilities
    tables: dict[str, dict[str, dict[str, Any]]] = {}
    if not two:
        stats = {k: v for k, v in (run_stats or {}).items() if isinstance(v, int | float) and not isinstance(v, bool)}
        tables["Run"] = {"": stats or _flatten(first)}
        if first.correlation:
            tables["Score correlation"] = {"judge vs people": first.correlation}
    else:
        tables["Runs"] = {section[f.run.name]: _flatten(f) for f in all_figures}
        assert comparison is not None
        paired_tables = comparison_tables(comparison)
        report.lead_tables = [title for title in paired_tables if title.startswith("Paired difference")]
        tables.update(paired_tables)
    report.tables = tables
    breakdowns = {"Per system": system_table(all_figures), "Latency, tokens and cost per judge": cost_table(runs)}
    report.breakdowns = {title: rows for title, rows in breakdowns.items() if rows}
    if comparison is not None:
        report.items = item_table(
            runs,
            answers_per_run=comparison.kind == "runs",
            unpaired=frozenset(comparison.matching.different_question.ids),
        )
    else:
        report.items = item_table(runs)
    return report, all_figures


def report_payload(
    all_figures: Sequence[FinishedRun], predictions: Sequence[Path], html: Path | None = None
) -> dict[str, Any]:
    """The ``report --json`` document (before ``schema_version`` and ``command``): the files read
    and written, each run (``FinishedRun.as_dict``, the shape ``evaluate --json`` gives the same run,
    under its file's name) and, for two runs, their comparison."""
    from ragjury.evals.io.json_contract import paths

    payload: dict[str, Any] = {
        "inputs": paths(predictions=list(predictions)),
        "outputs": paths(html=html),
        "runs": [{"name": figures.run.name, **figures.as_dict()} for figures in all_figures],
    }
    if len(all_figures) == 2:
        payload["comparison"] = Comparison.of(all_figures[0], all_figures[1]).as_dict()
    return payload


def _meta(all_figures: Sequence[FinishedRun], section: Mapping[str, str]) -> dict[str, str]:
    meta: dict[str, str] = {}
    for f in all_figures:
        prefix = f"{section[f.run.name]}: " if len(all_figures) > 1 else ""
        run = f.run
        meta[f"{prefix}predictions"] = run.path
        meta[f"{prefix}task"] = run.task or run.kind
        meta[f"{prefix}verdicts by"] = f.sources.describe()
        prompts = sorted({r.prompt_version for r in run.records if r.prompt_version})
        if prompts:
            meta[f"{prefix}prompts"] = ", ".join(prompts)
    return meta


def _notes(
    all_figures: Sequence[FinishedRun], section: Mapping[str, str], comparison: Comparison | None = None
) -> list[str]:
    notes: list[str] = []
    if comparison is not None:
        notes.append(as_note(comparison.headline()))
    two = len(all_figures) > 1
    for f in all_figures:
        prefix = f"{section[f.run.name]}: " if two else ""
        note = fallback_note(f.sources, f.records, prefix)
        if note:
            notes.append(note)
        if not f.run.has_text:
            notes.append(
                f"{prefix}{f.run.path} carries no item text (written by an older ragjury): the items "
                "table shows ids and verdicts only; re-run 'ragjury evaluate --out' to include the text."
            )
        if f.run.duplicates:
            notes.append(f"{prefix}{f.run.duplicates:,} row(s) repeat an earlier id; the later row is kept.")
        trust = trust_note(f.task, f.judge, f.labelled, f.run.path)
        if trust:
            notes.append(f"{prefix}{trust}")
        flagged = f.injection_flags
        if flagged:
            shown = "; ".join(f"{record.id} ({flags[0].field}: {flags[0].text[:60]!r})" for record, flags in flagged[:5])
            more = f" and {len(flagged) - 5:,} more" if len(flagged) > 5 else ""
            notes.append(f"{prefix}{len(flagged):,} item(s) hold text addressed to the judge (a prompt injection?): "
                         f"{shown}{more}. They were judged as usual; 'evaluate --fail-on-injection' fails a run on them.")
    if two:
        a, b = (f.run.by_id() for f in all_figures)
        if comparison is not None:  # ids in one run only, or under another question: named
            unmatched = comparison.matching.lines()
            if unmatched:
                notes.extend(as_note(line) for line in unmatched)
                notes.append("Figures are per run; paired differences and verdict changes count the pairs.")
            if comparison.kind == "runs":
                notes.append(as_note(CAVEAT))
        differing = sum(
            1 for k in a.keys() & b.keys() if a[k].gold is not None and b[k].gold is not None and a[k].gold != b[k].gold
        )
        if differing:
            notes.append(f"{differing:,} shared item(s) have different gold labels in A and B; A's are shown.")
    return notes


def _compare_cards(all_figures: Sequence[FinishedRun], comparison: Comparison) -> dict[str, str]:
    """The rate cards first (each run's, then B - A with its interval and p-value), then agreement."""
    cards: dict[str, str] = {}
    for letter, f in zip("AB", all_figures):
        title, value = result_card(f.result, f.run.task, prefix=f"{letter}: ")
        cards[title] = value
    paired = comparison.paired
    if paired.p_value is not None:
        cards[f"B − A ({paired.n_pairs:,} pairs, paired bootstrap)"] = (
            f"{comparison.difference_text()} · p = {paired.p_value:.3g} ({paired.test})"
        )
    for k, f in enumerate(all_figures):
        letter = chr(65 + k)
        cards[f"{letter}: items"] = f"{len(f.records):,}"
        if f.agreement is not None:
            cards[f"{letter}: Cohen's kappa"] = _with_interval(f.agreement.cohen_kappa, f.intervals.get("cohen_kappa"))
        if f.ranking is not None:
            cards[f"{letter}: Kendall tau"] = _with_interval(
                f.ranking.correlation.kendall_tau, f.intervals.get("kendall_tau")
            )
    cards["verdicts changed"] = f"{comparison.changed:,} of {comparison.shared:,}"
    return cards


def _card_bands(all_figures: Sequence[FinishedRun]) -> dict[str, float | None]:
    """The kappa behind each kappa card (single run or A/B), for its Landis–Koch band."""
    bands: dict[str, float | None] = {}
    for k, f in enumerate(all_figures):
        if f.agreement is not None:
            prefix = f"{chr(65 + k)}: " if len(all_figures) > 1 else ""
            bands[f"{prefix}Cohen's kappa"] = f.agreement.cohen_kappa
    return bands


__all__ = [
    "run_label",
    "FinishedRun",
    "build_report",
    "figure_intervals",
    "report_payload",
    "finished_run",
    "measured_runs",
    "report_notes",
    "summary_cards",
]
