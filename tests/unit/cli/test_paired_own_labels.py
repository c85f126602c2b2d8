"""``report A B``'s paired table scores each run against its own people labels: two configs' answers
to one question can differ in correctness, so B scored against A's labels looked bad (held out:
kappa 0.354 shown where B's own was 0.773)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragjury.cli import app


def run_file(tmp_path: Path, name: str, golds: list[bool]) -> Path:
    rows = []
    for k, gold in enumerate(golds):
        rows.append({"id": f"q{k}", "task": "correctness", "label": gold, "gold": gold, "judge": "contains",
                     "value": {"verdict": gold}, "item": {"question": f"question {k}?", "answer": f"{name} {k}",
                                                          "references": ["r"]}})
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_each_run_is_scored_against_its_own_labels(tmp_path: Path) -> None:
    golds_a = [k % 2 == 0 for k in range(40)]
    golds_b = [k % 3 != 0 for k in range(40)]  # B answered differently: its labels differ on many questions
    a, b = run_file(tmp_path, "a", golds_a), run_file(tmp_path, "b", golds_b)
    result = CliRunner().invoke(app, ["report", str(a), str(b), "--json"])
    assert result.exit_code == 0, result.output
    comparison = json.loads(result.stdout)["comparison"]
    kappa = comparison["paired_difference"]["cohen_kappa"]
    assert kappa["a"] == 1.0 and kappa["b"] == 1.0 and kappa["difference"] == 0.0  # both judges agree with their people
    assert comparison["paired_items_labels_differ"] == sum(x != y for x, y in zip(golds_a, golds_b))
    text = CliRunner().invoke(app, ["report", str(a), str(b)], env={"COLUMNS": "200"}).output
    assert "their people labels differ on" in text
