"""``ragjury train``: a cross-encoder judge fine-tuned on your labels, written as a folder any door reads.

Why a command: ``fit`` learns a logistic head over signals a run already has; where those signals are
weak (relevance), a small model that reads the pair itself can do better, judging in milliseconds.
The folder (weights, tokenizer, ``model.onnx``, ``ragjury.json`` with its card) is used with
``--judge cross-encoder:DIR``; judging needs only onnxruntime, training needs torch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ragjury.commands._common import (
    PANEL_INPUT,
    PANEL_MODEL,
    PANEL_OUTPUT,
    JsonOption,
    NoProgressOption,
    PEOPLE_LABELS,
    RelevancePassagesOption,
    RelevanceTopicsOption,
    fail,
    print_json,
    stderr,
    stdout,
    user_errors,
)
from ragjury.commands.fit import _kappa_text, gain_verdict
from ragjury.evals.io.json_contract import paths


def _check_base(base: Path | None, task: str) -> None:
    """``--base`` must be a folder a model was saved in, trained (if by ragjury) for this task."""
    if base is None:
        return
    if not (base / "config.json").is_file():
        raise fail(f"--base {base}: no config.json there (give a folder written by `ragjury train`)")
    sidecar = base / "ragjury.json"
    if sidecar.is_file():
        try:
            declared = json.loads(sidecar.read_text(encoding="utf-8")).get("task")
        except (OSError, ValueError, AttributeError) as error:
            raise fail(f"{sidecar}: not a ragjury.json ({error})") from None
        if declared not in (None, task):
            raise fail(f"--base {base} was trained for {declared}, not {task}")


def _check_out(out: Path, inputs: list[tuple[str, Path | None]]) -> None:
    """``--out`` is replaced whole, so it must be a new folder, an empty one, or a model folder ragjury
    wrote (never ``.`` or a home folder), and hold none of the inputs."""
    if out.exists() or out.is_symlink():
        if not out.is_dir() or out.is_symlink():
            raise fail(f"--out {out} is a file: give a folder")
        from ragjury.evals.training.model_folder import SIDECAR, WRITTEN_BY, written_by_train

        if any(out.iterdir()) and not (out / SIDECAR).is_file():
            raise fail(f"--out {out} is a folder with other files in it, and it would be replaced: give a new folder "
                       "(or one 'ragjury train' wrote)")
        if any(out.iterdir()) and not written_by_train(out):
            raise fail(f"--out {out}: its {SIDECAR} does not say `{WRITTEN_BY}` wrote the folder (written_by), so it "
                       "is not replaced: give a new folder (or one 'ragjury train' wrote)")
    target = out.resolve()
    for option, path in inputs:
        if path is not None and (path.resolve() == target or target in path.resolve().parents):
            raise fail(f"--out {out} holds the input {option} {path}, and it would be replaced: give another folder")


@user_errors
@PEOPLE_LABELS.after("passages")
def train(
    task: Annotated[str, typer.Option("--task", "-t", help="relevance, correctness or faithfulness.",
                                      rich_help_panel=PANEL_INPUT)],
    data: Annotated[Path, typer.Option(
        "--data", "-d", help="Your labelled items: a JSONL dataset with a label per row, or for relevance gold "
        "TREC qrels (grades 0-3, relevant = 2 or more) with --topics and --passages.", rich_help_panel=PANEL_INPUT)],
    out: Annotated[Path, typer.Option("--out", "-o", help="The model folder to write (replaced only once the new "
                                      "one is complete).", rich_help_panel=PANEL_OUTPUT)],
    topics: RelevanceTopicsOption = None,
    passages: RelevancePassagesOption = None,
    base: Annotated[Path | None, typer.Option(
        "--base", help="Start from this model folder (one `ragjury train` wrote, e.g. on public labelled data of "
        "the task) instead of all-MiniLM-L6-v2.", rich_help_panel=PANEL_MODEL)] = None,
    teacher: Annotated[Path | None, typer.Option(
        "--teacher", help="A predictions file of the same task ('ragjury evaluate --out', e.g. the llm judge's) "
        "whose P(yes) on items people did not label the model also learns, as soft targets.",
        rich_help_panel=PANEL_INPUT)] = None,
    teacher_weight: Annotated[float, typer.Option("--teacher-weight", min=0.0, max=1.0, help="With --teacher: "
                                                  "the weight of a teacher's target (a person's label weighs 1).",
                                                  rich_help_panel=PANEL_MODEL)] = 0.5,
    epochs: Annotated[int, typer.Option("--epochs", min=1, max=50, help="Passes over the labelled items.",
                                        rich_help_panel=PANEL_MODEL)] = 3,
    learning_rate: Annotated[float, typer.Option("--learning-rate", min=1e-7, max=1e-2, help="AdamW's peak rate "
                                                 "(warm-up, then linear decay).", rich_help_panel=PANEL_MODEL)] = 4e-5,
    max_length: Annotated[int, typer.Option("--max-length", min=16, max=512, help="Tokens of the pair read (the "
                                            "longer text is cut first).", rich_help_panel=PANEL_MODEL)] = 160,
    folds: Annotated[int, typer.Option("--folds", min=0, max=20, help="Cross-validation trainings for the card's "
                                       "figures (each costs one training); 0: none.")] = 5,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=20, help="Use a seeded sample of N labelled "
                                              "items.", rich_help_panel=PANEL_INPUT)] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the head, the order and the folds: the same "
                                      "data and seed give the same weights.")] = 0,
    no_progress: NoProgressOption = False,
    json_output: JsonOption = False,
    **options: Any,
) -> None:
    """Fine-tune a cross-encoder judge on labelled items, with its cross-validated figures.

    The model reads each item's text pair (relevance: query and passage; faithfulness: context and
    answer; correctness: question and references, then the answer) and learns P(yes) from people's
    labels. It starts from all-MiniLM-L6-v2 (the MiniLM wheel of the train extra) or from --base: a
    model trained first on public labelled data of the task, then adapted to yours, does best (see
    docs/training.md). The figures come from --folds trainings, each judging items it never saw,
    beside the judge it would replace; then the final model trains on every label. Judge with
    --judge cross-encoder:OUT in every command (only onnxruntime needed).

    Examples:

      ragjury train --task correctness --data examples/data/correctness.jsonl --out out/ce --folds 0

      ragjury train --task relevance --data qrels.txt --topics topics.jsonl --passages passages.jsonl
        --base out/dl-base --out out/my-relevance

      ragjury train --task correctness --data labelled.jsonl --teacher llm-preds.jsonl --out out/ce

    Exit codes: 0 written, 2 bad input (or too few labels of a class, or torch missing).
    """
    from ragjury.evals.pipelines.calibration_data import calibration_items

    if task not in ("correctness", "faithfulness", "relevance"):
        raise fail(f"--task must be relevance, correctness or faithfulness, got '{task}'")
    if task != "relevance" and (topics is not None or passages is not None):
        raise fail(f"--topics and --passages are for --task relevance, not {task}")
    labels = options["labels"]  # people's labels (PEOPLE_LABELS), read once by calibration_items
    _check_out(out, [("--data", data), ("--labels", labels), ("--topics", topics), ("--passages", passages),
                     ("--base", base), ("--teacher", teacher)])
    _check_base(base, task)
    try:
        items, gold = calibration_items(task, data, topics=topics, passages=passages, limit=limit, seed=seed,
                                        labels=labels, allow_shown_judge=options["allow_shown_judge"])
    except ValueError as error:
        raise fail(f"{data}: {error}" if str(data) not in str(error) else str(error)) from None
    binary = [g >= 2 if task == "relevance" else bool(g) for g in gold]
    from ragjury.evals.pipelines.train_run import check_labels, train_judge

    try:
        check_labels(binary)
    except ValueError as error:
        raise fail(f"{data}: {error}") from None
    try:
        from ragjury.evals.training.cross_encoder import Recipe, require_torch

        require_torch()
    except RuntimeError as error:
        raise fail(str(error)) from None
    soft: list = []
    if teacher is not None:
        from ragjury.evals.pipelines.train_run import teacher_pairs
        from ragjury.rag_agent.judges.model_free.cross_encoder import pair_texts

        try:
            soft = teacher_pairs(task, teacher, [pair_texts(task, item) for item in items])
        except ValueError as error:
            raise fail(f"{teacher}: {error}" if str(teacher) not in str(error) else str(error)) from None
        if not soft:
            raise fail(f"--teacher {teacher}: no scored item with a probability and text that people did not label")
    recipe = Recipe(epochs=epochs, learning_rate=learning_rate, max_length=max_length, seed=seed)
    trainings = (folds + 1) if folds >= 2 else 1
    stderr.print(f"training {trainings} model{'s' if trainings > 1 else ''} on {len(binary)} labelled items "
                 f"({sum(binary)} yes)" + (f" and {len(soft)} of the teacher's" if soft else "") + f", {epochs} epoch{'s' if epochs > 1 else ''} each"
                 + (f": {folds} for the cross-validated figures, then the final one" if folds >= 2 else ""),
                 highlight=False, markup=False)
    from ragjury.evals.training.model_folder import write_folder

    from ragjury.evals.training.cross_encoder import UnloadableModel

    with _progress(no_progress) as progress:
        try:
            trained = train_judge(task, items, binary, base=base, recipe=recipe, folds=folds if folds >= 2 else 0,
                                  fitted_on=str(data), progress=progress, teacher=soft,
                                  teacher_weight=teacher_weight)
        except UnloadableModel as error:
            raise fail(f"--base {error}" if base is not None else str(error)) from None
        except ValueError as error:
            raise fail(f"{data}: {error}") from None
    write_folder(trained.model, trained.tokenizer, out, trained.sidecar)
    card = trained.sidecar["card"]
    if json_output:
        print_json({"task": task, "n": card["n"], "positives": card["positives"], "folds": card["folds"],
                    "cross_validated": card.get("cross_validated"), "base": card.get("base"), "gain": card.get("gain"),
                    "gain_interval": card.get("gain_interval"), "training_seconds": card["training_seconds"],
                    "teacher": card.get("teacher"), "seed": seed,
                    "inputs": paths(data=data, labels=labels, topics=topics, passages=passages, base=base,
                                    teacher=teacher), "outputs": paths(model=out)}, command="train")
        return
    figures = card.get("cross_validated")
    if figures:
        stdout.print(f"{task} cross-encoder on {card['n']} labelled items ({card['positives']} yes): "
                     f"{_kappa_text(figures)} on items each fold never saw", highlight=False, markup=False)
        if card.get("base"):
            name, gain, interval = card["base"]["judge"], card.get("gain"), card.get("gain_interval")
            verdict = gain_verdict({"gain": gain, "gain_interval": interval}, "it", keep=f"keep {name}")
            stdout.print(f"  {name} on the same items: {_kappa_text(card['base'])}; the trained model {verdict}",
                         highlight=False, markup=False)
    else:
        stdout.print(f"{task} cross-encoder on {card['n']} labelled items ({card['positives']} yes); no "
                     "cross-validated figures (--folds 0)", highlight=False, markup=False)
    stderr.print(f"written {out} (final model trained in {card['training_seconds']:.0f} s): use it with "
                 f"--judge cross-encoder:{out}", highlight=False, markup=False)


class _progress:
    """A rich progress bar per training on stderr (step, loss, time left); nothing with --no-progress."""

    def __init__(self, off: bool) -> None:
        self.off = off
        self.bar: Any = None
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> Any:
        if self.off:
            return None
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                            TextColumn("loss {task.fields[loss]}"), TimeRemainingColumn(), console=stderr,
                            transient=False)
        self.bar.start()

        def update(what: str, step: int, steps: int, loss: float) -> None:
            if what not in self.tasks:
                self.tasks[what] = self.bar.add_task(what, total=steps, loss="—")
            self.bar.update(self.tasks[what], completed=step, loss=f"{loss:.3f}")

        return update

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def register(app: typer.Typer) -> None:
    app.command("train")(train)


__all__ = ["register", "train"]
