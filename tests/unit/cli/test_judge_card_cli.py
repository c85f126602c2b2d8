"""The judge card where users meet it: ``estimate`` (terminal and --json), ``evaluate --json`` on
labelled data, and the HTML report; and a judge with a planted length bias is named in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjury.cli import app

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "data"
runner = CliRunner()


@pytest.fixture(scope="module")
def predictions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("card") / "systems.jsonl"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                                 str(EXAMPLES / "systems.jsonl"), "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    return out


def test_estimate_prints_the_card_and_names_the_bias_it_finds(predictions: Path) -> None:
    text = runner.invoke(app, ["estimate", str(predictions)], env={"COLUMNS": "80"})
    assert text.exit_code == 0, text.output
    assert "Judge card (120 labelled items, 95 % intervals)" in text.output
    assert "per 100 words of answer at a fixed label and system (n = 120): not found" in text.output
    # contains is strict with both systems (the estimates' bias column says so too)
    assert "judge card: strict with chatgpt (-0.117" in text.output and "strict with fid (-0.150" in text.output
    assert "…" not in text.output  # nothing cut at 80 columns

    payload = json.loads(runner.invoke(app, ["estimate", str(predictions), "--json"]).stdout)
    card = payload["judge_card"]
    systems = {row["system"]: row for row in card["systems"]}
    assert systems["chatgpt"]["n_labelled"] == 60 and systems["chatgpt"]["strict"] is True
    low, high = systems["fid"]["leniency"]["interval"]
    assert low < systems["fid"]["leniency"]["value"] < high < 0
    assert 0 < systems["fid"]["cohen_kappa_interval"][0] < systems["fid"]["cohen_kappa"]
    assert card["length_bias"]["found"] is False and card["length_bias"]["held_fixed"] == ["label", "system"]


def test_evaluate_json_has_the_card_when_the_data_has_labels(tmp_path: Path) -> None:
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                                 str(EXAMPLES / "correctness.jsonl"), "--json", "--no-progress"])
    assert result.exit_code == 0, result.output
    card = json.loads(result.stdout)["judge_card"]
    assert card["n_labelled"] == 40 and sum(row["n_labelled"] for row in card["systems"]) == 40
    assert card["length_of"] == "answer" and isinstance(card["findings"], list)


def test_score_tasks_have_no_card(tmp_path: Path) -> None:
    from ragjury.evals.io.predictions import run_of_rows
    from ragjury.evals.stats.run_estimates import run_card

    rows = [{"id": f"s{k}", "task": "score", "score": 0.5, "gold": 0.7, "judge": "llm", "item": {"answer": "a b"}} for k in range(30)]
    assert run_card(run_of_rows(list(enumerate(rows, start=1)), path="<rows>")) is None


def _biased_rows() -> list[dict[str, Any]]:
    """A judge that says yes to long wrong answers: P(yes) rises 0.3 per 100 words at label false."""
    rows = []
    for k in range(120):
        gold = k % 2 == 0
        words = 5 + (k * 37) % 150
        p = 0.85 if gold else min(0.95, 0.1 + 0.3 * words / 100 + ((k * 13) % 7 - 3) / 40)
        rows.append({"id": f"q{k}-sys", "system": "sys", "task": "correctness", "label": p >= 0.5, "gold": gold,
                     "value": {"verdict": p >= 0.5, "probability": round(p, 3)}, "judge": "llm",
                     "item": {"question": f"q{k}", "answer": " ".join(["word"] * words), "references": ["x"]}})
    return rows


def test_a_planted_length_bias_is_named_in_one_line_and_in_the_report(tmp_path: Path) -> None:
    path = tmp_path / "biased.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in _biased_rows()), encoding="utf-8")
    text = runner.invoke(app, ["estimate", str(path)], env={"COLUMNS": "80"})
    assert text.exit_code == 0, text.output
    line = [ln for ln in text.output.splitlines() if ln.startswith("judge card:")]
    assert len(line) == 1 and "more yes to longer answers at the same label" in line[0]
    html = tmp_path / "report.html"
    result = runner.invoke(app, ["report", str(path), "--html", str(html)])
    assert result.exit_code == 0, result.output
    page = html.read_text(encoding="utf-8")
    assert '<section id="judge-card">' in page and "more yes to longer answers" in page


def test_label_plan_labels_say_what_the_card_describes(predictions: Path, tmp_path: Path) -> None:
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    labels = tmp_path / "labels.jsonl"
    picked = [row for row in rows if row.get("gold") is not None]
    labels.write_text("".join(json.dumps({"id": row["id"], "label": row["gold"],
                                          "inclusion_probability": 0.2 + 0.1 * (k % 2)}) + "\n"
                              for k, row in enumerate(picked)), encoding="utf-8")
    payload = json.loads(runner.invoke(app, ["estimate", str(predictions), "--labels", str(labels), "--json"]).stdout)
    assert any("label-plan" in note for note in payload["judge_card"]["notes"])


def test_evaluate_prints_one_line_when_a_bias_is_found() -> None:
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                                 str(EXAMPLES / "systems.jsonl"), "--no-progress"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("judge card:")]
    assert lines == ["judge card: strict with chatgpt (-0.117 [-0.227, -0.018]); strict with fid (-0.150 [-0.261, "
                     "-0.058])"]
    assert "Judge card (" not in result.output  # the table is estimate's; evaluate says only what was found


def test_a_system_name_with_brackets_is_printed_as_written(tmp_path: Path) -> None:
    rows = _biased_rows()
    for row in rows:
        row["system"] = "[bold]sys[/bold]"
    path = tmp_path / "brackets.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    text = runner.invoke(app, ["estimate", str(path)], env={"COLUMNS": "120"})
    assert text.exit_code == 0, text.output
    card = text.output[text.output.index("Judge card"):]
    assert any(line.startswith("│ [bold]sys[/bold]") for line in card.splitlines()), card  # the table's row
