"""``ragjury report RUN1 ... RUNn``: many configs in one report (``report`` hands over here for three
runs or more, or with ``--baseline``; two runs without it stay ``report A B``).

The answer first (line 1: which config is best, or that none is clearly best), then a line saying
the intervals are simultaneous, then one table ordered by rate that fits 80 columns with a dozen
configs: names fold, numbers never break. Measured once (``Sweep.of``), then drawn: the page, JUnit,
``--json`` or the terminal. Exit codes are ``report``'s: 1 when the gate fails for a config, 2 for
bad input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from ragjury.commands._common import EXIT_BELOW_THRESHOLD, fail, print_json, stdout

UNSUPPORTED = ("--compare", "--fail-unless-within", "--require-measured")


def sweep_report(
    predictions: list[Path], *, baseline: Path | None, fail_if_worse: float | None, allow_missing: bool,
    html: Path | None, title: str | None, junit: Path | None, json_output: bool, unsupported: dict[str, Any],
    labels: Path | None = None, allow_shown_judge: bool = False, command: str = "report",
) -> None:
    """Read, measure, gate, draw: ``report RUN1 ... RUNn [--baseline RUN] [--fail-if-worse M]``."""
    from ragjury.evals.io.atomic_io import check_output_paths
    from ragjury.evals.io.predictions import load_predictions, run_names
    from ragjury.evals.results.sweep import Sweep

    given = [flag for flag, value in unsupported.items() if value]
    if given:
        raise fail(f"{', '.join(given)} {'compares' if len(given) == 1 else 'compare'} two runs (report A B); with "
                   f"{len(predictions)} runs ranked (--baseline) the options are --baseline, --fail-if-worse, "
                   "--allow-missing, --labels, --html, --title, --junit and --json")
    check_distinct(predictions)
    check_output_paths([("--html", html), ("--junit", junit)],
                       [*[("PRED.jsonl", path) for path in predictions], ("--labels", labels)])
    base = baseline_index(predictions, baseline)
    names = run_names(predictions)
    runs = [load_predictions(path, name=name) for path, name in zip(predictions, names, strict=True)]
    people = None
    if labels is not None:  # people's labels of each config's answers: CONFIG/ID, or a system column
        from ragjury.evals.io.people import read_people
        from ragjury.evals.results.sweep import with_sweep_labels

        people = read_people(labels, runs[0].kind, allow_shown_judge=allow_shown_judge)
        runs = with_sweep_labels(runs, people)
    try:
        sweep = Sweep.of(runs, baseline=base, margin=fail_if_worse, people=labels is not None)
    except ValueError as error:
        raise fail(str(error)) from None
    if people is not None:
        from ragjury.evals.pipelines.sequential_estimates import sweep_sequence

        sweep.sequential = sweep_sequence(runs, people)  # labels gathered by label --until best: the valid figure
    gate = sweep.gate(fail_if_worse, allow_missing=allow_missing) if fail_if_worse is not None else None
    if html is not None:
        from ragjury.evals.report.sweep_page import write_sweep_html

        write_sweep_html(html, sweep, gate, title=title)
    if gate is not None:
        _step_summary(sweep, gate, predictions)
    if junit is not None:
        from ragjury.evals.report.sweep_junit import write_sweep_junit

        write_sweep_junit(junit, sweep, gate)
    if json_output:
        from ragjury.evals.io.json_contract import paths

        payload: dict[str, Any] = {
            "inputs": paths(predictions=list(predictions)),
            "outputs": {**paths(html=html), **({"junit": str(junit)} if junit is not None else {})},
            "runs": [{"name": run.name, "path": run.path, "n": len(run.records),
                      "unscored": sum(1 for r in run.records if r.unscored)} for run in runs],
            "sweep": sweep.as_dict(),
        }
        if gate is not None:
            payload["gate"] = gate.as_dict()
        print_json(payload, command=command)
    else:
        for line in sweep.lines():
            stdout.print(line, highlight=False, markup=False, soft_wrap=True)
        if sweep.people is not None:
            stdout.print(sweep_table(sweep.people, title="as people would judge it"))
        stdout.print(sweep_table(sweep, title="the judge's verdicts" if sweep.people is not None else None))
        if html is not None:
            stdout.print(f"HTML report written to {html}", highlight=False, markup=False)
        if gate is not None:
            style = "bold red" if gate.failed else ("yellow" if not gate.decided else "green")
            word = "FAILED" if gate.failed else ("undecided" if not gate.decided else "passed")
            stdout.print(f"regression gate (--fail-if-worse {gate.margin:g}) {word}: {gate.reason}", style=style,
                         highlight=False, markup=False, soft_wrap=True)
            for config in gate.configs:
                if config.failed:
                    stdout.print(f"  {config.name}: {config.reason}", style=style, highlight=False, markup=False,
                                 soft_wrap=True)
    if gate is not None and gate.failed:
        raise typer.Exit(EXIT_BELOW_THRESHOLD)


def _step_summary(sweep: Any, gate: Any, inputs: list[Path]) -> None:
    """The gate's verdict table as a GitHub Actions step summary, when in GitHub Actions."""
    import os

    if not os.environ.get("GITHUB_STEP_SUMMARY"):
        return
    from ragjury.commands._common import stderr
    from ragjury.evals.io.step_summary import append_step_summary

    warning = append_step_summary(sweep.step_summary(gate) + "\n", inputs=inputs)
    if warning:
        stderr.print(warning, style="yellow", highlight=False, markup=False, soft_wrap=True)


