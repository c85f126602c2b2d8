"""``ragjury train`` end to end on a tiny base (built in the test, so training takes seconds): the folder
it writes, its card and cross-validated figures, the same weights from the same data and seed, the
folder judging through ``--judge cross-encoder:DIR`` as it predicted, and one line for each bad input."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("torch")
pytest.importorskip("transformers")

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tiny_cross_encoder import build  # noqa: E402

from ragjury.cli import app  # noqa: E402

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
runner = CliRunner()


def invoke(*args: object) -> object:
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("tiny") / "base", onnx=False)


@pytest.fixture(scope="module")
def trained(tiny: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("trained") / "ce"
    result = invoke("train", "--task", "correctness", "--data", DATA, "--base", tiny, "--out", out, "--folds", 2,
                    "--epochs", 2, "--learning-rate", 1e-3, "--max-length", 64, "--no-progress", "--json")
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


def test_the_folder_holds_weights_tokenizer_onnx_and_a_card(trained: tuple[Path, dict]) -> None:
    out, payload = trained
    assert {"config.json", "model.safetensors", "tokenizer.json", "model.onnx", "ragjury.json"} <= {
        p.name for p in out.iterdir()}
    sidecar = json.loads((out / "ragjury.json").read_text())
    card = sidecar["card"]
    assert sidecar["task"] == "correctness" and sidecar["positive_label"] == "yes"
    assert card["n"] == 40 and card["positives"] == 20 and card["seed"] == 0 and len(card["data_sha256"]) == 64
    assert card["started_from"].endswith("base") and card["training_seconds"] > 0
    # the figures are cross-validated and set beside contains on the same items
    assert payload["cross_validated"]["cross_validation"].startswith("2 random folds")
    assert payload["base"]["judge"] == "contains"
    assert payload["gain"] == pytest.approx(payload["cross_validated"]["kappa"] - payload["base"]["kappa"], abs=1e-3)
    assert not list(out.parent.glob(".ce.*")), "the staging folder is left behind"


def test_same_data_and_seed_give_the_same_weights(tiny: Path, tmp_path: Path) -> None:
    from safetensors.numpy import load_file

    def weights(out: Path, seed: int) -> dict:
        result = invoke("train", "--task", "correctness", "--data", DATA, "--base", tiny, "--out", out, "--folds", 0,
                        "--epochs", 1, "--learning-rate", 1e-3, "--max-length", 64, "--seed", seed, "--no-progress")
        assert result.exit_code == 0, result.output
        return load_file(out / "model.safetensors")

    first, again, other = weights(tmp_path / "a", 0), weights(tmp_path / "b", 0), weights(tmp_path / "c", 1)
    assert first.keys() == again.keys()
    assert all(np.array_equal(first[k], again[k]) for k in first)
    assert any(not np.array_equal(first[k], other[k]) for k in first), "another seed trained the same weights"


def test_the_folder_judges_as_it_was_trained(trained: tuple[Path, dict], tmp_path: Path) -> None:
    """The ONNX side (what --judge cross-encoder:DIR runs) gives the P(yes) torch gives the same pairs."""
    from ragjury.evals.pipelines.calibration_data import calibration_items
    from ragjury.evals.training.cross_encoder import load, predict
    from ragjury.rag_agent.judges.model_free.cross_encoder import pair_texts

    out, _ = trained
    items, _ = calibration_items("correctness", DATA)
    model, tokenizer = load(out)
    expected = predict(model, tokenizer, [pair_texts("correctness", item) for item in items], max_length=64)
    preds = tmp_path / "pred.jsonl"
    result = invoke("evaluate", "--task", "correctness", "--judge", f"cross-encoder:{out}", "--data", DATA,
                    "--out", preds, "--no-progress", "--no-cache")
    assert result.exit_code == 0, result.output
    got = [json.loads(line)["value"]["probability"] for line in preds.read_text().splitlines()]
    assert np.allclose(got, expected, atol=1e-4)


@pytest.mark.parametrize("case", ["few-labels", "base-without-config", "base-of-another-task", "out-is-a-file",
                                  "unknown-task"])
def test_bad_input_is_one_line_and_exit_2(case: str, tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args: list[object] = ["train", "--task", "correctness", "--data", DATA, "--base", tiny, "--out", out, "--folds", 0,
                          "--no-progress"]
    expected = ""
    if case == "few-labels":
        rows = [json.loads(line) for line in DATA.read_text().splitlines()]
        few = tmp_path / "few.jsonl"
        few.write_text("".join(json.dumps(r) + "\n" for r in rows if r["label"]) + json.dumps(
            next(r for r in rows if not r["label"])) + "\n")
        args[4] = few
        expected = "at least 10 of each"
    elif case == "base-without-config":
        empty = tmp_path / "empty"
        empty.mkdir()
        args[6] = empty
        expected = "no config.json"
    elif case == "base-of-another-task":
        other = build(tmp_path / "rel", onnx=False, sidecar={"task": "relevance"})
        args[6] = other
        expected = "trained for relevance"
    elif case == "out-is-a-file":
        out.write_text("keep me")
        expected = "is a file"
    else:
        args[2] = "goal"
        expected = "--task must be"
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert expected in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    if case == "out-is-a-file":
        assert out.read_text() == "keep me"


def test_a_failed_write_keeps_the_old_folder(trained: tuple[Path, dict], tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from ragjury.evals.training import model_folder
    from ragjury.evals.training.cross_encoder import load

    out = tmp_path / "ce"
    out.mkdir()
    (out / "old.txt").write_text("the model before")
    model, tokenizer = load(trained[0])

    def broken(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(model_folder, "export_onnx", broken)
    with pytest.raises(OSError):
        model_folder.write_folder(model, tokenizer, out, {"task": "correctness"})
    assert (out / "old.txt").read_text() == "the model before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ce"]


SYSTEMS = Path(__file__).resolve().parents[3] / "examples" / "data" / "systems.jsonl"


@pytest.fixture(scope="module")
def two_systems(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """chatgpt's and fid's answers judged by contains, with the people's labels the data carries."""
    folder = tmp_path_factory.mktemp("est")
    rows = [json.loads(line) for line in SYSTEMS.read_text().splitlines()]
    data = folder / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows if r["system"] in ("chatgpt", "fid")))
    preds = folder / "preds.jsonl"
    result = invoke("evaluate", "--task", "correctness", "--judge", "contains", "--data", data, "--out", preds,
                    "--no-progress", "--no-cache")
    assert result.exit_code == 0, result.output
    return preds


