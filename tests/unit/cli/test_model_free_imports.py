"""A model-free run imports no model client: no pydantic-ai, no openai, no scipy.

Why: those cost seconds of a run that sends nothing to a model (a 40-row ``--judge contains``
run took 5.5 s, 4 of them importing them). The check is ``python -X importtime`` of the real
command in a fresh process, as a user would measure it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
HEAVY = ("pydantic_ai", "openai", "scipy")


def modules(args: list[str], cwd: Path) -> set[str]:
    """Modules a fresh ``python -X importtime -m ragjury.cli ARGS`` imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ragjury.cli", *args],
        cwd=cwd, capture_output=True, text=True, check=True,
    )
    return {line.rpartition("|")[2].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


def imported(args: list[str], cwd: Path) -> set[str]:
    """Top-level packages a fresh ``python -X importtime -m ragjury.cli ARGS`` imported."""
    return {row.partition(".")[0] for row in modules(args, cwd)}


CONTAINS_RUN = ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                str(REPO / "examples" / "data" / "correctness.jsonl"), "--no-progress"]
CUT = ("numpy.ma", "rich.progress", "opentelemetry")
"""Modules #55 took off a 40-row ``contains`` run's path, so they stay off: ``numpy.ma`` (6 ms; numpy's
percentile loaded it for one ``np.unique``, ``evals.stats.intervals.percentile``), with
``--no-progress`` ``rich.progress`` (4 ms; ``evals.runs.runner`` loads it for a bar only), and without
``--trace`` ``opentelemetry`` (5 ms; ``rag_agent.tracing`` loads it where a span is made)."""


def test_a_contains_run_imports_no_model_client_nor_scipy(tmp_path: Path) -> None:
    found = modules(CONTAINS_RUN, tmp_path)
    packages = {row.partition(".")[0] for row in found}
    assert "ragjury" in packages  # the parse saw the run's imports at all
    assert not packages & set(HEAVY), packages & set(HEAVY)
    assert "numpy.random" in found  # the run drew its bootstrap intervals: the path this bars was taken
    assert not found & set(CUT), found & set(CUT)


def test_judge_names_for_a_report_import_no_judge_of_the_task() -> None:
    code = (
        "import sys\n"
        "from ragjury.rag_agent.judges.catalogue import catalogue_names\n"
        "assert catalogue_names('correctness')['answer_correctness'] == 'llm'\n"
        "assert catalogue_names('faithfulness')['token_overlap[faithfulness]'] == 'token-overlap'\n"
        "loaded = [m for m in sys.modules if m.startswith(('ragjury.rag_agent.judges.llm.', "
        f"'ragjury.rag_agent.judges.model_free.', *{HEAVY!r}))]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
