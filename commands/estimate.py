"""``ragjury estimate``: each system's rate as people would measure it, from the judge and a few labels."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from ragjury.commands._common import (
    PEOPLE_LABELS,
    JsonOption,
    check_one_or_two_runs,
    fail,
    print_json,
    stderr,
    stdout,
    user_errors,
)
from ragjury.commands.estimates_output import print_estimates


@user_errors
@PEOPLE_LABELS.after("predictions")
def estimate(
    predictions: Annotated[
        list[Path],
        typer.Argument(help="Predictions JSONL from 'ragjury evaluate --out'; two files (config A's, then "
                       "config B's) estimate each config and B − A, joined on the question; three or more "
                       "(with --labels) rank the configs as people would judge them, as 'report RUN1 ... RUNn "
                       "--labels' does.",
                       metavar="PRED.jsonl [B.jsonl ...]"),
    ],
    compare: Annotated[
        tuple[str, str] | None,
        typer.Option("--compare", metavar="A B", help="Also estimate B − A (system B minus system A, in points), "
                     "with a p-value."),
    ] = None,
    overall: Annotated[
        bool, typer.Option("--overall", help="One estimate over all items instead of one per system.")
    ] = False,
    level: Annotated[float, typer.Option("--level", min=0.5, max=0.999, help="Interval coverage.")] = 0.95,
    fit: Annotated[
        bool,
        typer.Option("--fit", help="Replace the judge by a head fitted on these labels (as 'ragjury fit' does), "
                     "cross-fitted so the interval stays valid: correctness and faithfulness."),
    ] = False,
    train: Annotated[
        bool,
        typer.Option("--train", help="Replace the judge by cross-encoders trained on these labels (as 'ragjury "
                     "train' does), cross-trained so the interval stays valid: 5 trainings (needs torch)."),
    ] = False,
    train_base: Annotated[
        Path | None,
        typer.Option("--train-base", help="With --train: start each training from this model folder (one "
                     "'ragjury train' wrote) instead of all-MiniLM-L6-v2."),
    ] = None,
    json_output: JsonOption = False,
    **options: Any,
) -> None:
    """Each system's rate as people would measure it: the judge on every item, people on a few.

    A judge's mean is biased (a strict judge under-states every system) and its interval cannot
    see that. Prediction-powered inference (PPI++) corrects the judge's mean with the labelled
    items and gives an interval that holds for the people's rate; it is narrower than the
    labels' own interval when the judge tracks them, and falls back to it (λ ≈ 0) when it
    does not. Three estimates per system: judge only, people only, prediction-powered.

    Label at least 50 items per system, with at least 10 of each class; 'ragjury label-plan'
    picks which. Below 50 labels a system gets a warning with the coverage measured there
    (bench/bench_ppi.py, confirm half: 0.94–0.97 from 50 labels, 0.91–1.00 below). Intervals are jackknife
    t-intervals with λ cross-fitted, clipped to [0, 1]; labels all of one class get Wilson's
    interval. --compare A B estimates B − A (in points: positive when B does better) from every
    label of both systems, paired where a question was labelled for both.

    Two files, config A's run and config B's (each from 'ragjury evaluate --out'), are joined on
    the question whatever ids they carry: each config's rate as people would judge it and B − A.
    'ragjury label-plan A.jsonl B.jsonl' draws the same questions for both (the paired design).

    Then the judge card of the labelled items: per system the judge's rate minus people's
    (leniency) and Cohen's κ, and whether the judge says yes more to longer answers at the
    same label, each with a 95 % interval; a bias is named only when its interval excludes 0.

    Example (250 questions, 2 systems, people's label on 60 of each):

      ragjury evaluate --task correctness --judge contains --data examples/data/systems.jsonl --out preds.jsonl

      ragjury estimate preds.jsonl --compare chatgpt fid

    Two configs, people's labels from a plan over both:

      ragjury label-plan A.jsonl B.jsonl --budget 100 --out plan.jsonl

      ragjury label plan.jsonl --out labels.jsonl

      ragjury estimate A.jsonl B.jsonl --labels labels.jsonl

    Exit codes: 0 done, 2 bad input (no labels, labels all one class, ids that match nothing).
    """
    from ragjury.evals.io.json_contract import paths
    from ragjury.evals.pipelines.system_estimates_run import estimate_predictions

    labels, allow_shown_judge = options["labels"], options["allow_shown_judge"]
    if compare and compare[0] == compare[1]:
        raise fail(f"--compare: A and B are both {compare[0]!r}; give two different systems")
    if len(predictions) > 2:
        _many_configs(predictions, labels=labels, allow_shown_judge=allow_shown_judge, json_output=json_output,
                      refused={"--compare": bool(compare), "--overall": overall, "--fit": fit, "--train": train,
                               "--level": level != 0.95})
        return
    check_one_or_two_runs(predictions)
    if fit and train:
        raise fail("--fit and --train each replace the judge's scores: give one")
    if train_base is not None and not train:
        raise fail("--train-base is the starting model of --train: add --train")
    if train_base is not None and not (train_base / "config.json").is_file():
        raise fail(f"--train-base {train_base}: no config.json there (give a folder 'ragjury train' wrote)")
    if train:
        from ragjury.evals.training.cross_encoder import require_torch

        try:
            require_torch()
        except RuntimeError as error:
            raise fail(f"--train: {error}") from None
    if len(predictions) == 2 and (compare or overall):
        raise fail("two files are compared as A and B already: leave out --compare and --overall")
    source = predictions if len(predictions) == 2 else predictions[0]
    result = estimate_predictions(
        source, labels=labels, by_system=not overall, compare=list(compare) if compare else None, level=level,
        fit=fit, train=train, train_base=train_base, allow_shown_judge=allow_shown_judge,
        say=(lambda line: stderr.print(line, highlight=False, markup=False)) if train else None,
    )
    if allow_shown_judge and labels is not None:
        result.notes.append(f"--allow-shown-judge: labels in {labels} given with the judge's verdict shown are counted")
    if json_output:
        inputs = paths(predictions=predictions[0] if len(predictions) == 1 else predictions, labels=labels)
        print_json({**result.as_dict(), "inputs": inputs}, command="estimate")
        return
    print_estimates(result)
    sequence = result.sequential  # labels gathered by label --until (the acts say so): the valid interval
    if sequence is not None:
        stdout.print(f"labels gathered until settled (label --until \"{sequence.as_dict()['until']}\"): only the "
                     f"confidence sequence is valid for them: {sequence.words}", highlight=False, soft_wrap=True,
                     markup=False)
        stdout.print("the fixed-n intervals above assume the number of labels was fixed in advance; stopping at "
                     "'settled' makes them cover less than they say" + (" (B − A above is the sequence's)" if
                     result.comparison is not None and result.comparison.p_value != result.comparison.p_value else ""),
                     highlight=False, soft_wrap=True, markup=False)


def _many_configs(predictions: list[Path], *, labels: Path | None, allow_shown_judge: bool, json_output: bool,
                  refused: dict[str, bool]) -> None:
    """``estimate RUN1 ... RUNn --labels L``: each config's rate as people would judge it and the ranking,
    the very figures ``report RUN1 ... RUNn --labels L`` gives (one ``Sweep``, its simultaneous intervals)."""
    from ragjury.commands.report_sweep import sweep_report

    given = [flag for flag, value in refused.items() if value]
    if given:
        raise fail(f"{', '.join(given)}: with {len(predictions)} runs each config is estimated against the others "
                   "at once (as report RUN1 ... RUNn --labels does); leave out " + ", ".join(given))
    if labels is None:
        raise fail(f"estimate with {len(predictions)} runs needs people's labels: --labels L (from 'ragjury "
                   f"label-plan {' '.join(str(p) for p in predictions)} --budget B', then 'ragjury label'); without "
                   "labels, 'ragjury report RUN1 ... RUNn' ranks the judge's rates")
    sweep_report(predictions, baseline=None, fail_if_worse=None, allow_missing=False, html=None, title=None,
                 junit=None, json_output=json_output, unsupported={}, labels=labels,
                 allow_shown_judge=allow_shown_judge, command="estimate")


def register(app: typer.Typer) -> None:
    app.command("estimate")(estimate)


__all__ = ["estimate", "register"]
