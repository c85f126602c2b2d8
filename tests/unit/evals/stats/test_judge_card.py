"""The judge card: leniency with a known answer, κ per system, and a length-bias test that finds a
planted bias and does not find one that is absent more often than its 5 % nominal rate allows."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragjury.evals.stats.judge_card import CardItem, judge_card, judge_excess, length_bias, quartile_gap


def _items(system: str, cells: dict[tuple[int, int], int], words: int = 10) -> list[CardItem]:
    """``cells[(verdict, label)] = count``: a 0/1 judge whose score is its verdict."""
    out = []
    for (verdict, label), count in cells.items():
        out += [CardItem(system, float(verdict), verdict, label, words)] * count
    return out


def _wilson(k: int, n: int) -> tuple[float, float]:
    p, z = k / n, 1.959964
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_leniency_is_judge_rate_minus_people_rate_with_newcombes_paired_interval() -> None:
    # 100 items: judge yes / people no on 20, judge no / people yes on 5 -> +0.15
    items = _items("a", {(1, 1): 40, (0, 0): 35, (1, 0): 20, (0, 1): 5})
    card = judge_card(items).systems[0]
    assert card.judge_rate == pytest.approx(0.60) and card.people_rate == pytest.approx(0.45)
    assert card.leniency.value == pytest.approx(0.15)
    # Newcombe (1998) square-and-add on the two discordant shares, with their correlation
    p12, p21, n = 0.20, 0.05, 100
    (l12, u12), (l21, u21) = _wilson(20, n), _wilson(5, n)
    r = -p12 * p21 / math.sqrt(p12 * (1 - p12) * p21 * (1 - p21))
    a, b, c, e = p12 - l12, u21 - p21, u12 - p12, p21 - l21
    assert card.leniency.low == pytest.approx(0.15 - math.sqrt(a * a + b * b - 2 * r * a * b), abs=1e-6)
    assert card.leniency.high == pytest.approx(0.15 + math.sqrt(c * c + e * e - 2 * r * c * e), abs=1e-6)
    assert card.leniency.found and card.as_dict()["lenient"] is True


def test_leniency_covers_where_the_judge_rarely_disagrees() -> None:
    """2 % of items judged yes against people's no, none the other way, 100 items: a normal
    interval (Agresti–Min) covered 0.86 here; this one must keep about 95 %."""
    rng = np.random.default_rng(5)
    covered, draws = 0, 400
    for _ in range(draws):
        wrong = rng.random(100) < 0.02  # the judge says yes, people no
        agreed = (rng.random(100) < 0.9).astype(float)
        judge, people = np.where(wrong, 1.0, agreed), np.where(wrong, 0.0, agreed)
        span = judge_excess(list(judge), list(people))
        covered += span.low <= 0.02 <= span.high
    assert covered / draws >= 0.93


def test_a_judge_that_agrees_on_every_item_gets_an_interval_with_width() -> None:
    span = judge_excess([1.0] * 30 + [0.0] * 30, [1.0] * 30 + [0.0] * 30)
    assert span.value == 0.0 and span.low < -0.02 and span.high > 0.02 and not span.found


def test_kappa_per_system_shows_the_system_the_judge_fails_on() -> None:
    good = _items("good", {(1, 1): 45, (0, 0): 45, (1, 0): 5, (0, 1): 5})  # κ = 0.8
    bad = _items("bad", {(1, 1): 25, (0, 0): 25, (1, 0): 25, (0, 1): 25})  # κ = 0
    card = {s.system: s for s in judge_card(good + bad).systems}
    assert card["good"].kappa == pytest.approx(0.8) and card["bad"].kappa == pytest.approx(0.0)
    low, high = card["good"].kappa_interval  # type: ignore[misc]
    assert 0.6 < low < 0.8 < high < 0.95
    low, high = card["bad"].kappa_interval  # type: ignore[misc]
    assert low < 0.0 < high
    assert not card["bad"].leniency.found


def _simulated(seed: int, *, bias_per_100_words: float, n: int = 200) -> list[CardItem]:
    """Two systems of answers whose length differs with the label (right answers are longer) and
    with the system; the judge's P(yes) depends on the label and, when planted, on the length."""
    rng = np.random.default_rng(seed)
    items = []
    for system, scale in (("long", 60.0), ("short", 15.0)):
        label = rng.random(n // 2) < 0.6
        words = np.maximum(1, rng.gamma(2.0, scale / 2.0, n // 2) * np.where(label, 1.5, 1.0)).astype(int)
        logit = np.where(label, 1.8, -1.8) + rng.normal(0.0, 1.0, n // 2) + bias_per_100_words * words / 100.0
        probability = 1.0 / (1.0 + np.exp(-logit))
        for p, y, w in zip(probability, label, words, strict=True):
            items.append(CardItem(system, float(p), int(rng.random() < p), int(y), int(w)))
    return items


def test_no_kappa_where_people_used_one_class() -> None:
    card = judge_card(_items("one", {(1, 1): 20, (0, 1): 5}))
    assert card.systems[0].kappa is None and card.systems[0].kappa_interval is None
    assert any("no κ for one" in note for note in card.notes)


def test_length_bias_found_where_planted() -> None:
    found = [length_bias(_simulated(seed, bias_per_100_words=2.0)) for seed in range(50)]
    assert sum(bias is not None and bias.found and bias.slope.value > 0 for bias in found) >= 45


def test_length_bias_not_found_where_absent_at_about_the_nominal_rate() -> None:
    draws = 200
    found = 0
    for seed in range(1000, 1000 + draws):
        bias = length_bias(_simulated(seed, bias_per_100_words=0.0))
        assert bias is not None
        found += bias.found
    assert found / draws <= 0.1  # 95 % intervals: about 0.05 expected


def test_length_bias_of_a_0_1_verdict_is_tested_too() -> None:
    """Without a probability the score is the verdict; a planted bias is still found."""
    items = [CardItem(i.system, float(i.verdict), i.verdict, i.label, i.words)
             for i in _simulated(7, bias_per_100_words=3.0, n=400)]
    bias = length_bias(items)
    assert bias is not None and bias.found and bias.held_fixed == ("label", "system")
    assert {gap.label for gap in bias.quartile_gaps} == {0, 1}
    assert all(gap.long_words > gap.short_words for gap in bias.quartile_gaps)


def test_a_score_fixed_by_the_label_has_no_slope_rather_than_a_round_off_one() -> None:
    items = [CardItem("a", 0.9 if i % 2 else 0.1, i % 2, i % 2, 5 + i) for i in range(60)]
    assert length_bias(items) is None


def test_a_system_whose_labels_are_one_class_still_gets_a_slope() -> None:
    """Its system column repeats the label column; the fit drops it instead of giving up."""
    rng = np.random.default_rng(3)
    items = [CardItem("mixed", float(rng.random()), 1, k % 2, 1 + k) for k in range(40)]
    items += [CardItem("all-yes", float(rng.random()), 1, 1, 1 + k) for k in range(20)]
    bias = length_bias(items)
    assert bias is not None and bias.slope.n == 60


def test_quartile_gap_is_agresti_caffo_and_keeps_a_width_where_scores_are_equal() -> None:
    # label 0, 40 items: the 10 shortest all 0, the 10 longest 6 of 10 yes
    items = [CardItem("a", 0.0, 0, 0, 1 + k) for k in range(30)]
    items += [CardItem("a", float(k < 6), int(k < 6), 0, 100 + k) for k in range(10)]
    gap = quartile_gap(items, 0)
    assert gap is not None and gap.gap.value == pytest.approx(0.6) and gap.gap.n == 40
    short, long = 1 / 12, 7 / 12  # each quarter plus one yes and one no
    half = 1.959964 * math.sqrt(short * (1 - short) / 12 + long * (1 - long) / 12)
    assert gap.gap.low == pytest.approx(long - short - half, abs=1e-6)
    assert gap.gap.high == pytest.approx(long - short + half, abs=1e-6)
    flat = quartile_gap([CardItem("a", 0.0, 0, 0, 1 + k) for k in range(40)], 0)
    assert flat is not None and flat.gap.value == 0.0 and flat.gap.low < -0.05 and flat.gap.high > 0.05


def test_items_without_a_length_are_left_out_of_the_length_figures_only() -> None:
    items = _simulated(4, bias_per_100_words=2.0)
    unknown = [CardItem(i.system, i.score, i.verdict, i.label, None) for i in items[:50]]
    card = judge_card(unknown + items[50:])
    assert card.n_labelled == len(items) and sum(s.n for s in card.systems) == len(items)
    assert card.length is not None and card.length.slope.n == len(items) - 50
    bare = judge_card(unknown)
    assert bare.length is None and "carry no answer text" in bare.notes[-1]


def test_too_few_items_give_no_slope_and_a_note() -> None:
    card = judge_card(_items("a", {(1, 1): 5, (0, 0): 5}))
    assert card.length is None and "no length slope" in card.notes[0]
    assert card.summary_line() is None


def test_summary_line_names_each_significant_bias() -> None:
    items = _items("a", {(1, 1): 40, (0, 0): 35, (1, 0): 20, (0, 1): 5})
    line = judge_card(items).summary_line()
    assert line is not None and line.startswith("judge card: lenient with a (+0.150")


def test_the_t_quantile_matches_scipy_without_importing_it() -> None:
    from scipy.stats import t

    from ragjury.evals.stats.judge_card import _t_quantile

    for df in (3, 10, 11, 30, 100, 2000):
        assert abs(_t_quantile(0.975, df) - float(t.ppf(0.975, df))) < 1e-4
    for df in (1.0, 1.5, 2.7, 4.2, 6.0, 9.9):  # the slope's Bell-McCaffrey df is fractional and can be small
        for p in (0.95, 0.975, 0.995):
            assert abs(_t_quantile(p, df) - float(t.ppf(p, df))) < 1e-6
    import subprocess
    import sys

    code = ("import sys\nfrom ragjury.evals.stats.judge_card import _t_quantile\n"
            "assert abs(_t_quantile(0.975, 3.5) - 2.9401) < 1e-3\nassert 'scipy' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def _satterthwaite_df_by_brute_force(x: np.ndarray, groups: list[list[int]], column: int) -> float:
    """The same df with every n × n matrix formed: Q's columns are (I − H)[:, g] (I − H_gg)⁻¹ X_g (X'X)⁻¹ e_c."""
    inverse = np.linalg.inv(x.T @ x)
    annihilator = np.eye(x.shape[0]) - x @ inverse @ x.T
    columns = []
    for members in groups:
        xg = x[members]
        u = np.linalg.solve(np.eye(len(members)) - xg @ inverse @ xg.T, xg @ inverse[:, column])
        columns.append(annihilator[:, members] @ u)
    gram = np.column_stack(columns).T @ np.column_stack(columns)
    return float(np.trace(gram) ** 2 / np.trace(gram @ gram))


def test_bell_mccaffrey_df_matches_the_n_by_n_formula_and_falls_with_one_long_answer() -> None:
    from ragjury.evals.stats.judge_card import _bell_mccaffrey_df

    rng = np.random.default_rng(5)
    n = 60
    words = rng.integers(5, 40, n).astype(float)
    x = np.column_stack([np.ones(n), rng.random(n) < 0.6, words / 100])
    inverse = np.linalg.inv(x.T @ x)
    leverage = np.einsum("ij,jk,ik->i", x, inverse, x)
    groups = [list(range(k, k + 3)) for k in range(0, n, 3)]
    clustered = _bell_mccaffrey_df(x, inverse, leverage, groups, 2)
    assert clustered == pytest.approx(_satterthwaite_df_by_brute_force(x, groups, 2), rel=1e-9)
    single = _bell_mccaffrey_df(x, inverse, leverage, None, 2)
    assert single == pytest.approx(_satterthwaite_df_by_brute_force(x, [[i] for i in range(n)], 2), rel=1e-9)
    assert 30 < single <= n - 3  # lengths spread out: near n - k
    x[0, 2] = 5.0  # one answer of 500 words carries the slope
    inverse = np.linalg.inv(x.T @ x)
    leverage = np.einsum("ij,jk,ik->i", x, inverse, x)
    assert _bell_mccaffrey_df(x, inverse, leverage, None, 2) < 5


def _rare_residual_population(seed: int, size: int = 4000) -> list[CardItem]:
    """A 0/1 judge fixed by people's label but for rare errors, short answers (1-8 words): a wrong
    one-word answer is scored yes 6 % of the time, a longer one 1 %. The slope rests on those few."""
    rng = np.random.default_rng(seed)
    words = rng.choice([1, 2, 3, 4, 5, 8], size=size, p=[0.33, 0.42, 0.18, 0.045, 0.017, 0.008])
    label = (rng.random(size) < 0.7).astype(int)
    wrong_yes = rng.random(size) < np.where(words == 1, 0.06, 0.01)
    yes = np.where(label == 1, rng.random(size) < 0.95 - 0.03 * words, wrong_yes)
    return [CardItem("s", float(v), int(v), int(y), int(w)) for v, y, w in zip(yes, label, words, strict=True)]


def test_the_slope_interval_covers_where_it_rests_on_rare_residuals() -> None:
    """Four such populations, 100 answers drawn 200 times from each: HC3 on t(n - k) covered
    0.8875 of the time (one-sided, like Wald's interval for a rare rate); the Wilson-type floor and
    Bell-McCaffrey df bring it to 0.9525."""
    from ragjury.evals.stats.judge_card import length_slope

    covered = fitted = 0
    for seed in range(4):
        population = _rare_residual_population(seed)
        whole = length_slope(population)
        assert whole is not None
        rng = np.random.default_rng(1)
        for _ in range(200):
            got = length_slope([population[k] for k in rng.choice(len(population), 100, replace=False)])
            if got is not None:
                fitted += 1
                covered += got[0].low <= whole[0].value <= got[0].high
    assert fitted >= 780 and covered / fitted >= 0.93
