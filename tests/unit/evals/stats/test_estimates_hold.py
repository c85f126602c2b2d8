"""Issue 28, items 1–7: estimates that hold at every n (each test failed before its fix)."""

from __future__ import annotations

import numpy as np
import pytest

from ragjury.evals.stats.system_estimates import WARN_BELOW
from ragjury.evals.stats.prediction_powered import finite_population_lambda, finite_population_mean
from ragjury.evals.stats.system_estimates import EstimateItem, compare_systems, estimate_system


def _system(name: str, truth: np.ndarray, judge: np.ndarray, labelled: set[int]) -> list[EstimateItem]:
    return [
        EstimateItem(f"{name}-{i}", float(judge[i]), name, float(truth[i]) if i in labelled else None, pair_key=f"q{i}")
        for i in range(truth.shape[0])
    ]


def _two_systems(seed: int, shared: int) -> tuple[list[EstimateItem], int]:
    """400 questions; a system right on 80 %, b on 60 %, their answers correlated per question;
    100 labels each drawn independently, plus ``shared`` questions labelled for both."""
    rng = np.random.default_rng(seed)
    hard = rng.random(400) < 0.3
    a = ((rng.random(400) < 0.95) & ~(hard & (rng.random(400) < 0.6))).astype(float)
    b = ((rng.random(400) < 0.85) & ~(hard & (rng.random(400) < 0.9))).astype(float)
    judge_a = np.where(rng.random(400) < 0.85, a, 1 - a)
    judge_b = np.where(rng.random(400) < 0.85, b, 1 - b)
    both = set(rng.choice(400, shared, replace=False).tolist())
    rest = [i for i in range(400) if i not in both]
    picks_a = both | set(rng.choice(rest, 100 - shared, replace=False).tolist())
    picks_b = both | set(rng.choice(rest, 100 - shared, replace=False).tolist())
    overlap = len(picks_a & picks_b)
    return _system("a", a, judge_a, picks_a) + _system("b", b, judge_b, picks_b), overlap


@pytest.mark.parametrize("shared", [0, 12, 60])
def test_a_b_uses_every_label_and_is_no_wider_than_the_two_estimates_combined(shared: int) -> None:
    items, overlap = _two_systems(3, shared)
    # ``shared`` questions are labelled for both by design: paired; with none, the questions the two
    # independent draws share by chance are not (issue 35 item 11: that covariance is not the design's)
    difference = compare_systems(items, "a", "b", paired=True if shared else None)
    assert difference.estimate.n_labels == 200  # nothing dropped, however many are shared
    own = [estimate_system(name, [i for i in items if i.system == name]).prediction_powered for name in ("a", "b")]
    combined = np.hypot(own[0].std_error, own[1].std_error)  # type: ignore[union-attr]
    assert difference.estimate.std_error <= combined + 1e-12
    assert difference.independent_std_error == pytest.approx(combined)
    assert difference.paired == (shared > 0) and overlap > 0
    if not shared:
        assert difference.estimate.std_error == pytest.approx(combined, rel=0.05)  # one Wilson term, not two
        assert "by chance: independent draws, not paired" in difference.notes[0]
    if shared >= 60:
        assert difference.estimate.std_error < 0.97 * combined  # shared questions narrow it
    assert f"{overlap} questions labelled for both" in difference.notes[0]


def test_the_same_questions_labelled_for_both_are_paired_without_being_told() -> None:
    rng = np.random.default_rng(5)
    a = (rng.random(300) < 0.7).astype(float)
    b = np.where(rng.random(300) < 0.8, a, 1 - a)
    picks = set(rng.choice(300, 80, replace=False).tolist())
    items = _system("a", a, a, picks) + _system("b", b, b, picks)
    assert compare_systems(items, "a", "b").paired
    assert not compare_systems(items, "a", "b", paired=False).paired


def test_one_class_labels_never_give_a_zero_width_interval() -> None:
    items = [EstimateItem(str(i), 1.0, "a", 1.0 if i < 30 else None) for i in range(300)]
    estimate = estimate_system("a", items)
    for interval in (estimate.prediction_powered, estimate.human_only):
        assert interval is not None and interval.width > 0.08 and interval.high == 1.0
        assert interval.low <= 30 / (30 + 1.96**2) + 1e-4  # Wilson's bound for 30 of 30
    assert any("Wilson" in note for note in estimate.notes)


def test_every_interval_is_clipped_to_zero_one() -> None:
    rng = np.random.default_rng(4)
    truth = (rng.random(500) < 0.97).astype(float)
    judge = np.where(rng.random(500) < 0.9, truth, 1 - truth)
    for seed in range(40):
        index = np.random.default_rng(seed).choice(500, 30, replace=False)
        for lam in (None, 0.0):
            estimate = finite_population_mean(truth[index], judge[index], judge, lam=lam, interval="normal")
            assert 0.0 <= estimate.low <= estimate.value <= estimate.high <= 1.0


def test_few_labels_warn_with_the_measured_coverage() -> None:
    items = [EstimateItem(str(i), float(i % 3 == 0), "a", float(i % 2 == 0) if i < 20 else None) for i in range(300)]
    notes = estimate_system("a", items).notes
    assert any("20 labels" in note and "covered 0.93–1.00" in note and f"at least {WARN_BELOW}" in note for note in notes)
    many = [EstimateItem(str(i), float(i % 3 == 0), "a", float(i % 2 == 0) if i < WARN_BELOW else None) for i in range(300)]
    assert not any("label at least" in note for note in estimate_system("a", many).notes)


