"""One finished-run type: a run just judged and the same run read back from its predictions file
are both ``FinishedRun``s, and every figure the JSON shows of them is the same."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ragjury import DatasetEvaluation
from ragjury.evals.io.predictions import load_predictions
from ragjury.evals.results.finished_run import FinishedRun, finished_run
from ragjury.evals.report.run_outputs import run_summary

ROOT = Path(__file__).resolve().parents[4]
RUN_ONLY = {"cached", "judged", "duplicates", "wall_s", "judgments_per_s", "executor", "endpoints", "not_judged",
            "tokens", "requests", "judge"}
"""What only the live run knows (its statistics, the --judge asked for): not in a predictions file."""


def test_evaluate_and_report_of_its_file_say_the_same_of_the_run(tmp_path: Path) -> None:
    out = tmp_path / "preds.jsonl"
    done = subprocess.run([str(Path(sys.executable).with_name("ragjury")), "evaluate", "--task", "correctness",
                           "--judge", "contains", "--data", str(ROOT / "examples" / "data" / "systems.jsonl"), "--out",
                           str(out), "--no-cache", "--no-progress", "--json"], capture_output=True, text=True, check=True)
    live = json.loads(done.stdout)
    read = finished_run(load_predictions(out))
    assert isinstance(read, FinishedRun) and issubclass(DatasetEvaluation, FinishedRun)
    own = {name for name in vars(DatasetEvaluation) if not name.startswith("__")}
    assert own == {"summary", "html_report", "write", "payload"}  # views at hand, no figure of its own
    again = json.loads(json.dumps(run_summary(read)))
    shared = set(live) & set(again) - RUN_ONLY
    assert {"result", "figures", "intervals", "agreement", "ranking", "judge_card", "system_estimates",
            "per_system", "labelled", "scored", "unscored", "n"} <= shared
    assert {key: live[key] for key in shared} == {key: again[key] for key in shared}