def test_estimate_train_scores_with_cross_trained_models(two_systems: Path, tiny: Path) -> None:
    """Each system's prediction-powered rate from cross-trained scores: the cost is said first, one line
    per fold follows, and the judge-only mean moves off contains' (the scores are the models')."""
    plain = json.loads(invoke("estimate", two_systems, "--json").stdout)
    result = invoke("estimate", two_systems, "--train", "--train-base", tiny, "--json")
    assert result.exit_code == 0, result.output
    said = result.stderr.splitlines()
    assert said[0].startswith("--train: 5 trainings of a cross-encoder on about")
    assert sum("trained" in line for line in said) == 5
    trained = json.loads(result.stdout)
    by_system = {s["system"]: s for s in trained["systems"]}
    before = {s["system"]: s for s in plain["systems"]}
    assert set(by_system) == {"chatgpt", "fid"}
    for name, estimate in by_system.items():
        assert estimate["n_labels"] == before[name]["n_labels"]
        assert estimate["judge_mean"]["estimate"] != pytest.approx(before[name]["judge_mean"]["estimate"])
        low, high = estimate["prediction_powered"]["interval"]
        assert 0.0 <= low <= estimate["prediction_powered"]["estimate"] <= high <= 1.0


@pytest.mark.parametrize(("args", "expected"), [
    (["--fit", "--train"], "give one"),
    (["--train-base", "."], "add --train"),
    (["--train", "--train-base", "/nonexistent-folder"], "no config.json"),
])
def test_estimate_train_refuses_bad_options(two_systems: Path, args: list[str], expected: str) -> None:
    result = invoke("estimate", two_systems, *args)
    assert result.exit_code == 2 and expected in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_teacher_adds_its_unlabelled_items_as_soft_targets(tiny: Path, two_systems: Path, tmp_path: Path) -> None:
    """The teacher's items people did not label are learnt (counted in the card); a teacher holding only
    labelled items teaches nothing and is refused in one line."""
    teacher = tmp_path / "teacher.jsonl"
    systems = tmp_path / "systems.jsonl"
    systems.write_text(SYSTEMS.read_text())
    tiny_onnx = build(tmp_path / "teacher-model")
    result = invoke("evaluate", "--task", "correctness", "--judge", f"cross-encoder:{tiny_onnx}", "--data", systems,
                    "--out", teacher, "--no-progress", "--no-cache")
    assert result.exit_code == 0, result.output
    out = tmp_path / "ce"
    result = invoke("train", "--task", "correctness", "--data", DATA, "--base", tiny, "--out", out, "--folds", 0,
                    "--epochs", 1, "--max-length", 64, "--teacher", teacher, "--no-progress", "--json")
    assert result.exit_code == 0, result.output
    labelled = {json.loads(line)["question"] + json.loads(line)["answer"] for line in DATA.read_text().splitlines()}
    expected = len({r["question"] + r["answer"] for r in map(json.loads, SYSTEMS.read_text().splitlines())} - labelled)
    assert json.loads(result.stdout)["teacher"] == {"items": expected, "weight": 0.5}

    own = tmp_path / "own.jsonl"
    assert invoke("evaluate", "--task", "correctness", "--judge", f"cross-encoder:{tiny_onnx}", "--data", DATA,
                  "--out", own, "--no-progress", "--no-cache").exit_code == 0
    result = invoke("train", "--task", "correctness", "--data", DATA, "--base", tiny, "--out", tmp_path / "ce2",
                    "--folds", 0, "--teacher", own, "--no-progress")
    assert result.exit_code == 2 and "that people did not label" in result.output, result.output


