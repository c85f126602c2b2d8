"""``ragjury label-plan``: pick the items people should label, favouring those the judge is unsure of."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ragjury.commands._common import JsonOption, check_one_or_two_runs, fail, print_json, stdout, user_errors
from ragjury.rag_agent.core.text import printable


@user_errors
def label_plan(
    predictions: Annotated[
        list[Path],
        typer.Argument(help="Predictions JSONL from 'ragjury evaluate --out'; two files (config A's, then config "
                       "B's) give a paired plan: the same questions for both; more give one for every config of a "
                       "sweep ('report RUN1 ... RUNn --labels').", metavar="PRED.jsonl [B.jsonl ...]"),
    ],
    budget: Annotated[int, typer.Option("--budget", min=1, help="About how many items people will label, in all.")],
    out: Annotated[Path, typer.Option("--out", help="The plan: one JSONL row per item to label, 'label': null to fill in.")],
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**32 - 1, help="Random seed of the draw (0 to 2**32 - 1).")] = 0,
    json_output: JsonOption = False,
) -> None:
    """Pick about BUDGET items for people to label, more of those the judge is unsure of.

    Each item's chance grows with the judge's uncertainty (its probability near 0.5), mixed with
    a uniform share so that no item's weight explodes; the budget is split across systems by
    their size. Each row records its inclusion_probability, so 'ragjury estimate --labels'
    weights every label by how likely it was to be picked and the estimate stays unbiased. A
    judge with 0/1 verdicts only gives every item the same chance. About BUDGET: each item is
    drawn independently, so the count varies a little. Unequal chances cost effective labels: the
    uniform share is raised until Kish's effective sample size is at least 70 % of the expected
    labels, and the plan prints it.

    Two files, config A's and config B's runs, give a paired plan: about BUDGET/2 questions both
    answered (joined on the question text, whatever ids the runs carry), each labelled for both
    configs, a question's chance growing with both judges' uncertainty; 'ragjury estimate A B
    --labels' then gives B − A as people would judge it.

    Example:

      ragjury label-plan preds.jsonl --budget 40 --out to-label.jsonl

      ragjury label-plan A.jsonl B.jsonl --budget 100 --out to-label.jsonl

    then label them in a local page, blind to the judge ('ragjury label to-label.jsonl --out
    labels.jsonl'), and run 'ragjury estimate preds.jsonl --labels labels.jsonl' (a plan whose
    "label" column you filled in by hand works as --labels too).
    """
    from ragjury.evals.io.atomic_io import check_output_paths, write_text_atomic
    from ragjury.evals.io.json_contract import paths
    from ragjury.evals.pipelines.label_plan_run import plan_labels
    from ragjury.evals.stats.label_plan import MIN_EFFECTIVE_SHARE

    many = len(predictions) > 2  # many configs (issue #56): every picked question labelled for every config
    if not many:
        check_one_or_two_runs(predictions)
    check_output_paths([("--out", out)], [(f"PRED.jsonl #{k + 1}", path) for k, path in enumerate(predictions)])
    if many:
        from ragjury.commands.report_sweep import check_distinct
        from ragjury.evals.pipelines.sweep_label_plan import plan_from_files

        check_distinct(predictions)

        try:
            plan = plan_from_files(predictions, budget, seed=seed)
        except ValueError as error:
            raise fail(str(error)) from None
    else:
        plan = plan_labels(predictions if len(predictions) == 2 else predictions[0], budget, seed=seed)
    write_text_atomic(out, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in plan.rows))
    if json_output:
        print_json(
            {
                "budget": budget,
                "picked": len(plan.rows),
                "uniform": plan.uniform,
                "expected_labels": round(plan.expected, 1),
                "effective_labels": round(plan.effective, 1),
                "uniform_share": plan.shares,
                "systems": {name: {"items": n, "picked": k} for name, (n, k) in plan.systems.items()},
                "paired_questions": plan.paired or None,
                "unpaired_rows": plan.unpaired,
                "inputs": paths(predictions=predictions[0] if len(predictions) == 1 else predictions),
                "outputs": paths(plan=out),
            },
            command="label-plan",
        )
        return
    unnamed = list(plan.systems) == ["all"] and all(row.get("system") is None for row in plan.rows)
    per_system = ", ".join(
        f"{k} of {n}" if unnamed else f"{printable(str(name))} {k} of {n}" for name, (n, k) in plan.systems.items()
    )
    how = "every item the same chance (the judge gave 0/1 verdicts only)" if plan.uniform else "uncertain items favoured"
    stdout.print(f"{len(plan.rows)} items to label ({per_system}); {how}", highlight=False, soft_wrap=True)
    if not plan.uniform:
        stdout.print(
            f"effective sample size {plan.effective:.0f} of {plan.expected:.0f} expected labels (Kish; kept ≥ "
            f"{MIN_EFFECTIVE_SHARE:.0%} by raising the uniform share where needed)",
            highlight=False,
            soft_wrap=True,
        )
    if plan.paired and many:
        stdout.print(f"paired: the same {len(plan.rows) // len(predictions)} questions for all {len(predictions)} "
                     f"configs, drawn from the {plan.paired:,} every run scored; questions where the configs that "
                     "could be best and the baseline disagree favoured", highlight=False, soft_wrap=True)
    elif plan.paired:
        stdout.print(f"paired: the same {len(plan.rows) // 2} questions for both configs, drawn from the {plan.paired:,} "
                     "both answered", highlight=False, soft_wrap=True)
        for name, count in (plan.unpaired or {}).items():
            if count:
                stdout.print(f"note: {count:,} rows of {name} answer a question the other config did not (or left "
                             "unscored): not in the plan", style="yellow", highlight=False, soft_wrap=True)
    runs = " ".join(str(path) for path in predictions)
    stdout.print(f"plan written to {out}: label it with 'ragjury label {out} --out LABELS.jsonl', then "
                 f"'ragjury {'report' if many else 'estimate'} {runs} --labels LABELS.jsonl'", highlight=False,
                 soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("label-plan")(label_plan)


__all__ = ["label_plan", "register"]
