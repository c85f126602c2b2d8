"""One judgment as a finished result: its JSON document and its gates.

Why here and not in the commands: ``judge-evaluate``, ``verdict`` and ``ask`` each print one
judgment (or a few), and a script must read who produced a verdict, its label and its envelope
the same way in every command and in ``evaluate --json``. One shape, built in one place.
"""

from __future__ import annotations

from typing import Any

from ragjury.evals.io.json_contract import judgment_fields
from ragjury.evals.results.gates import fallback_failure, max_fallback_limit
from ragjury.evals.results.sources import VerdictSources
from ragjury.rag_agent.core.labels import Label
from ragjury.rag_agent.core.results import Judgment


def judgment_payload(task: str, judgment: Judgment[Any], label: Label | None) -> dict[str, object]:
    """``task``, the ``label`` (null when unscored), the typed ``value``, the envelope, and the
    same ``judges`` / ``fallback`` / ``verdicts_by`` as ``evaluate --json`` (never just "auto")."""
    from ragjury.rag_agent.judges.catalogue import catalogue_name

    value = judgment.value
    dumped = value.model_dump(mode="json") if hasattr(value, "model_dump") else value
    fields = judgment_fields(judgment)
    fields["judge"] = catalogue_name(task, judgment.judge)  # as typed: llm, not answer_correctness
    return {
        "task": task,
        "label": label,
        "value": dumped,
        **fields,
        **VerdictSources.of([judgment], {judgment.judge: fields["judge"]}).as_dict(),
    }


def score_gate_failures(judgment: Judgment[Any], fail_under: float | None, max_fallback: float | None) -> list[str]:
    """``--fail-under`` (on the overall score) and ``--max-fallback`` failures of one score
    judgment; none when it is unscored, which exits 3 on its own."""
    if judgment.value is None:
        return []
    failures: list[str] = []
    overall = judgment.value.overall_score
    if fail_under is not None and overall < fail_under:
        failures.append(f"overall {overall:.3f} < {fail_under}")
    if judgment.fallback_used:
        from ragjury.rag_agent.judges.catalogue import typed_names

        limit = max_fallback_limit(max_fallback, gated=fail_under is not None)
        sources = VerdictSources.of([judgment], typed_names("score", [judgment.judge]))
        failure = fallback_failure(sources, limit, explicit=max_fallback is not None)
        if failure is not None:
            failures.append(failure)
    return failures


__all__ = ["judgment_payload", "score_gate_failures"]
