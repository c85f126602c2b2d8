"""``ragjury fit --task relevance``: the signals of labelled pairs, and a head over them.

The ``llm`` judge's P("1") is read through the judgment cache: a pair judged before (by
``relevance --judge llm``, ``calibrate`` or an earlier ``fit``) costs no model call, and an
interrupted fit resumes where it stopped. A pair the judge could not score is left out and
counted, with the first reason; it is never given a P.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ragjury.evals.pipelines.fit_run import FeatureSpec, FitReport, fit_signals, group_of
from ragjury.evals.runs.runner import RunStats, run_judgments
from ragjury.rag_agent.judges.combined.fitted_relevance import (
    COSINE_SIGNAL,
    LLM_SIGNAL,
    SIGNALS,
    cosine_embedder,
    llm_logit,
    pair_cosines,
    relevance_llm_judge,
)
from ragjury.rag_agent.judges.model_free.fitted import RELEVANCE_KIND, RELEVANCE_VERSION

RELEVANT_GRADE = 2
"""TREC's binary cut-off: grade >= 2 (highly or perfectly relevant) is relevant."""


def check_signals(signals: Sequence[str]) -> tuple[str, ...]:
    """The chosen signals in the head's order; ``ValueError`` for an unknown one or none with llm."""
    unknown = [s for s in signals if s not in SIGNALS]
    if unknown:
        raise ValueError(f"unknown signal '{unknown[0]}'; --signals takes {', '.join(SIGNALS)} (comma-separated)")
    if LLM_SIGNAL not in signals:
        raise ValueError("--signals must include llm: the head is measured against the llm judge it starts from")
    return tuple(s for s in SIGNALS if s in signals)


async def fit_relevance_head(
    items: Sequence[Any], grades: Sequence[int], settings: Any, signals: Sequence[str], *, cache: Any = None,
    progress: bool = True, folds: int = 5, seed: int = 0, fitted_on: str = "",
) -> tuple[FitReport, RunStats]:
    """Judge the pairs (cached), compute the chosen signals and fit a head on grade >= 2."""
    chosen = check_signals(signals)
    embedder = cosine_embedder() if COSINE_SIGNAL in chosen else None
    if embedder is not None:
        embedder.load()  # a missing extra is one line before any model call
    judge = relevance_llm_judge(settings)
    judgments, stats = await run_judgments(judge, list(items), cache=cache, progress=progress,
                                           description="fit relevance: llm P(1)")
    keep, rows, skipped, first_reason = [], [], 0, None
    for index, judgment in enumerate(judgments):
        probability = getattr(judgment.value, "probability", None)
        if judgment.unscored or probability is None:
            skipped += 1
            first_reason = first_reason or judgment.unscored_reason or "no P('1'): the server returned no logprobs"
            continue
        keep.append(index)
        rows.append([llm_logit(probability)])
    if not rows:
        raise ValueError(f"the llm judge scored none of {len(items)} pairs (first reason: {first_reason})")
    kept = [items[i] for i in keep]
    if embedder is not None:
        for row, cosine in zip(rows, pair_cosines(embedder, kept), strict=True):
            row.append(cosine)
    identity = judge.identity
    spec = FeatureSpec(features=tuple(SIGNALS[s] for s in chosen), kind=RELEVANCE_KIND, version=RELEVANCE_VERSION,
                       model=identity.model, prompt_version=identity.prompt_version)
    y = np.array([grades[i] >= RELEVANT_GRADE for i in keep], dtype=bool)
    head = fit_signals("relevance", np.array(rows, dtype=np.float64), y, [group_of("relevance", it) for it in kept],
                       fitted_on=fitted_on, folds=folds, seed=seed, spec=spec)
    return FitReport(head=head, skipped=skipped, first_reason=first_reason), stats


__all__ = ["RELEVANT_GRADE", "check_signals", "fit_relevance_head"]
