"""The Python doors agree with the command line (issue 26, 3.6): ``estimate_predictions`` takes the
result in memory, ``EstimatesResult`` shows its comparison, ``to_pandas`` keeps what was judged,
judges say what they are, and the README's example runs where an event loop already runs."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from ragjury import build_judge, estimate_predictions, evaluate_dataset_sync

ROOT = Path(__file__).resolve().parents[4]
DATA = ROOT / "examples" / "data" / "correctness.jsonl"


def _result():  # type: ignore[no-untyped-def]
    return evaluate_dataset_sync("correctness", str(DATA), build_judge("correctness", "contains"), progress=False)


def test_estimate_predictions_takes_the_result_in_memory_as_it_takes_its_file(tmp_path: Path) -> None:
    result = _result()
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(__import__("json").dumps(row) + "\n" for row in result.prediction_rows()))
    in_memory = estimate_predictions(result, compare=["chatgpt", "fid"])
    from_file = estimate_predictions(path, compare=["chatgpt", "fid"])
    assert [s.as_dict() for s in in_memory.systems] == [s.as_dict() for s in from_file.systems]
    assert in_memory.n_labels == 40


def test_the_estimates_repr_shows_the_comparison() -> None:
    shown = repr(estimate_predictions(_result(), compare=["chatgpt", "fid"]))
    assert re.search(r"fid − chatgpt: [-+]\d+\.\d points \[.*\], p = ", shown), shown  # B − A, in points


def test_to_pandas_keeps_the_question_and_the_answer() -> None:
    frame = _result().to_pandas()
    assert {"question", "answer", "label", "gold"} <= set(frame.columns)
    assert frame.loc[0, "answer"] == "Walter Mondale"


def test_a_judge_says_its_name_model_and_prompt_version() -> None:
    assert repr(build_judge("correctness", "contains")) == (
        "ContainsJudge(name='contains', model=None, prompt_version='contains@1.0')"
    )


def test_the_readme_python_example_runs_inside_a_running_event_loop() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## From Python", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    assert "asyncio.run" not in block

    async def notebook_cell() -> None:  # Jupyter runs cells inside its own loop
        exec(compile(block, "README.md", "exec"), {})

    asyncio.run(notebook_cell())
