"""A calibration file's values are what they say: a threshold is a number, not the string "0.5";
an isotonic map never decreases (issue 27, item 17)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragjury.evals.stats.calibration import CalibrationError, fit_calibration, load_calibration
from ragjury.rag_agent.judges.llm.correctness import Verdict


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"threshold": "0.5"}, "field 'threshold'"),
        ({"isotonic": [[0.0, 0.5, 1.0], [0.9, 0.5, 0.1]]}, "monotone"),
        ({"isotonic": [[1.0, 0.5, 0.0], [0.1, 0.5, 0.9]]}, "monotone"),
        ({"isotonic": [[0.0, 1.0], [0.1]]}, "as many x as y"),
        ({"isotonic": [[0.0, 1.0], [0.1, 1.5]]}, "between 0 and 1"),
    ],
)
def test_a_calibration_with_a_value_that_is_not_what_it_says_is_refused(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    values = [Verdict(verdict=bool(i % 2), reason="r", method="logprobs", probability=0.2 + 0.6 * (i % 2)) for i in range(40)]
    calibration = fit_calibration("correctness", "llm", "answer_correctness", "m", "p@1", values,
                                  [bool(i % 2) for i in range(40)], data="d")
    path = tmp_path / "cal.json"
    fitted = calibration.model_dump(mode="json", by_alias=True)
    path.write_text(json.dumps(fitted), encoding="utf-8")
    assert load_calibration(path).threshold == fitted["threshold"]  # as fitted: read as before
    path.write_text(json.dumps(fitted | change), encoding="utf-8")
    with pytest.raises(CalibrationError, match=message):
        load_calibration(path)
