"""The confidence sequence: its status words, and that it covers under optional stopping (a quick seeded check)."""

from __future__ import annotations

import numpy as np
import pytest

from ragjury.evals.stats.sequential import (
    active_weights,
    confidence_sequence,
    draw_orders,
    parse_decision,
    status_of,
    weighted_stream,
)


def _judge(seed: int, n: int, rate: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rate).astype(float)
    h = np.clip(np.where(rng.random(n) < 0.85, y, 1 - y) * 0.6 + rng.random(n) * 0.4, 0, 1)
    return y, h


def test_decisions_parse_and_a_wrong_one_names_the_forms() -> None:
    assert parse_decision("rate >= 0.8").threshold == 0.8
    assert parse_decision("rate >= 80%").threshold == 0.8
    assert parse_decision("B - A").kind == "difference"
    assert parse_decision("B >= A - 0.02").threshold == 0.02
    with pytest.raises(ValueError, match='"rate >= 0.8", "B - A", "B >= A - 0.02" or "best"'):
        parse_decision("rate > 2")


def test_not_settled_yet_after_few_labels() -> None:
    y, h = _judge(0, 200, 0.8)
    status = status_of(parse_decision("rate >= 0.8"), y[:5], h[:5], h)
    assert status.words.startswith("not settled yet (rate ")
    assert status.as_dict()["state"] == "not settled" and status.verdict is None


def test_settled_b_is_better_names_the_difference_the_sequence_and_the_labels() -> None:
    rng = np.random.default_rng(3)
    d = np.where(rng.random(300) < 0.35, 1.0, np.where(rng.random(300) < 0.1, -1.0, 0.0))
    g = np.clip(d * 0.8 + rng.normal(0, 0.1, 300), -1, 1)
    status = status_of(parse_decision("B - A"), d[:120], g[:120], g)
    assert status.verdict == "b_better"
    assert status.words.startswith("settled: B is better (B − A +")
    assert status.words.endswith("after 120 labels — you can stop")
    assert "sequence [+" in status.words


def test_settled_no_difference_when_the_sequence_is_within_two_points() -> None:
    d = np.zeros(300)
    g = np.zeros(300)
    status = status_of(parse_decision("B - A"), d[:290], g[:290], g)
    assert status.verdict == "no_difference"
    assert status.words.startswith("settled: no difference larger than 2 points (B − A +0.0 points")


def test_budget_reached_not_settled() -> None:
    y, h = _judge(1, 200, 0.8)
    status = status_of(parse_decision("rate >= 0.8"), y[:20], h[:20], h, max_labels=20)
    assert status.words.startswith("budget reached: not settled (rate ")


def test_the_rate_settles_above_and_below() -> None:
    y, h = _judge(2, 300, 0.95)
    above = status_of(parse_decision("rate >= 0.7"), y[:150], h[:150], h)
    below = status_of(parse_decision("rate >= 0.99"), y[:250], h[:250], h)
    assert above.words.startswith("settled: the rate is at least 70.0 %")
    assert below.words.startswith("settled: the rate is below 99.0 %")


def test_non_inferiority_settles_both_ways() -> None:
    same = status_of(parse_decision("B >= A - 0.05"), np.zeros(250), np.zeros(250), np.zeros(300))
    worse = status_of(parse_decision("B >= A - 0.02"), -np.ones(100), -np.ones(100), -np.ones(300))
    assert same.words.startswith("settled: B is not worse than A by 5 points or more")
    assert worse.words.startswith("settled: B is worse than A by 2 points or more")


@pytest.mark.parametrize("horizons", [None, (30, 60, 120)])
@pytest.mark.parametrize("active", [False, True])
def test_the_sequence_covers_at_every_step_on_a_simulated_stream(active: bool, horizons: tuple | None) -> None:
    """300 seeded draws of 120 labels out of 150: the sequence misses the people's rate at *any*
    step in at most 5 % of draws (plus Monte-Carlo slack), however the order favours unsure items."""
    y, h = _judge(5, 150, 0.7)
    a = active_weights(np.sqrt(h * (1 - h))) if active else np.ones(150)
    order = draw_orders(a, 300, 120, np.random.default_rng(7))
    seq = confidence_sequence(weighted_stream(y, h, h, order, a), 150, horizons=horizons)
    truth = y.mean()
    missed = ((seq.low > truth + 1e-9) | (seq.high < truth - 1e-9)).any(axis=1).mean()
    assert missed <= 0.07
    assert np.all(np.diff(seq.high - seq.low, axis=1) <= 1e-12)  # a running intersection never widens
    assert (seq.high[:, -1] - seq.low[:, -1]).mean() < 0.2
