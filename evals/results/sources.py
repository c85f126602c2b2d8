"""Which judges produced a run's verdicts, and how many came from a fallback.

``--judge auto`` names a policy, not a judge: counting each judgment's own ``judge`` and
``fallback_used`` is the only honest way to say who judged, in the terminal, JSON and HTML alike.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ragjury.evals.results.formatting import percent


def describe_identity(key: object) -> str:
    """A judge identity for people: ``contains|-|contains@1.0|`` (``JudgeIdentity.key()``) reads
    ``contains · no model · prompt contains@1.0``; parameters are added when there are any."""
    text = key.key() if hasattr(key, "key") else str(key)
    name, model, prompt, params = (text.split("|", 3) + ["", "", "", ""])[:4]
    parts = [name or "?", f"model {model}" if model and model != "-" else "no model"]
    if prompt and prompt != "-":
        parts.append(f"prompt {prompt}")
    if params:
        parts.append(f"parameters {params}")
    return " · ".join(parts)


@dataclass(frozen=True)
class VerdictSources:
    """Which judges actually produced a run's scored verdicts, and how many came from a fallback.

    Why: ``--judge auto`` names a policy, not a judge. When the model server is down every verdict
    of an "auto" run comes from the model-free fallback, and a report that says "judged by auto"
    (or a gate that passes on the fallback's kappa) lets people believe the model was measured.
    Counting the judgments' own ``judge`` and ``fallback_used`` fields is the only honest source.
    """

    counts: Mapping[tuple[str, bool], int]
    """(judge name, answered as fallback) -> scored verdicts, most frequent first."""
    models: Mapping[str, str | None] = field(default_factory=dict)
    """Judge name -> model that judge used (None for model-free judges)."""
    prompts: Mapping[str, str | None] = field(default_factory=dict)
    """Judge name -> its prompt (``name@version``), the detail behind a name like ``llm``."""

    @classmethod
    def of(cls, judgments: Sequence[object], names: Mapping[str, str] | None = None) -> VerdictSources:
        """Count the scored judgments (``Judgment`` envelopes, a run's ``Prediction``s or
        predictions records) by judge and fallback use; unscored ones produced no verdict and are counted as
        unscored elsewhere. A judge is named as the user typed it where the judgment carries that
        (``judge_name``: ``llm``, not ``answer_correctness``), else through ``names`` (stored
        name -> shown name), else as stored: the catalogue is never asked here."""
        counts: Counter[tuple[str, bool]] = Counter()
        models: dict[str, str | None] = {}
        prompts: dict[str, str | None] = {}
        for entry in judgments:
            judgment = getattr(entry, "judgment", entry)  # a run's ``Prediction``: its judgment
            if getattr(judgment, "unscored", False):
                continue
            stored = str(getattr(judgment, "judge", "?"))
            name = getattr(entry, "judge_name", None) or (names or {}).get(stored, stored)
            counts[(name, bool(getattr(judgment, "fallback_used", False)))] += 1
            models.setdefault(name, getattr(judgment, "model", None))
            prompts.setdefault(name, getattr(judgment, "prompt_version", None))
        ordered = dict(sorted(counts.items(), key=lambda kv: (kv[0][1], -kv[1], kv[0][0])))
        return cls(ordered, models, prompts)

    @property
    def scored(self) -> int:
        return sum(self.counts.values())

    @property
    def judges(self) -> dict[str, int]:
        """Judge name -> scored verdicts it produced (as primary or as fallback)."""
        out: dict[str, int] = {}
        for (name, _fallback), count in self.counts.items():
            out[name] = out.get(name, 0) + count
        return out

    @property
    def fallback(self) -> int:
        """Scored verdicts that came from a fallback judge."""
        return sum(count for (_name, fallback), count in self.counts.items() if fallback)

    @property
    def share(self) -> float | None:
        """Fallback verdicts / scored verdicts; None when nothing was scored."""
        return self.fallback / self.scored if self.scored else None

    @property
    def fallback_judge(self) -> str | None:
        """The fallback judge's name (names, comma-separated, if several answered); None if none did."""
        names = [name for (name, fallback), count in self.counts.items() if fallback and count]
        return ", ".join(dict.fromkeys(names)) or None

    def describe(self) -> str:
        """For people: ``answer_correctness (model qwen) for 81.5 %, contains as fallback for 18.5 %``."""
        if not self.scored:
            return "no verdicts (nothing was scored)"
        parts = []
        for (name, fallback), count in self.counts.items():
            model = self.models.get(name)
            prompt = self.prompts.get(name)
            detail = f"model {model}, prompt {prompt}" if model and prompt else f"model {model}" if model else ""
            label = f"{name} ({detail})" if detail else name
            parts.append(f"{label}{' as fallback' if fallback else ''} for {percent(count / self.scored)}")
        return ", ".join(parts)

    def as_dict(self) -> dict[str, object]:
        """For ``--json``: ``judges`` (verdicts per judge), ``fallback`` (count, share, judge) and
        ``verdicts_by`` (the ``describe`` text)."""
        share = self.share
        return {
            "judges": self.judges,
            "fallback": {
                "count": self.fallback,
                "share": None if share is None else round(share, 6),
                "judge": self.fallback_judge,
            },
            "verdicts_by": self.describe(),
        }


def fallback_note(sources: VerdictSources, judgments: Sequence[object], prefix: str = "") -> str | None:
    """The report's warning when a fallback judge produced verdicts, with one reason it was needed
    (the first ``fallback_reason`` among ``judgments``: envelopes or predictions records); None
    when no fallback answered. ``prefix`` names the stage or run (``"score: "``, ``"A: x: "``)."""
    if not sources.fallback:
        return None
    reasons = [
        reason
        for judgment in judgments
        if judgment is not None
        and getattr(judgment, "fallback_used", False)
        and (reason := getattr(judgment, "fallback_reason", None))
    ]
    from ragjury.rag_agent.model.unreachable import unreachable_cause

    cause = next((cause for reason in reasons if (cause := unreachable_cause(reason))), None)
    if cause is not None:  # a dead server: where, and what to start
        because = f"; why: {cause}"
    else:
        because = f" (e.g. because: {reasons[0]})" if reasons else ""
    return (
        f"{prefix}{sources.fallback} of {sources.scored} verdicts ({percent(sources.share or 0.0)}) came "
        f"from the fallback judge '{sources.fallback_judge}', not the judge asked for{because}."
    )


__all__ = ["VerdictSources", "describe_identity", "fallback_note"]
