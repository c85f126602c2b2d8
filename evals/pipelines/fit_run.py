"""``ragjury fit``'s work: signals of labelled items, a head, and its cross-validated figures.

The head is measured the way it will be used, beside the base judge on the same items: random
folds (it judges the rest of the user's labelled pool) and folds by question (it judges new
questions). It is written with those figures, so a head that does not beat its base says so
wherever it is read.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragjury.evals.stats.intervals import bootstrap_agreement, bootstrap_kappa_gain
from ragjury.evals.stats.logistic import (
    auc,
    best_threshold,
    cross_validate,
    fit_logistic,
    fold_ids,
    kappa_of,
    nested_cross_validate,
)
from ragjury.rag_agent.judges.model_free.cross_encoder import CrossEncoderJudge
from ragjury.rag_agent.judges.model_free.fitted import (
    BASE_JUDGES,
    CROSS_ENCODER_FEATURE,
    FEATURE_KIND,
    FEATURE_VERSION,
    FEATURES,
    CrossEncoderRef,
    Head,
    cross_encoder_logits,
    feature_values,
)
from ragjury.rag_agent.judges.model_free.support import DEFAULT_THRESHOLD

MIN_PER_CLASS = 10
"""Fewer labels of either class and no cut-off or strength can be chosen by cross-validation."""


def group_of(task: str, item: Any) -> str:
    """What must not straddle folds when a head is to judge new questions (queries, for relevance)."""
    if task == "relevance":
        return item.query.strip().lower()
    if task == "correctness":
        return item.question.strip().lower()
    text = f"{item.question or ''}\n" + "\n".join(item.contexts)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def base_verdicts(task: str, x: np.ndarray) -> np.ndarray:
    """The base judge's verdicts from the signals it shares with the head (its first one)."""
    if task == "correctness":
        return x[:, 0] >= 0.5
    if task == "relevance":
        return x[:, 0] >= 0.0  # the llm judge's own verdict: logit P("1") >= 0, i.e. P >= 0.5

    return x[:, 0] >= DEFAULT_THRESHOLD


def gain_shown(figures: dict[str, Any]) -> str:
    """What the gain over the base judge shows: ``beats`` (its 95 % interval above 0), ``unshown``
    (the interval holds 0: no better, and no worse, shown), ``worse`` (the interval below 0, or a
    gain of at most 0 without one) or ``unmeasured`` (no gain figure). ``fit`` and ``train`` say
    "beats" only for the first (#54 item 4: it said "beats" over an interval that held 0)."""
    gain, interval = figures.get("gain"), figures.get("gain_interval")
    if gain is None:
        return "unmeasured"
    if interval:
        low, high = interval[0], interval[1]
        return "beats" if low > 0 else "worse" if high < 0 else "unshown"
    return "beats" if gain > 0 else "worse"


@dataclass(frozen=True)
class FitReport:
    """The head and its figures, and the items without signals (unscored, with the first reason)."""

    head: Head
    skipped: int
    first_reason: str | None

    @property
    def beats_base(self) -> bool:
        """True only when the gain is shown: its interval lies above 0 (the point gain alone where
        there is no interval). A gain whose interval holds 0 is "no better shown", never "beats"."""
        return gain_shown(self.head.figures) == "beats"


CONSTANT_PER_FOLD = ("not measurable: the head's verdict is constant within each fold (it has no signal to "
                     "use), so a pooled kappa would only measure the folds' different constants")
"""Why a head's kappa is left out (#54 item 30): a signal-free head answers each fold with the training
folds' majority, which runs against the held-out fold's own share; pooled, those constants gave
kappa -0.468 [-0.578, -0.348] on a head that judged nothing."""


def constant_per_fold(verdict: np.ndarray, ids: np.ndarray) -> bool:
    """True when every fold's out-of-fold verdicts are one value, and the folds differ."""
    folds = [verdict[ids == fold] for fold in np.unique(ids)]
    return all(len(set(v.tolist())) <= 1 for v in folds) and len(set(verdict.tolist())) > 1


def _kappa_figures(gold: np.ndarray, verdict: np.ndarray, probability: np.ndarray | None, seed: int,
                   ids: np.ndarray | None = None) -> dict[str, Any]:
    if ids is not None and constant_per_fold(verdict, ids):
        return {"kappa": None, "kappa_interval": None, "accuracy": round(float(np.mean(gold == verdict)), 4),
                "auc": None, "unmeasurable": CONSTANT_PER_FOLD}
    k = kappa_of(gold, verdict)
    interval = bootstrap_agreement(list(gold), list(verdict), seed=seed)["cohen_kappa"]
    return {
        "kappa": None if k is None else round(k, 4),
        "kappa_interval": None if interval is None else interval.as_list(),
        "accuracy": round(float(np.mean(gold == verdict)), 4),
        "auc": None if probability is None or (a := auc(probability, gold)) is None else round(a, 4),
    }


