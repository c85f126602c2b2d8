"""One predictions file whose ids repeat under two systems: every row is an item, keyed by (system, id);
``report`` counts both systems and ``--compare A B`` finds both (it kept the later system only:
200 rows -> "100 items ... 54.0 %", B's rate, and "no system 'A'")."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragjury.cli import app


def test_ids_repeated_under_two_systems_are_two_items(tmp_path: Path) -> None:
    rows = []
    for system, right in (("A", 70), ("B", 54)):
        for k in range(100):
            label = k < right
            rows.append({"id": f"q{k}", "system": system, "task": "correctness", "label": label,
                         "judge": "contains", "value": {"verdict": label},
                         "item": {"question": f"question {k}?", "answer": f"{system} answer {k}", "references": ["x"]}})
    path = tmp_path / "both.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    runner = CliRunner()
    one = runner.invoke(app, ["report", str(path), "--json"])
    assert one.exit_code == 0, one.output
    run = json.loads(one.stdout)["runs"][0] if "runs" in json.loads(one.stdout) else json.loads(one.stdout)
    assert run["n"] == 200 and abs(run["result"]["rate"] - 0.62) < 1e-9
    compared = runner.invoke(app, ["report", str(path), "--compare", "A", "B", "--json"])
    assert compared.exit_code == 0, compared.output
    assert "no system" not in compared.output
