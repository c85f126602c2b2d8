"""``intervals.percentile`` gives ``np.percentile``'s bits: every interval a run prints stays as it was.

Why its own: numpy's loads ``numpy.ma`` (6 ms of a 40-row ``contains`` run's start) for one
``np.unique``; the copy repeats its float operations in order, which this test holds it to on
ties, zeros (both signs go to numpy), infinities, one value, and the bootstrap's 1,000 draws.
"""

from __future__ import annotations

import math
import random
import struct

import numpy as np

from ragjury.evals.stats.intervals import percentile, percentile_interval

QS = (0.0, 2.5, 5.0, 25.0, 50.0, 75.0, 97.5, 100.0, 100.0 / 3, 99.99)


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


def samples() -> list[list[float]]:
    rng = random.Random(55)
    out: list[list[float]] = [[0.3], [-0.0, 0.0], [0.0, -0.0, -0.0], [1.0, math.inf], [-math.inf, 2.0, math.inf]]
    for n in (2, 3, 7, 40, 999, 1000, 1001):
        out.append([rng.random() for _ in range(n)])
        out.append([rng.choice((-1.0, -0.5, -0.0, 0.0, 0.25, 1.0)) for _ in range(n)])  # ties, signed zeros
        out.append([round(rng.gauss(0.6, 0.2), 4) for _ in range(n)])  # kappa-like draws
    return out


def both_zeros(values: list[float]) -> bool:
    return len({math.copysign(1.0, v) for v in values if v == 0}) == 2


def test_the_bits_of_np_percentile() -> None:
    for values in samples():
        if both_zeros(values):  # percentile_interval hands those to numpy (next test)
            continue
        ordered = sorted(values)
        for q in QS:
            with np.errstate(invalid="ignore"):  # inf - inf in numpy's interpolation: nan, as in the copy
                want = float(np.percentile(np.array(values, dtype=np.float64), q))
            got = percentile(ordered, q)
            assert bits(got) == bits(want) or (math.isnan(got) and math.isnan(want)), (values[:5], q, got, want)


def test_every_interval_as_numpy_drew_it() -> None:
    for values in samples():
        values = [*values, None, float("nan")]
        defined = np.array([v for v in values if v is not None and not math.isnan(v)], dtype=np.float64)
        tail = (1.0 - 0.95) / 2.0 * 100.0  # as percentile_interval has it: 2.500000000000002
        with np.errstate(invalid="ignore"):
            low, high = np.percentile(defined, [tail, 100.0 - tail])
        interval = percentile_interval(values)
        assert interval is not None and interval.draws == defined.size
        assert (bits(interval.low), bits(interval.high)) == (bits(float(low)), bits(float(high))), values[:5]