def fit_head(task: str, items: list[Any], gold: list[bool], *, fitted_on: str, folds: int = 5, seed: int = 0,
             cross_encoder: str | Path | None = None) -> FitReport:
    """Fit a head on ``items`` and their people's labels. ``ValueError`` when too few can be used.

    ``cross_encoder``: a local cross-encoder folder whose logit P(yes) is read as one more signal
    (``CrossEncoderError`` when it does not load); an item it cannot score is left out and counted."""
    if task not in FEATURES:
        raise ValueError(f"fit supports --task {' or '.join(FEATURES)} (model-free signals); "
                         f"relevance needs model features, which this version does not read")
    rows, labels, groups, kept = [], [], [], []
    skipped, first_reason = 0, None
    for item, label in zip(items, gold, strict=True):
        values, reason = feature_values(task, item)
        if reason is not None:
            skipped += 1
            first_reason = first_reason or reason
            continue
        rows.append(values)
        labels.append(bool(label))
        groups.append(group_of(task, item))
        kept.append(item)
    spec = FeatureSpec(FEATURES[task])
    if cross_encoder is not None and rows:
        judge = CrossEncoderJudge(cross_encoder, task=task)
        logits, reasons = cross_encoder_logits(judge, kept)
        keep = [i for i, value in enumerate(logits) if value is not None]
        skipped += len(kept) - len(keep)
        first_reason = first_reason or next((f"cross-encoder: {r}" for r in reasons if r is not None), None)
        rows = [[*rows[i], logits[i]] for i in keep]
        labels, groups = [labels[i] for i in keep], [groups[i] for i in keep]
        spec = FeatureSpec((*FEATURES[task], CROSS_ENCODER_FEATURE),
                           cross_encoder=CrossEncoderRef(folder=str(judge.model.spec.folder), digest=judge.model.digest))
    if not rows:
        raise ValueError(f"no labelled item has signals (first reason: {first_reason})")
    head = fit_signals(task, np.array(rows, dtype=np.float64), np.array(labels, dtype=bool), groups,
                       fitted_on=fitted_on, folds=folds, seed=seed, spec=spec)
    return FitReport(head=head, skipped=skipped, first_reason=first_reason)


@dataclass(frozen=True)
class FeatureSpec:
    """What a head reads: names in order, their kind and version, and the model whose outputs they
    are (None: model-free signals)."""

    features: tuple[str, ...]
    kind: str = FEATURE_KIND
    version: str = FEATURE_VERSION
    model: str | None = None
    prompt_version: str | None = None
    cross_encoder: CrossEncoderRef | None = None


def fit_signals(task: str, x: np.ndarray, y: np.ndarray, groups: list[str], *, fitted_on: str, folds: int = 5,
                seed: int = 0, figures: bool = True, spec: FeatureSpec | None = None) -> Head:
    """A head from signals already computed (one row per labelled item); ``figures=False`` skips the
    cross-validated report (a bench refitting many times only needs the head)."""
    positives = int(y.sum())
    if min(positives, len(y) - positives) < MIN_PER_CLASS:
        raise ValueError(f"{len(y)} usable labelled items ({positives} yes, {len(y) - positives} no): "
                         f"fit needs at least {MIN_PER_CLASS} of each")
    random_cv = cross_validate(x, y, folds=folds, seed=seed)
    head_fit = fit_logistic(x, y, random_cv.l2)
    threshold = best_threshold(random_cv.probability, y)
    report: dict[str, Any] = {}
    if figures:
        # Nested: strength and cut-off chosen inside each training fold, so the figures are what
        # the head does on items it was not tuned on (the plain CV above picks the strength on the
        # very folds it would report).
        honest = nested_cross_validate(x, y, folds=folds, seed=seed)
        grouped_folds = min(folds, len(set(groups)))
        grouped_cv = (nested_cross_validate(x, y, folds=grouped_folds, seed=seed, groups=groups)
                      if grouped_folds >= 2 else None)
        base = base_verdicts(task, x)
        random_ids = fold_ids(len(y), folds, seed)  # the folds nested_cross_validate drew
        head_random = _kappa_figures(y, honest.verdict, honest.probability, seed, random_ids)
        measured = head_random["kappa"] is not None
        gain = bootstrap_kappa_gain(y, honest.verdict, base, seed=seed) if measured else None
        k_head, k_base = (kappa_of(y, honest.verdict) if measured else None), kappa_of(y, base)
        report = {
            "folds": folds,
            "seed": seed,
            "cross_validation": "nested: strength and cut-off chosen inside each training fold",
            "head_random": head_random,
            "head_by_question": None if grouped_cv is None
            else _kappa_figures(y, grouped_cv.verdict, grouped_cv.probability, seed,
                                fold_ids(len(y), grouped_folds, seed, groups)),
            "base": {"judge": BASE_JUDGES[task], **_kappa_figures(y, base, x[:, 0], seed)},
            "gain": None if k_head is None or k_base is None else round(k_head - k_base, 4),
            "gain_interval": None if gain is None else gain.as_list(),
        }
    spec = spec or FeatureSpec(FEATURES[task])
    return Head(
        task=task, feature_kind=spec.kind, feature_version=spec.version, features=spec.features,
        model=spec.model, prompt_version=spec.prompt_version, cross_encoder=spec.cross_encoder,
        mean=tuple(float(v) for v in head_fit.mean), scale=tuple(float(v) for v in head_fit.scale),
        weights=tuple(float(v) for v in head_fit.weights), bias=head_fit.bias, threshold=round(threshold, 4),
        l2=random_cv.l2, n=len(y), positives=positives, fitted_on=fitted_on, figures=report,
    )


def write_head(head: Head, out: Path) -> None:
    from ragjury.evals.io.atomic_io import write_text_atomic

    write_text_atomic(out, head.model_dump_json(indent=2) + "\n")


__all__ = ["MIN_PER_CLASS", "FeatureSpec", "FitReport", "base_verdicts", "fit_head", "fit_signals", "group_of", "write_head"]
