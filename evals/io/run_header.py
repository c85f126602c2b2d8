"""The run header: how a predictions file was made, written beside it as ``STEM.run.json``.

Why: ``report A B`` must know whether two runs were judged alike (the same judge, model, prompt
versions and options) before it reads B − A as the configs' difference; rows say which judge gave
each verdict, not the options that shaped it, nor which data and labels went in. Inspect's
``EvalSpec``/``EvalStats`` travel with the samples for the same reason. A file beside the
predictions (never a first line in them) keeps every reader of predictions JSONL, ragjury's and the
user's own, working; a file without one keeps working too (``read_run_header`` gives None).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragjury.rag_agent.core.judge_spec import JudgeSpec

SUFFIX = ".run.json"
FORMAT = 1
COMPARED = ("task", "judge", "name", "model", "prompt_version", "params")
"""The fields two runs must share to be judged alike (``judge`` is the --judge words asked for;
``name``, ``model``, ``prompt_version`` and ``params`` the judge's identity, options included)."""


def header_path(predictions: str | Path) -> Path:
    """``out/preds.jsonl`` -> ``out/preds.run.json``."""
    path = Path(predictions)
    return path.with_name(path.stem + SUFFIX)


def digest(path: str | Path | None) -> dict[str, Any] | None:
    """A file's path and SHA-256 (None where there is no such regular file)."""
    if path is None:
        return None
    file = Path(path)
    if not file.is_file():
        return None
    sha = hashlib.sha256()
    with file.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return {"path": str(file), "sha256": sha.hexdigest()}


def spec_of(judge: JudgeSpec | str | None) -> dict[str, Any] | None:
    """The parsed ``--judge`` as the header keeps it: its kind, a panel's members and how it joins
    them, a file judge's path (None where the run carries no parsed spec: a run read back)."""
    if not isinstance(judge, JudgeSpec):
        return None
    return {"kind": judge.kind, "members": judge.member_names or None, "combine": judge.combine, "path": judge.path}


def make_header(*, task: str | None, judge: JudgeSpec | str | None, identity: Any, stats: Mapping[str, Any] | None,
                rows: int, data: str | Path | None = None, labels: str | Path | None = None,
                version: str | None = None) -> dict[str, Any]:
    """The header of a run: what was judged, by which judge (words, the parsed spec the command
    carried, and identity), from which data and labels (digests), and the run's statistics."""
    ident = {"name": getattr(identity, "name", None), "model": getattr(identity, "model", None),
             "prompt_version": getattr(identity, "prompt_version", None), "params": getattr(identity, "params", None)}
    return {"ragjury_run": FORMAT, "written_by": "ragjury evaluate", "ragjury_version": version, "task": task,
            "judge": judge.value if isinstance(judge, JudgeSpec) else judge, "judge_spec": spec_of(judge),
            "identity": ident, "data": digest(data), "labels": digest(labels), "rows": rows,
            "stats": dict(stats) if stats is not None else None}


def write_run_header(predictions: str | Path, header: Mapping[str, Any]) -> Path:
    """Write ``header`` beside ``predictions`` atomically; returns its path."""
    from ragjury.evals.io.atomic_io import write_text_atomic

    path = header_path(predictions)
    write_text_atomic(path, json.dumps(header, ensure_ascii=False, indent=1) + "\n")
    return path


def read_run_header(predictions: str | Path) -> dict[str, Any] | None:
    """The header beside ``predictions``, or None where there is none (or it is not ragjury's:
    a file of that name the user wrote is left alone and not read as a header)."""
    path = header_path(predictions)
    if not path.is_file():
        return None
    try:
        header = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(header, dict) or header.get("ragjury_run") != FORMAT:
        return None
    return header


def judged_as(header: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``COMPARED`` a header holds."""
    ident = header.get("identity") or {}
    return {"task": header.get("task"), "judge": header.get("judge"), **{k: ident.get(k) for k in COMPARED[2:]}}


def differences(first: Mapping[str, Any] | None, second: Mapping[str, Any] | None) -> list[str]:
    """How two runs were judged differently, one phrase a field (empty: alike, or a header missing)."""
    if first is None or second is None:
        return []
    a, b = judged_as(first), judged_as(second)
    words = {"task": "task", "judge": "--judge", "name": "judge", "model": "model", "prompt_version": "prompt versions",
             "params": "options"}
    return [f"{words[key]} {a[key] or '-'} vs {b[key] or '-'}" for key in COMPARED if a[key] != b[key]]


__all__ = ["SUFFIX", "differences", "digest", "header_path", "judged_as", "make_header", "read_run_header", "spec_of",
           "write_run_header"]
