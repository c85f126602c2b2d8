"""``ragjury evaluate --task T --judge A --judge B`` (or ``--judge rubric:FOLDER``): several
criteria judged over one dataset in one run, one verdict column each.

Why its own module: one criterion is one finished run (its rate and interval, gates, predictions
file); several are several such runs over the rows loaded once, shown side by side. Each
criterion's run is the single-judge run unchanged, so its predictions file is one that ``report``,
``estimate``, ``calibrate`` and ``report A B --fail-if-worse`` read as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table

from ragjury.commands._common import EXIT_BELOW_THRESHOLD, EXIT_UNSCORED, fail, print_json, stderr, stdout
from ragjury.evals.io.json_contract import paths
from ragjury.rag_agent.core.judge_spec import RUBRIC_PREFIX, RUBRIC_TEXT_PREFIX, JudgeSpec, parse

if TYPE_CHECKING:
    from ragjury.commands._common import RunOptions
    from ragjury.evals.results.gates import Gates
    from ragjury.rag_agent.judges.catalogue import Resolved

RUBRIC_SUFFIXES = (".yaml", ".yml", ".json")


def expand_judges(specs: Sequence[str]) -> list[JudgeSpec]:
    """The ``--judge`` values, each parsed once (the ``JudgeSpec`` the run carries from here on),
    with each ``rubric:FOLDER`` replaced by one ``rubric:FILE`` per rubric file inside it (sorted);
    a folder with none is refused."""
    out: list[JudgeSpec] = []
    for spec in specs:
        parsed = parse(spec)
        folder = Path(parsed.rest) if parsed.kind == "rubric" else None
        if folder is None or not folder.is_dir():
            out.append(parsed)
            continue
        files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in RUBRIC_SUFFIXES)
        if not files:
            raise fail(f"--judge {spec}: the folder holds no rubric file (*.yaml, *.yml or *.json)")
        out.extend(parse(f"{RUBRIC_PREFIX}{file}") for file in files)
    return out


def dataset_judges(
    task: str, judge: list[str] | None, rubric: str | None, *, default: str | None, dry_run: bool,
    calibration: Path | None, executor: str,
) -> list[JudgeSpec]:
    """The judges of a dataset run (``--judge``, each ``rubric:FOLDER`` expanded, or ``--rubric``, or
    the task's ``default``): one, or several criteria, which refuse what takes one judge."""
    if rubric is not None:
        if judge is not None:
            raise fail("give --judge or --rubric, not both (a rubric is the judge)")

        judge = [RUBRIC_TEXT_PREFIX + rubric]
    if judge:
        specs = expand_judges(judge)
    elif default is not None:
        specs = [parse(default)]
    else:
        from ragjury.rag_agent.judges.catalogue import judge_names

        raise fail(f"task {task} has no default judge: give --judge ({', '.join(judge_names(task))})")
    if len({spec.value for spec in specs}) != len(specs):
        raise fail("the same --judge is given twice: each criterion once")
    if len(specs) > 1:
        refused = [flag for flag, given in (("--dry-run", dry_run), ("--calibration", calibration is not None),
                                            ("--executor ray", executor == "ray")) if given]
        if refused:
            raise fail(f"{refused[0]} takes one --judge; run each criterion on its own for it")
    return specs


def criterion_name(spec: str, judge: Any) -> str:
    """A criterion's column and file name: the rubric's name, else the ``--judge`` name."""
    rubric = getattr(judge, "rubric", None)
    return rubric.name if rubric is not None else re.sub(r"[^A-Za-z0-9_.-]+", "-", spec).strip("-") or "judge"


def per_criterion(path: Path | None, name: str) -> Path | None:
    """``preds.jsonl`` -> ``preds.NAME.jsonl``: one output file per criterion, beside the one asked for."""
    return None if path is None else path.with_name(f"{path.stem}.{name}{path.suffix}")


def check_criterion_outputs(
    judge_specs: Sequence[JudgeSpec],
    resolved: dict[str, Resolved],
    settings: Any,
    *,
    out: Path | None,
    html: Path | None,
    junit: Path | None,
    inputs: list[tuple[str, Path | None]],
) -> None:
    """Before the cache opens or anything is judged: every derived output (``OUT.<criterion>.jsonl``,
    ``HTML.<criterion>.html``) is checked against every input (the data, the cache, each rubric
    file), ``--junit`` and every other output, as a single judge's outputs are."""
    from ragjury.evals.io.atomic_io import check_output_paths
    from ragjury.evals.io.predictions import header_path

    outputs: list[tuple[str, Path | None]] = [("--junit", junit)]
    rubric_files: list[tuple[str, Path | None]] = []
    for spec in judge_specs:  # each parsed once, by the command
        name = criterion_name(spec.value, resolved[spec.value].build(settings))
        outputs += [(f"--out ({name})", per_criterion(out, name)), (f"--html ({name})", per_criterion(html, name))]
        if out is not None:  # the run header written beside each criterion's predictions
            outputs.append((f"--out ({name}, its run header)", header_path(per_criterion(out, name))))
        if spec.kind == "rubric":
            rubric_files.append((f"--judge {spec.value}", Path(spec.rest)))
    check_output_paths(outputs, [*inputs, *rubric_files])


def prepare_criteria_run(
    *,
    task: str,
    data: Path,
    judge_specs: Sequence[JudgeSpec],
    resolved: dict[str, Resolved],
    mapping: list[str],
    out: Path | None,
    limit: int | None,
    html: Path | None,
    gates: Gates,
    settings: Any,
    cache: Any,
    run: RunOptions,
    junit: Path | None = None,
    labels: Path | None = None,
    planned: list[tuple[str, int]] | None = None,
) -> tuple[Coroutine[Any, Any, Any], Callable[[Any], None]]:
    """Load the dataset once and build every criterion's judge; the run to await (each criterion in
    turn, all through the one cache) and what to do with its results. ``planned`` gets each
    criterion's name and row count, in run order (what an interrupted run reports against)."""
    planned = planned if planned is not None else []
    from ragjury.commands.evaluate_dataset import load_for_run
    from ragjury.evals.pipelines.dataset_evaluation import evaluate_dataset

    judges = {spec: resolved[spec.value].build(settings) for spec in judge_specs}
    names = {spec: criterion_name(spec.value, judge) for spec, judge in judges.items()}
    seen: dict[str, str] = {}
    for spec, name in names.items():
        if name in seen:
            raise fail(f"two criteria are named '{name}' ({seen[name]} and {spec.value}): each names its verdict column "
                       "and its predictions file, so give each rubric its own name")
        seen[name] = spec.value
    dataset = load_for_run(task, data, mapping, limit, labels)

    planned.extend((names[spec], len(dataset.rows)) for spec in judge_specs)

    async def judge_all() -> list[tuple[str, Any]]:
        results = []
        for spec, judge in judges.items():
            result = await evaluate_dataset(task, dataset.rows, judge, cache=cache, concurrency=run.concurrency,
                                            progress=run.progress, judge_name=spec,
                                            verdict_names=resolved[spec.value].verdict_names)
            results.append((names[spec], result))
        return results

    def finish(results: list[tuple[str, Any]]) -> None:
        report_criteria_run(results, dataset=dataset, data=data, out=out, html=html, gates=gates,
                            json_output=run.json_output, junit=junit)

    return judge_all(), finish


def interrupted_counts(planned: list[tuple[str, int]], started: list[Any]) -> dict[str, object]:
    """The counts of an interrupted several-criteria run: per criterion (one not yet started has
    every row not judged) and in all, so n is criteria × rows however far the run got."""
    from functools import reduce

    from ragjury.evals.runs.runner import RunStats

    per: dict[str, dict[str, object]] = {}
    stats = []
    for number, (name, rows) in enumerate(planned):
        run = started[number] if number < len(started) else RunStats(total=rows, interrupted=True)
        stats.append(run)
        per[name] = run.as_dict()
    total = reduce(lambda a, b: a.merge(b), stats).as_dict() if stats else {}
    return {**total, "criteria": per}


def report_criteria_run(
    results: list[tuple[str, Any]], *, dataset: Any, data: Path, out: Path | None, html: Path | None, gates: Gates,
    json_output: bool, junit: Path | None = None,
) -> None:
    """Gate, write and print each criterion's run; one table with a column per criterion. Exit 3
    when any criterion scored nothing (a criterion that could not be judged never passes), 1 when
    a gate failed."""
    from ragjury.evals.report.run_outputs import DatasetFiles

    failures: list[str] = []
    payloads: dict[str, Any] = {}
    for name, result in results:
        files = DatasetFiles(data, predictions=per_criterion(out, name), html=per_criterion(html, name))
        own = result.gate(gates)
        result.write(files, gate_failures=own)
        failures += [f"{name}: {failure}" for failure in own]
        payloads[name] = result.payload(files, gate_failures=own)
    if junit is not None:  # a suite per criterion, the gates as one more case
        from ragjury.evals.pipelines.system_estimates_run import run_in_memory
        from ragjury.evals.report.junit import write_junit

        runs = [replace(run_in_memory(result), name=name) for name, result in results]
        write_junit(junit, runs, gate_failures=failures)
    empty = [name for name, result in results if result.stats.scored == 0]
    if json_output:
        print_json({"mode": "criteria", "task": dataset_task(results), "judge": [r.judge for _, r in results],
                    "inputs": paths(data=data), "input_mapping": dataset.input_mapping.as_dict(),
                    "criteria": payloads, "gate_failures": failures}, command="evaluate")
    else:
        stdout.print(criteria_table(results, data.name))
        for name, result in results:
            share = result.unscored_share()
            if share.count:
                stdout.print(f"[bold red]unscored[/]: {escape(name)}: {escape(share.describe())}", highlight=False,
                             soft_wrap=True)
        for name, result in results:
            if result.sources.fallback:
                stdout.print(f"{escape(name)} verdicts by: {escape(result.sources.describe())}", style="yellow",
                             highlight=False, soft_wrap=True)
        for label, path in (("predictions", out), ("HTML report", html)):
            if path is not None:
                written = ", ".join(str(per_criterion(path, name)) for name, _ in results)
                stdout.print(f"{label} written to {written}", highlight=False, soft_wrap=True)
    for name in empty:
        result = dict(results)[name]
        why = result.why_unscored or "every judgment is unscored"
        stderr.print(f"[red]nothing was scored[/] for {escape(name)}: {escape(why)}", highlight=False, soft_wrap=True)
    for failure in failures:
        stderr.print(f"[red]gate failed:[/] {escape(failure)}", highlight=False, soft_wrap=True)
    import typer

    if empty:
        raise typer.Exit(EXIT_UNSCORED)
    if failures:
        raise typer.Exit(EXIT_BELOW_THRESHOLD)


def dataset_task(results: list[tuple[str, Any]]) -> str:
    return results[0][1].task


def criteria_table(results: list[tuple[str, Any]], data_name: str) -> Table:
    """Rows of figures, a column per criterion: its rate (or mean) with the interval, counts, the
    rate per system, and agreement with people where the data has labels."""
    task = dataset_task(results)
    table = Table(title=f"{task} on {data_name}: {len(results)} criteria", title_justify="left")
    table.add_column("figure")
    for name, _ in results:
        table.add_column(escape(name), justify="right")
    binary = results[0][1].result.binary
    measure = "pass rate [95 % Wilson]" if binary else "mean score [95 % bootstrap]"
    table.add_row(measure, *(r.result.overall.text(binary) for _, r in results))
    table.add_row("scored", *(f"{r.stats.scored:,}" for _, r in results))
    table.add_row("unscored", *(f"{r.stats.unscored:,}" for _, r in results))
    systems = sorted({s for _, r in results for s in r.result.by_system})
    if len(systems) > 1:
        for system in systems:
            table.add_row(f"  {escape(system)}",
                          *(r.result.by_system[system].text(binary) if system in r.result.by_system else "-"
                            for _, r in results))
    if any(r.agreement is not None for _, r in results):
        table.add_row("κ vs people [95 %]", *(_kappa(r) for _, r in results))
    table.add_row("cached / judged", *(f"{r.stats.cached:,} / {r.stats.judged:,}" for _, r in results))
    return table


def _kappa(result: Any) -> str:
    agreement = result.agreement
    kappa = getattr(agreement, "cohen_kappa", None) if agreement is not None else None
    if kappa is None:
        return "-"
    interval = result.intervals.get("cohen_kappa")
    return f"{kappa:.3f}" + (f" [{interval.low:.3f}, {interval.high:.3f}]" if interval is not None else "")


__all__ = ["criteria_table", "criterion_name", "dataset_judges", "expand_judges", "interrupted_counts", "per_criterion",
           "prepare_criteria_run", "report_criteria_run"]
