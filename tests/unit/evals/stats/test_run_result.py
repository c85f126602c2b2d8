"""A run's result (rate or mean score with its 95 % interval) and the paired B - A of two runs.

Why: these are the first figures a user reads; a Wilson interval or a McNemar p-value that is off
would mislead every comparison, so each is checked against an independent reference (scipy)."""

from __future__ import annotations

import pytest

from ragjury.evals.stats.paired_runs import mcnemar_exact, paired_difference, sign_flip_p
from ragjury.evals.stats.run_result import rate_of, run_result, wilson_interval


def test_wilson_interval_matches_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    for k, n in [(0, 10), (7, 12), (22, 40), (40, 40), (500, 1000)]:
        ours = wilson_interval(k, n)
        theirs = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert ours is not None
        assert ours.low == pytest.approx(theirs.low, abs=1e-9)
        assert ours.high == pytest.approx(theirs.high, abs=1e-9)
    assert wilson_interval(0, 0) is None


def test_unscored_items_are_left_out_and_counted() -> None:
    rate = rate_of([True, True, False, None, None], binary=True)
    assert rate.value == pytest.approx(2 / 3)
    assert (rate.n_scored, rate.n_unscored) == (3, 2)
    assert rate.counts() == "3 scored, 2 unscored left out"
    assert rate.text(percent=True).startswith("66.7 % [")


def test_run_result_overall_and_per_system() -> None:
    result = run_result([True, False, True, True, None], ["a", "a", "b", "b", "b"], binary=True)
    data = result.as_dict()
    assert data["rate"] == pytest.approx(0.75)
    assert data["n_scored"] == 4 and data["n_unscored"] == 1
    low, high = data["interval"]
    assert 0 < low < 0.75 < high <= 1
    assert data["by_system"]["a"]["value"] == pytest.approx(0.5)
    assert data["by_system"]["b"]["n_unscored"] == 1
    assert result.lines("correctness")[0].startswith("judged correct: 75.0 % [")


def test_mean_score_gets_a_bootstrap_interval() -> None:
    result = run_result([0.2, 0.4, 0.6, 0.8, None] * 3, [None] * 15, binary=False)
    data = result.as_dict()
    assert data["mean"] == pytest.approx(0.5)
    assert data["method"] == "percentile bootstrap over items"
    low, high = data["interval"]
    assert 0.2 <= low < 0.5 < high <= 0.8


@pytest.mark.parametrize("scores", [[0.65], [0.2, 0.4, 0.6, 0.8]])
def test_too_few_scores_get_no_zero_width_interval_and_say_why(scores: list[float]) -> None:
    result = run_result(scores, [None] * len(scores), binary=False)
    assert result.as_dict()["interval"] is None
    line = result.lines("score")[0]
    assert "no interval: fewer than 10 scored" in line and f"({len(scores)} scored)" in line and "95 %" not in line


def test_a_comparison_over_one_shared_item_prints_no_interval() -> None:
    from ragjury.evals.stats.paired_runs import paired_difference

    paired = paired_difference([True], [True], binary=True)
    assert paired.interval is None and paired.n_pairs == 1


def test_mcnemar_matches_scipy_binomtest_on_discordant_pairs() -> None:
    stats = pytest.importorskip("scipy.stats")
    for a_only, b_only in [(0, 0), (1, 0), (3, 9), (9, 3), (10, 10), (2, 17), (40, 61)]:
        expected = 1.0 if a_only + b_only == 0 else stats.binomtest(b_only, a_only + b_only, 0.5).pvalue
        assert mcnemar_exact(a_only, b_only) == pytest.approx(expected, rel=1e-9)


def test_paired_difference_of_two_binary_runs() -> None:
    a = [True] * 10 + [False] * 20 + [True] * 3 + [False] * 7 + [None, True]
    b = [True] * 10 + [True] * 20 + [False] * 3 + [False] * 7 + [True, None]
    result = paired_difference(a, b, binary=True)
    assert result.counts == {"a_only": 3, "b_only": 20, "both": 10, "neither": 7}
    assert (result.n_pairs, result.n_unpaired) == (40, 2)
    assert result.difference == pytest.approx((30 - 13) / 40)
    assert result.interval is not None and 0 < result.interval.low < result.difference < result.interval.high
    assert result.p_value == pytest.approx(mcnemar_exact(3, 20))
    assert result.p_value < 0.01
    assert paired_difference(a, b, binary=True).interval == result.interval  # seeded


def test_sign_flip_test_of_score_runs() -> None:
    a = [0.1 * (i % 10) for i in range(30)]
    assert sign_flip_p([0.0] * 5) == 1.0
    assert sign_flip_p([0.3] * 30) < 0.001
    same = paired_difference(a, a, binary=False)
    assert same.difference == 0 and same.p_value == 1.0 and same.counts["tied"] == 30
    noisy = paired_difference(a, [x + (0.05 if i % 2 else -0.05) for i, x in enumerate(a)], binary=False)
    assert noisy.p_value > 0.5


def test_the_repr_states_the_result_not_raw_floats() -> None:
    text = repr(run_result([True] * 7 + [False] * 3, [None] * 10, binary=True))
    assert text.startswith("RunResult(judged true: 70.0 % [") and "0.7000" not in text
