"""``ragjury evaluate --task``: a dataset's rows judged, gated, written and printed.

The command awaits the run itself (``prepare_dataset_run`` hands it back), so no frame of this
module sits between the command and the judge when a model request leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from ragjury.evals.io.json_contract import paths
from ragjury.commands._common import print_json, stderr, stdout
from ragjury.commands.evaluate_output import (
    finish_run,
    nothing_scored_line,
    print_run_warnings,
    run_table,
    unscored_lines,
    verdict_lines,
)
from ragjury.rag_agent.core.input_files import InputError

if TYPE_CHECKING:
    from ragjury.commands._common import RunOptions
    from ragjury.rag_agent.core.judge_spec import JudgeSpec
    from ragjury.evals.results.gates import Gates
    from ragjury.rag_agent.judges.catalogue import Resolved


def prepare_dataset_run(
    *,
    task: str,
    data: Path,
    judge_name: str,
    resolved: Resolved,
    judge_spec: JudgeSpec | None = None,
    mapping: list[str],
    judge_options: dict[str, Any],
    out: Path | None,
    limit: int | None,
    html: Path | None,
    gates: Gates,
    settings: Any,
    cache: Any,
    run: RunOptions,
    executor: str = "process",
    junit: Path | None = None,
    labels: Any = None,
    repeats: int = 1,
) -> tuple[Coroutine[Any, Any, Any], Callable[[Any], None]] | None:
    """Load the dataset and build the judge; the run to await and what to do with its result
    (``None`` after a dry run). The caller awaits it, so no frame of this sits on the judge's stack.
    ``judge_spec``: the ``--judge`` the command parsed, carried into the finished run."""
    from ragjury.evals.pipelines.dataset_evaluation import evaluate_dataset

    dataset = load_for_run(task, data, mapping, limit, labels)
    if run.dry_run:
        from ragjury.commands._dry_run import dry_run_batch

        dry_run_batch(
            command="evaluate",
            build=lambda: resolved.build(settings, **judge_options),
            items=[row.item for row in dataset.rows],
            cache=cache,
            json_output=run.json_output,
            title=f"dry run: {task} judged by {judge_name} on {data.name}",
            header={"task": task, "judge": judge_name, "inputs": paths(data=data)},
        )
        return None
    judge = resolved.build(settings, **judge_options)
    if executor == "ray":
        judge, session = on_ray(judge, task=task, judge_name=judge_name, settings=settings, options=judge_options)
        inner = evaluate_dataset(
            task, dataset.rows, judge, cache=cache, concurrency=run.concurrency, progress=run.progress,
            judge_name=judge_spec or judge_name, verdict_names=resolved.verdict_names,
        )

        async def run_in_session() -> Any:
            try:
                with session:
                    return await inner
            finally:
                inner.close()  # never started (Ray stopped while starting): no "never awaited" warning

        judging = run_in_session()
    else:
        judging = evaluate_dataset(
            task, dataset.rows, judge, cache=cache, concurrency=run.concurrency, progress=run.progress,
            judge_name=judge_spec or judge_name, verdict_names=resolved.verdict_names,
        )

    stable: dict[str, Any] = {}
    if repeats > 1:
        judging = _with_repeats(judging, judge, [row.item for row in dataset.rows], repeats, cache, run, stable)

    def finish(result: Any) -> None:
        report_dataset_run(result, dataset=dataset, data=data, out=out, html=html, gates=gates,
                           json_output=run.json_output, junit=junit,
                           people=labels if labels is not None and not isinstance(labels, str | Path) else None,
                           stability=stable or None)

    return judging, finish


async def _with_repeats(judging: Any, judge: Any, items: list[Any], repeats: int, cache: Any, run: RunOptions,
                        into: dict[str, Any]) -> Any:
    """The run, then ``repeats - 1`` more of the same judge on the same items (``evals.runs.repeats``);
    their stability figures go ``into`` the dict the summary reads."""
    from ragjury.evals.runs.repeats import Repeat, stability
    from ragjury.evals.runs.runner import run_judgments

    result = await judging
    labels = [[p.label if not p.judgment.unscored else None for p in result.predictions]]
    for k in range(1, repeats):
        judgments, _ = await run_judgments(Repeat(judge, k), items, cache=cache, concurrency=run.concurrency,
                                           progress=run.progress, description=f"repeat {k + 1} of {repeats}")
        labels.append([None if j.unscored else j.label for j in judgments])
    into.update(stability(labels))
    return result


def load_for_run(task: str, data: Path, mapping: list[str], limit: int | None, labels: Any = None) -> Any:
    """The dataset's rows for ``task`` (``--map`` pairs applied), saying on stderr how its columns
    were read and which reference columns the task leaves unread. ``labels`` (a labels file of
    ``ragjury label``, or ``{"id", "label"}`` rows) replace the rows' own gold, joined on id."""
    from dataclasses import replace

    from ragjury.evals.io.tasks import load_dataset, task_spec

    dataset = load_dataset(task, data, pairs=mapping, limit=limit)
    if labels is not None:  # people's labels (read once by the command) joined once, with their weights
        from ragjury.evals.io.human_labels import relabelled

        dataset = replace(dataset, rows=relabelled(dataset.rows, labels, task_spec(task).gold_kind, data))
    if (applied := dataset.input_mapping.describe()) is not None:
        stderr.print(escape(applied), highlight=False, soft_wrap=True)
    if (unread := dataset.unread_note(task)) is not None:
        stderr.print(escape(unread), style="yellow", highlight=False, soft_wrap=True)
    return dataset


