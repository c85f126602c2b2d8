"""The regression gate's rule (``evals/results/comparison``), issue #54 items 23, 24 and 36: no
evidence is no pass under --fail-unless-within, the same file twice fails unless allowed, a
--require-measured failure survives people's B - A, and a margin of 0 is "0.0 points"."""

from __future__ import annotations

from types import SimpleNamespace

from ragjury.evals.results.comparison import GateOutcome, people_gate, regression_gate, step_summary
from ragjury.evals.stats.paired_runs import paired_difference

FEW = paired_difference([True] * 5, [False] * 5, binary=True)
SAME = paired_difference([True, False] * 15, [True, False] * 15, binary=True)


def test_too_few_questions_fail_the_within_rule_and_leave_the_worse_rule_undecided() -> None:
    within = regression_gate(FEW, 0.02, unscored_new=0, rule="within")
    assert within.failed and not within.decided and "lack of evidence" in within.reason
    worse = regression_gate(FEW, 0.02, unscored_new=0)
    assert not worse.failed and not worse.decided and not worse.reason.startswith("undecided")
    assert (within.option, worse.option) == ("--fail-unless-within", "--fail-if-worse")


def test_the_same_file_fails_unless_allowed() -> None:
    for rule in ("worse", "within"):
        same = regression_gate(SAME, 0.02, unscored_new=0, same_file=True, rule=rule)
        assert same.failed and "the same run" in same.reason
        allowed = regression_gate(SAME, 0.02, unscored_new=0, same_file=True, rule=rule, allow_same=True)
        assert not allowed.failed and not allowed.decided


def test_a_margin_of_zero_is_zero_points() -> None:
    outcome = regression_gate(SAME, 0.0, unscored_new=0)
    assert "not shown worse than 0.0 points" in outcome.reason and "-0.0" not in outcome.reason


def test_require_measured_names_what_is_missing_and_people_do_not_override_it() -> None:
    gap = "run A's judge (a rubric) has 1 people labels on scored items (1 yes, 0 no)"
    judged = regression_gate(SAME, 0.02, unscored_new=0, require_measured=True, measured_gap=gap)
    assert judged.failed and judged.reason.startswith("not measured against people (--require-measured): " + gap)
    assert not regression_gate(SAME, 0.02, unscored_new=0, measured_gap=gap).failed  # only when asked
    estimate = SimpleNamespace(value=0.05, low=0.01, high=0.09, n_labels=3)
    people = SimpleNamespace(estimate=estimate, method="prediction-powered")
    assert people_gate(people, 0.02, judge_gate=judged) is judged
    assert not people_gate(people, 0.02, judge_gate=GateOutcome(False, True, "passed", 0.02)).failed


def test_the_step_summary_names_the_rule_and_says_failed_where_no_drop_was_shown() -> None:
    missing = regression_gate(SAME, 0.02, unscored_new=0, missing_new=3, baseline_n=30)
    text = step_summary(missing, ("base", "new"), ("judged correct: 50 %", "judged correct: 50 %"))
    assert "(--fail-if-worse 0.02): ❌ failed" in text and "❌ regression" not in text


def test_b_minus_a_never_prints_minus_zero() -> None:
    from ragjury.evals.results.comparison import Comparison
    from ragjury.evals.stats.intervals import Interval

    paired = SimpleNamespace(difference=-0.0001, interval=Interval(-0.0004, 0.02, 1000), n_pairs=30)
    text = Comparison.difference_text(SimpleNamespace(paired=paired, binary=True))  # type: ignore[arg-type]
    assert text == "+0.0 points [+0.0, +2.0]"
