"""``--dry-run`` of the batch commands: build the judge on recording models, count, print, exit 0.

Shared by ``evaluate`` and ``relevance`` so both print the same figures under the same keys
(``evals.dry_run`` does the counting).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ragjury.commands._common import print_json, stdout
from ragjury.rag_agent.core.sync import run_sync


def _user_code(header: Mapping[str, Any]) -> bool:
    """Whether the judge asked for holds a ``python:`` plug-in (alone or in a panel): user code
    that a dry run must not run, since it may call a server of its own."""
    from ragjury.rag_agent.core.judge_spec import parse

    return parse(str(header.get("judge", ""))).holds("plugin")


def dry_run_batch(
    *,
    command: str,
    build: Callable[[], Any],
    items: Sequence[Any],
    cache: Any,
    json_output: bool,
    title: str,
    header: Mapping[str, Any],
) -> None:
    """Count what judging ``items`` with the judge ``build()`` makes would send, and print it.

    ``build`` runs inside ``recording_models()``, so the judge's models record instead of calling
    a server (and no other model may be called). ``header`` leads the ``--json`` object (task,
    judge, inputs).
    """
    from ragjury.evals.runs.dry_run import estimate, estimate_notes, estimate_table
    from ragjury.rag_agent.model.dry_model import recording_models

    with recording_models() as log:
        judge = build()
        result = run_sync(estimate(judge, items, log, cache=cache, simulate=not _user_code(header)))
    if json_output:
        payload = {"mode": "dry_run", **header, "n": result.items, "cached": result.cached}
        print_json({**payload, "dry_run": result.as_dict()}, command=command)
        return
    stdout.print(estimate_table(result, title))
    for note in estimate_notes(result):
        stdout.print(note, style="dim", highlight=False)
