"""The figures a ``--fail-under`` gate may name, checked before any judging.

Why: a misspelt gate (``kapa=0.4``) used to surface only after the whole batch, as a failed gate
(exit 1), when the batch had already cost its time and the exit code blamed the judge. A name the
command can never report is a user mistake: exit 2 up front, listing the names that are valid.
A valid name whose figure turns out undefined (no gold labels, no runs) still fails the gate at
the end, as before: a gate never passes for lack of evidence.

The lists mirror ``DatasetEvaluation.figures`` (``evals.dataset_evaluation``),
``AgentEvaluation.figures`` (``evals.agent_evaluation``) and ``QrelsAgreement.figures`` /
``AgreementFigures.figures`` (``evals.agreement``); ``tests/unit/test_output_safety.py`` checks
them against real runs.

The fallback gate (``--max-fallback``, 0 by default under any ``--fail-under``) lives here too: a
gate passed on verdicts the model-free fallback produced says nothing about the model judge.
So does the unscored gate (``--max-unscored``, also 0 by default under any ``--fail-under``,
``evals.results.unscored_share``): a gate computed on the scored judgments says nothing of the
others. ``Gates`` holds every kind for one run, so a result's ``gate`` checks them in one call.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from ragjury.evals.results.formatting import Figure, percent
from ragjury.evals.results.sources import VerdictSources
from ragjury.evals.results.unscored_share import UnscoredShare, max_unscored_limit, unscored_failure
from ragjury.rag_agent.core.input_files import InputError

GATE_ALIASES: dict[str, str] = {
    "kappa": "cohen_kappa",
    "alpha": "krippendorff_alpha",
    "binary_alpha": "binary_krippendorff_alpha",
    "qwk": "quadratic_kappa",
    "tau": "kendall_tau",
    "rho": "spearman",
    "acc": "accuracy",
}
"""Short names accepted by ``--fail-under`` (``kappa=0.5`` means ``cohen_kappa=0.5``)."""


def parse_gates(specs: Sequence[str]) -> dict[str, float]:
    """``["kappa=0.5", "tau=0.8"]`` -> ``{"cohen_kappa": 0.5, "kendall_tau": 0.8}`` (aliases resolved)."""
    gates: dict[str, float] = {}
    for spec in specs:
        name, sep, raw = spec.partition("=")
        name = name.strip()
        if not sep or not name or not raw.strip():
            raise InputError("--fail-under", f"expected METRIC=VALUE (e.g. kappa=0.5), got {spec!r}")
        try:
            value = float(raw)
        except ValueError:
            raise InputError("--fail-under", f"{name}: {raw!r} is not a number") from None
        if not math.isfinite(value):
            raise InputError("--fail-under", f"{name}: threshold must be finite, got {raw!r}")
        gates[GATE_ALIASES.get(name, name)] = value
    return gates


def failed_gates(figures: Mapping[str, Figure], gates: Mapping[str, float]) -> list[str]:
    """One message per gate that fails: the figure is below its threshold, undefined, or absent.

    An undefined (unscored) or absent figure fails: a gate must never pass for lack of evidence.
    """
    failures: list[str] = []
    for raw_name, threshold in gates.items():
        name = GATE_ALIASES.get(raw_name, raw_name)
        if name not in figures:
            known = ", ".join(sorted(figures))
            failures.append(f"{name}: no such figure (known: {known}); required >= {threshold:g}")
            continue
        value = figures[name]
        if value is None or (isinstance(value, float) and math.isnan(value)):
            failures.append(f"{name}: undefined (unscored); required >= {threshold:g}")
        elif value < threshold:
            failures.append(f"{name}: {value:.4f} < {threshold:g}")
    return failures


_LABEL_AGREEMENT = ("coverage", "accuracy", "cohen_kappa", "binary_krippendorff_alpha", "precision", "recall", "f1")
_RANKING = ("kendall_tau", "spearman")

BINARY_TASK_FIGURES: tuple[str, ...] = (*_LABEL_AGREEMENT, "mean_label", "kendall_tau", "system_spearman")
"""``evaluate`` on a binary task (correctness, faithfulness)."""

SCORE_TASK_FIGURES: tuple[str, ...] = (
    "coverage",
    "mean_label",
    "pearson",
    "spearman",
    "mae",
    "kendall_tau",
    "system_spearman",
)
"""``evaluate --task score``."""

QRELS_FIGURES: tuple[str, ...] = (
    "coverage",
    "accuracy",
    "cohen_kappa",
    "binary_krippendorff_alpha",
    "precision",
    "recall",
    "f1",
    "graded_accuracy",
    "graded_cohen_kappa",
    "quadratic_kappa",
    "krippendorff_alpha",
    *_RANKING,
)
"""``agreement`` on TREC qrels (the ranking figures need ``--runs``)."""

LABEL_FIGURES: tuple[str, ...] = (*_LABEL_AGREEMENT, "krippendorff_alpha", "quadratic_kappa", *_RANKING)
"""``agreement`` on JSONL labels (quadratic kappa for graded labels, rankings when rows carry a system)."""


def agent_figures(*, faithfulness: bool, correctness: bool) -> tuple[str, ...]:
    """``evaluate --agent``: the share answered, then each judge's mean and coverage."""
    stages = ["score"]
    if faithfulness:
        stages.append("faithfulness")
    if correctness:
        stages.append("correctness")
    return ("answered", *(name for stage in stages for name in (stage, f"{stage}_coverage")))


