"""``compare_predictions(baseline, new)``: the A/B question in Python, as ``report A B`` answers it.

Two finished runs (predictions files, or ``PredictionRun``s already read) give the comparison
object the command prints: each run's rate, the paired rates, NEW - BASELINE with its interval,
p and the pair counts; ``.gate(margin)`` is ``--fail-if-worse``. Bad input raises ``ValueError``
with the file named (never a command-line message).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragjury.evals.io.atomic_io import one_existing_file
from ragjury.evals.io.predictions import PredictionRun, load_predictions, run_names
from ragjury.evals.report.regression_gate import GateOutcome, people_gate, regression_gate
from ragjury.evals.report.run_comparison import RunComparison, check_comparable, compare_two_runs


@dataclass(frozen=True)
class PredictionsComparison:
    """BASELINE (A) and NEW (B) and what ``report A B`` measures of them."""

    baseline: PredictionRun
    new: PredictionRun
    comparison: RunComparison
    people: Any = None
    """B − A as people would judge it (``estimate_predictions`` of both runs with ``labels``), or None."""

    @property
    def difference(self) -> float | None:
        """NEW - BASELINE over the questions both runs scored."""
        return self.comparison.paired.difference

    def gate(self, margin: float = 0.0, *, allow_missing: bool = False, rule: str = "worse") -> GateOutcome:
        """``report A B --fail-if-worse margin`` (``rule="within"``: ``--fail-unless-within``):
        ``.failed`` when NEW is shown worse by more than ``margin``, has unscored items, or lacks
        questions of BASELINE (unless ``allow_missing``); with people's labels, on their B − A."""
        by_id = self.new.by_id()
        unscored = sum(1 for key in self.comparison.matching.pairs if by_id[key].unscored)
        matching = self.comparison.matching
        outcome = regression_gate(self.comparison.paired, margin, unscored_new=unscored,
                                  missing_new=matching.only_a.count, baseline_n=len(self.baseline.by_id()),
                                  allow_missing=allow_missing, rule=rule,
                                  same_file=one_existing_file(self.baseline.path, self.new.path))
        if self.people is not None and self.people.comparison is not None:
            return people_gate(self.people.comparison, margin, rule=rule, judge_gate=outcome)
        return outcome

    def lines(self) -> list[str]:
        """The lines ``report A B`` prints first."""
        return self.comparison.lines([self.baseline.name, self.new.name])

    def as_dict(self) -> dict[str, Any]:
        return {"baseline": self.baseline.path, "new": self.new.path,
                "results": [r.as_dict() for r in self.comparison.results], **self.comparison.as_dict(),
                **({"people_estimate": self.people.as_dict()} if self.people is not None else {})}

    def __str__(self) -> str:
        return "\n".join(self.lines())


def compare_predictions(baseline: Any, new: Any, *, labels: Any = None) -> PredictionsComparison:
    """Compare two finished runs joined on the item id; ``ValueError`` when they cannot be compared
    (two tasks, no id in common, an id with two different rows, an unreadable file).

    ``baseline`` and ``new``: predictions files, ``PredictionRun``s, or what ``evaluate_dataset``
    returned. ``labels`` (a labels file, ``{id: label}`` or a list of ``{"id", "label"}`` dicts, ids
    ``CONFIG/ID`` where both runs share them): also B − A as people would judge it, joined on the
    question (``people``, an ``EstimatesResult`` from ``estimate_predictions``)."""
    from ragjury.evals.pipelines.system_estimates_run import estimate_predictions, run_in_memory

    sources = []
    for argument, run in (("baseline", baseline), ("new", new)):
        try:
            sources.append(run_in_memory(run))
        except TypeError:
            raise TypeError(f"{argument}: expected a predictions file, a PredictionRun or what evaluate_dataset "
                            f"returned, not {type(run).__name__}") from None
    paths = [source.path if source is not None else str(run) for source, run in zip(sources, (baseline, new))]
    names = run_names(paths)
    runs = [source if source is not None else load_predictions(run, name=name)
            for source, run, name in zip(sources, (baseline, new), names, strict=True)]
    check_comparable(*runs)
    people = estimate_predictions(list(runs), labels=labels) if labels is not None else None
    return PredictionsComparison(runs[0], runs[1], compare_two_runs(*runs), people)


__all__ = ["PredictionsComparison", "compare_predictions"]
