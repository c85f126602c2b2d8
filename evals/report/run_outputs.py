"""Views of a finished run (``evals.results.finished_run``): the predictions file, the HTML page
and the ``evaluate --json`` document, each a function of the run alone.

Each reads what the run measured once (its result, figures, card, estimates), so the file, the
page and the JSON agree with each other and with ``ragjury report PRED.jsonl``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragjury.evals.results.finished_run import FinishedRun
    from ragjury.evals.report.page import HtmlReport


@dataclass(frozen=True)
class DatasetFiles:
    """The files of one dataset run: the data read, the predictions and report written (None:
    not written). The JSON payload names them; ``write_outputs`` writes the outputs."""

    data: Path
    predictions: Path | None = None
    html: Path | None = None


def html_report(run: FinishedRun, data: Path, *, gate_failures: Sequence[str] = (), labels: Any = None) -> HtmlReport:
    """The HTML report of ``data``'s run, built from its records exactly as ``ragjury report
    PRED.jsonl`` builds it (so the two pages agree), with the figures the run measured already,
    plus what only the run knows: the data file, the judge asked for, its identity, the run's
    statistics and its gate failures."""
    from ragjury.evals.report.run_report import build_report
    from ragjury.evals.results.sources import describe_identity

    shown = run.renamed(str(data), data.stem)  # the page names the data file; what was measured comes along
    stats = run.stats.as_dict() if run.stats is not None else None
    report, _figures = build_report([], run_stats=stats, measured=[shown], labels=labels)  # labels: people vs people
    report.title = f"ragjury evaluate: {run.task} judged by {run.verdict_judges}"
    report.meta = {
        "data": str(data),
        "task": run.task,
        "judge": run.judge,
        "verdicts by": run.sources.describe(),
        "identity": describe_identity(run.identity if run.identity is not None else run.judge),
        "rows": f"{len(run.records):,}",
    }
    report.gate_failures = list(gate_failures)
    return report


def write_outputs(run: FinishedRun, files: DatasetFiles, *, gate_failures: Sequence[str] = (), labels: Any = None) -> None:
    """Write the predictions JSONL, then the HTML report (with ``gate_failures``, so the page
    and the exit code agree), each where ``files`` names a path; both atomically."""
    if files.predictions is not None:
        from ragjury.evals.io.predictions import write_jsonl

        write_jsonl(files.predictions, run.rows)
        write_header(run, files)
    if files.html is not None:
        from ragjury.evals.report.page import write_html

        write_html(files.html, html_report(run, files.data, gate_failures=gate_failures, labels=labels))


def write_header(run: FinishedRun, files: DatasetFiles) -> None:
    """The run header beside the predictions (``evals.io.predictions.make_header``): how this run was made."""
    from importlib.metadata import PackageNotFoundError, version

    from ragjury.evals.io.predictions import make_header, write_run_header

    assert files.predictions is not None
    try:
        made_by = version("ragjury")
    except PackageNotFoundError:
        made_by = None
    stats = run.stats.as_dict() if run.stats is not None else None
    header = make_header(task=run.task, judge=run.judge_spec or run.judge, identity=run.identity, stats=stats,
                         rows=len(run.records),
                         data=files.data, version=made_by)
    write_run_header(files.predictions, header)


def run_payload(
    run: FinishedRun,
    files: DatasetFiles,
    *,
    input_mapping: Mapping[str, Any] | None = None,
    gate_failures: Sequence[str] = (),
) -> dict[str, Any]:
    """The ``evaluate --json`` document (before ``schema_version`` and ``command``): the run's
    ``summary``, then the mode, the files read and written, how the data's columns were read
    (``evals.tasks.InputMapping.as_dict``) and the failed gates."""
    from ragjury.evals.io.json_contract import paths

    out = run_summary(run)
    out["mode"] = "dataset"
    out["inputs"] = paths(data=files.data)
    out["input_mapping"] = dict(input_mapping) if input_mapping is not None else None
    out["outputs"] = paths(predictions=files.predictions, html=files.html)
    out["gate_failures"] = list(gate_failures)
    return out


def run_summary(run: FinishedRun) -> dict[str, Any]:
    """Everything ``evaluate --json`` says of a run: ``FinishedRun.as_dict``, the one shape of a
    finished run (each run of ``report --json`` is the same, read back from its file)."""
    return run.as_dict()


__all__ = ["DatasetFiles", "html_report", "run_payload", "run_summary", "write_header", "write_outputs"]
