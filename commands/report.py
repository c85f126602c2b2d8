"""``ragjury report``: rebuild a run's report from its predictions file, compare two runs, or rank
many configs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

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


def _figures_table(all_figures: list[Any]) -> Table:
    """One column per run: the figures with their bootstrap 95 % intervals (as each run measured them)."""
    from ragjury.evals.results.formatting import fmt
    from ragjury.evals.report.run_report import run_label

    measured = [figures.measured for figures in all_figures]
    any_interval = any(m.intervals.get(name) is not None and m.figures.get(name) is not None
                       for m in measured for name in m.figures)
    table = Table(title="Figures (bootstrap 95 % intervals)" if any_interval else "Figures")
    table.add_column("figure")
    for letter, figures in zip("AB", all_figures):
        name = run_label(letter, figures.run.name) if len(all_figures) == 2 else figures.run.name
        table.add_column(name, justify="right")
    names: list[str] = []
    for m in measured:
        names.extend(name for name in m.figures if name not in names)
    for name in names:
        cells = []
        for m in measured:
            value = m.figures.get(name)
            interval = m.intervals.get(name)
            cells.append(fmt(value) + (f" {interval.text()}" if interval is not None and value is not None else ""))
        table.add_row(name, *cells)
    for count in ("n", "scored", "unscored", "fallback_used", "labelled", "tokens"):
        table.add_row(count, *(f"{m.counts[count]:,}" for m in measured), style="dim")
    return table


@user_errors
@PEOPLE_LABELS.after("junit")
def report(
    predictions: Annotated[
        list[Path],
        typer.Argument(
            help="One predictions JSONL (from 'ragjury evaluate --out'), two to compare, or more: configs of a "
            "sweep, ranked with simultaneous intervals (see --baseline).",
            metavar="PRED.jsonl",
        ),
    ],
    html: Annotated[
        Path | None, typer.Option("--html", help="Write the self-contained HTML report here.")
    ] = None,
    title: Annotated[str | None, typer.Option("--title", help="Title of the HTML report.")] = None,
    fail_if_worse: Annotated[
        float | None,
        typer.Option("--fail-if-worse", min=0.0, max=1.0, metavar="MARGIN",
                     help="With BASELINE NEW: exit 1 when NEW is worse than BASELINE by more than MARGIN (a share: "
                     "0.02 = 2 points) with 95 % confidence (the paired interval's upper end below -MARGIN), or has "
                     "unscored items; 0 = any shown drop. Writes the verdict to $GITHUB_STEP_SUMMARY when set."),
    ] = None,
    fail_unless_within: Annotated[
        float | None,
        typer.Option("--fail-unless-within", min=0.0, max=1.0, metavar="MARGIN",
                     help="With BASELINE NEW, the non-inferiority gate: exit 1 unless NEW is shown no worse than "
                     "BASELINE by more than MARGIN (the paired interval's lower end above -MARGIN). Stricter than "
                     "--fail-if-worse: a measured drop inside the noise fails it, and so does too little evidence."),
    ] = None,
    compare: Annotated[
        tuple[str, str] | None,
        typer.Option("--compare", metavar="A B", help="With one file holding several systems: compare system B with "
                     "system A, their rows paired on the question (B - A with its paired interval, as for two files)."),
    ] = None,
    allow_missing: Annotated[
        bool,
        typer.Option("--allow-missing", help="With a gate: accept a NEW run that lacks some of BASELINE's "
                     "questions (by default the gate fails, saying how many: a run that drops its hard questions "
                     "must not pass on the rest; an id whose question differs in NEW counts as missing)."),
    ] = False,
    require_measured: Annotated[
        bool,
        typer.Option("--require-measured", help="With a gate: fail when the judge of either run (a rubric, a Python "
                     "check, a fitted head) is not measured against people's labels on this data: fewer than the 50 "
                     "labels on scored items, 10 of each class, that 'ragjury estimate' asks for."),
    ] = False,
    allow_same: Annotated[
        bool,
        typer.Option("--allow-same", help="With a gate: accept BASELINE and NEW being the same file (by default the "
                     "gate fails: the same run compared with itself shows nothing)."),
    ] = False,
    junit: Annotated[
        Path | None,
        typer.Option("--junit", metavar="FILE", help="Also write JUnit XML for CI: a suite per run and system, a "
                     "case per item (a 'no' verdict fails with its reason, an unscored item is an error), and the "
                     "regression gate as its own case."),
    ] = None,
    junit_items: Annotated[
        str | None,
        typer.Option("--junit-items", metavar="regressed|all", help="With --junit and two runs: JUnit cases for the "
                     "items BASELINE judged yes and NEW no (regressed, the default: failures when the gate fails, "
                     "skipped cases otherwise), or for every item of both runs (all)."),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option("--baseline", metavar="RUN", help="With several runs (RUN1 ... RUNn): the run the others are "
                     "compared with and --fail-if-worse gates against (by default the first): every config ranked "
                     "with intervals that hold for all configs at once. Given with two runs, they are ranked so too."),
    ] = None,
    json_output: JsonOption = False,
    **options: Any,
) -> None:
    """Rebuild the report of a run from its predictions file alone, compare two runs, or rank many configs.

    The predictions file written by 'ragjury evaluate --out' carries each item's text, the gold
    label and the judgment, so the report needs neither the dataset nor the cache. It shows the
    figures with bootstrap 95 % intervals (accuracy, Cohen's kappa, Kendall's tau of the system
    ranking), the confusion matrix, people and judge side by side over the same items, the
    people-vs-judge system plot (equal axes, y = x line), and a per-item table with filters
    (disagreements, false positives, false negatives, unscored, fallback) and text search.

    Two files: both runs side by side, joined on the item id: figures of each, the paired
    difference B - A with its interval, the matrix of verdict changes, and the per-item table
    with both verdicts and filters for changed, fixed and broken items.

    Filters and search live in the address, so a link opens that view:
    report.html#filter=disagree (also fp, fn, unscored, fallback, changed, fixed, broken),
    report.html#q=paris.

    Examples:

      ragjury report preds.jsonl --html report.html

      ragjury report contains.jsonl llm.jsonl --html compare.html

      ragjury report preds.jsonl --json

      ragjury report baseline.jsonl new.jsonl --fail-if-worse 0.02   (a CI gate)

      ragjury report base.jsonl chunk256.jsonl chunk512.jsonl top10.jsonl --fail-if-worse 0.02   (a sweep)

    Exit codes: 0 done (gate passed, or --fail-if-worse undecided on too few questions), 1 the gate
    failed (--fail-unless-within on too few questions too), 2 bad input.

    Measure first, then draw: the runs are read, then measured once (each run's figures, their
    comparison and the gate), and only then do the views (page, step summary, JUnit, --json, the
    terminal) draw what was measured.
    """
    from ragjury.evals.io.atomic_io import check_output_paths
    from ragjury.evals.io.predictions import load_predictions, run_names

    labels, allow_shown_judge = options["labels"], options["allow_shown_judge"]

    if len(predictions) > 2 or baseline is not None:  # many configs in one report (issue #56)
        from ragjury.commands.report_sweep import sweep_report

        return sweep_report(predictions, baseline=baseline, fail_if_worse=fail_if_worse, allow_missing=allow_missing,
                            html=html, title=title, junit=junit, json_output=json_output, labels=labels,
                            allow_shown_judge=allow_shown_judge,
                            unsupported={"--compare": compare is not None,
                                         "--fail-unless-within": fail_unless_within is not None,
                                         "--require-measured": require_measured})
    if not 1 <= len(predictions) <= 2:
        raise fail(f"give one predictions file, or two to compare (got {len(predictions)})")
    _check_options(predictions, compare=compare, gated=fail_if_worse is not None or fail_unless_within is not None,
                   junit=junit, junit_items=junit_items, allow_missing=allow_missing,
                   require_measured=require_measured, allow_same=allow_same)
    junit_items = junit_items or "regressed"
    check_output_paths([("--html", html), ("--junit", junit)],
                       [*[("PRED.jsonl", path) for path in predictions], ("--labels", labels)])
    names = run_names(predictions)
    runs = [load_predictions(path, name=name) for path, name in zip(predictions, names, strict=True)]
    people = None  # two configs with people's labels: each config's rate and B - A as people would judge it
    read = None  # people's labels, read once (evals.io.people) and joined once per run
    if labels is not None:
        from ragjury.evals.io.people import read_people

        read = read_people(labels, runs[0].kind, allow_shown_judge=allow_shown_judge)
    if read is not None and len(runs) == 2:
        from ragjury.evals.io.human_labels import with_config_labels
        from ragjury.evals.io.joined_runs import config_names
        from ragjury.evals.pipelines.system_estimates_run import estimate_predictions

        as_read = runs  # as read: the estimate joins them on the question and keys the labels itself
        runs = with_config_labels(runs, config_names(predictions, runs), read)
        people = estimate_predictions(as_read, labels=read)
    elif read is not None:
        from ragjury.evals.io.human_labels import with_people_labels

        runs = [with_people_labels(run, read) for run in runs]
    if compare is not None:
        if len(runs) != 1:
            raise fail("--compare A B splits one file by system; with two files, they are compared as they are")
        from ragjury.evals.results.comparison import split_by_system

        try:
            runs = list(split_by_system(runs[0], *compare))
        except ValueError as error:
            raise fail(str(error)) from None
    if len(runs) == 2:
        from ragjury.evals.results.comparison import check_comparable

        try:
            check_comparable(*runs)
        except ValueError as error:
            raise fail(str(error)) from None
    if fail_if_worse is not None and fail_unless_within is not None:
        raise fail("give --fail-if-worse or --fail-unless-within, not both (two rules of one gate)")
    rule = "within" if fail_unless_within is not None else "worse"
    if fail_unless_within is not None:
        fail_if_worse = fail_unless_within
    if fail_if_worse is not None and len(runs) != 2:
        raise fail(f"--fail-{'unless-within' if rule == 'within' else 'if-worse'} compares two runs: give BASELINE.jsonl NEW.jsonl")
    from ragjury.evals.results.comparison import measure_runs

    try:
        all_figures, comparison = measure_runs(runs)
    except ValueError as error:
        raise fail(str(error)) from None
    gate = None
    if fail_if_worse is not None:  # the one gate: Comparison.gate, as compare_predictions(...).gate
        from dataclasses import replace

        assert comparison is not None
        judged = comparison if people is None else replace(comparison, people=people)  # people's B - A decides
        # one file split by system (--compare) is two runs, not the same file twice
        gate = judged.gate(fail_if_worse, allow_missing=allow_missing, rule=rule,
                           require_measured=require_measured, same_file=False if compare is not None else None,
                           allow_same=allow_same)
    gate_document = gate.as_dict() if gate is not None else None
    _views(all_figures, comparison, gate, gate_document, people, predictions=list(predictions), runs=runs,
           html=html, title=title, junit=junit, junit_items=junit_items, labels=read, json_output=json_output,
           rule=rule, margin=fail_if_worse, labels_path=labels)


def _views(
    all_figures: list[Any], comparison: Any, gate: Any, gate_document: dict[str, Any] | None, people: Any, *,
    predictions: list[Path], runs: list[Any], html: Path | None, title: str | None, junit: Path | None,
    junit_items: str, labels: Any, json_output: bool, rule: str, margin: float | None,
    labels_path: Path | None = None,
) -> None:
    """The views of what ``report`` measured: the page, the step summary, JUnit, then ``--json``
    or the terminal; each reads the measured runs, their comparison and the gate (``gate_document``:
    its ``--json`` block)."""
    from ragjury.evals.report.run_report import build_report, report_notes, report_payload, run_label

    if html is not None:  # the page, a view of the finished runs like the terminal and --json
        from ragjury.evals.report.page import write_html

        from dataclasses import replace as with_people

        shown = comparison if comparison is None or people is None else with_people(comparison, people=people)
        page, _figures = build_report([], title=title, measured=all_figures, comparison=shown, labels=labels)
        write_html(html, page)
    if gate is not None:
        _step_summary(comparison, gate, [*predictions, *([labels_path] if labels_path is not None else [])], people)
    if junit is not None:
        from ragjury.evals.report.junit import regressed, write_junit

        pairs = regressed(runs[0], runs[1]) if len(runs) == 2 and junit_items == "regressed" else None
        write_junit(junit, runs, gate, regressions=pairs, people=people)
    if json_output:
        payload = report_payload(all_figures, predictions, html, comparison)
        if junit is not None:
            payload["outputs"]["junit"] = str(junit)
        if gate_document is not None:
            payload["gate"] = gate_document
        if people is not None:
            payload["people_estimate"] = people.as_dict()
        if labels is not None:  # what the labels file gave, and people against people
            from ragjury.evals.stats.judge_card import people_block

            payload["people_labels"] = people_block(labels)
        print_json(payload, command="report")
        if gate is not None and gate.failed:
            raise typer.Exit(EXIT_BELOW_THRESHOLD)
        return
    for letter, figures in zip("AB", all_figures):
        name = f"{run_label(letter, figures.run.name)} ({figures.run.path})" if len(all_figures) == 2 else figures.run.path
        stdout.print(
            f"{name}: {len(figures.run.records):,} items, verdicts by {figures.measured.verdicts_by}",
            highlight=False,
            soft_wrap=True,
        )
    from ragjury.evals.results.comparison import as_note

    # the answer first: which kind of comparison, each rate, B - A; or people's rate where they labelled items
    first_lines = list(comparison.first_lines) if comparison is not None else all_figures[0].measured.headline
    if people is not None:  # the answer first: B - A as people would judge it
        from ragjury.evals.results.headline import judges_under_people

        first_lines = people_lines(people) + ["the judges' own rates:"] + judges_under_people(first_lines, people)
    for line in first_lines:
        stdout.print(escape(line), highlight=False, soft_wrap=True)
    shown = {as_note(line) for line in [*first_lines, *(comparison.first_lines if comparison is not None else ())]}
    stdout.print(_figures_table(all_figures))
    if comparison is not None:
        from ragjury.evals.report.terminal import metrics_table

        for table_title, rows in comparison.tables.items():
            stdout.print(metrics_table(rows, title=table_title, row_header=""))
    for note in (note for note in report_notes(all_figures, comparison) if note not in shown):
        stdout.print(note, style="yellow", highlight=False, soft_wrap=True)
    if labels is not None:
        _people_lines(labels)
    if html is not None:
        stdout.print(f"HTML report written to {html}", highlight=False)
    if gate is not None:
        style = "bold red" if gate.failed else ("yellow" if not gate.decided else "green")
        stdout.print(f"regression gate ({gate.option} {gate.margin:g}) {gate.word}: {gate.reason}", style=style,
                     highlight=False, markup=False, soft_wrap=True)
        if gate.failed:
            raise typer.Exit(EXIT_BELOW_THRESHOLD)


def _check_options(
    predictions: list[Path], *, compare: Any, gated: bool, junit: Path | None, junit_items: str | None,
    allow_missing: bool, require_measured: bool, allow_same: bool,
) -> None:
    """Options that would do nothing as given end in one line (exit 2), never silently: a gate's
    modifiers without a gate, ``--junit-items`` without ``--junit`` or with one run."""
    given = [flag for flag, on in (("--allow-missing", allow_missing), ("--require-measured", require_measured),
                                   ("--allow-same", allow_same)) if on]
    if given and not gated:
        raise fail(f"{' and '.join(given)} {'change' if len(given) > 1 else 'changes'} the regression gate: add "
                   "--fail-if-worse MARGIN or --fail-unless-within MARGIN (with BASELINE.jsonl NEW.jsonl)")
    if junit_items is None:
        return
    if junit_items not in ("regressed", "all"):
        raise fail(f"--junit-items must be regressed or all, got {junit_items!r}")
    if junit is None:
        raise fail("--junit-items chooses the cases of the JUnit file: add --junit FILE")
    if len(predictions) != 2 and compare is None:
        raise fail("--junit-items chooses between two runs' regressed items and every item of both; with one run "
                   "the JUnit file always has a case per item: leave --junit-items out, or give BASELINE NEW")


def people_lines(people: Any) -> list[str]:
    """Each config's rate as people would judge it and B - A (``estimate A B --labels``), in points."""
    from ragjury.evals.results.headline import people_difference_lines

    return people_difference_lines(people)


