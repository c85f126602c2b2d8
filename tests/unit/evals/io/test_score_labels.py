"""A score task's people's labels are on the judges' 0-1 scale: a 5 is refused (file, line, field),
not read as "people 1.0 [1.0, 1.0]"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragjury.evals.io.human_labels import load_human_labels
from ragjury.evals.io.tasks import parse_gold
from ragjury.rag_agent.core.input_files import InputError


@pytest.mark.parametrize("value", [5, -1, 1.5, "5"])
def test_a_score_outside_zero_one_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match=r"expected a score in \[0, 1\]"):
        parse_gold(value, "score")


@pytest.mark.parametrize("value", [0, 1, 0.25, "0.5", True])
def test_scores_on_the_scale_are_read(value: object) -> None:
    assert 0.0 <= parse_gold(value, "score") <= 1.0


def test_the_labels_file_names_the_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [{"id": "a", "label": 0}, {"id": "b", "label": 5}]) + "\n")
    with pytest.raises(InputError) as caught:
        load_human_labels(path, "score")
    text = str(caught.value)
    assert "labels.jsonl" in text and "2" in text and "label" in text and "[0, 1]" in text


def test_a_tiny_inclusion_probability_is_refused_not_a_wall_of_numpy_warnings(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps({"id": "a", "label": True, "inclusion_probability": 1e-300}) + "\n")
    with pytest.raises(InputError, match="below 1e-06"):
        load_human_labels(path)


def test_estimate_fit_without_item_text_blames_the_predictions(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ragjury.cli import app

    runner = CliRunner()
    examples = Path(__file__).resolve().parents[4] / "examples" / "data" / "systems.jsonl"
    preds = tmp_path / "preds.jsonl"
    assert runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(examples),
                               "--out", str(preds), "--no-progress", "--no-cache"]).exit_code == 0
    rows = [json.loads(line) for line in preds.read_text().splitlines()]
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "item"}) + "\n" for r in rows))
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"id": r["id"], "label": r["gold"]}) + "\n" for r in rows if r.get("gold") is not None))
    result = runner.invoke(app, ["estimate", str(bare), "--labels", str(labels), "--fit"])
    assert result.exit_code == 2 and "bare.jsonl" in result.output and "carry none" in result.output
    assert "0 yes, 0 no" not in result.output


def test_a_score_task_says_it_does_not_read_references(tmp_path: Path) -> None:
    from ragjury.evals.io.tasks import load_dataset

    path = tmp_path / "score.jsonl"
    path.write_text(json.dumps({"question": "q", "answer": "a", "references": ["r"], "sources": []}) + "\n")
    note = load_dataset("score", path).unread_note("score")
    assert note is not None and "'references'" in note and "--task correctness" in note
    assert load_dataset("correctness", path).unread_note("correctness") is None


def test_an_output_whose_folder_vanished_names_the_output_not_a_temp_file(tmp_path: Path) -> None:
    from ragjury.evals.io.atomic_io import write_text_atomic

    folder = tmp_path / "gone"
    folder.mkdir()
    target = folder / "preds.jsonl"
    folder.rmdir()  # removed after the paths were checked, mid-run
    with pytest.raises(OSError) as caught:
        write_text_atomic(target, "x\n")
    assert caught.value.filename == str(target) and "no longer exists" in str(caught.value)
    assert ".tmp" not in str(caught.value) and "ragjury-tmp" not in str(caught.value)
