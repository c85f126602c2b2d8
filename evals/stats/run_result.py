"""What a run scored: the judged rate (binary tasks) or mean score (score tasks), with a 95 %
interval, overall and per system.

Why first and with an interval: the first question about a run is "how good were the answers?",
and 56 % on 40 items is anywhere from 41 % to 70 %. A rate gets Wilson's score interval (exact
enough at small n, never outside [0, 1]); a mean score gets a seeded percentile bootstrap over
items. Unscored items are left out of both and counted beside them: never a silent 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragjury.evals.stats.intervals import RESAMPLES, Interval, percentile_interval
from ragjury.evals.stats.prediction_powered import wilson_interval as wilson_bounds
from ragjury.rag_agent.tasks.catalogue import verdict_words

VERDICT_WORDS: dict[str, str] = verdict_words()
"""What a true verdict means, per task, in the result line ("judged correct 55.0 %"): each task's
``@task_entry(verdict_word=...)``."""

RUBRIC = "rubric"
"""The ``task`` word of a run whose verdicts all come from rubric judges: a "yes" meets the rubric's
criterion, whatever the task (``judged correct`` would misname it)."""
RUBRIC_WORD = "to meet the criterion"

WILSON = "Wilson score interval"
BOOTSTRAP = "percentile bootstrap over items"


def wilson_interval(successes: int, n: int, level: float = 0.95) -> Interval | None:
    """Wilson's score interval of ``successes / n`` (``prediction_powered``'s formula, the one the
    estimates use); None when ``n`` is 0."""
    if n <= 0:
        return None
    low, high, _ = wilson_bounds(successes, n, level)
    return Interval(low, high, n)


MIN_BOOTSTRAP_N = 10
"""Fewer items and a bootstrap of their mean is no 95 % interval (one item resamples to a zero-width
"interval"): none is given, and the text says how many items there were."""


def bootstrap_mean_interval(values: Sequence[float], *, resamples: int = RESAMPLES, seed: int = 0) -> Interval | None:
    """Percentile bootstrap interval of the mean of ``values`` (items resampled, seeded); None
    below ``MIN_BOOTSTRAP_N`` values."""
    data = np.asarray(values, dtype=np.float64)
    if data.size < MIN_BOOTSTRAP_N:
        return None
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    return percentile_interval(means.tolist())


@dataclass(frozen=True)
class Rate:
    """One rate or mean with its interval, over the scored items (``n_unscored`` left out)."""

    value: float | None
    interval: Interval | None
    n_scored: int
    n_unscored: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": None if self.value is None else round(self.value, 6),
            "interval": None if self.interval is None else self.interval.as_list(),
            "n_scored": self.n_scored,
            "n_unscored": self.n_unscored,
        }

    def text(self, percent: bool) -> str:
        """``56.0 % [40.8, 70.1]`` (a rate) or ``0.712 [0.650, 0.770]`` (a mean score)."""
        if self.value is None:
            return "-"
        if percent:
            shown = f"{self.value * 100:.1f} %"
            if self.interval is not None:
                shown += f" [{self.interval.low * 100:.1f}, {self.interval.high * 100:.1f}]"
            return shown
        if self.interval is None:
            return f"{self.value:.3f} (no interval: fewer than {MIN_BOOTSTRAP_N} scored)"
        return f"{self.value:.3f} {self.interval.text()}"

    def counts(self) -> str:
        """``40 scored`` or ``38 scored, 2 unscored left out``."""
        text = f"{self.n_scored:,} scored"
        return text + (f", {self.n_unscored:,} unscored left out" if self.n_unscored else "")


def rate_of(labels: Sequence[Any], *, binary: bool, seed: int = 0) -> Rate:
    """The rate of true verdicts (``binary``) or the mean score, over the labels that are not None."""
    known = [label for label in labels if label is not None]
    unscored = len(labels) - len(known)
    if not known:
        return Rate(None, None, 0, unscored)
    if binary:
        hits = sum(bool(label) for label in known)
        return Rate(hits / len(known), wilson_interval(hits, len(known)), len(known), unscored)
    values = [float(label) for label in known]
    return Rate(sum(values) / len(values), bootstrap_mean_interval(values, seed=seed), len(values), unscored)


@dataclass(frozen=True)
class RunResult:
    """A run's result: the overall rate (or mean score) and one per system."""

    binary: bool
    overall: Rate
    by_system: dict[str, Rate] = field(default_factory=dict)

    @property
    def measure(self) -> str:
        return "judged rate" if self.binary else "mean score"

    @property
    def method(self) -> str:
        return WILSON if self.binary else BOOTSTRAP

    def as_dict(self) -> dict[str, Any]:
        """The ``result`` object of ``--json``."""
        overall = self.overall.as_dict()
        return {
            "measure": self.measure,
            "rate" if self.binary else "mean": overall.pop("value"),
            **overall,
            "level": 0.95,
            "method": self.method,
            "by_system": {name: rate.as_dict() for name, rate in self.by_system.items()},
        }

    def __repr__(self) -> str:
        """What a notebook shows: the result as the terminal states it, not raw floats."""
        systems = f", {len(self.by_system)} systems" if len(self.by_system) > 1 else ""
        return f"RunResult({self.lines()[0]}{systems})"

    def lines(self, task: str | None = None) -> list[str]:
        """The terminal's first lines: the result, then one per system (two or more); ``task``
        names what a true verdict means (``VERDICT_WORDS``)."""
        word = RUBRIC_WORD if task == RUBRIC else VERDICT_WORDS.get(task or "", "true")
        what = f"judged {word}" if self.binary else "mean score"
        method = "Wilson" if self.binary else "bootstrap"
        how = f"95 % {method} interval; " if self.overall.interval is not None else ""
        out = [f"{what}: {self.overall.text(self.binary)} ({how}{self.overall.counts()})"]
        if len(self.by_system) > 1:
            out += [f"  {name}: {rate.text(self.binary)} ({rate.counts()})" for name, rate in self.by_system.items()]
        return out


def run_result(labels: Sequence[Any], systems: Sequence[str | None], *, binary: bool, seed: int = 0) -> RunResult:
    """The result of a run from its verdicts (None: unscored) and each item's system (None: none)."""
    if len(labels) != len(systems):
        raise ValueError("labels and systems must have one entry per item")
    names = sorted({s for s in systems if s is not None})
    by_system = {
        name: rate_of([label for label, s in zip(labels, systems, strict=True) if s == name], binary=binary, seed=seed)
        for name in names
    }
    return RunResult(binary, rate_of(list(labels), binary=binary, seed=seed), by_system)


__all__ = ["BOOTSTRAP", "MIN_BOOTSTRAP_N", "VERDICT_WORDS", "Rate", "RunResult", "WILSON", "bootstrap_mean_interval", "rate_of", "run_result", "wilson_interval"]
