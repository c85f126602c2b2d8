"""Human labels given apart from the predictions: ``{"id", "label"}`` rows, for ``estimate``.

A dataset file with ``id`` and ``label`` columns works as is, and so does what ``label-plan``
wrote once people filled its ``label`` column (its ``inclusion_probability`` comes along, so the
estimate can weight each label by how likely it was to be picked). Rows left unlabelled
(``label`` null or absent) are skipped; anything else that is not a label is bad input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from ragjury.evals.io.tasks import parse_gold
from ragjury.rag_agent.core.input_files import InputError, iter_jsonl


@dataclass(frozen=True)
class HumanLabel:
    id: str
    label: float
    inclusion_probability: float | None = None
    line: int = 0


def _value(path: str, line: int, raw: object, name: str) -> float:
    if isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, int | float):
        if not math.isfinite(raw):
            raise InputError(path, f"expected a finite number, got {raw!r}", line=line, field=name)
        return float(raw)
    if isinstance(raw, str):  # yes/no, correct/incorrect, ...: the words a dataset's gold may use
        try:
            return float(parse_gold(raw, "binary"))
        except ValueError:
            pass
    raise InputError(path, f"expected true/false or a number, got {raw!r}", line=line, field=name)


def load_human_labels(path: str | Path) -> dict[str, HumanLabel]:
    """id → label; a repeated id with a different label is an error (which one is right?)."""
    name = str(path)
    out: dict[str, HumanLabel] = {}
    for line, row in iter_jsonl(path):
        if not isinstance(row, dict):
            raise InputError(name, f"expected a JSON object, got {type(row).__name__}", line=line)
        ident = row.get("id")
        if not isinstance(ident, str | int) or isinstance(ident, bool):
            raise InputError(name, "missing" if ident is None else f"expected a string, got {ident!r}", line=line, field="id")
        raw = row.get("label", row.get("gold"))
        if raw is None:
            continue
        label = _value(name, line, raw, "label")
        probability = row.get("inclusion_probability")
        if probability is not None:
            probability = _value(name, line, probability, "inclusion_probability")
            if not 0 < probability <= 1:
                raise InputError(name, f"expected a probability in (0, 1], got {probability!r}", line=line, field="inclusion_probability")
        previous = out.get(str(ident))
        if previous is not None and previous.label != label:
            raise InputError(
                name, f"id {ident!r} labelled {previous.label:g} on line {previous.line} and {label:g} here", line=line, field="label"
            )
        out[str(ident)] = HumanLabel(str(ident), label, probability, line)
    if not out:
        raise InputError(name, "no labelled rows (every 'label' is empty): label some items first")
    return out


__all__ = ["HumanLabel", "load_human_labels"]
