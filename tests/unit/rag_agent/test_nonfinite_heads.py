"""A head whose score is not a finite number says nothing: its items are unscored with the reason,
never a clipped P = 1.0 (weights of 1.7e308 with a scale of 1e-300 used to say "yes" to all)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from ragjury.rag_agent.judges.model_free.stacked import standardised_logistic


def test_a_score_that_is_not_finite_gives_no_probability() -> None:
    assert math.isnan(standardised_logistic([1.0, 2.0], [0.0, 0.0], [1e-300, 1e-300], [1.7e308, -1.7e308], 0.0))
    assert math.isnan(standardised_logistic([1.0], [0.0], [1e-300], [1.7e308], 0.0))
    assert standardised_logistic([1.0], [0.0], [1.0], [100.0], 0.0) > 0.99  # a large finite score still clips


def test_a_fitted_head_with_overflowing_weights_leaves_items_unscored(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ragjury.cli import app

    data = Path(__file__).resolve().parents[3] / "examples" / "data" / "systems.jsonl"
    head = tmp_path / "head.json"
    done = CliRunner().invoke(app, ["fit", "--task", "correctness", "--data", str(data), "--out", str(head)])
    assert done.exit_code == 0, done.output
    spec = json.loads(head.read_text())
    spec["weights"] = [1.7e308 * (1 if i % 2 else -1) for i in range(len(spec["weights"]))]
    spec["scale"] = [1e-300] * len(spec["scale"])
    head.write_text(json.dumps(spec))
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(line + "\n" for line in data.read_text().splitlines()[:20]))
    run = CliRunner().invoke(app, ["evaluate", "--task", "correctness", "--judge", f"fitted:{head}", "--data",
                                   str(rows), "--json", "--no-cache", "--no-progress"])
    payload = json.loads(run.stdout)
    assert payload["scored"] < 20 and payload["unscored"] > 0
    assert payload["figures"].get("mean_label") != 1.0
