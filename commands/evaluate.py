"""``ragjury evaluate``: batch-judge a dataset (or an agent's answers), resumably, and report
how far the judge agrees with people."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TYPE_CHECKING

import typer

from ragjury.commands._common import (
    MODEL_CONNECTION,
    PEOPLE_LABELS,
    PANEL_GATES,
    PANEL_INPUT,
    PANEL_MODEL,
    PANEL_OUTPUT,
    RUN_OPTIONS,
    CalibrationOption,
    MaxFallbackOption,
    MaxUnscoredOption,
    RunOptions,
    calibration_options,
    end_trace,
    fail,
    print_json,
    settings_for,
    start_trace,
    stderr,
    user_errors,
)
from ragjury.commands.evaluate_agent import agent_judges, evaluate_agent_run
from ragjury.commands.evaluate_dataset import prepare_dataset_run
from ragjury.rag_agent.core.judge_spec import AUTO, JudgeSpec
from ragjury.rag_agent.core.sync import run_sync
# read from the source text: no judge, no item class imported
from ragjury.rag_agent.judges.catalogue import UnknownJudgeError, default_name, judge_names_help, resolve
from ragjury.rag_agent.tasks.catalogue import dataset_tasks

if TYPE_CHECKING:

    from ragjury.evals.results.gates import Gates

EXIT_INTERRUPTED = 130
PANEL_AGENT = "Agent (--agent)"

Task = Enum("Task", [(name, name) for name in dataset_tasks()], type=str)  # type: ignore[misc]
"""The ``--task`` choices: every task whose item class declares it (``@task_entry``), read from
the source text, so ``--help`` imports no item class."""

DEFAULT_JUDGES: dict[str, str] = {task.value: AUTO for task in Task if default_name(task.value) is not None}
"""``auto`` for each task with a default judge (``@judge_entry(..., default=True)``); a task
without one needs ``--judge``."""


def _tasks_text(usage: bool = False) -> str:
    """The ``--task`` choices in a sentence (``a, b or c``) or, for a usage line, ``a|b|c``."""
    choices = [task.value for task in Task]
    if usage or len(choices) == 1:
        return "|".join(choices)
    return f"{', '.join(choices[:-1])} or {choices[-1]}"


def _check_before_judging(
    gates: Gates,
    *,
    task: Task | None,
    agent: bool,
    faithfulness_judge: str,
    correctness_judge: str,
    paths: dict[str, Path | None],
) -> None:
    """User mistakes that would otherwise surface after the whole batch: a gate on a figure this
    run never reports, an output that would overwrite an input (or land in a missing folder)."""
    from ragjury.evals.io.atomic_io import check_output_paths
    from ragjury.evals.io.tasks import task_spec
    from ragjury.evals.results.gates import agent_figures, task_figures

    if agent:
        known = agent_figures(
            faithfulness=faithfulness_judge != "none", correctness=correctness_judge != "none"
        )
    else:
        assert task is not None
        known = task_figures(task_spec(task.value).gold_kind)
    gates.check_names(known)
    outputs = [(name, paths.get(name)) for name in ("--out", "--html", "--junit")]
    if paths.get("--out") is not None:  # the run header written beside the predictions
        from ragjury.evals.io.predictions import header_path

        outputs.append(("--out (its run header)", header_path(paths["--out"])))
    inputs = [(name, paths.get(name)) for name in ("--data", "--labels", "--corpus", "--calibration", "--cache")]
    check_output_paths(outputs, inputs)


@user_errors
@MODEL_CONNECTION
@RUN_OPTIONS.after("fail_on_injection")
@PEOPLE_LABELS.after("max_unscored")
def evaluate(
    data: Annotated[
        Path,
        typer.Option(
            "--data",
            "-d",
            help="Dataset: JSONL, JSON array or CSV (or questions with --agent).",
            rich_help_panel=PANEL_INPUT,
        ),
    ],
    task: Annotated[
        Task | None,
        typer.Option(
            "--task",
            "-t",
            help=f"What the judge decides: {_tasks_text()}.",
            rich_help_panel=PANEL_INPUT,
        ),
    ] = None,
    judge: Annotated[
        list[str] | None,
        typer.Option(
            "--judge",
            help="Judge name for the task ('ragjury judges' describes each). "
            + judge_names_help([task.value for task in Task])
            + " Default: auto (the rule: ragjury judges). Repeat it, or give rubric:FOLDER, to judge "
            "several criteria in one run: a verdict column, a rate and a predictions file (OUT.NAME.jsonl) each.",
            rich_help_panel=PANEL_MODEL,
        ),
    ] = None,
    rubric: Annotated[
        str | None,
        typer.Option(
            "--rubric",
            metavar="TEXT",
            help="Judge a criterion of yours stated in one line (e.g. \"The answer cites a source\"), as "
            "--judge rubric:FILE does with a rubric file (docs/rubrics.md).",
            rich_help_panel=PANEL_MODEL,
        ),
    ] = None,
    mapping: Annotated[
        list[str] | None,
        typer.Option(
            "--map",
            help="field=column when the data names a field differently (repeatable).",
            rich_help_panel=PANEL_INPUT,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write predictions JSONL here.", rich_help_panel=PANEL_OUTPUT),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", "-n", min=1, help="Only the first N rows.", rich_help_panel=PANEL_INPUT),
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Write a self-contained HTML report here.", rich_help_panel=PANEL_OUTPUT),
    ] = None,
    junit: Annotated[
        Path | None,
        typer.Option("--junit", metavar="FILE", help="Also write JUnit XML for CI (dataset runs): a case per item, "
                     "a 'no' verdict failing with its reason, unscored items as errors, the gates as one case.",
                     rich_help_panel=PANEL_OUTPUT),
    ] = None,
    fail_under: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-under",
            help="METRIC=VALUE gate, e.g. kappa=0.5 or tau=0.8 (repeatable); exit 1 below.",
            rich_help_panel=PANEL_GATES,
        ),
    ] = None,
    max_fallback: MaxFallbackOption = None,
    max_unscored: MaxUnscoredOption = None,
    repeats: Annotated[
        int,
        typer.Option(
            "--repeats",
            min=1,
            max=20,
            metavar="K",
            help="Judge every item K times with the same judge (each repeat cached under its own key) and report "
            "how stable the verdicts are: Fleiss' kappa across the repeats and the share of items whose verdict "
            "changed (summary, --json 'stability', the judge card). The figures and gates are repeat 1's.",
            rich_help_panel=PANEL_OUTPUT,
        ),
    ] = 1,
    max_sampled: Annotated[
        float | None,
        typer.Option(
            "--max-sampled",
            min=0.0,
            metavar="N|SHARE",
            help="Fail (exit 1) when P(yes) could not be read (the server returned no logprobs) for more than N "
            "judgments (1 or more), or more than this share of them (below 1): their verdict is the sampled "
            "answer's, not a probability. 0 allows none.",
            rich_help_panel=PANEL_GATES,
        ),
    ] = None,
    fail_on_injection: Annotated[
        bool,
        typer.Option(
            "--fail-on-injection",
            help="Fail (exit 1) when any item's text addresses the judge (\"Note to the evaluator: ...\", fake "
            "system tags, \"output 1\"): flagged by model-free rules, listed with the words either way.",
            rich_help_panel=PANEL_GATES,
        ),
    ] = False,
    agent: Annotated[
        bool,
        typer.Option(
            "--agent",
            help="Run the reference RAG agent over the questions in --data, then judge.",
            rich_help_panel=PANEL_AGENT,
        ),
    ] = False,
    corpus: Annotated[
        Path | None,
        typer.Option(
            "--corpus",
            "-c",
            help="With --agent: passages JSONL {docid, text} to retrieve from.",
            rich_help_panel=PANEL_AGENT,
        ),
    ] = None,
    agent_model: Annotated[
        str | None,
        typer.Option(
            "--agent-model",
            help="With --agent: agent model (default: $RAGJURY_AGENT_MODEL).",
            rich_help_panel=PANEL_AGENT,
        ),
    ] = None,
    retrieval: Annotated[
        str,
        typer.Option(
            "--retrieval",
            help="With --agent: 'tool' (model calls search) or 'pre' (any model).",
            rich_help_panel=PANEL_AGENT,
        ),
    ] = "tool",
    top_k: Annotated[
        int,
        typer.Option(
            "--top-k", "-k", min=1, help="With --agent: passages per search.", rich_help_panel=PANEL_AGENT
        ),
    ] = 5,
    faithfulness_judge: Annotated[
        str,
        typer.Option(
            "--faithfulness-judge",
            help="With --agent: llm, token-overlap or none.",
            rich_help_panel=PANEL_AGENT,
        ),
    ] = "llm",
    correctness_judge: Annotated[
        str,
        typer.Option(
            "--correctness-judge",
            help="With --agent: judge answers against the questions' references "
            "(contains, llm, auto, ...) or none.",
            rich_help_panel=PANEL_AGENT,
        ),
    ] = "none",
    calibration: CalibrationOption = None,
    executor: Annotated[
        str,
        typer.Option(
            "--executor",
            help="process: judge in this process; ray: the items not in the cache as a Ray Data "
            "pipeline on $RAY_ADDRESS's cluster or a local Ray (needs the 'ray' extra).",
        ),
    ] = "process",
    **options: Any,
) -> None:
    """A file of items: judge every one and, where people labelled, measure agreement with them.

    Every judgment is written to the SQLite cache as it completes, so a run that is killed
    (Ctrl-C, crash, power) resumes where it stopped when the same command is run again, with
    nothing judged twice. Cached unscored judgments are retried on re-run (a server that was down
    must not freeze "unscored" forever); --no-retry-unscored keeps them.

    Datasets: JSONL, a JSON array or CSV (list cells as JSON arrays), one row per item. Ragas
    (user_input, response, retrieved_contexts, reference) and DeepEval (input, actual_output,
    retrieval_context, expected_output) column names are detected, and the mapping applied is
    printed on stderr (--json: input_mapping). correctness reads question, answer, references (or
    reference); faithfulness reads answer and contexts (or context); score reads question, answer
    and optional sources. An id, a system and a gold label (label) are optional; with labels the
    summary adds accuracy, Cohen's kappa and, per system, Kendall's tau between the system ranking
    by people and by the judge. --map field=column renames (e.g. --map answer=response).

    Predictions JSONL: id, system, label (score for --task score), gold, the value's details and
    the envelope (judge, model, prompt_version, unscored, unscored_reason, usage, ...).

    Examples:

      ragjury evaluate --task correctness --judge contains --data correctness.jsonl --out preds.jsonl

      ragjury evaluate --task faithfulness --judge llm --data faithfulness.jsonl --limit 200
        --html report.html --fail-under kappa=0.4

      ragjury evaluate --agent --corpus passages.jsonl --data topics.jsonl --limit 5
        --retrieval pre --out answers.jsonl

    --agent: the questions file is {id?, question} or topics {qid, query} (optional references);
    each answer is scored by --judge (auto, llm, heuristic) and checked for faithfulness
    against the passages the agent retrieved. Answers are cached too (key: agent model, prompt,
    retrieval, corpus and question), so a resumed run does not ask the agent again.

    Gate figures (--fail-under): coverage, accuracy, cohen_kappa (kappa),
    binary_krippendorff_alpha (binary_alpha), precision, recall, f1, kendall_tau (tau),
    mean_label; score task: pearson, spearman; --agent: answered, score, faithfulness,
    correctness (means) and their *_coverage.

    Test or custom judges plug in as --judge python:package.module:Factory (called with
    settings=..., must follow the Judge protocol).

    Fallback (--judge auto, or any judge built on FallbackJudge): the summary, --json (judges,
    fallback) and the HTML report name the judges that actually produced the verdicts, e.g.
    "answer_correctness (model M) for 81.5 %, contains as fallback for 18.5 %". With a
    --fail-under gate, any verdict from the fallback fails the run (exit 1) unless --max-fallback
    allows its share: a gate passed by the model-free fallback says nothing about the model.
    Likewise any unscored judgment fails a gated run unless --max-unscored allows its share: the
    gates are computed on the scored items only.

    Exit codes: 0 done, 1 a --fail-under gate (or --max-fallback, --max-unscored) failed, 2 bad input, 3 nothing
    could be scored, 130 interrupted (completed judgments are kept in the cache).
    """
    from ragjury.evals.results.gates import Gates

    gates = Gates.parse(fail_under or [], max_fallback, max_unscored, fail_on_injection=fail_on_injection,
                        max_sampled=max_sampled)
    settings = settings_for(**MODEL_CONNECTION.pick(options))
    run = RunOptions.gather(options)
    labels = options["labels"]
    _check_executor(executor, agent)
    if repeats > 1 and (agent or executor == "ray" or (judge is not None and len(judge) > 1)):
        raise fail("--repeats applies to one judge over a dataset (--task, --executor process)")
    if agent:
        judge_name, checks = agent_judges(
            corpus=corpus, task=task.value if task else None, retrieval=retrieval, mapping=mapping, rubric=rubric,
            dry_run=run.dry_run, judge=judge, faithfulness_judge=faithfulness_judge,
            correctness_judge=correctness_judge)
        criteria = None
    else:
        judge_name, criteria, checks = _dataset_judges(task, judge, rubric, run.dry_run, calibration, executor)
    resolved = _resolved(checks)
    criteria_specs = [j for _, j in checks if isinstance(j, JudgeSpec)] if criteria is not None else []
    _check_before_judging(
        gates, task=task, agent=agent, faithfulness_judge=faithfulness_judge, correctness_judge=correctness_judge,
        paths={"--out": out, "--html": html, "--junit": junit, "--data": data, "--labels": labels,
               "--corpus": corpus if agent else None, "--calibration": calibration,
               "--cache": run.cache_file(settings)})
    if criteria is not None and task is not None:
        from ragjury.commands.evaluate_criteria import check_criterion_outputs

        check_criterion_outputs(
            criteria_specs, {spec: resolved[(task.value, spec)] for spec in criteria}, settings, out=out, html=html,
            junit=junit, inputs=[("--data", data), ("--calibration", calibration), ("--cache", run.cache_file(settings))])
    _check_agent_options(agent, junit=junit, calibration=calibration, labels=labels)
    judge_spec = next((j for _, j in checks if isinstance(j, JudgeSpec) and j.value == judge_name), judge_name)
    judge_options = calibration_options(calibration, task.value, judge_spec, settings.judge_model) if task else {}
    people = None  # people's labels, read once before judging (evals.io.people), joined to the rows with their weights
    if labels is not None and task is not None and not agent:
        from ragjury.evals.io.people import read_people
        from ragjury.evals.io.tasks import task_spec

        people = read_people(labels, task_spec(task.value).gold_kind, allow_shown_judge=options["allow_shown_judge"])
    planned: list[tuple[str, int]] = []  # a several-criteria run: each criterion and its rows

    def start(common: dict[str, Any]) -> Any:
        """The mode this command line asked for: an agent's answers (run here), several criteria or
        one judge (their judging returned, with what finishes it, for this frame to run)."""
        if agent:
            assert corpus is not None
            evaluate_agent_run(data=data, corpus=corpus, judge_name=judge_name, faithfulness_judge=faithfulness_judge,
                               correctness_judge=correctness_judge, agent_model=agent_model, retrieval=retrieval,
                               top_k=top_k, **common)
            return None
        assert task is not None
        if criteria is not None:
            from ragjury.commands.evaluate_criteria import prepare_criteria_run

            return prepare_criteria_run(
                planned=planned, task=task.value, data=data, judge_specs=criteria_specs,
                resolved={spec: resolved[(task.value, spec)] for spec in criteria}, mapping=mapping or [],
                junit=junit, labels=people, **common)
        return prepare_dataset_run(
            task=task.value, data=data, judge_name=judge_name, resolved=resolved[(task.value, judge_name)],
            judge_spec=judge_spec if isinstance(judge_spec, JudgeSpec) else None,
            mapping=mapping or [], judge_options=judge_options, executor=executor, junit=junit, labels=people,
            repeats=repeats, **common)

    from ragjury.evals.runs.runner import interrupted_message, recording_runs

    cache = run.open_cache(settings)
    common = dict(out=out, limit=limit, html=html, gates=gates, settings=settings, run=run, cache=cache)
    trace_session = None if run.dry_run else start_trace(run.trace, settings)
    with recording_runs() as started:  # each run's stats: a Ctrl-C'd run's --json owes its counts
        try:
            pending = start(common)
            if pending is not None:  # judged from this frame: the CLI's path to the model stays short
                judged, finish = pending
                finish(run_sync(judged))
        except KeyboardInterrupt:
            stderr.print(interrupted_message(cache), highlight=False, soft_wrap=True)
            if run.json_output:  # a script reading stdout learns the run stopped, and how far it got
                _print_interrupted(task.value if task else None, criteria or judge_name, planned, started)
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except UnknownJudgeError as error:
            raise fail(str(error)) from None
        finally:
            if cache is not None:
                cache.close()
            end_trace(trace_session)


def _check_executor(executor: str, agent: bool) -> None:
    if executor not in ("process", "ray"):
        raise fail(f"--executor must be process or ray, got {executor!r}")
    if executor == "ray" and agent:
        raise fail("--executor ray applies to dataset evaluation (--task), not to --agent")


def _dataset_judges(task: Task | None, judge: list[str] | None, rubric: Path | None, dry_run: bool,
                    calibration: Path | None, executor: str
                    ) -> tuple[str, list[str] | None, list[tuple[str, str | JudgeSpec]]]:
    """The judge name, the criteria of a several-judge run (None for one judge) and the (task, judge)
    pairs to resolve, for a run over a dataset: each ``--judge`` parsed here, once, and that
    ``JudgeSpec`` handed to the catalogue."""
    if task is None:
        raise fail(f"give --task {_tasks_text(usage=True)} (or --agent with --corpus)")
    from ragjury.commands.evaluate_criteria import dataset_judges

    specs = dataset_judges(task.value, judge, rubric, default=DEFAULT_JUDGES.get(task.value), dry_run=dry_run,
                           calibration=calibration, executor=executor)
    names = [spec.value for spec in specs]
    return names[0], (names if len(names) > 1 else None), [(task.value, spec) for spec in specs]


def _resolved(checks: list[tuple[str, str | JudgeSpec]]) -> dict[tuple[str, str], Any]:
    """Each (task, judge) the run needs, resolved once (an unknown name is a user mistake), keyed by
    the judge's words; a parsed ``JudgeSpec`` goes to the catalogue as it is."""
    out = {}
    for check_task, judge in checks:
        name = judge.value if isinstance(judge, JudgeSpec) else judge
        if name == "none" and check_task != "score":
            continue
        try:
            out[(check_task, name)] = resolve(check_task, judge)
        except UnknownJudgeError as error:
            raise fail(str(error)) from None
    return out


