"""What a finished dataset run writes: the predictions file, the HTML page, the JSON document.

Each output reads the run's one shape (``DatasetEvaluation.rows``, ``.run``, ``.measured``), so
the file, the page and the JSON agree with each other and with ``ragjury report PRED.jsonl``,
and nothing is serialised or measured twice.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragjury.evals.pipelines.evaluation_result import DatasetEvaluation
    from ragjury.evals.report.page import HtmlReport


@dataclass(frozen=True)
class DatasetFiles:
    """The files of one dataset run: the data read, the predictions and report written (None:
    not written). The JSON payload names them; ``write_outputs`` writes the outputs."""

    data: Path
    predictions: Path | None = None
    html: Path | None = None


def html_report(result: DatasetEvaluation, data: Path, *, gate_failures: Sequence[str] = ()) -> HtmlReport:
    """The HTML report of ``data``'s run, built from its records exactly as ``ragjury report
    PRED.jsonl`` builds it (so the two pages agree), with the figures the run measured already,
    plus what only the run knows: the data file, the judge asked for, its identity, the run's
    statistics and its gate failures."""
    from ragjury.evals.report.run_report import build_report
    from ragjury.evals.report.sources import describe_identity

    made = result.measured
    made.estimates, made.card  # noqa: B018 -- made on the run's own figures, which the JSON reads too
    measured = copy.copy(made)  # the page names the data file; the estimates and card come along
    measured.run = dataclasses.replace(result.run, path=str(data), name=data.stem)
    report, _figures = build_report([], run_stats=result.stats.as_dict(), measured=[measured])
    report.title = f"ragjury evaluate: {result.task} judged by {result.verdict_judges}"
    report.meta = {
        "data": str(data),
        "task": result.task,
        "judge": result.judge,
        "verdicts by": result.sources.describe(),
        "identity": describe_identity(result.identity if result.identity is not None else result.judge),
        "rows": f"{len(result.predictions):,}",
    }
    report.gate_failures = list(gate_failures)
    return report


def write_outputs(result: DatasetEvaluation, files: DatasetFiles, *, gate_failures: Sequence[str] = ()) -> None:
    """Write the predictions JSONL, then the HTML report (with ``gate_failures``, so the page
    and the exit code agree), each where ``files`` names a path; both atomically."""
    if files.predictions is not None:
        from ragjury.evals.io.predictions import write_jsonl

        write_jsonl(files.predictions, result.rows)
    if files.html is not None:
        from ragjury.evals.report.page import write_html

        write_html(files.html, html_report(result, files.data, gate_failures=gate_failures))


def run_payload(
    result: DatasetEvaluation,
    files: DatasetFiles,
    *,
    input_mapping: Mapping[str, Any] | None = None,
    gate_failures: Sequence[str] = (),
) -> dict[str, Any]:
    """The ``evaluate --json`` document (before ``schema_version`` and ``command``): the run's
    ``summary``, then the mode, the files read and written, how the data's columns were read
    (``evals.tasks.InputMapping.as_dict``) and the failed gates."""
    from ragjury.evals.io.json_contract import paths

    out = result.summary()
    out["mode"] = "dataset"
    out["inputs"] = paths(data=files.data)
    out["input_mapping"] = dict(input_mapping) if input_mapping is not None else None
    out["outputs"] = paths(predictions=files.predictions, html=files.html)
    out["gate_failures"] = list(gate_failures)
    return out


__all__ = ["DatasetFiles", "html_report", "run_payload", "write_outputs"]