def on_ray(judge: Any, *, task: str, judge_name: str, settings: Any, options: dict[str, Any]) -> tuple[Any, Any]:
    """The judge on Ray (``evals.runs.ray_executor``, imported here only) and the context that
    joins or starts Ray around the run (and stops it when this run started it)."""
    from contextlib import contextmanager

    try:
        from ragjury.evals.runs import ray_executor
    except ImportError as error:
        raise InputError(
            f"--executor ray needs Ray (no module {error.name or 'ray'})", "install it: pip install 'ragjury[ray]'"
        ) from None

    @contextmanager
    def ray_session() -> Any:
        started = ray_executor.start_ray()
        try:
            yield
        finally:
            ray_executor.stop_ray(started)

    from functools import partial

    from ragjury.rag_agent.judges.catalogue import build_judge

    factory = partial(build_judge, task, judge_name)  # picklable: each Ray worker builds the judge again
    wrapped = ray_executor.ray_judge(judge, factory=factory, settings=settings, options=options)
    return wrapped, ray_session()


def report_dataset_run(
    result: Any, *, dataset: Any, data: Path, out: Path | None, html: Path | None, gates: Gates, json_output: bool,
    junit: Path | None = None, people: Any = None, stability: dict[str, Any] | None = None,
) -> None:
    """Gate, write and print a finished dataset run (``people``: the labels ``--labels`` gave). With a page to draw, every figure is measured
    first (``FinishedRun.measure``), before the gates and the views; without one, the JSON and the
    terminal need a few figures, each measured on first use (the page's breakdowns would be work
    for no view)."""
    from ragjury.evals.pipelines.dataset_evaluation import DatasetFiles

    files = DatasetFiles(data, predictions=out, html=html)
    if html is not None:
        result.measure()
    failures = result.gate(gates)
    result.write(files, gate_failures=failures, labels=people)  # the page: people vs people too
    if junit is not None:  # CI's view: a case per item, the run's gate failures as one more case
        from ragjury.evals.pipelines.system_estimates_run import run_in_memory
        from ragjury.evals.report.junit import write_junit

        write_junit(junit, [run_in_memory(result)], gate_failures=failures)
    nothing = result.stats.scored == 0
    if json_output:
        payload = result.payload(files, input_mapping=dataset.input_mapping.as_dict(), gate_failures=failures)
        if people is not None:  # what the labels file gave and left out, and people against people
            from ragjury.evals.stats.judge_card import people_block

            payload["people_labels"] = people_block(people)
        if stability is not None:  # --repeats: the judge's stability, also on its card
            payload["stability"] = stability
            if isinstance(payload.get("judge_card"), dict):
                payload["judge_card"]["stability"] = {k: v for k, v in stability.items() if k != "item_agreement"}
        print_json(payload, command="evaluate")
    elif nothing:  # the cause first, alone: tables of zeros would bury it
        nothing_scored_line(result.why_unscored)
        if out is not None:
            stdout.print(f"predictions (all unscored, with their reasons) written to {out}", highlight=False)
    else:
        print_dataset_result(result, data, out)
        if stability is not None:
            from ragjury.evals.runs.repeats import stability_line

            stdout.print(stability_line(stability), style="yellow" if stability["changed"] else None,
                         highlight=False, markup=False, soft_wrap=True)
        for note in people.notes() if people is not None else []:
            stdout.print(f"note: {note}", style="yellow", highlight=False, markup=False, soft_wrap=True)
        print_run_warnings([p.label for p in result.predictions])
    if gates.any:
        step_summary(result, data, failures, [p for p in (out, html, junit) if p is not None])
    finish_run(failures, result.stats.scored, json_output, html, why_unscored=result.why_unscored,
               cause_shown=nothing and not json_output)


def step_summary(result: Any, data: Path, failures: list[str], outputs: list[Path]) -> None:
    """A gated run's verdict and line 1 in $GITHUB_STEP_SUMMARY where CI set it (never over an
    input or an output of the run; a failure to write it is one warning, never the exit code)."""
    import os

    if not os.environ.get("GITHUB_STEP_SUMMARY"):
        return
    from ragjury.evals.io.step_summary import append_step_summary
    from ragjury.evals.results.gates import run_step_summary
    from ragjury.evals.results.headline import headline, trust_note

    # a judge nobody measured here says so
    note = trust_note(result.task, result.judge_spec or result.judge, result.labelled)
    lines = headline(result) + ([note] if note else [])
    text = run_step_summary(f"evaluate gate ({result.task}, {data.name})", lines, failures)
    warning = append_step_summary(text, inputs=[data, *outputs])
    if warning:
        stderr.print(warning, style="yellow", highlight=False, markup=False, soft_wrap=True)