def _check_agent_options(agent: bool, *, junit: Path | None, calibration: Path | None,
                         labels: Path | None = None) -> None:
    if junit is not None and agent:
        raise fail("--junit applies to dataset evaluation (--task), not to --agent")
    if calibration is not None and agent:
        raise fail("--calibration applies to dataset evaluation (--task), not to --agent")
    if labels is not None and agent:  # accepted without effect would read as measured
        raise fail("--labels applies to dataset evaluation (--task), not to --agent")


def _print_interrupted(task: str | None, judge: object, planned: list[tuple[str, int]], started: list[Any]) -> None:
    """--json of a run Ctrl-C stopped: its counts so far (per criterion for several), interrupted."""
    if planned:
        from ragjury.commands.evaluate_criteria import interrupted_counts

        counts = interrupted_counts(planned, started)
    else:
        counts = _counts_so_far(started)
    print_json({"task": task, "judge": judge, **counts, "interrupted": True}, command="evaluate")


def _counts_so_far(started: list[Any]) -> dict[str, object]:
    """The counts of the runs this command started (``recording_runs``) before Ctrl-C stopped
    them (n, scored, unscored, cached, judged, ...); empty when it stopped before judging began."""
    from functools import reduce

    return reduce(lambda a, b: a.merge(b), started).as_dict() if started else {}


def register(app: typer.Typer) -> None:
    app.command("evaluate")(evaluate)


__all__ = ["DEFAULT_JUDGES", "EXIT_INTERRUPTED", "Task", "evaluate", "register"]
