"""People's labels by id (``HumanLabel``) and the joins every trust command used: now views of the
one reader and the one join of ``evals.io.people``.

Why kept: ``HumanLabel`` is what the estimate's Python callers and the judge card take, and
``load_human_labels`` / ``relabelled`` / ``with_people_labels`` / ``with_config_labels`` are the
names the commands and scripts call. Each reads the file once with ``people.read_people`` and joins
with ``people.join_records``, so every command reads the same labels with the same weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragjury.evals.io.people import MIN_INCLUSION, People, join_configs, join_people, join_records, read_people
from ragjury.evals.io.tasks import GoldKind


@dataclass(frozen=True)
class HumanLabel:
    id: str
    label: float
    inclusion_probability: float | None = None
    line: int = 0


def system_key(system: object, ident: str) -> str:
    """A label's id in a joined run of two configs (``joined_runs``): ``SYSTEM/ID``, unless it is one already."""
    if not isinstance(system, str) or not system or ident.startswith(f"{system}/"):
        return ident
    return f"{system}/{ident}"


def as_human_labels(people: People, *, by_system: bool = False) -> dict[str, HumanLabel]:
    """id → label of ``people`` (``SYSTEM/ID`` with ``by_system``); a repeated id with another label
    under another system is refused (whose label is it?)."""
    from ragjury.rag_agent.core.input_files import InputError

    out: dict[str, HumanLabel] = {}
    for (system, ident), label in people.labels.items():
        key = system_key(system, ident) if by_system else ident
        value = float(label.value)
        previous = out.get(key)
        if previous is not None and previous.label != value:
            raise InputError(people.source, f"id {key!r} is labelled under two systems ({system!r} and another) with "
                             "different labels: give each system's items unique ids")
        out[key] = HumanLabel(key, value, label.inclusion_probability, label.line)
    return out


def load_human_labels(
    path: str | Path, kind: GoldKind = "binary", *, allow_shown_judge: bool = False, by_system: bool = False
) -> dict[str, HumanLabel]:
    """id → label, read by ``people.read_people`` (every form, the several-annotator rule for a
    labels file of ``ragjury label``; labels given with the judge shown refused unless allowed)."""
    return as_human_labels(read_people(path, kind, allow_shown_judge=allow_shown_judge), by_system=by_system)


def relabelled(
    items: Sequence[Any], labels: str | Path | People, kind: GoldKind, where: str | Path, *,
    allow_shown_judge: bool = False,
) -> list[Any]:
    """``items`` (dataset rows, predictions records: ``id``, ``system``, ``gold``,
    ``inclusion_probability``) with people's labels in place of their gold (``people.join_records``)."""
    people = labels if isinstance(labels, People) else read_people(labels, kind, allow_shown_judge=allow_shown_judge)
    return join_records(items, people, kind=kind, where=where)


def with_people_labels(run: Any, labels: str | Path | People, *, allow_shown_judge: bool = False) -> Any:
    """``run`` (a ``PredictionRun``) with people's labels in place of its gold (``people.join_people``)."""
    people = labels if isinstance(labels, People) else read_people(labels, run.kind, allow_shown_judge=allow_shown_judge)
    return join_people(run, people)


def with_config_labels(runs: Sequence[Any], names: Sequence[str], labels: str | Path | People, *,
                       allow_shown_judge: bool = False) -> list[Any]:
    """Two configs' runs, each with people's labels of its own answers: a label keyed ``CONFIG/ID``
    (or with a ``system`` column) goes to that config only; a bare id to the run that has it,
    refused where both runs have it (whose answer was it?)."""
    from ragjury.rag_agent.core.input_files import InputError

    people = labels if isinstance(labels, People) else read_people(labels, runs[0].kind,
                                                                    allow_shown_judge=allow_shown_judge)
    try:
        return join_configs(runs, names, people, kind=runs[0].kind)
    except InputError as error:
        if "no id in this file matches" in error.message:
            raise InputError(people.source, f"no label matches an item of {runs[0].path} or {runs[1].path} (ids are "
                             f"keyed {names[0]}/ID and {names[1]}/ID, or carry a 'system' column)") from None
        raise


__all__ = ["HumanLabel", "MIN_INCLUSION", "as_human_labels", "load_human_labels", "relabelled", "system_key",
           "with_config_labels", "with_people_labels"]
