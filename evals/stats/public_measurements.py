"""What the team measured of each built-in judge against people on the public dev sets: its bias.

Why in the run's output: a run without labels shows the judge's rate, and a newcomer reads it as
the truth. Where the team measured that judge on public data, the run says how far its rate sat
from people's there (a hint of the direction, not a correction: your data is not ours). Each figure
is computed from a stored pass (``bench/data/``) or a benchmark named beside it; the model is the
reference quality model, Qwen2.5-Coder-1.5B-Instruct Q4_K_M.
"""

from __future__ import annotations

from ragjury.rag_agent.core.judge_spec import (
    CROSS_ENCODER_PREFIX,
    FITTED_PREFIX,
    PLUGIN_PREFIX,
    RUBRIC_PREFIX,
    RUBRIC_TEXT_PREFIX,
    parse,
)

PUBLIC_BIAS: dict[tuple[str, str], str] = {
    ("correctness", "llm"): "over-stated people's rate by 3.0 points on EVOUNA-NQ (1,060 answers, Qwen2.5-Coder-1.5B: "
                            "74.9 % vs 71.9 %; bench/data/evouna-nq-correctness-llm.jsonl)",
    ("correctness", "llm-guarded"): "under-stated people's rate by 7.2 points on EVOUNA-NQ (710 answers, "
                                    "Qwen2.5-Coder-1.5B: 63.8 % vs 71.0 %; "
                                    "bench/data/evouna-nq-correctness-llm-guarded.jsonl)",
    ("correctness", "contains"): "under-stated people's rate by 10-17 points on each of the five EVOUNA-NQ systems "
                                 "(bench/bench_ppi.py)",
    ("relevance", "llm"): "under-stated people's rate by 16.7 points on TREC DL 2019 (1,486 pairs, Qwen2.5-Coder-1.5B: "
                          "17.4 % vs 34.1 % relevant; bench/data/dl19-relevance-llm.jsonl)",
}
"""(task, judge) -> where its rate sat against people's on public data, and the source."""

UNMEASURED_KINDS: dict[str, str] = {
    RUBRIC_PREFIX: "a rubric",
    RUBRIC_TEXT_PREFIX: "a rubric",
    PLUGIN_PREFIX: "a Python check",
    FITTED_PREFIX: "a fitted head",
    CROSS_ENCODER_PREFIX: "a cross-encoder",
}
"""Judges the team cannot have measured: the user's own criteria and heads."""


def public_bias(task: str | None, judge: str | None) -> str | None:
    """The team's public-data bias of ``judge`` on ``task``, or None where it was not measured."""
    if task is None or judge is None:
        return None
    return PUBLIC_BIAS.get((task, judge))


def unmeasured_kind(judge: str | None) -> str | None:
    """"a rubric", "a Python check", "a fitted head" for the user's own judges (every member of a
    panel counts); None for a built-in judge."""
    if not judge:
        return None
    for name in judge.split(","):  # a run's judges may be several names joined ("llm, contains")
        spec = parse(name.strip())
        for part in spec.members or (spec,):
            if part.prefix in UNMEASURED_KINDS:
                return UNMEASURED_KINDS[part.prefix]
    return None




def trust_note(task: str | None, judge: str | None, labelled: int, predictions: str = "PRED.jsonl") -> str | None:
    """The line a run without people's labels prints under its rate: whose rate it is, what the team
    measured of this judge on public data (or that nobody has measured it), and the commands that
    measure it here. None when the run has labels (its agreement says how far to trust it)."""
    if labelled:
        return None
    fix = (f"to measure it: 'ragjury label-plan {predictions} --budget 40 --out plan.jsonl', 'ragjury label "
           f"plan.jsonl --out labels.jsonl', then 'ragjury estimate {predictions} --labels labels.jsonl'")
    kind = unmeasured_kind(judge)
    if kind is not None:
        return (f"not measured against your labels: {kind} has no agreement figure with people on this data or any "
                f"other, so this is its own rate, not people's; {fix}")
    bias = public_bias(task, judge)
    measured = f"; on public data it {bias}" if bias else ""
    return f"this is the judge's rate, not yet measured against people on this data{measured}; {fix}"


def trust_dict(task: str | None, judge: str | None, labelled: int) -> dict[str, object]:
    """The same in ``--json``: which rate line 1 is, and how far it is measured."""
    kind = unmeasured_kind(judge)
    return {
        "rate_is": "the judge's" if not labelled else "the judge's, with agreement on the labelled items",
        "measured_against_people": bool(labelled),
        "labels": labelled,
        "judge_kind": kind or "built-in",
        "public_bias": None if kind else public_bias(task, judge),
        "note": trust_note(task, judge, labelled),
    }


__all__ = ["PUBLIC_BIAS", "UNMEASURED_KINDS", "public_bias", "trust_dict", "trust_note", "unmeasured_kind"]
