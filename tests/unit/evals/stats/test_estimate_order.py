"""``estimate`` gives the same figures whatever the order of the rows: cross-fitting folds come from
a seeded hash of each label's question, not its position (the same 100 labels gave 0.0746 in file
order and 0.0683 sorted)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from typer.testing import CliRunner

from ragjury.cli import app

SYSTEMS = Path(__file__).resolve().parents[4] / "examples" / "data" / "systems.jsonl"


def test_rows_in_another_order_give_the_same_estimates(tmp_path: Path) -> None:
    runner = CliRunner()
    preds = tmp_path / "preds.jsonl"
    done = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(SYSTEMS),
                               "--out", str(preds), "--no-progress"])
    assert done.exit_code == 0, done.output
    rows = preds.read_text().splitlines()
    shuffled = tmp_path / "shuffled.jsonl"
    random.Random(3).shuffle(rows)
    shuffled.write_text("\n".join(rows) + "\n")
    figures = []
    for path in (preds, shuffled):
        result = runner.invoke(app, ["estimate", str(path), "--compare", "chatgpt", "fid", "--json"])
        assert result.exit_code == 0, result.output
        payload = json.loads(result.stdout)
        figures.append((payload["systems"], payload["comparison"] if "comparison" in payload else payload.get("compare")))
    assert figures[0] == figures[1]
