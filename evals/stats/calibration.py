"""Calibrating a judge's probabilities against people: thresholds, a monotone map, honest figures.

A judge's best cut-off is a property of its model, prompt and data, so it is fitted on labelled
*dev* data into a versioned file later runs load (``--calibration F``), never on the data scored.
Every in-sample figure comes with its out-of-fold counterpart. Graded relevance gets three
ascending cut points; its binary figures use grade >= 2, TREC's relevance boundary.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field, ValidationError, model_validator

from ragjury.evals.stats.agreement import cohen_kappa
from ragjury.rag_agent.core.input_files import loads_json

CALIBRATION_SCHEMA = "ragjury-calibration/1"
"""The format tag of calibration files; bump it when their meaning changes."""

Floats = npt.NDArray[np.float64]


class CalibrationError(ValueError):
    """A calibration file that cannot be used (wrong format, another judge): the message says why."""


# -- figures -----------------------------------------------------------------------------------------


def binary_kappa(predicted: Sequence[bool] | npt.NDArray[np.bool_], gold: Sequence[bool] | npt.NDArray[np.bool_]) -> float:
    """Cohen's kappa of two binary label lists (0.0 where it is undefined: one rater used one label)."""
    p = np.asarray(predicted, dtype=bool)
    g = np.asarray(gold, dtype=bool)
    confusion = np.array(
        [[np.sum(~p & ~g), np.sum(~p & g)], [np.sum(p & ~g), np.sum(p & g)]], dtype=np.float64
    )
    kappa = cohen_kappa(confusion)
    return 0.0 if kappa is None else kappa


def auc(scores: Sequence[float], gold: Sequence[bool]) -> float | None:
    """Area under the ROC curve: P(a positive scores above a negative), ties counted half."""
    s = np.asarray(scores, dtype=np.float64)
    g = np.asarray(gold, dtype=bool)
    positives, negatives = s[g], s[~g]
    if positives.size == 0 or negatives.size == 0:
        return None
    order = np.argsort(np.concatenate([positives, negatives]), kind="mergesort")
    ranks = np.empty(order.size, dtype=np.float64)
    combined = np.concatenate([positives, negatives])
    sorted_values = combined[order]
    # average ranks of ties
    _, first, counts = np.unique(sorted_values, return_index=True, return_counts=True)
    average = first + (counts - 1) / 2.0 + 1.0
    ranks[order] = np.repeat(average, counts)
    rank_sum = ranks[: positives.size].sum()
    return float((rank_sum - positives.size * (positives.size + 1) / 2.0) / (positives.size * negatives.size))


def expected_calibration_error(probabilities: Sequence[float], gold: Sequence[bool], bins: int = 10) -> float:
    """ECE: the item-weighted mean |accuracy - confidence| over equal-width probability bins."""
    p = np.clip(np.asarray(probabilities, dtype=np.float64), 0.0, 1.0)
    g = np.asarray(gold, dtype=np.float64)
    if p.size == 0:
        return 0.0
    index = np.minimum((p * bins).astype(int), bins - 1)
    total = 0.0
    for b in range(bins):
        mask = index == b
        if mask.any():
            total += mask.sum() * abs(g[mask].mean() - p[mask].mean())
    return float(total / p.size)


def bootstrap_interval(
    predicted: Sequence[bool], gold: Sequence[bool], *, resamples: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """95 % percentile bootstrap interval of the kappa of ``predicted`` against ``gold`` (items resampled)."""
    p = np.asarray(predicted, dtype=bool)
    g = np.asarray(gold, dtype=bool)
    if p.size == 0:
        return (0.0, 0.0)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, p.size, size=(resamples, p.size))
    kappas = np.array([binary_kappa(p[d], g[d]) for d in draws])
    low, high = np.percentile(kappas, [2.5, 97.5])
    return float(low), float(high)


# -- fitting -----------------------------------------------------------------------------------------


