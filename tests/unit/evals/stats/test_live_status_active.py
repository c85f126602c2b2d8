"""``label --until "rate >= c" --active``: an order drawn once with chances favouring the judge's unsure items,
each label weighted by 1/(|R|·q), the same sequence the bench measured (``weighted_stream``); pairs refuse it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragjury.evals.io.label_acts import read_acts
from ragjury.evals.labelling.items import JudgeVerdict, LabelItem
from ragjury.evals.labelling.session import LabelSession
from ragjury.evals.stats.live_status import ACTIVE_RATES_ONLY, LiveStatus, sequence_of
from ragjury.evals.stats.sequential import confidence_sequence, horizons_for, parse_decision, weighted_stream


def _items(n: int = 120, seed: int = 4) -> tuple[list[LabelItem], np.ndarray]:
    rng = np.random.default_rng(seed)
    p = np.clip(rng.beta(2, 2, size=n), 0.01, 0.99)
    truth = (rng.random(n) < p).astype(float)
    items = [LabelItem(f"q{i}", None, (("question", f"question {i}"), ("answer", f"answer {i}")),
                     JudgeVerdict(bool(p[i] > 0.5), float(p[i]))) for i in range(n)]
    return items, truth


def test_the_active_order_is_the_weighted_stream_the_bench_measured(tmp_path: Path) -> None:
    items, truth = _items()
    live = LiveStatus.of(items, parse_decision("rate >= 0.6"), max_labels=60, active=True)
    assert live.chances is not None and live.mark.endswith("; active")
    labels = tmp_path / "labels.jsonl"
    session = LabelSession(items, labels, "ana", seed=0, sequential=live.mark)
    session.order = live.active_order("0:ana")
    assert sorted(session.order) == sorted(item.key for item in items)  # every item, once
    index = {item.key: i for i, item in enumerate(items)}
    screen, given = session.screen(), 0
    while not screen.finished and given < 40:
        item = screen.item
        assert item is not None
        screen = session.act(item.key, "label", label=bool(truth[index[item.key]]), seen=screen.version)
        given += 1
    status = live.status(read_acts(labels))
    order = np.array([[index[key] for key in session.order[:40]]])
    h = np.array([item.judge.probability for item in items])
    seq = confidence_sequence(weighted_stream(truth, h, h, order, live.chances), len(items), level=0.95,
                              horizons=horizons_for(60))
    assert status.low == pytest.approx(seq.low[0, -1]) and status.high == pytest.approx(seq.high[0, -1])
    assert status.estimate == pytest.approx(seq.estimate[0, -1])
    uniform = LiveStatus.of(items, parse_decision("rate >= 0.6"), max_labels=60).status(read_acts(labels))
    assert (uniform.low, uniform.high) != (status.low, status.high)  # the weights are not ignored
    assert sequence_of(items, read_acts(labels)).words == status.words  # estimate rebuilds it from the acts' mark


def test_the_unsure_items_come_first_more_often_but_every_item_can_come() -> None:
    items, _ = _items(n=400)
    live = LiveStatus.of(items, parse_decision("rate >= 0.6"), active=True)
    first = live.active_order("0:ana")[:100]
    p = {item.key: item.judge.probability for item in items}
    spread = lambda keys: float(np.mean([np.sqrt(p[k] * (1 - p[k])) for k in keys]))  # noqa: E731
    assert spread(first) > spread([item.key for item in items])
    assert live.chances.min() > 0 and live.chances.max() / live.chances.mean() <= 2.0 + 1e-9


def test_pairs_keep_the_uniform_order() -> None:
    items, _ = _items()
    with pytest.raises(ValueError, match="--active works with"):
        LiveStatus.of(items, parse_decision("B - A"), active=True)
    assert "98 → 111" in ACTIVE_RATES_ONLY