def task_figures(gold_kind: str) -> tuple[str, ...]:
    """``evaluate`` on a dataset whose gold labels are ``binary`` or ``score``."""
    return BINARY_TASK_FIGURES if gold_kind == "binary" else SCORE_TASK_FIGURES


def _described(known: Collection[str]) -> str:
    aliases = {name: [alias for alias, target in GATE_ALIASES.items() if target == name] for name in known}
    return ", ".join(
        name + (f" ({', '.join(aliases[name])})" if aliases[name] else "") for name in sorted(known)
    )


def check_gate_names(gates: Mapping[str, float], known: Collection[str]) -> None:
    """Raise ``InputError`` (exit 2) when a gate names a figure outside ``known``, listing the valid names.

    ``gates`` comes from ``parse_gates`` above, so aliases are already resolved.
    """
    unknown = [name for name in gates if name not in known]
    if unknown:
        names = ", ".join(repr(name) for name in unknown)
        raise InputError(
            "--fail-under", f"unknown figure {names}; valid names here: {_described(known)}"
        )


def max_fallback_limit(max_fallback: float | None, *, gated: bool) -> float | None:
    """The fallback share a run may have: ``--max-fallback`` when given, else 0 for a gated run
    (any ``--fail-under``) and no limit otherwise.

    Why 0 by default under a gate: a gate is a claim about the model judge; when the model-free
    fallback answered instead, the gate measures the fallback, and a green CI run would say the
    model passed when it never judged. Ungated runs only report, so the report's provenance suffices.
    """
    if max_fallback is not None:
        return max_fallback
    return 0.0 if gated else None


def fallback_failure(
    sources: VerdictSources, limit: float | None, *, explicit: bool, stage: str | None = None
) -> str | None:
    """The gate-failure message when more than ``limit`` of the scored verdicts came from a
    fallback judge, else None (no limit, nothing scored, or within the limit).

    ``explicit``: whether the user gave ``--max-fallback`` (the message says when 0 was the default).
    ``stage``: prefix for runs with several judges (``evaluate --agent``: score, faithfulness, ...).
    """
    share = sources.share
    if limit is None or share is None or sources.fallback == 0:
        return None
    if sources.fallback <= limit * sources.scored + 1e-9:
        return None
    setting = f"--max-fallback {limit:g}" + ("" if explicit else ", the default with --fail-under")
    prefix = f"{stage}: " if stage else ""
    return (
        f"{prefix}{sources.fallback} of {sources.scored} verdicts ({percent(share)}) came from the "
        f"fallback judge '{sources.fallback_judge}' ({setting}); the model gates measure the fallback, "
        "not the model. Pass --max-fallback 1 to accept that."
    )