def injection_lines(result: Any, shown: int = 5) -> None:
    """Items whose text addresses the judge (a prompt injection?), counted, with the words."""
    flagged = result.injection_flags
    if not flagged:
        return
    stdout.print(f"{len(flagged):,} item(s) hold text addressed to the judge (judged as usual; "
                 "--fail-on-injection fails the run on them):", style="yellow", highlight=False, soft_wrap=True,
                 markup=False)
    for record, flags in flagged[:shown]:
        flag = flags[0]
        who = f"{record.system}/" if record.system else ""
        stdout.print(f"  {who}{record.id} {flag.field}: {flag.text[:80]!r} ({flag.rule})", style="yellow",
                     highlight=False, soft_wrap=True, markup=False)
    if len(flagged) > shown:
        stdout.print(f"  and {len(flagged) - shown:,} more (--json lists them all)", style="yellow", highlight=False,
                     soft_wrap=True, markup=False)


def print_dataset_result(result: Any, data: Path, out: Path | None) -> None:
    """The terminal summary of a dataset run: its stats, who judged, agreement or correlation
    with people, the per-system ranking, and where the predictions went."""
    from ragjury.evals.report.terminal import (
        agreement_table,
        confusion_table,
        correlation_text,
        metrics_table,
    )

    from ragjury.evals.results.headline import headline, trust_note

    sampled, read = result.sampled_share()
    lines = headline(result)  # the run's result first: people's rate where they labelled items
    note = trust_note(result.task, result.judge_spec or result.judge, result.labelled,
                      str(out) if out is not None else "PRED.jsonl")
    stdout.print(escape(lines[0]), highlight=False, soft_wrap=True)
    if note is not None and len(lines) == 1:  # whose rate line 1 is, right under it
        stdout.print(note, style="yellow", highlight=False, soft_wrap=True, markup=False)
    if sampled:  # line 2 (after a one-line headline's note): a verdict without its probability, said and gated
        stdout.print(f"P(yes) could not be read for {sampled:,} of {read:,} judgments: verdict from the sampled "
                     "token (the server returned no logprobs; --max-sampled gates it)", style="yellow",
                     highlight=False, soft_wrap=True, markup=False)
    for line in lines[1:]:
        stdout.print(escape(line), highlight=False, soft_wrap=True)
    if note is not None and len(lines) > 1:  # whose rate line 1 is, and how to measure it against people
        stdout.print(note, style="yellow", highlight=False, soft_wrap=True, markup=False)
    if result.task == "correctness" and result.empty_answers:
        stdout.print(f"empty answers {result.empty_answers:,}: judged wrong (in the rate), with no model call",
                     highlight=False, soft_wrap=True)
    injection_lines(result)
    title = f"{result.task} judged by {result.verdict_judges} on {data.name}"
    stdout.print(run_table(title, result.stats.as_dict()))
    verdict_lines({"": result.sources})
    unscored_lines({"": result.unscored_share()})
    from ragjury.evals.results.sources import fallback_note

    note = fallback_note(result.sources, [prediction.judgment for prediction in result.predictions])
    if note is not None:  # why the fallback answered (a dead server, a panel member that did not vote)
        stdout.print(escape(note), style="yellow", highlight=False, soft_wrap=True)
    if result.agreement is not None:
        stdout.print(agreement_table({"judge vs people": result.agreement}, intervals={"judge vs people": result.intervals}))
        stdout.print(confusion_table(result.agreement))
    if result.correlation:
        stdout.print(metrics_table({"judge vs people": result.correlation}, title="Score correlation"))
    if result.ranking is not None:
        ranking = result.ranking
        per_system = {s: {"people": ranking.human[s], "judge": ranking.judge[s]} for s in ranking.human}
        stdout.print(metrics_table(per_system, title="Per-system mean label", row_header="system"))
        stdout.print(correlation_text(ranking.correlation, tau_interval=result.intervals.get("kendall_tau")), highlight=False)
    card = result.judge_card
    if card is not None and card.summary_line() is not None:  # a bias the labels show ('estimate' has the card)
        stdout.print(card.summary_line(), style="yellow", markup=False, highlight=False, soft_wrap=True)
    estimates = result.system_estimates()
    if estimates is not None:  # people labelled some rows: what each system's rate really is
        from ragjury.commands.estimates_output import print_estimates

        print_estimates(estimates, lead=False)  # line 1 already gave people's rates (the headline)
    if not result.labelled:
        stdout.print("no gold labels in the data: agreement not computed", style="dim")
    if out is not None:
        stdout.print(f"predictions written to {out}", highlight=False)


__all__ = ["load_for_run", "prepare_dataset_run", "print_dataset_result", "report_dataset_run"]
