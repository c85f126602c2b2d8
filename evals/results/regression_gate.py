"""The regression gate of ``report BASELINE NEW --fail-if-worse MARGIN``: stop a merge on evidence.

The rule (a one-sided test of "NEW is worse by more than MARGIN"): the gate fails when the upper
end of the 95 % paired bootstrap interval of NEW - BASELINE, over the questions both runs
scored, is below -MARGIN; that is, when the data say with about 97.5 % confidence that NEW's rate
(or mean score) is lower by more than MARGIN. A drop inside the noise passes; a run that cannot
show its answers are no worse is not failed for it (that would be a non-inferiority gate, which
fails small golden sets for lack of evidence). What it never lets through: NEW items the judge
could not score (a failed judgment is no verdict, and no pass), and a comparison with too few
shared questions is said to be undecided, not passed silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ragjury.evals.stats.paired_runs import PairedDifference
from ragjury.evals.stats.run_result import MIN_BOOTSTRAP_N


@dataclass(frozen=True)
class GateOutcome:
    """Whether the gate failed, whether the data could decide, and the one-line reason."""

    failed: bool
    decided: bool
    reason: str
    margin: float

    def as_dict(self) -> dict[str, Any]:
        rule = ("fail unless the lower end of the 95 % paired interval of NEW - BASELINE is above -margin"
                if self.reason.startswith(("shown within", "not shown within")) else
                "fail when the upper end of the 95 % paired interval of NEW - BASELINE is below -margin")
        return {"failed": self.failed, "decided": self.decided, "margin": self.margin, "reason": self.reason,
                "rule": rule + ", or when NEW has unscored items among the shared ones or lacks BASELINE's questions"}


def _amount(value: float, binary: bool) -> str:
    return f"{value * 100:+.1f} points" if binary else f"{value:+.3f}"


RULES = ("worse", "within")
"""``worse`` (``--fail-if-worse``): fail when NEW is *shown* worse by more than the margin (the upper
end of the paired interval of NEW - BASELINE below -margin). ``within`` (``--fail-unless-within``,
non-inferiority): fail unless NEW is shown no worse than the margin (the lower end above -margin):
a measured drop inside the noise fails it, and a small golden set fails it for lack of evidence."""


def check_margin(margin: float) -> float:
    """A margin is a finite share in [0, 1]: NaN would compare false with everything and pass."""
    if isinstance(margin, bool) or not isinstance(margin, int | float) or not math.isfinite(margin) or not 0 <= margin <= 1:
        raise ValueError(f"margin must be a share in [0, 1] (0.02 = 2 points), got {margin!r}")
    return float(margin)


def regression_gate(
    paired: PairedDifference,
    margin: float,
    *,
    unscored_new: int,
    missing_new: int = 0,
    baseline_n: int = 0,
    allow_missing: bool = False,
    same_file: bool = False,
    unmeasured: str | None = None,
    require_measured: bool = False,
    rule: str = "worse",
) -> GateOutcome:
    """Apply the rule to the paired difference of BASELINE (A) and NEW (B).

    Questions of BASELINE that NEW lacks fail the gate unless ``allow_missing``: a NEW run that
    dropped the questions it got wrong must not pass on the rest. The same file twice is said."""
    margin = check_margin(margin)
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
    outcome = _decide(paired, margin, unscored_new, missing_new, baseline_n, allow_missing, same_file, rule)
    if unmeasured is None:
        return outcome
    said = f"{outcome.reason}; the judge ({unmeasured}) is not measured against your labels"
    if require_measured:
        return GateOutcome(True, True, said + " (--require-measured)", margin)
    return GateOutcome(outcome.failed, outcome.decided, said, margin)


def _decide(
    paired: PairedDifference, margin: float, unscored_new: int, missing_new: int, baseline_n: int,
    allow_missing: bool, same_file: bool, rule: str = "worse",
) -> GateOutcome:
    binary = paired.binary
    if same_file:
        return GateOutcome(False, False, "BASELINE and NEW are the same file: nothing was compared (give the "
                           "baseline run's predictions and the new run's)", margin)
    if missing_new and not allow_missing:
        return GateOutcome(True, True, f"NEW lacks {missing_new:,} of BASELINE's {baseline_n:,} questions: a run "
                           "that leaves questions out is not compared on the rest (--allow-missing to accept)", margin)
    if unscored_new:
        return GateOutcome(True, True, f"NEW has {unscored_new:,} unscored items among the shared questions: "
                           "a failed judgment never passes a gate (fix the judge or server, then re-run)", margin)
    if paired.difference is None or paired.interval is None:
        return GateOutcome(False, False, f"undecided: {paired.n_pairs:,} questions scored in both runs, fewer "
                           f"than {MIN_BOOTSTRAP_N}; too few to show a regression (add golden questions)", margin)
    low, high = paired.interval.low, paired.interval.high
    figure = (f"NEW - BASELINE {_amount(paired.difference, binary)} [{_amount(low, binary)}, {_amount(high, binary)}] "
              f"over {paired.n_pairs:,} questions, p = {paired.p_value:.3g} ({paired.test})")
    limit = _amount(-margin, binary)
    missing = f"; {missing_new:,} of BASELINE's questions missing from NEW (allowed)" if missing_new else ""
    if rule == "within":  # non-inferiority: NEW must show it is no worse than -margin
        if low > -margin:
            return GateOutcome(False, True, f"shown within {limit}: {figure}{missing}", margin)
        return GateOutcome(True, True, f"not shown within {limit} (the interval's lower end is not above it): "
                           f"{figure}{missing}", margin)
    if high < -margin:
        return GateOutcome(True, True, f"worse: {figure}; the whole interval is below {limit}{missing}", margin)
    return GateOutcome(False, True, f"not shown worse than {limit}: {figure}{missing}", margin)


def step_summary(outcome: GateOutcome, names: tuple[str, str], rates: tuple[str, str]) -> str:
    """The gate as Markdown for a GitHub Actions step summary ($GITHUB_STEP_SUMMARY)."""
    status = "❌ regression" if outcome.failed else ("⚠️ undecided" if not outcome.decided else "✅ no regression")
    return "\n".join([
        f"### ragjury regression gate: {status}", "",
        "| run | result |", "|---|---|",
        f"| BASELINE ({names[0]}) | {rates[0]} |",
        f"| NEW ({names[1]}) | {rates[1]} |", "",
        outcome.reason, "",
    ])


def people_gate(difference: Any, margin: float, *, rule: str = "worse", judge_gate: GateOutcome | None = None) -> GateOutcome:
    """The gate on B − A as people would judge it (``estimate A B --labels``: prediction-powered,
    joined on the question) under the same two rules. The judge's own gate still decides where NEW
    lacks questions or has unscored items: a failed judgment never passes."""
    margin = check_margin(margin)
    if judge_gate is not None and judge_gate.failed and judge_gate.reason.startswith(("NEW lacks", "NEW has")):
        return judge_gate
    d = difference.estimate
    figure = (f"as people would judge it, NEW - BASELINE {_amount(d.value, True)} [{_amount(d.low, True)}, "
              f"{_amount(d.high, True)}] ({difference.method}; {d.n_labels:,} labels)")
    limit = _amount(-margin, True)
    if rule == "within":
        if d.low > -margin:
            return GateOutcome(False, True, f"shown within {limit}: {figure}", margin)
        return GateOutcome(True, True, f"not shown within {limit} (the interval's lower end is not above it): {figure}",
                           margin)
    if d.high < -margin:
        return GateOutcome(True, True, f"worse: {figure}; the whole interval is below {limit}", margin)
    return GateOutcome(False, True, f"not shown worse than {limit}: {figure}", margin)


__all__ = ["people_gate", "RULES", "GateOutcome", "check_margin", "regression_gate", "step_summary"]
