"""Label until you know which config is best: simultaneous confidence sequences for every pair of N configs.

Why pairwise and paired: every config answered the same questions, and a question that is hard for
one is hard for the others, so B − A per question (people's, with the judge's as control variate)
varies far less than either rate; the sequence of ``evals/stats/sequential`` for each of the
K = N(N − 1)/2 differences, each at level 1 − α/K, holds for all K at once at every stopping time
(a union bound over K sequences, each valid at any stop), so a person may stop at any "settled".

What is settled: config j is *out* once some config is shown better than it (a pair's sequence
above 0). Whoever is best is never out while the sequences hold, so when one config is left it is
the best; when the configs left are all within ± ``margin`` of each other (every pair's sequence
inside it), the best is one of them and none is better than another by ``margin`` or more. Both
statements are wrong only where a sequence misses, which happens in at most α of sessions.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ragjury.evals.stats.sequential import (
    NO_DIFFERENCE,
    ConfidenceSequence,
    Floats,
    Stream,
    confidence_sequence,
    horizons_for,
)

Pairs = list[tuple[int, int]]


def pairs_of(n_configs: int) -> Pairs:
    """Every (i, j), i < j: the sequence of pair k is for mean(y_j − y_i)."""
    return list(combinations(range(n_configs), 2))


def pairwise_stream(y: Floats, h: Floats, h_all: Floats) -> tuple[Stream, Pairs]:
    """One uniform-order stream per (draw, pair): ``y``/``h`` are (draws, T, N) in label order,
    ``h_all`` (units, N) the judge on every unit. Rows are draw-major: row d·K + k."""
    draws, steps, n_configs = y.shape
    pairs = pairs_of(n_configs)
    i = np.array([p[0] for p in pairs])
    j = np.array([p[1] for p in pairs])
    dy = (y[:, :, j] - y[:, :, i]).transpose(0, 2, 1).reshape(draws * len(pairs), steps)
    dh = (h[:, :, j] - h[:, :, i]).transpose(0, 2, 1).reshape(draws * len(pairs), steps)
    total = (h_all[:, j] - h_all[:, i]).sum(axis=0)  # (K,)
    units = h_all.shape[0]
    before = np.concatenate([np.zeros((dh.shape[0], 1)), np.cumsum(dh, axis=1)[:, :-1]], axis=1)
    left = units - np.arange(steps, dtype=np.float64)[None, :]
    h_rest = (np.tile(total, draws)[:, None] - before) / left
    ones = np.ones_like(dy)
    return Stream(dy, dh, ones, ones, ones, h_rest), pairs


def pairwise_sequences(y: Floats, h: Floats, h_all: Floats, *, level: float = 0.95,
                       budget: int | None = None, lam: float | None = None) -> tuple[ConfidenceSequence, Pairs]:
    """The K pairs' sequences, each at 1 − α/K; arrays (draws, K, T)."""
    draws, steps, _ = y.shape
    stream, pairs = pairwise_stream(y, h, h_all)
    units = h_all.shape[0]
    each = 1.0 - (1.0 - level) / len(pairs)
    seq = confidence_sequence(stream, units, y_range=(-1.0, 1.0), h_range=(-1.0, 1.0), level=each, lam=lam,
                              horizons=horizons_for(min(budget or units, units)))
    shape = (draws, len(pairs), steps)
    return ConfidenceSequence(seq.estimate.reshape(shape), seq.low.reshape(shape), seq.high.reshape(shape)), pairs


def settle_best(low: Floats, high: Floats, pairs: Pairs, n_configs: int,
                margin: float = NO_DIFFERENCE) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """What the pairs' sequences (..., K) settle: (code, in_running (..., N)). ``code`` ≥ 0: that
    config is best; −2: the configs still in the running are within ± ``margin`` of each other;
    −1: not settled."""
    shape = low.shape[:-1]
    out = np.zeros(shape + (n_configs,), dtype=bool)
    for k, (i, j) in enumerate(pairs):
        out[..., i] |= low[..., k] > 0  # j better than i
        out[..., j] |= high[..., k] < 0
    running = ~out
    count = running.sum(axis=-1)
    close = np.ones(shape, dtype=bool)
    for k, (i, j) in enumerate(pairs):
        both = running[..., i] & running[..., j]
        close &= ~both | ((low[..., k] > -margin) & (high[..., k] < margin))
    code = np.where(count == 1, running.argmax(axis=-1), np.where((count >= 2) & close, -2, -1))
    return code.astype(np.int64), running


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}".replace("-", "−")