def check_distinct(predictions: list[Path]) -> None:
    """Each run one file: the same file twice compares nothing with itself (exit 2, naming it)."""
    from ragjury.evals.io.atomic_io import one_existing_file

    for i, first in enumerate(predictions):
        for second in predictions[i + 1:]:
            if first.resolve() == second.resolve() or one_existing_file(first, second):
                raise fail(f"{second} is {first} again: give each config's run once")


def baseline_index(predictions: list[Path], baseline: Path | None) -> int:
    """Which of the runs is the baseline: the first, or the one ``--baseline`` names (a path given
    as a run, or its file name)."""
    if baseline is None:
        return 0
    for i, path in enumerate(predictions):
        if path == baseline or path.resolve() == baseline.resolve():
            return i
    matches = [i for i, path in enumerate(predictions) if path.name == baseline.name or path.stem == str(baseline)]
    if len(matches) == 1:
        return matches[0]
    raise fail(f"--baseline {baseline}: not one of the runs given ({', '.join(str(p) for p in predictions)})")


def _cell(sweep: Any, value: float, interval: tuple[float, float] | None, signed: bool) -> str:
    """A figure over its interval, two lines, so a narrow column breaks between them, never inside."""
    text = sweep.shift if signed else sweep.amount
    if interval is None:
        return text(value)
    return f"{text(value)}\n[{text(interval[0])}, {text(interval[1])}]".replace(" %", "")


def sweep_table(sweep: Any, title: str | None = None) -> Table:
    """Every config, highest rate first: rate [interval], - baseline and - best [simultaneous
    intervals], verdict. Names fold; a figure and its interval are two lines of one cell."""
    points = " pts" if sweep.binary else ""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, padding=(0, 0), title=title,
                  title_justify="left")
    table.add_column("config", overflow="fold")
    table.add_column("rate %" if sweep.binary else "mean", justify="right", no_wrap=True)
    table.add_column(f"-base{points}", justify="right", no_wrap=True)
    table.add_column(f"-best{points}", justify="right", no_wrap=True)
    table.add_column("verdict", overflow="fold", min_width=12)
    for row in sweep.rows:
        name = row.name + ("\n(baseline)" if row.is_baseline else "")
        base = "baseline" if row.is_baseline else _cell(sweep, row.to_baseline, row.to_baseline_interval, True)
        best = "best" if row.index == sweep.best else _cell(sweep, row.to_best, row.to_best_interval, True)
        table.add_row(Text(name), _cell(sweep, row.rate, row.interval, False), base, best, row.verdict)  # names are data
    return table


__all__ = ["baseline_index", "check_distinct", "sweep_report", "sweep_table"]