@dataclass(frozen=True)
class Gates:
    """A run's gates: the ``--fail-under`` thresholds, the ``--max-fallback`` and ``--max-unscored`` limits.

    Why one object: both kinds fail a run the same way (exit 1, listed under ``gate_failures``
    and in the HTML report), and the fallback limit's default depends on whether any threshold
    was given; a result's ``gate(gates)`` checks them together, so every command gates alike.
    """

    thresholds: Mapping[str, float] = field(default_factory=dict)
    """Figure -> lowest value that passes (aliases resolved, ``parse_gates``)."""
    max_fallback: float | None = None
    """The share of scored verdicts a fallback judge may have produced; None: no limit."""
    explicit_fallback: bool = False
    """Whether the user gave ``--max-fallback`` (the failure message says when 0 was the default)."""
    max_unscored: float | None = None
    """The share of judgments that may be unscored; None: no limit."""
    explicit_unscored: bool = False
    """Whether the user gave ``--max-unscored``."""
    fail_on_injection: bool = False
    """``--fail-on-injection``: fail when any item's text addresses its judge (``injection_flags``)."""
    max_sampled: float | None = None
    """``--max-sampled N|FRACTION``: how many judgments (a count from 1 up, or a share below 1) may have
    their verdict from the sampled answer because P(yes) could not be read (no logprobs); None: no limit."""

    @classmethod
    def parse(
        cls, fail_under: Sequence[str] = (), max_fallback: float | None = None, max_unscored: float | None = None,
        fail_on_injection: bool = False, max_sampled: float | None = None,
    ) -> Gates:
        """The gates of ``--fail-under METRIC=VALUE ...``, ``--max-fallback`` and ``--max-unscored``
        (``InputError`` on a malformed threshold); under any threshold both limits default to 0."""
        thresholds = parse_gates(fail_under)
        gated = bool(thresholds)
        return cls(
            thresholds,
            max_fallback_limit(max_fallback, gated=gated),
            explicit_fallback=max_fallback is not None,
            max_unscored=max_unscored_limit(max_unscored, gated=gated),
            explicit_unscored=max_unscored is not None,
            fail_on_injection=fail_on_injection,
            max_sampled=max_sampled,
        )

    @property
    def any(self) -> bool:
        """Whether the run is gated at all (a threshold, a limit, or ``--fail-on-injection``)."""
        return (bool(self.thresholds) or self.explicit_fallback or self.explicit_unscored or self.fail_on_injection
                or self.max_sampled is not None)

    def check_names(self, known: Collection[str]) -> None:
        """``InputError`` (exit 2) before any judging when a threshold names a figure outside ``known``."""
        check_gate_names(self.thresholds, known)

    def failures(
        self,
        figures: Mapping[str, float | None],
        sources: Mapping[str, VerdictSources],
        unscored: Mapping[str, UnscoredShare] | None = None,
        *,
        flagged: int = 0,
        sampled: tuple[int, int] = (0, 0),
    ) -> list[str]:
        """Failed thresholds on ``figures``, then each stage whose unscored share, then each whose
        fallback share, is over its limit.

        ``sources``: stage -> who produced its verdicts; ``""`` for a run with one judge (its
        message has no stage prefix), e.g. ``{"score": ..., "faithfulness": ...}`` for an agent run.
        ``unscored``: stage -> its unscored judgments, keyed alike.
        """
        failed = failed_gates(figures, self.thresholds) if self.thresholds else []
        for stage, share in (unscored or {}).items():
            failure = unscored_failure(share, self.max_unscored, explicit=self.explicit_unscored, stage=stage or None)
            if failure:
                failed.append(failure)
        for stage, stage_sources in sources.items():
            failure = fallback_failure(
                stage_sources, self.max_fallback, explicit=self.explicit_fallback, stage=stage or None
            )
            if failure:
                failed.append(failure)
        if self.fail_on_injection and flagged:
            failed.append(f"injection: {flagged:,} item(s) hold text addressed to the judge (--fail-on-injection)")
        failure = sampled_failure(*sampled, self.max_sampled)
        if failure:
            failed.append(failure)
        return failed


def sampled_failure(sampled: int, read: int, limit: float | None) -> str | None:
    """The ``--max-sampled`` failure: more judgments than ``limit`` (a count from 1 up, a share of
    ``read`` below 1) had their verdict from the sampled answer, P(yes) unread; None within it."""
    if limit is None or sampled == 0:
        return None
    allowed = limit if limit >= 1 else limit * read
    if sampled <= allowed:
        return None
    said = f"{limit:g}" if limit >= 1 else f"{limit:.0%} of {read:,}"
    return (f"sampled: P(yes) could not be read for {sampled:,} of {read:,} judgments (the server returned no "
            f"logprobs; verdict from the sampled answer), more than --max-sampled {said}")


def run_step_summary(title: str, lines: Sequence[str], failures: Sequence[str]) -> str:
    """A gated run as Markdown for a GitHub Actions step summary: the verdict, line 1, each failure."""
    status = "❌ failed" if failures else "✅ passed"
    out = [f"### ragjury {title}: {status}", "", *(f"    {line}" for line in lines), ""]
    out += [f"- gate failed: {failure}" for failure in failures]
    return "\n".join(out) + "\n"


__all__ = [
    "run_step_summary",
    "BINARY_TASK_FIGURES",
    "GATE_ALIASES",
    "failed_gates",
    "parse_gates",
    "LABEL_FIGURES",
    "QRELS_FIGURES",
    "SCORE_TASK_FIGURES",
    "Gates",
    "agent_figures",
    "check_gate_names",
    "fallback_failure",
    "max_fallback_limit",
    "task_figures",
]
