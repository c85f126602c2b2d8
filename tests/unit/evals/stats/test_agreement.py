"""Agreement statistics: textbook values, independent re-derivations, and unscored handling."""

from __future__ import annotations

import itertools
import random

import pytest

from ragjury.evals.stats.agreement import label_agreement, qrels_agreement, ranking_correlation

# 12 graded labels; reference figures computed with scikit-learn 1.9.1 (cohen_kappa_score) and the
# `krippendorff` package 0.9.0 (alpha with value_domain [0, 1, 2, 3]), which are not dependencies.
GOLD = [0, 1, 2, 3, 3, 2, 1, 0, 2, 3, 1, 1]
PRED = [0, 1, 3, 3, 2, 2, 0, 0, 1, 3, 1, 2]


def test_cohen_kappa_textbook_example() -> None:
    # 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: po = 0.7, pe = 0.5, kappa = 0.4
    gold = [True] * 25 + [False] * 25
    predicted = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    figures = label_agreement(gold, predicted)
    assert figures.accuracy == pytest.approx(0.7)
    assert figures.cohen_kappa == pytest.approx(0.4)
    assert figures.confusion == [[15, 10], [5, 20]]
    assert figures.labels == [False, True]
    assert figures.precision == pytest.approx(20 / 30)
    assert figures.recall == pytest.approx(20 / 25)
    assert figures.f1 == pytest.approx(2 * 20 / (2 * 20 + 10 + 5))


def test_graded_figures_match_reference_implementations() -> None:
    figures = label_agreement(GOLD, PRED, ordinal=True)
    assert figures.cohen_kappa == pytest.approx(0.4444444444444444)
    assert figures.quadratic_kappa == pytest.approx(0.8214285714285714)
    assert figures.alpha_metric == "ordinal"
    assert figures.krippendorff_alpha == pytest.approx(0.8287101516558342)
    interval = label_agreement(GOLD, PRED, ordinal=True, alpha_metric="interval")
    assert interval.krippendorff_alpha == pytest.approx(0.8286140089418778)
    nominal = label_agreement(GOLD, PRED)
    assert nominal.krippendorff_alpha == pytest.approx(0.4651162790697675)
    assert nominal.quadratic_kappa is None and "quadratic_kappa" not in nominal.figures()


def _alpha_by_definition(gold: list[int], pred: list[int], metric: str) -> float:
    """alpha = 1 - D_o / D_e straight from the definition: mean distance within units vs over all pairs."""

    def distance(a: int, b: int) -> float:
        return float(a != b) if metric == "nominal" else float((a - b) ** 2)

    observed = sum(distance(g, p) for g, p in zip(gold, pred, strict=True)) / len(gold)
    values = gold + pred
    pairs = list(itertools.permutations(range(len(values)), 2))
    expected = sum(distance(values[i], values[j]) for i, j in pairs) / len(pairs)
    return 1 - observed / expected


@pytest.mark.parametrize("metric", ["nominal", "interval"])
def test_alpha_equals_its_definition_on_random_data(metric: str) -> None:
    rng = random.Random(5)
    for _ in range(20):
        gold = [rng.randint(0, 3) for _ in range(rng.randint(4, 30))]
        pred = [g if rng.random() < 0.6 else rng.randint(0, 3) for g in gold]
        if len(set(gold + pred)) < 2:
            continue
        figures = label_agreement(gold, pred, ordinal=True, alpha_metric=metric)  # type: ignore[arg-type]
        assert figures.krippendorff_alpha == pytest.approx(_alpha_by_definition(gold, pred, metric))


def test_unscored_predictions_lower_coverage_only() -> None:
    gold = [True, True, False, False, True]
    predicted = [True, None, False, None, False]
    figures = label_agreement(gold, predicted)
    assert (figures.n_total, figures.n_scored, figures.n_unscored) == (5, 3, 2)
    assert figures.coverage == pytest.approx(0.6)
    assert figures.accuracy == pytest.approx(2 / 3)  # None is neither right nor wrong
    assert sum(map(sum, figures.confusion)) == 3
    nothing = label_agreement([True, False], [None, None])
    assert nothing.coverage == 0.0
    assert nothing.accuracy is None and nothing.cohen_kappa is None and nothing.krippendorff_alpha is None


