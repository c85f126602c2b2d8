"""``--until best``: the pairwise sequences hold jointly, a config is out once another is shown better,
and what is settled is said in words (an aggregate only)."""

from __future__ import annotations

import numpy as np

from ragjury.evals.stats.sequential import parse_decision
from ragjury.evals.stats.sequential_best import best_status, pairs_of, pairwise_sequences, settle_best


def test_best_is_a_decision() -> None:
    decision = parse_decision(" best ")
    assert decision.kind == "best" and decision.text == "best" and not decision.paired


def test_one_config_left_is_the_best_even_without_beating_each_other_directly() -> None:
    pairs = pairs_of(3)  # (0,1) (0,2) (1,2): each sequence is of y_j − y_i
    low = np.array([0.05, -0.10, 0.02])  # 1 beats 0; 0 vs 2 open; 2 beats 1
    high = np.array([0.20, 0.10, 0.30])
    code, running = settle_best(low, high, pairs, 3)
    assert int(code) == 2 and running.tolist() == [False, False, True]  # 0 out (1 beats it), 1 out (2 beats it)


def test_those_left_within_the_margin_settle_no_difference_and_wider_is_not_settled() -> None:
    pairs = pairs_of(3)
    low, high = np.array([-0.01, -0.3, -0.3]), np.array([0.015, -0.2, -0.2])  # 2 is out; 0 and 1 within ± 2 points
    code, running = settle_best(low, high, pairs, 3)
    assert int(code) == -2 and running.tolist() == [True, True, False]
    code, _ = settle_best(np.array([-0.03, -0.3, -0.3]), high, pairs, 3)
    assert int(code) == -1


def test_the_sequences_cover_every_pair_at_once_at_the_stated_level() -> None:
    rng = np.random.default_rng(3)
    units, configs, draws = 120, 3, 200
    rates = np.array([0.6, 0.65, 0.8])
    y_all = (rng.random((units, configs)) < rates).astype(float)
    h_all = np.clip(y_all * 0.7 + rng.random((units, configs)) * 0.3, 0, 1)
    order = np.argsort(rng.random((draws, units)), axis=1)[:, :60]
    seq, pairs = pairwise_sequences(y_all[order], h_all[order], h_all, level=0.9, budget=60)
    truth = np.array([y_all[:, j].mean() - y_all[:, i].mean() for i, j in pairs])
    covered = ((seq.low <= truth[None, :, None] + 1e-9) & (seq.high >= truth[None, :, None] - 1e-9)).all(axis=(1, 2))
    assert covered.mean() >= 0.9  # jointly, at every step (each pair at 1 − 0.1/3)
    assert (seq.high[:, :, -1] - seq.low[:, :, -1]).mean() < (seq.high[:, :, 0] - seq.low[:, :, 0]).mean()


def test_the_status_names_the_best_once_every_question_is_labelled() -> None:
    rng = np.random.default_rng(0)
    y = (rng.random((80, 3)) < np.array([0.2, 0.5, 0.95])).astype(float)
    status = best_status(("a", "b", "c"), y, y, y, max_units=80)
    assert status.settled and status.verdict == "best" and status.as_dict()["best"] == "c"
    assert status.words.startswith("settled: c is best (c − ") and "after 240 labels — you can stop" in status.words
    early = best_status(("a", "b", "c"), y[:3], y[:3], y, max_units=80)
    assert not early.settled and early.words.startswith("not settled yet (in the running: ")
    none = best_status(("a", "b", "c"), y[:0], y[:0], y)
    assert none.words == "not settled yet (no labels yet; 3 configs)" and none.as_dict()["n_labels"] == 0
