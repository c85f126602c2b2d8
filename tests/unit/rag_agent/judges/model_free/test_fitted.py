"""``--judge fitted:HEAD``: a head over model-free signals, refused when its spec is not this one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.judges.catalogue import UnknownJudgeError, build_judge
from ragjury.rag_agent.judges.model_free.fitted import (
    FEATURES,
    FittedJudge,
    Head,
    HeadError,
    correctness_signals,
    load_head,
)


def _head(**change: object) -> dict[str, object]:
    n = len(FEATURES["correctness"])
    head = Head(task="correctness", feature_kind="model-free", feature_version="1", features=FEATURES["correctness"],
                mean=(0.5,) * n, scale=(0.5,) * n, weights=(3.0,) + (0.0,) * (n - 1), bias=0.0, threshold=0.5,
                l2=1.0, n=100, positives=60, fitted_on="test")
    return {**head.model_dump(), **change}


def _write(tmp_path: Path, payload: dict[str, object], name: str = "head.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path


def test_signals_of_a_correct_and_a_wrong_answer() -> None:
    right, _ = correctness_signals(CorrectnessItem(question="q", answer="It was Paris, France.", references=["Paris"]))
    wrong, _ = correctness_signals(CorrectnessItem(question="q", answer="Lyon", references=["Paris"]))
    assert right[0] == 1.0 and right[1] == 1.0 and wrong[0] == 0.0 and wrong[1] == 0.0
    _, reason = correctness_signals(CorrectnessItem(question="q", answer="  ", references=["Paris"]))
    assert reason == "empty answer"


async def test_the_judge_applies_the_head_and_leaves_an_empty_answer_unscored(tmp_path: Path) -> None:
    judge = FittedJudge(_write(tmp_path, _head()), task="correctness")
    yes = await judge.ajudge(CorrectnessItem(question="q", answer="Paris", references=["Paris"]))
    no = await judge.ajudge(CorrectnessItem(question="q", answer="Lyon", references=["Paris"]))
    empty = await judge.ajudge(CorrectnessItem(question="q", answer="", references=["Paris"]))
    assert yes.value.label and yes.value.probability > 0.9
    assert not no.value.label and no.value.probability < 0.1
    assert empty.unscored and "empty answer" in (empty.unscored_reason or "")
    assert judge.identity.prompt_version.startswith("head@")


def test_a_refitted_head_has_another_identity(tmp_path: Path) -> None:
    first = FittedJudge(_write(tmp_path, _head(), "a.json")).identity
    second = FittedJudge(_write(tmp_path, _head(bias=0.3), "b.json")).identity
    assert first.prompt_version != second.prompt_version


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"features": ["contains"]}, "this ragjury reads"),
        ({"feature_version": "0"}, "v0"),
        ({"scale": [0.0] * 5}, "scale"),
        ({"task": "relevance"}, "this ragjury reads relevance v1"),
        ({"task": "goal"}, "heads exist for"),
    ],
)
def test_a_head_of_another_spec_is_refused(tmp_path: Path, change: dict[str, object], words: str) -> None:
    with pytest.raises(HeadError, match=words):
        load_head(_write(tmp_path, _head(**change)))


def test_the_catalogue_resolves_fitted_and_checks_the_task(tmp_path: Path) -> None:
    path = _write(tmp_path, _head())
    judge = build_judge("correctness", f"fitted:{path}")
    assert isinstance(judge, FittedJudge)
    with pytest.raises(UnknownJudgeError, match="fitted for correctness"):
        build_judge("faithfulness", f"fitted:{path}")
    with pytest.raises(UnknownJudgeError, match="not a ragjury head file"):
        build_judge("correctness", f"fitted:{_write(tmp_path, {'x': 1}, 'bad.json')}")
    with pytest.raises(UnknownJudgeError, match="cannot read"):
        build_judge("correctness", f"fitted:{tmp_path / 'missing.json'}")


def _raw(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "head.json"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"version": 99}, "version"),
        ({"format": "pickle"}, "format 'pickle'"),
        ({"weights": ["3.0", 0, 0, 0, 0]}, "weights"),
        ({"threshold": "0.5"}, "threshold"),
        ({"n": -5}, "'n'"),
        ({"l2": -1}, "l2"),
        ({"positives": 101}, "positives 101 exceeds n 100"),
    ],
)
def test_a_head_with_a_bad_field_is_refused_naming_the_field(
    tmp_path: Path, change: dict[str, object], field: str
) -> None:
    path = _write(tmp_path, _head(**change))
    with pytest.raises(HeadError, match=field) as caught:
        load_head(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(("where", "bad"), [("weights", "NaN"), ("bias", "Infinity"), ("mean", "-Infinity")])
def test_a_non_finite_number_is_refused_not_read_as_yes_to_everything(tmp_path: Path, where: str, bad: str) -> None:
    text = json.dumps(_head())
    if where == "bias":
        text = text.replace('"bias": 0.0', f'"bias": {bad}')
    else:
        text = text.replace(f'"{where}": [', f'"{where}": [{bad}, ', 1).replace(", 0.5]", "]", 1)
    with pytest.raises(HeadError, match=where):
        load_head(_raw(tmp_path, text))


def test_special_and_oversized_files_are_refused_before_reading(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(HeadError, match="not a regular file"):
        load_head(fifo)  # would block forever if opened
    with pytest.raises(HeadError, match="not a regular file"):
        load_head("/dev/zero")
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(17 * 1024 * 1024)  # sparse: no 17 MB written
    with pytest.raises(HeadError, match="past the"):
        load_head(big)