def test_undefined_kappa_is_none_not_a_number() -> None:
    figures = label_agreement([True, True, True], [True, True, True], labels=[False, True])
    assert figures.accuracy == 1.0
    assert figures.cohen_kappa is None  # chance agreement is 1: kappa is 0/0


def test_bools_and_ints_mix_and_bad_inputs_raise() -> None:
    figures = label_agreement([True, False, True], [1, 0, 0])
    assert figures.accuracy == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="2 labels but predicted has 1"):
        label_agreement([1, 0], [1])
    with pytest.raises(ValueError, match="not in labels"):
        label_agreement([0, 1, 2], [0, 1, 2], labels=[0, 1])
    with pytest.raises(ValueError, match="must be int or bool"):
        label_agreement([0.5], [1])  # type: ignore[list-item]


def test_ranking_correlation() -> None:
    people = {"a": 0.9, "b": 0.7, "c": 0.5, "d": 0.1}
    same_order = {"a": 0.6, "b": 0.5, "c": 0.4, "d": 0.0, "extra": 1.0}
    result = ranking_correlation(people, same_order)
    assert (
        result.n == 4 and result.kendall_tau == pytest.approx(1.0) and result.spearman == pytest.approx(1.0)
    )
    one_swap = {"a": 0.9, "b": 0.5, "c": 0.7, "d": 0.1}
    swapped = ranking_correlation(people, one_swap)
    assert swapped.kendall_tau == pytest.approx(4 / 6)  # 5 concordant, 1 discordant of 6 pairs
    assert swapped.spearman == pytest.approx(1 - 6 * 2 / (4 * 15))
    reversed_order = ranking_correlation(people, {k: -v for k, v in people.items()})
    assert reversed_order.kendall_tau == pytest.approx(-1.0)
    assert ranking_correlation({"a": 1.0}, {"a": 2.0}).kendall_tau is None
    assert ranking_correlation(people, {k: 0.5 for k in people}).spearman is None


def test_qrels_agreement_binary_and_graded() -> None:
    gold = {"q1": {"a": 3, "b": 2, "c": 1, "d": 0}, "q2": {"e": 2, "f": 0}}
    judged = {"q1": {"a": 2, "b": 1, "c": 1, "d": 0, "x": 3}, "q2": {"e": 2}}
    result = qrels_agreement(gold, judged, rel=2)
    assert (result.n_gold, result.n_judged, result.n_shared, result.n_judged_only) == (6, 6, 5, 1)
    # binary at rel=2: gold a,b,e relevant; judged a,e relevant -> b is the one miss; f unscored
    assert result.binary.n_scored == 5 and result.binary.coverage == pytest.approx(5 / 6)
    assert result.binary.accuracy == pytest.approx(4 / 5)
    assert result.binary.confusion == [[2, 0], [1, 2]]
    assert result.graded.accuracy == pytest.approx(3 / 5)
    assert result.graded.labels == [0, 1, 2, 3]
    flat = result.figures()
    assert flat["cohen_kappa"] == result.binary.cohen_kappa
    assert flat["quadratic_kappa"] == result.graded.quadratic_kappa is not None
    assert flat["krippendorff_alpha"] == result.graded.krippendorff_alpha
    assert flat["graded_cohen_kappa"] == result.graded.cohen_kappa
    assert flat["binary_krippendorff_alpha"] == result.binary.krippendorff_alpha
    identical = qrels_agreement(gold, gold, rel=2)
    assert identical.binary.cohen_kappa == pytest.approx(1.0)
    assert identical.graded.quadratic_kappa == pytest.approx(1.0)
    assert identical.graded.krippendorff_alpha == pytest.approx(1.0)
