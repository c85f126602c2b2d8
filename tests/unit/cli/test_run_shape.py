"""A finished run is built once: ``evaluate`` on 500 rows serialises each prediction once (for the
file), reads each record once (the codec's reader, on the row its writer made: no file parsed
back), measures its result, agreement and estimates once, and ``report`` never asks the catalogue
(issue #30): the judge name as typed travels in each predictions row."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

runner = CliRunner()
ROWS = 500


@pytest.fixture(autouse=True)
def isolated(offline_cli: Path) -> None:
    """No model server, no .env, and a cache inside the test's folder."""


def dataset(path: Path) -> Path:
    """500 correctness rows over 4 systems; people labelled every other row (both classes), so
    the run has agreement, a ranking, a judge card and per-system estimates."""
    rows = []
    for n in range(ROWS):
        system = f"s{n % 4}"
        right = n % 3 != 0
        row: dict[str, Any] = {
            "id": f"q{n}",
            "question": f"what is item {n}?",
            "references": [f"answer {n}"],
            "answer": f"it is answer {n}" if right else "no idea",
            "system": system,
        }
        if n % 2 == 0:
            row["label"] = right if n % 10 else not right
        rows.append(row)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counters on every way back: a prediction serialised, a row read, agreement measured, a
    run estimated."""
    from ragjury.evals.io import predictions
    from ragjury.evals.stats import agreement, run_estimates

    counts: Counter[str] = Counter()

    def wrap(owner: Any, name: str, key: str) -> None:
        original = getattr(owner, name)

        def counting(*args: Any, **kwargs: Any) -> Any:
            counts[key] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, counting)

    from ragjury.evals.io.predictions import Prediction

    wrap(Prediction, "as_dict", "as_dict")
    wrap(predictions, "record_of", "record_of")
    label_agreement = agreement.label_agreement

    def measuring(*args: Any, **kwargs: Any) -> Any:
        if sys._getframe(1).f_code.co_name == "binary_agreement":  # the run's agreement, not a card's per system
            counts["agreement"] += 1
        return label_agreement(*args, **kwargs)

    monkeypatch.setattr(agreement, "label_agreement", measuring)
    wrap(run_estimates, "estimate_run", "estimate_run")
    from ragjury.evals.results import finished_run

    wrap(finished_run, "run_result", "run_result")
    return counts


def test_a_finished_run_is_serialised_once_per_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = dataset(tmp_path / "data.jsonl")
    out, html = tmp_path / "preds.jsonl", tmp_path / "report.html"
    counts = counted(monkeypatch)
    result = runner.invoke(
        app,
        ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data),
         "--out", str(out), "--html", str(html), "--json", "--no-progress"],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["n"] == ROWS and summary["labelled"] == ROWS // 2 and "system_estimates" in summary
    outputs = 3  # the predictions file, the HTML page, the JSON document
    assert counts["as_dict"] <= ROWS * outputs and counts["as_dict"] <= ROWS, counts
    assert counts["record_of"] == ROWS, counts  # each record read once, by the one codec, from the row the writer made
    assert counts["run_result"] == 1, counts  # the run's result made once, read by the JSON, the page and gates
    assert counts["agreement"] == 1, counts  # measured once, read by JSON, HTML and gates
    assert counts["estimate_run"] == 1, counts
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {row["judge_name"] for row in rows} == {"contains"}  # the name as typed, in each row


def test_report_never_consults_the_catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``report`` shows the ``--judge`` name each row carries (``llm``), and a file from before
    the name was carried shows the judge name it stored: every way into the catalogue raises
    meanwhile, and no report module names it."""
    import typer
    from click.testing import CliRunner as ClickRunner

    from ragjury.rag_agent.judges import catalogue

    command = typer.main.get_command(app)  # the options' help reads the catalogue: built first

    def asked(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the report consulted the judge catalogue")

    for name in ("catalogue_name", "catalogue_names", "typed_names", "verdict_names", "declared", "entry", "resolve"):
        monkeypatch.setattr(catalogue, name, asked)
    row = {"id": "a", "task": "correctness", "label": True, "gold": True, "system": "x",
           "judge": "answer_correctness", "model": "m", "prompt_version": "answer_correctness@1",
           "item": {"question": "q?", "answer": "a", "references": ["a"]}}
    typed = tmp_path / "typed.jsonl"
    typed.write_text("".join(json.dumps({**row, "id": i, "judge_name": "llm"}) + "\n" for i in "ab"))
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps({**row, "id": i}) + "\n" for i in "ab"))
    seen = {}
    for path in (typed, old):
        result = ClickRunner().invoke(command, ["report", str(path), "--html", str(path.with_suffix(".html")), "--json"])
        assert result.exit_code == 0, result.output
        seen[path.stem] = json.loads(result.stdout)["runs"][0]["judges"]
    assert seen == {"typed": {"llm": 2}, "old": {"answer_correctness": 2}}  # the old one as stored
    assert "llm" in typed.with_suffix(".html").read_text()
    report = Path(catalogue.__file__).parents[2] / "evals" / "report"
    naming = [path.name for path in sorted(report.glob("*.py")) if "judges.catalogue" in path.read_text()]
    assert naming == []
