"""Per-system estimates and differences: the three estimates, pairing, and the edge cases."""

from __future__ import annotations

import numpy as np
import pytest

from ragjury.evals.stats.system_estimates import EstimateItem, compare_systems, estimate_system, estimate_systems


def _items(system: str, rate: float, n: int, labelled: int, seed: int) -> list[EstimateItem]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        truth = float(rng.random() < rate)
        judged = truth if rng.random() < 0.85 else 1 - truth
        out.append(EstimateItem(f"{system}-{i}", judged, system, truth if i < labelled else None, pair_key=f"q{i}"))
    return out


def test_three_estimates_bias_and_effective_labels() -> None:
    estimate = estimate_system("a", _items("a", 0.7, 800, 100, 1))
    assert estimate.n_items == 800 and estimate.n_labels == 100
    assert estimate.prediction_powered is not None and estimate.human_only is not None
    assert estimate.bias == pytest.approx(estimate.judge.value - estimate.prediction_powered.value)
    assert estimate.effective_labels is not None and estimate.effective_labels > 100
    row = estimate.as_dict()
    assert set(row) >= {"judge_mean", "human_only", "prediction_powered", "judge_bias", "effective_labels"}
    assert row["prediction_powered"]["interval"][0] < row["prediction_powered"]["estimate"] < row["prediction_powered"]["interval"][1]


def test_fewer_than_ten_labels_gives_people_only_with_a_note() -> None:
    estimate = estimate_system("a", _items("a", 0.6, 200, 8, 2))
    assert estimate.prediction_powered is None and estimate.human_only is not None
    assert any("fewer than 10" in note for note in estimate.notes)


def test_few_labels_of_one_class_is_said() -> None:
    items = [EstimateItem(str(i), 1.0, "a", 1.0 if i < 57 else 0.0) for i in range(60)] + [
        EstimateItem(f"u{i}", 1.0, "a") for i in range(100)
    ]
    assert any("only 3 labels of one class" in note for note in estimate_system("a", items).notes)


def test_paired_difference_uses_the_questions_both_answered() -> None:
    items = _items("a", 0.8, 400, 120, 3) + _items("b", 0.5, 400, 120, 4)
    difference = compare_systems(items, "a", "b")
    assert difference.paired and difference.method.startswith("prediction-powered")
    assert difference.estimate.low > 0 and difference.p_value < 0.01
    unpaired = compare_systems([EstimateItem(i.id, i.score, i.system, i.label) for i in items], "a", "b")
    assert not unpaired.paired and unpaired.estimate.low > 0


def test_unknown_system_is_refused() -> None:
    with pytest.raises(ValueError, match="no items of system 'c'"):
        compare_systems(_items("a", 0.5, 50, 20, 5), "a", "c")


def test_systems_are_grouped() -> None:
    names = [s.system for s in estimate_systems(_items("b", 0.5, 50, 20, 6) + _items("a", 0.5, 50, 20, 7))]
    assert names == ["a", "b"]