def test_cross_fitted_lambda_is_unbiased_at_30_labels() -> None:
    """A judge right 90 % of the time on a system right 90 %: λ fitted in-sample biased the
    estimate by +0.010 here (3,000 draws of 30 labels); cross-fitted, the bias is noise."""
    rng = np.random.default_rng(1)
    truth = (rng.random(1500) < 0.9).astype(float)
    judge = np.where(rng.random(1500) < 0.9, truth, 1 - truth)
    draws = np.random.default_rng(5)
    values = [
        finite_population_mean(truth[i], judge[i], judge).value
        for i in (draws.choice(1500, 30, replace=False) for _ in range(3000))
    ]
    assert abs(np.mean(values) - truth.mean()) < 0.004


def test_lambda_has_no_infinite_population_factor() -> None:
    """A quarter of the items labelled: λ is the residuals' slope cov/var, not shrunk by 1 + n/N."""
    rng = np.random.default_rng(6)
    truth = (rng.random(400) < 0.6).astype(float)
    judge = np.where(rng.random(400) < 0.8, truth, 1 - truth)
    index = rng.choice(400, 100, replace=False)
    y, h = truth[index], judge[index]
    slope = np.cov(y, h)[0, 1] / np.var(h, ddof=1)
    assert 0.3 < slope < 0.8  # inside (0, 1): not clipped
    assert finite_population_lambda(y, h, np.full(100, 0.25)) == pytest.approx(slope)
    assert finite_population_mean(y, h, judge).lam == pytest.approx(slope, rel=0.05)  # was 0.44 of 0.54


def test_a_constant_judge_gets_lambda_exactly_zero_and_the_note() -> None:
    """0.9 on 97 labels: the pooled variance's round-off once gave λ = 0.17."""
    items = [EstimateItem(str(i), 0.9, "a", float(i % 3 > 0) if i < 97 else None) for i in range(300)]
    estimate = estimate_system("a", items)
    assert estimate.prediction_powered is not None and estimate.prediction_powered.lam == 0.0
    assert any("do not track the labels" in note for note in estimate.notes)


def test_a_rare_class_near_a_rate_of_five_percent_is_said() -> None:
    items = [EstimateItem(str(i), float(i < 7), "a", float(i < 7) if i < 100 else None) for i in range(400)]
    assert any("only 7 labels of one class" in note for note in estimate_system("a", items).notes)


def test_label_plan_keeps_seventy_percent_of_its_labels_effective() -> None:
    """Sharp probabilities (mass at 0 and 1): the plain plan's weights cost most of its labels."""
    from ragjury.evals.stats.label_plan import effective_sample_size, guarded_probabilities, inclusion_probabilities

    rng = np.random.default_rng(9)
    sharp = np.clip(rng.beta(0.1, 0.1, 2000), 0, 1)
    plain = inclusion_probabilities(sharp, 500)
    assert effective_sample_size(plain) < 0.6 * plain.sum()
    pi, share = guarded_probabilities(sharp, 500)
    assert pi.sum() == pytest.approx(500) and share > 0.1
    assert effective_sample_size(pi) >= 0.7 * pi.sum()
    assert effective_sample_size(np.full(100, 0.2)) == pytest.approx(20)


def test_a_strict_judge_at_50_labels_covers_with_wilsons_term() -> None:
    """People say yes 68 %, the judge misses 14 % of those: the labels' part is a rare residual.
    Without Wilson's term the t-interval covered 0.924 of 1,000 draws of 50 labels here."""
    rng = np.random.default_rng(12)
    truth = (rng.random(1500) < 0.68).astype(float)
    judge = np.where(truth == 1, rng.random(1500) > 0.14, rng.random(1500) < 0.02).astype(float)
    draws = np.random.default_rng(2)
    covered = 0
    for _ in range(1000):
        index = draws.choice(1500, 50, replace=False)
        estimate = finite_population_mean(truth[index], judge[index], judge)
        covered += estimate.low <= truth.mean() <= estimate.high
    assert 0.94 <= covered / 1000 <= 0.985


def test_the_judges_own_interval_is_clipped_too() -> None:
    from ragjury.evals.stats.prediction_powered import judge_mean

    own = judge_mean([1.0] * 97 + [0.0] * 3)
    assert own.high == 1.0 and own.low < own.value == 0.97



def test_the_judges_continuous_score_is_its_prediction() -> None:
    """``support`` carries ``value.score`` (its support precision): finer than its 0/1 verdict."""
    from ragjury.evals.io.predictions import ItemRecord
    from ragjury.evals.stats.run_estimates import judge_score

    support = ItemRecord(id="x", line=1, label=False, value={"score": 0.62, "label": False, "threshold": 0.795})
    assert judge_score(support) == pytest.approx(0.62)
    assert judge_score(ItemRecord(id="y", line=2, label=True, value={"probability": 0.9, "score": 0.1})) == 0.9
    assert judge_score(ItemRecord(id="z", line=3, label=True, value={"score": 3.0})) == 1.0  # a grade, not [0, 1]


def test_one_class_labels_blame_the_labels_not_the_judge_for_lambda_zero() -> None:
    """Every label yes: λ is 0 because there is nothing to track, which the note says."""
    items = [EstimateItem(str(i), 0.3 + 0.6 * (i % 2), "a", 1.0 if i < 40 else None) for i in range(200)]
    notes = estimate_system("a", items).notes
    assert any("every label here is yes" in note for note in notes), notes
    assert not any("do not track the labels" in note for note in notes)