def _people_lines(people: Any) -> None:
    """What the labels file left out, and people against people on the items two annotators both
    labelled (a labels file of several annotators): the ceiling the judge's agreement is read against."""
    from ragjury.evals.stats.judge_card import pair_agreements

    for note in people.notes():
        stdout.print(f"note: {note}", style="yellow", highlight=False, markup=False, soft_wrap=True)
    for pair in pair_agreements(people.acts):
        interval = "" if pair.interval is None else f" [{pair.interval.low:.2f}, {pair.interval.high:.2f}]"
        kappa = "-" if pair.kappa is None else f"{pair.kappa:.2f}"
        stdout.print(f"people vs people ({pair.a} · {pair.b}, {pair.n} items both labelled): kappa {kappa}{interval}, "
                     f"disagree on {len(pair.disagreements)} — the ceiling for the judge", highlight=False,
                     markup=False, soft_wrap=True)


def _step_summary(comparison: Any, outcome: Any, inputs: list[Path], people: Any = None) -> None:
    """The gate's verdict as a GitHub Actions step summary, when in GitHub Actions; with people's
    labels, their B − A and rates lead it."""
    import os

    if not os.environ.get("GITHUB_STEP_SUMMARY"):
        return
    from ragjury.evals.io.step_summary import append_step_summary
    from ragjury.evals.results.comparison import step_summary

    names = (comparison.baseline.name, comparison.new.name)
    from ragjury.evals.results.headline import people_step_summary

    text = people_step_summary(step_summary(outcome, names, comparison.rates()), people)
    warning = append_step_summary(text + "\n", inputs=inputs)
    if warning:
        stderr.print(warning, style="yellow", highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("report")(report)


__all__ = ["register", "report"]
