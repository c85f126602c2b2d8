"""``ragjury judges``: the judge catalogue -- every name ``--judge`` accepts, per task.

Read from the judges' declarations (``@judge_entry`` beside each class) without importing them,
so it answers at once and lists judges whose optional extra is not installed.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich import box
from rich.table import Table

from ragjury.commands._common import JsonOption, fail, print_json, stdout, user_errors
from ragjury.rag_agent.judges import catalogue
from ragjury.rag_agent.judges.catalogue import tasks as judged_tasks  # source read: no judge imported
from ragjury.rag_agent.judges.catalogue import JUDGE_RULE, UnknownJudgeError

TaskOption = Annotated[
    str | None, typer.Option("--task", "-t", help=f"Only this task ({', '.join(judged_tasks())}).")
]


def catalogue_rows(task: str | None = None) -> list[dict[str, object]]:
    """One row per ``--judge`` name: task, name, scale, model or not, fallback, description."""
    tasks = catalogue.tasks()
    if task is not None and task not in tasks:
        raise UnknownJudgeError(f"unknown task '{task}'; valid tasks: {', '.join(tasks)}")
    rows: list[dict[str, object]] = []
    declared = catalogue.declared()
    for current in [task] if task else tasks:
        for (t, name), found in declared.items():
            if t == current:
                rows.append(
                    {
                        "task": t,
                        "name": name,
                        "scale": found.scale,
                        "model": found.uses_model or found.uses_embeddings,
                        "model_kind": "llm" if found.uses_model else "embeddings" if found.uses_embeddings else None,
                        "fallback": found.fallback,
                        "default": found.default,
                        "description": found.description,
                    }
                )
        default = catalogue.default_name(current)
        if default is not None:
            fallback = declared[(current, default)].fallback
            rows.append(
                {
                    "task": current,
                    "name": catalogue.AUTO,
                    "scale": declared[(current, default)].scale,
                    "model": True,
                    "model_kind": "llm",
                    "fallback": fallback,
                    "default": False,
                    "description": f"{default}" + (f", '{fallback}' answering where it fails" if fallback else " (no fallback)"),
                }
            )
    return rows


@user_errors
def judges(task: TaskOption = None, json_output: JsonOption = False) -> None:
    """List every judge: the names --judge accepts for each task, their scale and fallback.

    Also: --judge panel:A,B,C (majority) or panel-mean:A,B,C (mean probability) of any judges
    of one task, and --judge python:module:Factory for your own. A new judge is one class
    file with @judge_entry in rag_agent/judges/llm/ (LLM) or rag_agent/judges/model_free/ (no model).
    """
    try:
        rows = catalogue_rows(task)
    except UnknownJudgeError as error:  # one line, without user_errors' type-name prefix
        raise fail(str(error)) from None
    if json_output:
        print_json({"judges": rows}, command="judges")
        return

    stdout.print("ragjury judges (--judge NAME); * the LLM judge auto builds on", highlight=False)
    stdout.print(JUDGE_RULE, highlight=False)
    for current in dict.fromkeys(str(row["task"]) for row in rows):
        stdout.print(judges_table(current, [row for row in rows if row["task"] == current]))
    for line in YOUR_OWN:  # lines of at most 80 characters: the listing reads at 80 columns
        stdout.print(line, highlight=False, markup=False, soft_wrap=True)


YOUR_OWN: tuple[str, ...] = (
    "Your own judges (--judge VALUE, for the tasks that take them):",
    "  rubric:FILE         a rubric judged by the LLM (rubric:FOLDER: each rubric in",
    "                      it as its own criterion; docs/rubrics.md)",
    "  rubric-text:TEXT    a one-line criterion, without a file (or --rubric TEXT)",
    "  fitted:HEAD         a head fitted on your labels by 'ragjury fit'",
    "  cross-encoder:DIR   a local classifier folder (config, weights, tokenizer)",
    "                      giving P(yes): relevance, correctness, faithfulness",
    "  panel:A,B,C         majority of several judges of one task (panel-mean: the",
    "                      mean probability)",
    "  python:module:Class your own judge class (docs/extending.md)",
    "None of these was measured by the team: label a few items ('ragjury label')",
    "to measure them on your data.",
)
"""The ``--judge`` values that are not catalogue names: printed after the tables."""

MODEL_KINDS = {"llm": "LLM", "embeddings": "embeddings", None: "-"}
"""What the model column says: an LLM, an embedding model (the ``embeddings`` extra), or none."""


def judges_table(task: str, rows: list[dict[str, object]]) -> Table:
    """One task's judges, narrow enough for 80 columns: the fallback is said in the description
    (a column of its own squeezed the descriptions into one word per line)."""
    table = Table(title=task, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("name", no_wrap=True)
    table.add_column("scale", no_wrap=True)
    table.add_column("model", no_wrap=True)
    table.add_column("description", ratio=1)
    for row in rows:
        description = str(row["description"])
        if row["fallback"] and row["default"]:
            description += f"; auto adds {row['fallback']} as its fallback"
        table.add_row(
            str(row["name"]) + (" *" if row["default"] else ""),
            str(row["scale"]),
            MODEL_KINDS.get(row.get("model_kind"), "-"),  # type: ignore[arg-type]
            description,
        )
    return table


def register(app: typer.Typer) -> None:
    app.command("judges")(judges)


__all__ = ["MODEL_KINDS", "catalogue_rows", "judges", "judges_table", "register"]
