"""The HTML report of one predictions run, or of two side by side, built from predictions alone.

Why from predictions alone: ``ragjury evaluate --html`` and ``ragjury report PRED.jsonl`` must show
the same page, and a report must be rebuildable long after the run (no dataset, no cache). So
both go through ``build_report``, a view of finished runs measured first: each run's figures
(``FinishedRun.measure``: the record ``RunFigures``) and, for two, their ``Comparison``, all
measured before the page is drawn; the page reads their fields and measures nothing. The per-item
table comes from ``item_table``.

Like with like: the people-vs-judge histogram counts the same items on both sides (those people
labelled and the judge scored) and says how many were left out and why, instead of setting all
gold labels against the judged ones beside a large "unscored" bar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ragjury.evals.io.predictions import PredictionRun
from ragjury.evals.report.card_view import card_html
from ragjury.evals.report.estimates_view import estimates_html
from ragjury.evals.report.item_table import item_table
from ragjury.evals.report.page import HtmlReport, Ranking
from ragjury.evals.results.finished_run import FinishedRun, figure_intervals, finished_run
from ragjury.evals.results.formatting import fmt, percent
from ragjury.evals.results.headline import people_difference_cards, people_lead
from ragjury.evals.results.comparison import Comparison, measure_runs
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


def summary_cards(run: FinishedRun) -> dict[str, str]:
    """The headline: items, coverage, accuracy / kappa / tau with intervals, fallback, tokens."""
    measured = run.measured
    counts = measured.counts
    n = counts["n"]
    title, value = result_card(measured.result, run.run.task)
    people = measured.people  # where people labelled items, their rate comes first
    cards = {
        **({f"{people_lead(measured.verdict_task)} (95 %)":
            " · ".join(f"{'' if rate.system == 'all' else rate.system + ' '}{rate.text()} ({rate.n_labels:,} labels)"
                       for rate in people)} if people else {}),
        (f"the judge's own rate: {title}" if people else title): value,
        "items": f"{n:,}",
        "scored": f"{counts['scored']:,} ({percent(counts['scored'] / n) if n else '-'})",
    }
    intervals = measured.intervals
    if measured.agreement is not None:
        a = measured.agreement
        cards["accuracy"] = _with_interval(a.accuracy, intervals.get("accuracy"))
        cards["Cohen's kappa"] = _with_interval(a.cohen_kappa, intervals.get("cohen_kappa"))
    if measured.correlation:
        for name in ("pearson", "spearman", "mae"):
            if name in measured.correlation:
                cards[name] = fmt(measured.correlation[name], 3)
    ranking = measured.ranking
    if ranking is not None and ranking.correlation.n >= 3:  # 2 systems: tau is +/-1
        c = ranking.correlation
        cards[f"Kendall tau ({c.n} systems)"] = _with_interval(c.kendall_tau, intervals.get("kendall_tau"))
    share = measured.fallback_share
    cards["fallback"] = "-" if share is None else percent(share)
    cards["tokens"] = f"{counts['tokens']:,}"
    return cards


def _distribution(
    runs: Sequence[FinishedRun],
) -> tuple[dict[str, list[Any]], str]:
    """People's labels and each run's verdicts over the same items, and a note saying which."""
    indexes = [f.run.by_id() for f in runs]
    records = runs[0].run.records
    ids = [r.id for r in records if all(r.id in index for index in indexes[1:])]
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
        if len(ids) < len(records):
            left.append(f"{len(records) - len(ids):,} item(s) not in every run")
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


def measured_runs(runs: Sequence[PredictionRun], *, resamples: int = RESAMPLES) -> list[FinishedRun]:
    """One run, or two of the same kind to compare, as finished runs measured now
    (``comparison.measure_runs``, which also measures their comparison)."""
    return measure_runs(runs, resamples=resamples)[0]


def _sections(all_figures: Sequence[FinishedRun]) -> dict[str, str]:
    two = len(all_figures) == 2
    return {f.run.name: run_label(chr(65 + k), f.run.name) if two else "judge vs people" for k, f in enumerate(all_figures)}


def report_notes(all_figures: Sequence[FinishedRun], comparison: Comparison | None = None) -> list[str]:
    """The notes of one run or of two compared (fallbacks, missing text, repeated ids, unmatched
    rows, the caveat): what the page lists and the terminal prints."""
    if comparison is None and len(all_figures) == 2:
        comparison = Comparison.of(all_figures[0], all_figures[1])
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
    comparison: Comparison | None = None,
    labels: Any = None,
) -> tuple[HtmlReport, list[FinishedRun]]:
    """The report of one run (summary, figures with intervals, plots, per-item table), or of two
    runs side by side (figures of each, paired differences, verdict changes, per-item diff).

    ``run_stats`` (one run): the run's own statistics (wall time, cached, ...) for the Run table,
    which a predictions file alone cannot know; without them the table counts the records.
    ``measured``: the runs measured already (``measure_runs``; a finished ``evaluate`` run), in
    place of ``runs``, with their ``comparison``, so nothing is measured twice. The page reads what
    was measured (``FinishedRun.measured``, the comparison's fields) and measures nothing itself.
    ``labels``: the people's labels read (``evals.io.people``), for people against people where
    several annotators labelled; a ``comparison`` with ``people`` leads with people's B − A.
    """
    if measured is not None:
        all_figures = list(measured)
    else:
        all_figures, comparison = measure_runs(runs, resamples=resamples)
    runs = [figures.run for figures in all_figures]
    two = len(runs) == 2
    if two and comparison is None:
        comparison = Comparison.of(all_figures[0], all_figures[1], resamples=resamples)
    section = _sections(all_figures)
    first = all_figures[0]
    task = runs[0].task or runs[0].kind
    kind = {"runs": "run comparison, ", "judges": "judge comparison, "}.get(comparison.kind, "") if comparison else ""
    report = HtmlReport(
        title=title
        or (
            f"ragjury report: {kind}{task}, {runs[0].name} vs {runs[1].name}"
            if two
            else f"ragjury report: {task} judged by {first.measured.judges or '?'}"
        )
    )
    report.meta = dict(meta) if meta is not None else _meta(all_figures, section)
    report.notes = list(notes) if notes is not None else _notes(all_figures, section, comparison)
    if comparison is not None and comparison.people is not None:  # labelled: no "go and label" caveat
        report.notes = [note for note in report.notes if "is the judge's difference" not in note]
    if comparison is None:
        report.summary = summary_cards(first)
        estimates = first.measured.estimates
        if estimates is not None:  # people labelled some items: each system's rate, three ways
            report.sections = [estimates_html(estimates)]
        card = first.measured.card
        if card is not None:  # people labelled items: how the judge leans, per system and with length
            report.sections = [*report.sections, card_html(card)]
    else:
        report.summary = _compare_cards(all_figures, comparison)
    if labels is not None:  # several annotators: people against people, the judge's ceiling
        from ragjury.evals.report.people_view import people_vs_people_html

        pairs = people_vs_people_html(labels)
        if pairs:
            report.sections = [pairs, *report.sections]
    agreed = [f.measured for f in all_figures if f.measured.agreement is not None]
    report.summary_bands = _card_bands(all_figures)
    report.summary_band_n = {
        name: m.agreement.n_scored for name, m in zip(report.summary_bands, agreed, strict=False)
    }
    agreements = {section[f.run.name]: f.measured.agreement for f in all_figures if f.measured.agreement is not None}
    if agreements:
        report.figures = agreements
        report.intervals = {section[f.run.name]: f.measured.intervals for f in all_figures
                            if f.measured.agreement is not None}
    series, note = _distribution(all_figures)
    report.distributions = series
    report.distribution_note = note
    rankings = [(f, f.measured.ranking) for f in all_figures if f.measured.ranking is not None]
    if rankings and not two:
        f, ranking = rankings[0]
        report.systems = {s: (ranking.human[s], ranking.judge[s]) for s in ranking.human}
        report.correlation = ranking.correlation
        report.tau_interval = f.measured.intervals.get("kendall_tau")
        report.axis_labels = ("people (mean label)", "judge (mean label)")
    elif rankings:
        report.rankings = {
            section[f.run.name]: Ranking(
                {s: (ranking.human[s], ranking.judge[s]) for s in ranking.human},
                ranking.correlation,
                f.measured.intervals.get("kendall_tau"),
                ("people (mean label)", f"{chr(65 + all_figures.index(f))} (mean label)"),
            )
            for f, ranking in rankings
        }
    probabilities = {}
    for f in all_figures:
        p, gold = f.measured.probabilities
        if len(p) >= 2:
            probabilities[section[f.run.name] if two else ""] = (p, gold)
    report.probabilities = probabilities
    tables: dict[str, dict[str, dict[str, Any]]] = {}
    if comparison is None:
        stats = {k: v for k, v in (run_stats or {}).items() if isinstance(v, int | float) and not isinstance(v, bool)}
        tables["Run"] = {"": stats or dict(first.measured.counts)}
        if first.measured.correlation:
            tables["Score correlation"] = {"judge vs people": first.measured.correlation}
        breakdowns = {"Per system": first.measured.systems,
                      "Latency, tokens and cost per judge": first.measured.costs}
    else:
        tables["Runs"] = {section[f.run.name]: dict(f.measured.counts) for f in all_figures}
        report.lead_tables = [title for title in comparison.tables if title.startswith("Paired difference")]
        tables.update(comparison.tables)
        breakdowns = {"Per system": comparison.systems, "Latency, tokens and cost per judge": comparison.costs}
    report.tables = tables
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
    all_figures: Sequence[FinishedRun], predictions: Sequence[Path], html: Path | None = None,
    comparison: Comparison | None = None,
) -> dict[str, Any]:
    """The ``report --json`` document (before ``schema_version`` and ``command``): the files read
    and written, each run (``FinishedRun.as_dict`` as measured, the shape ``evaluate --json`` gives
    the same run, under its file's name) and, for two runs, their comparison."""
    from ragjury.evals.io.json_contract import paths

    runs = [{"name": figures.run.name, **figures.measured.document} for figures in all_figures]
    if len(all_figures) == 2 and comparison is None:
        comparison = Comparison.of(all_figures[0], all_figures[1])
    payload: dict[str, Any] = {
        "inputs": paths(predictions=list(predictions)),
        "outputs": paths(html=html),
        "runs": runs,
    }
    if comparison is not None:
        payload["comparison"] = dict(comparison.document)
    return payload


def _meta(all_figures: Sequence[FinishedRun], section: Mapping[str, str]) -> dict[str, str]:
    meta: dict[str, str] = {}
    for f in all_figures:
        prefix = f"{section[f.run.name]}: " if len(all_figures) > 1 else ""
        run = f.run
        meta[f"{prefix}predictions"] = run.path
        meta[f"{prefix}task"] = run.task or run.kind
        meta[f"{prefix}verdicts by"] = f.measured.verdicts_by
        prompts = sorted({r.prompt_version for r in run.records if r.prompt_version})
        if prompts:
            meta[f"{prefix}prompts"] = ", ".join(prompts)
    return meta


def _notes(
    all_figures: Sequence[FinishedRun], section: Mapping[str, str], comparison: Comparison | None = None
) -> list[str]:
    """The comparison's kind, each run's own notes under its section's name, then the pair's."""
    notes: list[str] = [comparison.kind_note] if comparison is not None else []
    two = len(all_figures) > 1
    for f in all_figures:
        prefix = f"{section[f.run.name]}: " if two else ""
        notes.extend(prefix + note for note in f.measured.notes)
    if comparison is not None:
        notes.extend(comparison.pair_notes)
    return notes


def _compare_cards(all_figures: Sequence[FinishedRun], comparison: Comparison) -> dict[str, str]:
    """The rate cards first (each run's, then B - A with its interval and p-value), then agreement."""
    cards: dict[str, str] = people_difference_cards(comparison.people, all_figures[0].run.task)
    lead = bool(cards)  # people's figures first: the judges' own after, named so
    for letter, f in zip("AB", all_figures):
        title, value = result_card(f.measured.result, f.run.task, prefix=f"{letter}: ")
        cards[(f"the judge's own rate, {title}" if lead else title)] = value
    paired = comparison.paired
    if paired.p_value is not None:
        judges = "the judges' own " if lead else ""
        cards[f"{judges}B − A ({paired.n_pairs:,} pairs, paired bootstrap)"] = (
            f"{comparison.difference_shown} · p = {paired.p_value:.3g} ({paired.test})"
        )
    for k, f in enumerate(all_figures):
        letter = chr(65 + k)
        measured = f.measured
        cards[f"{letter}: items"] = f"{len(f.run.records):,}"
        if measured.agreement is not None:
            cards[f"{letter}: Cohen's kappa"] = _with_interval(measured.agreement.cohen_kappa,
                                                               measured.intervals.get("cohen_kappa"))
        if measured.ranking is not None:
            cards[f"{letter}: Kendall tau"] = _with_interval(
                measured.ranking.correlation.kendall_tau, measured.intervals.get("kendall_tau")
            )
    cards["verdicts changed"] = f"{comparison.changed:,} of {comparison.shared:,}"
    return cards


def _card_bands(all_figures: Sequence[FinishedRun]) -> dict[str, float | None]:
    """The kappa behind each kappa card (single run or A/B), for its Landis–Koch band."""
    bands: dict[str, float | None] = {}
    for k, f in enumerate(all_figures):
        if f.measured.agreement is not None:
            prefix = f"{chr(65 + k)}: " if len(all_figures) > 1 else ""
            bands[f"{prefix}Cohen's kappa"] = f.measured.agreement.cohen_kappa
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