def fit_threshold(scores: Sequence[float], gold: Sequence[bool]) -> float:
    """The threshold ``t`` (label = score >= t) that maximises Cohen's kappa on these items.

    Candidates are the midpoints between consecutive distinct scores (plus both ends); among equal
    kappas the one closest to the middle of its plateau is kept, so the fit does not sit on the
    edge of one item.
    """
    s = np.asarray(scores, dtype=np.float64)
    g = np.asarray(gold, dtype=bool)
    values = np.unique(s)
    if values.size == 0:
        raise ValueError("no scores to fit a threshold on")
    candidates = np.concatenate([[values[0]], (values[:-1] + values[1:]) / 2.0, [values[-1] + 1e-9]])
    kappas = np.array([binary_kappa(s >= t, g) for t in candidates])
    best = kappas.max()
    plateau = np.flatnonzero(np.isclose(kappas, best, atol=1e-12))
    return float(candidates[plateau[len(plateau) // 2]])


def fit_isotonic(scores: Sequence[float], gold: Sequence[bool]) -> tuple[list[float], list[float]]:
    """A monotone (non-decreasing) map score -> P(gold), by pool-adjacent-violators.

    Returns knots ``(xs, ys)``; ``apply_isotonic`` interpolates between them linearly.
    """
    s = np.asarray(scores, dtype=np.float64)
    g = np.asarray(gold, dtype=np.float64)
    order = np.argsort(s, kind="mergesort")
    xs_sorted, ys_sorted = s[order], g[order]
    # pool equal scores first
    unique_x, inverse = np.unique(xs_sorted, return_inverse=True)
    sums = np.bincount(inverse, weights=ys_sorted)
    weights = np.bincount(inverse).astype(np.float64)
    blocks: list[list[float]] = []  # [value, weight, x_low, x_high]
    for x, total, weight in zip(unique_x, sums, weights, strict=True):
        blocks.append([total / weight, weight, float(x), float(x)])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            value, weight_b, _, high = blocks.pop()
            previous = blocks[-1]
            merged_weight = previous[1] + weight_b
            previous[0] = (previous[0] * previous[1] + value * weight_b) / merged_weight
            previous[1] = merged_weight
            previous[3] = high
    xs: list[float] = []
    ys: list[float] = []
    for value, _, low, high in blocks:
        xs.extend([low, high] if high > low else [low])
        ys.extend([value, value] if high > low else [value])
    return xs, ys


def apply_isotonic(scores: Sequence[float] | Floats, knots: tuple[Sequence[float], Sequence[float]]) -> Floats:
    xs, ys = knots
    return np.interp(np.asarray(scores, dtype=np.float64), np.asarray(xs), np.asarray(ys))


def fold_indices(n: int, folds: int, seed: int) -> list[npt.NDArray[np.int64]]:
    """``folds`` disjoint index sets covering ``range(n)``, shuffled with ``seed``."""
    rng = np.random.default_rng(seed)
    permutation = rng.permutation(n)
    return [np.sort(part) for part in np.array_split(permutation, folds)]


class CrossValidation(BaseModel):
    """Out-of-fold figures: each item labelled by a threshold (and map) fitted without it."""

    folds: int
    kappa: float
    kappa_interval: tuple[float, float]
    accuracy: float
    thresholds: list[float] = Field(description="the threshold fitted in each fold")
    ece_after: float | None = Field(default=None, description="ECE after the out-of-fold isotonic map")


def cross_validate(
    scores: Sequence[float],
    gold: Sequence[bool],
    *,
    folds: int = 5,
    seed: int = 0,
    probabilities: Sequence[float] | None = None,
) -> CrossValidation:
    """k-fold cross-validated kappa and accuracy of a fitted threshold, pooled over folds.

    With ``probabilities``, the isotonic map from them to P(gold) is fitted out of fold as well,
    and the ECE of the mapped probabilities is reported.
    """
    s = np.asarray(scores, dtype=np.float64)
    g = np.asarray(gold, dtype=bool)
    n = s.size
    if n < folds * 2:
        raise ValueError(f"{n} labelled items are too few for {folds}-fold cross-validation")
    if g.all() or not g.any():
        raise ValueError("the labelled items are all of one class: nothing to calibrate against")
    predicted = np.zeros(n, dtype=bool)
    mapped = np.zeros(n, dtype=np.float64)
    thresholds: list[float] = []
    p = np.asarray(probabilities, dtype=np.float64) if probabilities is not None else None
    for held_out in fold_indices(n, folds, seed):
        train = np.setdiff1d(np.arange(n), held_out)
        threshold = fit_threshold(s[train], g[train])
        thresholds.append(threshold)
        predicted[held_out] = s[held_out] >= threshold
        if p is not None:
            mapped[held_out] = apply_isotonic(p[held_out], fit_isotonic(p[train], g[train]))
    return CrossValidation(
        folds=folds,
        kappa=binary_kappa(predicted, g),
        kappa_interval=bootstrap_interval(predicted, g, seed=seed),
        accuracy=float((predicted == g).mean()),
        thresholds=thresholds,
        ece_after=expected_calibration_error(mapped, g) if p is not None else None,
    )


# -- the calibration file ----------------------------------------------------------------------------


class FitFigures(BaseModel):
    """How a fitted threshold did: in-sample, cross-validated, and the probabilities' ECE."""

    n: int
    positives: int
    kappa_default: float = Field(description="kappa of the uncalibrated labels (argmax / P >= 0.5)")
    kappa_in_sample: float
    cross_validation: CrossValidation
    auc: float | None
    ece_before: float | None = None

    @property
    def no_better_than_chance(self) -> bool:
        """The cross-validated kappa's 95 % interval reaches 0 (or an AUC of 0.5 or less): the fit
        cannot be told apart from guessing, and a file written from it should not be trusted."""
        low = self.cross_validation.kappa_interval[0]
        return low <= 0.0 or (self.auc is not None and self.auc <= 0.5)

    def chance_warning(self) -> str | None:
        """One line saying the fit is no better than chance, with the figures; None otherwise."""
        if not self.no_better_than_chance:
            return None
        cv = self.cross_validation
        low, high = cv.kappa_interval
        auc = f", AUC {self.auc:.2f}" if self.auc is not None else ""
        return (f"warning: the fit is no better than chance (cross-validated kappa {cv.kappa:.2f} "
                f"[{low:.2f}, {high:.2f}]{auc}): the judge's probabilities do not separate the labels; "
                "check the labels, the judge and the data before using this file")


def logprob_options(*, one_token_path: bool) -> dict[str, object]:
    """Options that put a judge on the one-token path its calibration is fitted on, when it has
    one. Which judges have one (not a panel, a cross-encoder or a model-free judge) is the
    catalogue's to say (``catalogue.one_token_path``): statistics read no judge-name words.
    """
    return {"method": "logprobs"} if one_token_path else {}


def _check_monotone(xs: Sequence[float], ys: Sequence[float]) -> None:
    """An isotonic map's knots: as many x as y, finite, x ascending, y non-decreasing in [0, 1].
    A decreasing map would turn a judge's confidence upside down and still be called calibrated."""
    if len(xs) != len(ys) or not xs:
        raise ValueError(f"an isotonic map needs as many x as y knots, at least one (got {len(xs)} and {len(ys)})")
    if not all(math.isfinite(v) for v in (*xs, *ys)) or not all(0.0 <= y <= 1.0 for y in ys):
        raise ValueError("an isotonic map's knots are finite, its probabilities between 0 and 1")
    if list(xs) != sorted(xs) or list(ys) != sorted(ys):
        raise ValueError("an isotonic map is monotone: x ascending and y never decreasing")


class Calibration(BaseModel):
    """A calibration file: which judge it fits, the fitted cut-offs, and the evidence for them."""

    schema_: str = Field(default=CALIBRATION_SCHEMA, alias="schema")
    task: Literal["relevance", "correctness", "faithfulness"]
    judge: str = Field(description="registry name of the judge, e.g. llm-graded")
    judge_name: str = Field(description="the judge's identity name (e.g. relevance_grade)")
    model: str | None
    prompt_version: str | None
    score: Literal["probability", "expected_grade"]
    threshold: float | None = Field(default=None, strict=True, description="binary: label = P(1) >= threshold")
    cuts: list[float] | None = Field(
        default=None, strict=True, description="graded: grade = cut points the expected grade reaches"
    )
    isotonic: tuple[list[float], list[float]] | None = Field(
        default=None, description="monotone map probability -> calibrated probability (knots)"
    )
    figures: FitFigures
    data: str = Field(description="the labelled dev data it was fitted on")
    created: str = Field(default_factory=lambda: _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"))

    model_config = {"populate_by_name": True}

    @model_validator(mode="after")
    def _changes_something(self) -> Calibration:
        """A file that would leave the judge as it was is refused: applying it would report
        uncalibrated results as calibrated."""
        if self.score == "probability":
            if self.cuts is not None:
                raise ValueError("cut points are for a graded judge (score 'expected_grade'), not a probability")
            if self.threshold is None or not 0.0 <= self.threshold <= 1.0:
                raise ValueError("a probability calibration needs a threshold between 0 and 1")
        else:
            if self.threshold is not None:
                raise ValueError("a threshold is for a probability; a graded judge is calibrated by its cuts")
            if not self.cuts or any(not math.isfinite(c) for c in self.cuts) or self.cuts != sorted(self.cuts):
                raise ValueError("a graded calibration needs ascending, finite cut points")
        if self.isotonic is not None:
            _check_monotone(*self.isotonic)
        return self

    def judge_options(self, *, one_token_path: bool = False) -> dict[str, object]:
        """Constructor options that apply this calibration to the judge (``one_token_path``: the
        caller, which knows the judges, says whether it reads one token's logprobs)."""
        method = logprob_options(one_token_path=one_token_path)
        if self.cuts is not None:
            return {"cuts": tuple(self.cuts), **method}
        if self.threshold is not None:
            return {"threshold": self.threshold, **method}
        return {}

    def write(self, path: str | Path) -> None:
        Path(path).write_text(self.model_dump_json(by_alias=True, indent=2) + "\n", encoding="utf-8")


def load_calibration(path: str | Path) -> Calibration:
    """Read a calibration file; ``CalibrationError`` names the file and what is wrong."""
    try:
        raw = Path(path).read_text(encoding="utf-8-sig")
    except OSError as error:
        raise CalibrationError(f"{path}: cannot read calibration file: {error.strerror or error}") from None
    try:
        data = loads_json(raw)
    except json.JSONDecodeError as error:
        raise CalibrationError(f"{path}:{error.lineno}: not JSON: {error.msg}") from None
    if not isinstance(data, dict) or data.get("schema") != CALIBRATION_SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise CalibrationError(f"{path}: not a ragjury calibration file (schema {found!r}, expected {CALIBRATION_SCHEMA})")
    try:
        return Calibration.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        raise CalibrationError(f"{path}: field '{where}': {message}" if where else f"{path}: {message}") from None


def check_applies(calibration: Calibration, task: str, judge: str, path: str | Path) -> None:
    """Refuse a calibration fitted for another task or judge: its cut-offs would mean nothing here."""
    if calibration.task != task or calibration.judge != judge:
        raise CalibrationError(
            f"{path}: fitted for --task {calibration.task} --judge {calibration.judge}, "
            f"not --task {task} --judge {judge}"
        )


# -- fitting a whole calibration -----------------------------------------------------------------------


def calibrate_binary(
    probabilities: Sequence[float], gold: Sequence[bool], *, folds: int = 5, seed: int = 0
) -> tuple[float, tuple[list[float], list[float]], FitFigures]:
    """Threshold on P(1), isotonic map, and figures (default = P >= 0.5)."""
    p = np.asarray(probabilities, dtype=np.float64)
    g = np.asarray(gold, dtype=bool)
    threshold = fit_threshold(p, g)
    figures = FitFigures(
        n=int(p.size),
        positives=int(g.sum()),
        kappa_default=binary_kappa(p >= 0.5, g),
        kappa_in_sample=binary_kappa(p >= threshold, g),
        cross_validation=cross_validate(p, g, folds=folds, seed=seed, probabilities=p),
        auc=auc(p, g),
        ece_before=expected_calibration_error(p, g),
    )
    return threshold, fit_isotonic(p, g), figures


def calibrate_graded(
    expected_grades: Sequence[float],
    argmax_grades: Sequence[int],
    p_relevant: Sequence[float],
    gold_grades: Sequence[int],
    *,
    relevant_at: int = 2,
    folds: int = 5,
    seed: int = 0,
) -> tuple[list[float], tuple[list[float], list[float]], FitFigures]:
    """Three ascending cut points on the expected grade; binary figures at ``relevant_at``."""
    e = np.asarray(expected_grades, dtype=np.float64)
    gold = np.asarray(gold_grades, dtype=np.int64)
    cuts: list[float] = []
    for level in (1, 2, 3):
        labels = gold >= level
        cuts.append(fit_threshold(e, labels) if labels.any() and not labels.all() else float(level) - 0.5)
    cuts = list(np.maximum.accumulate(np.clip(cuts, 0.0, 3.0)))
    binary_gold = gold >= relevant_at
    p = np.asarray(p_relevant, dtype=np.float64)
    figures = FitFigures(
        n=int(e.size),
        positives=int(binary_gold.sum()),
        kappa_default=binary_kappa(np.asarray(argmax_grades) >= relevant_at, binary_gold),
        kappa_in_sample=binary_kappa(e >= cuts[relevant_at - 1], binary_gold),
        cross_validation=cross_validate(e, binary_gold, folds=folds, seed=seed, probabilities=p),
        auc=auc(e, binary_gold),
        ece_before=expected_calibration_error(p, binary_gold),
    )
    return [float(c) for c in cuts], fit_isotonic(p, binary_gold), figures


__all__ = [
    "CALIBRATION_SCHEMA",
    "Calibration",
    "CalibrationError",
    "CrossValidation",
    "FitFigures",
    "apply_isotonic",
    "auc",
    "binary_kappa",
    "bootstrap_interval",
    "calibrate_binary",
    "calibrate_graded",
    "check_applies",
    "logprob_options",
    "cross_validate",
    "expected_calibration_error",
    "fit_isotonic",
    "fit_threshold",
    "fold_indices",
    "load_calibration",
]


# -- running a judge over labelled dev data and fitting it ----------------------------------------------


def value_scores(task: str, value: object) -> tuple[float, int | None, float | None] | None:
    """(score to threshold, argmax grade, P(relevant)) of a value, or None without probabilities.

    Graded relevance values give their expected grade; binary verdicts their P(1). A value from
    the structured path has neither: calibration needs the logprob path.
    """
    expected = getattr(value, "expected_grade", None)
    if task == "relevance" and isinstance(expected, float):
        return expected, int(getattr(value, "grade")), getattr(value, "p_relevant", None)
    probability = getattr(value, "probability", None)
    if isinstance(probability, float):
        return probability, None, probability
    mean = getattr(value, "mean", None)
    if getattr(value, "combine", None) == "mean" and isinstance(mean, float):
        return mean, None, mean  # a panel-mean verdict: the members' mean P(True)
    score, cut = getattr(value, "score", None), getattr(value, "threshold", None)
    if isinstance(score, float) and isinstance(cut, float):  # a model-free score with its cut-off (support)
        return score, None, score
    return None


def fit_calibration(
    task: Literal["relevance", "correctness", "faithfulness"],
    judge_label: str,
    identity_name: str,
    model: str | None,
    prompt_version: str | None,
    values: Sequence[object | None],
    gold: Sequence[bool | int],
    *,
    data: str,
    folds: int = 5,
    seed: int = 0,
) -> Calibration:
    """Fit a ``Calibration`` from judged values and the people's labels (grades for relevance).

    Items the judge did not score, or scored without probabilities, are left out; if that leaves
    too few (fewer than two per fold) or a single class, ``ValueError`` says so.
    """
    rows = [(value_scores(task, v), g) for v, g in zip(values, gold, strict=True) if v is not None]
    usable = [(scores, g) for scores, g in rows if scores is not None]
    if not usable:
        raise ValueError(
            "no judgment carries probabilities: calibration needs the logprob path "
            "(a server that returns logprobs, and a judge with a one-token path)"
        )
    graded = task == "relevance" and usable[0][0][1] is not None
    if graded:
        cuts, isotonic, figures = calibrate_graded(
            [s[0] for s, _ in usable], [int(s[1] or 0) for s, _ in usable], [float(s[2] or 0.0) for s, _ in usable],
            [int(g) for _, g in usable], folds=folds, seed=seed,
        )
        return Calibration(
            task=task, judge=judge_label, judge_name=identity_name, model=model, prompt_version=prompt_version,
            score="expected_grade", cuts=cuts, isotonic=isotonic, figures=figures, data=data,
        )
    labels = [bool(g >= 2) if task == "relevance" and not isinstance(g, bool) else bool(g) for _, g in usable]
    threshold, isotonic, figures = calibrate_binary([s[0] for s, _ in usable], labels, folds=folds, seed=seed)
    return Calibration(
        task=task, judge=judge_label, judge_name=identity_name, model=model, prompt_version=prompt_version,
        score="probability", threshold=threshold, isotonic=isotonic, figures=figures, data=data,
    )


__all__ += ["fit_calibration", "value_scores"]