@dataclass(frozen=True)
class BestStatus:
    """The live answer to ``--until best``: an aggregate only (pairs' differences), never an item's verdict."""

    names: tuple[str, ...]
    estimates: tuple[float, ...]
    lows: tuple[float, ...]
    highs: tuple[float, ...]
    pairs: tuple[tuple[int, int], ...]
    code: int | None
    running: tuple[bool, ...]
    n_units_labelled: int
    n_units: int
    budget_reached: bool
    level: float
    margin: float = NO_DIFFERENCE
    until: str = "best"

    @property
    def labels(self) -> int:
        return self.n_units_labelled * len(self.names)

    @property
    def settled(self) -> bool:
        return self.code is not None and self.code != -1

    @property
    def verdict(self) -> str | None:
        if not self.settled:
            return None
        return "best" if self.code is not None and self.code >= 0 else "no_difference"

    @property
    def state(self) -> str:
        return "settled" if self.settled else "budget reached" if self.budget_reached else "not settled"

    @property
    def in_running(self) -> list[str]:
        return [name for name, keep in zip(self.names, self.running) if keep]

    def _oriented(self, a: int, b: int) -> tuple[float, float, float]:
        """``b − a``'s estimate and sequence, whichever order the pair is stored in."""
        for k, (i, j) in enumerate(self.pairs):
            if (i, j) == (a, b):
                return self.estimates[k], self.lows[k], self.highs[k]
            if (i, j) == (b, a):
                return -self.estimates[k], -self.highs[k], -self.lows[k]
        raise KeyError((a, b))

    def _pair(self, a: int, b: int) -> str:
        """``b − a`` with its sequence, in words."""
        est, low, high = self._oriented(a, b)
        return f"{self.names[b]} − {self.names[a]} {_pts(est)} points, sequence [{_pts(low)}, {_pts(high)}]"

    def _leader(self) -> int:
        """The config with the largest summed estimated lead over the others (for the words only)."""
        lead = np.zeros(len(self.names))
        for k, (i, j) in enumerate(self.pairs):
            lead[j] += self.estimates[k]
            lead[i] -= self.estimates[k]
        running = [k for k, keep in enumerate(self.running) if keep] or list(range(len(self.names)))
        return max(running, key=lambda k: lead[k])

    def _closest(self, leader: int) -> str:
        """The leader against its nearest rival (the pair whose sequence's low end is lowest)."""
        rivals = [k for k in range(len(self.names)) if k != leader]
        worst = min(rivals, key=lambda r: self._oriented(r, leader)[1])
        return self._pair(worst, leader)

    @property
    def words(self) -> str:
        labels = f"{self.labels} label{'s' if self.labels != 1 else ''}"
        if self.n_units_labelled == 0:
            return f"not settled yet (no labels yet; {len(self.names)} configs)"
        if self.code is not None and self.code >= 0:
            return (f"settled: {self.names[self.code]} is best ({self._closest(self.code)}) after {labels} — "
                    "you can stop")
        if self.code == -2:
            return (f"settled: no difference larger than {100 * self.margin:g} points among "
                    f"{', '.join(self.in_running)} (the best is one of them) after {labels} — you can stop")
        leader = self._leader()
        said = f"in the running: {', '.join(self.in_running)}; leader {self._closest(leader)}, {labels}"
        return f"budget reached: not settled ({said})" if self.budget_reached else f"not settled yet ({said})"

    def as_dict(self) -> dict[str, object]:
        rnd = lambda x: round(float(x), 6)  # noqa: E731
        return {
            "until": self.until,
            "state": self.state,
            "verdict": self.verdict,
            "best": self.names[self.code] if self.code is not None and self.code >= 0 else None,
            "in_running": self.in_running,
            "pairs": [{"a": self.names[i], "b": self.names[j], "estimate_b_minus_a": rnd(self.estimates[k]),
                       "sequence": [rnd(self.lows[k]), rnd(self.highs[k])]} for k, (i, j) in enumerate(self.pairs)],
            "level": self.level,
            "level_each_pair": round(1 - (1 - self.level) / max(1, len(self.pairs)), 6),
            "n_labels": self.labels,
            "n_units_labelled": self.n_units_labelled,
            "n_units": self.n_units,
            "words": self.words,
            "interval_kind": "confidence sequences for every pair's B − A (betting, Waudby-Smith & Ramdas 2024), "
                             "simultaneous by a union bound over the pairs; valid at any stop",
        }


def best_status(names: tuple[str, ...], labels: Floats, judged_labelled: Floats, judge_all: Floats, *,
                level: float = 0.95, max_units: int | None = None, lam: float | None = None) -> BestStatus:
    """The status after ``labels`` (T, N): people's value of each config on the T questions labelled
    so far (in the order they completed), ``judged_labelled`` (T, N) the judge's, ``judge_all``
    (units, N) the judge on every question."""
    y = np.asarray(labels, dtype=np.float64).reshape(1, -1, len(names))
    h = np.asarray(judged_labelled, dtype=np.float64).reshape(1, -1, len(names))
    h_all = np.asarray(judge_all, dtype=np.float64).reshape(-1, len(names))
    n = int(y.shape[1])
    reached = max_units is not None and n >= max_units
    pairs = pairs_of(len(names))
    if n == 0:
        zeros = tuple(0.0 for _ in pairs)
        return BestStatus(names, zeros, tuple(-1.0 for _ in pairs), tuple(1.0 for _ in pairs), tuple(pairs), None,
                          tuple(True for _ in names), 0, h_all.shape[0], reached, level)
    seq, _ = pairwise_sequences(y, h, h_all, level=level, budget=max_units, lam=lam)
    low, high, est = seq.low[0, :, -1], seq.high[0, :, -1], seq.estimate[0, :, -1]
    code, running = settle_best(low, high, pairs, len(names))
    return BestStatus(names, tuple(map(float, est)), tuple(map(float, low)), tuple(map(float, high)), tuple(pairs),
                      int(code), tuple(bool(r) for r in running), n, h_all.shape[0], reached, level)


__all__ = ["BestStatus", "best_status", "pairs_of", "pairwise_sequences", "pairwise_stream", "settle_best"]
