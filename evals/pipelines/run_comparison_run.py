"""``compare_predictions(baseline, new)``: the A/B question in Python, as ``report A B`` answers it.

Two finished runs (predictions files, or ``PredictionRun``s already read) give the comparison
object the command prints: each run's rate, the paired rates, NEW - BASELINE with its interval,
p and the pair counts; ``.gate(margin)`` is ``--fail-if-worse``. Bad input raises ``ValueError``
with the file named (never a command-line message).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragjury.evals.io.atomic_io import one_existing_file
from ragjury.evals.io.predictions import PredictionRun, load_predictions, run_names
from ragjury.evals.report.regression_gate import GateOutcome, regression_gate
from ragjury.evals.report.run_comparison import RunComparison, check_comparable, compare_two_runs


@dataclass(frozen=True)
class PredictionsComparison:
    """BASELINE (A) and NEW (B) and what ``report A B`` measures of them."""

    baseline: PredictionRun
    new: PredictionRun
    comparison: RunComparison

    @property
    def difference(self) -> float | None:
        """NEW - BASELINE over the questions both runs scored."""
        return self.comparison.paired.difference

    def gate(self, margin: float = 0.0, *, allow_missing: bool = False) -> GateOutcome:
        """``report A B --fail-if-worse margin``: ``.failed`` when NEW is shown worse by more than
        ``margin``, has unscored items, or lacks questions of BASELINE (unless ``allow_missing``)."""
        by_id = self.new.by_id()
        unscored = sum(1 for key in self.comparison.matching.pairs if by_id[key].unscored)
        matching = self.comparison.matching
        return regression_gate(self.comparison.paired, margin, unscored_new=unscored,
                               missing_new=matching.only_a.count, baseline_n=len(self.baseline.by_id()),
                               allow_missing=allow_missing, same_file=one_existing_file(self.baseline.path, self.new.path))

    def lines(self) -> list[str]:
        """The lines ``report A B`` prints first."""
        return self.comparison.lines([self.baseline.name, self.new.name])

    def as_dict(self) -> dict[str, Any]:
        return {"baseline": self.baseline.path, "new": self.new.path,
                "results": [r.as_dict() for r in self.comparison.results], **self.comparison.as_dict()}

    def __str__(self) -> str:
        return "\n".join(self.lines())


def compare_predictions(baseline: str | Path | PredictionRun, new: str | Path | PredictionRun) -> PredictionsComparison:
    """Compare two finished runs joined on the item id; ``ValueError`` when they cannot be compared
    (two tasks, no id in common, an id with two different rows, an unreadable file)."""
    paths = [run.path if isinstance(run, PredictionRun) else str(run) for run in (baseline, new)]
    names = run_names(paths)
    runs = [run if isinstance(run, PredictionRun) else load_predictions(run, name=name)
            for run, name in zip((baseline, new), names, strict=True)]
    check_comparable(*runs)
    return PredictionsComparison(runs[0], runs[1], compare_two_runs(*runs))


__all__ = ["PredictionsComparison", "compare_predictions"]