def test_out_is_replaced_only_when_it_is_a_model_folder(tiny: Path, tmp_path: Path) -> None:
    """Training again into the folder it wrote replaces it; a folder of other files (``.``, a home folder)
    or one holding an input is refused before any training, and nothing in it is touched."""
    out = tmp_path / "ce"
    args = ["train", "--task", "correctness", "--data", DATA, "--base", tiny, "--folds", 0, "--epochs", 1,
            "--max-length", 64, "--no-progress"]
    assert invoke(*args, "--out", out).exit_code == 0
    first = (out / "model.safetensors").read_bytes()
    again = invoke(*args, "--out", out, "--seed", 3)
    assert again.exit_code == 0, again.output
    assert (out / "model.safetensors").read_bytes() != first
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    refused = invoke(*args, "--out", busy)
    assert refused.exit_code == 2 and "other files in it" in refused.output
    assert (busy / "notes.txt").read_text() == "mine"
    holder = tmp_path / "holder"
    holder.mkdir()
    (holder / "ragjury.json").write_text(json.dumps({"written_by": "ragjury train"}))
    data = holder / "data.jsonl"
    data.write_text(DATA.read_text())
    refused = invoke(*[a if a != DATA else data for a in args], "--out", holder)
    assert refused.exit_code == 2 and "holds the input --data" in refused.output
    assert data.read_text() == DATA.read_text()


def test_an_item_without_the_base_judges_signals_is_left_out_of_the_comparison_only(
        tiny: Path, tmp_path: Path) -> None:
    """One labelled answer whose references have no usable word ("!!!") has no contains signals: it
    dropped the whole comparison with contains; now the gain is on the other 39 and the card says so."""
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    rows[0] = {**rows[0], "references": ["!!!"], "reference": "!!!"}
    data = tmp_path / "one-without-signals.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = invoke("train", "--task", "correctness", "--data", data, "--base", tiny, "--out", tmp_path / "ce",
                    "--folds", 2, "--epochs", 1, "--learning-rate", 1e-3, "--max-length", 64, "--no-progress", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["base"]["judge"] == "contains", payload["base"]
    assert (payload["base"]["compared_on"], payload["base"]["left_out"]) == (39, 1)
    assert payload["gain"] is not None


def test_out_with_a_users_own_ragjury_json_is_refused_and_left_as_it_was(tiny: Path, tmp_path: Path) -> None:
    """#54 item 33: docs invite a ragjury.json beside one's own cross-encoder; ``train --out`` there
    deleted the folder. Only a folder whose ragjury.json says ``ragjury train`` wrote it is replaced."""
    mine = tmp_path / "my-ce"
    mine.mkdir()
    (mine / "ragjury.json").write_text(json.dumps({"task": "correctness"}))
    (mine / "model.safetensors").write_text("my weights")
    result = invoke("train", "--task", "correctness", "--data", DATA, "--base", tiny, "--folds", 0, "--epochs", 1,
                    "--max-length", 64, "--no-progress", "--out", mine)
    assert result.exit_code == 2 and "ragjury train" in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert (mine / "model.safetensors").read_text() == "my weights"
    assert sorted(p.name for p in mine.iterdir()) == ["model.safetensors", "ragjury.json"]


def test_a_folder_train_wrote_carries_the_marker(trained: tuple[Path, dict]) -> None:
    out, _ = trained
    assert json.loads((out / "ragjury.json").read_text())["written_by"] == "ragjury train"


def test_a_base_with_a_broken_pytorch_model_bin_is_one_line(tiny: Path, tmp_path: Path) -> None:
    """#54 item 36: ``train --base`` with a bad ``pytorch_model.bin`` printed the loader's traceback."""
    import shutil

    broken = tmp_path / "broken"
    shutil.copytree(tiny, broken)
    for weights in broken.glob("*.safetensors"):
        weights.unlink()
    (broken / "pytorch_model.bin").write_bytes(b"not a checkpoint at all")
    result = invoke("train", "--task", "correctness", "--data", DATA, "--base", broken, "--folds", 0, "--epochs", 1,
                    "--max-length", 64, "--no-progress", "--out", tmp_path / "ce")
    assert result.exit_code == 2, result.output
    assert "does not load" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "ce").exists()
