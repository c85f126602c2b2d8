"""Calibration: thresholds that maximise kappa, out-of-fold figures, ECE, the file, and the command."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.config.settings import RagjurySettings
from ragjury.evals.stats.calibration import (
    CALIBRATION_SCHEMA,
    Calibration,
    CalibrationError,
    apply_isotonic,
    auc,
    binary_kappa,
    calibrate_graded,
    check_applies,
    cross_validate,
    expected_calibration_error,
    fit_calibration,
    fit_isotonic,
    fit_threshold,
    load_calibration,
)
from ragjury.rag_agent.judges.llm.correctness import CorrectnessJudge, Verdict
from ragjury.rag_agent.judges.llm.relevance import RelevanceGrade

runner = CliRunner()


def noisy(n: int = 400, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Scores that separate the classes imperfectly, and whose best cut is far from 0.5."""
    rng = np.random.default_rng(seed)
    gold = rng.random(n) < 0.35
    scores = np.clip(0.15 + 0.25 * gold + rng.normal(0, 0.1, n), 0, 1)
    return scores, gold


def test_fitted_threshold_beats_the_default_cut_and_sits_between_the_classes() -> None:
    scores, gold = noisy()
    threshold = fit_threshold(scores, gold)
    assert 0.2 < threshold < 0.4
    assert binary_kappa(scores >= threshold, gold) > binary_kappa(scores >= 0.5, gold) + 0.3


def test_cross_validated_kappa_is_close_to_but_not_above_in_sample_on_noise_free_signal() -> None:
    scores, gold = noisy()
    cv = cross_validate(scores, gold, folds=5, seed=0, probabilities=scores)
    in_sample = binary_kappa(scores >= fit_threshold(scores, gold), gold)
    assert cv.kappa <= in_sample + 1e-9 and cv.kappa > in_sample - 0.1
    assert cv.kappa_interval[0] < cv.kappa < cv.kappa_interval[1]
    assert len(cv.thresholds) == 5 and cv.ece_after is not None


def test_cross_validation_does_not_reward_fitting_noise() -> None:
    rng = np.random.default_rng(3)
    scores, gold = rng.random(300), rng.random(300) < 0.4  # no signal at all
    in_sample = binary_kappa(scores >= fit_threshold(scores, gold), gold)
    cv = cross_validate(scores, gold)
    assert cv.kappa < in_sample  # in-sample is the optimistic one; out of fold, noise earns nothing


def test_isotonic_map_is_monotone_and_lowers_ece() -> None:
    scores, gold = noisy()
    knots = fit_isotonic(scores, gold)
    mapped = apply_isotonic(np.sort(scores), knots)
    assert np.all(np.diff(mapped) >= -1e-12)
    assert expected_calibration_error(apply_isotonic(scores, knots), gold) < expected_calibration_error(scores, gold)


def test_auc_matches_pairwise_definition() -> None:
    scores = [0.1, 0.4, 0.35, 0.8, 0.4]
    gold = [False, False, True, True, True]
    pairs = [(p, n) for p, gp in zip(scores, gold) if gp for n, gn in zip(scores, gold) if not gn]
    expected = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in pairs) / len(pairs)
    assert auc(scores, gold) == pytest.approx(expected)


def test_graded_cuts_are_ascending_and_binary_figures_use_grade_two() -> None:
    rng = np.random.default_rng(5)
    gold = rng.integers(0, 4, 300)
    expected = np.clip(gold * 0.5 + 0.6 + rng.normal(0, 0.3, 300), 0, 3)
    argmax = np.rint(expected).astype(int)
    cuts, _, figures = calibrate_graded(expected, argmax, expected / 3, gold)
    assert cuts == sorted(cuts) and len(cuts) == 3
    assert figures.positives == int((gold >= 2).sum())
    assert figures.cross_validation.kappa > 0.5


def test_too_few_or_single_class_items_are_errors() -> None:
    with pytest.raises(ValueError, match="too few"):
        cross_validate([0.1, 0.9], [True, False])
    with pytest.raises(ValueError, match="one class"):
        cross_validate(np.linspace(0, 1, 20), [True] * 20)


def test_fit_calibration_needs_probabilities_and_writes_a_loadable_file(tmp_path: Path) -> None:
    structured = [RelevanceGrade(grade=2)] * 20
    with pytest.raises(ValueError, match="logprob path"):
        fit_calibration("relevance", "llm-graded", "relevance_grade", "m", "p@1", structured, [2] * 20, data="d")
    rng = np.random.default_rng(2)
    grades = rng.integers(0, 4, 60)
    values = [
        RelevanceGrade(grade=int(g), method="logprobs", probabilities=[0.25] * 4,
                       expected_grade=float(np.clip(g + rng.normal(0, 0.5), 0, 3)), p_relevant=0.5)
        for g in grades
    ]
    calibration = fit_calibration("relevance", "llm-graded", "relevance_grade", "m", "p@1", values, list(grades), data="d")
    path = tmp_path / "cal.json"
    calibration.write(path)
    loaded = load_calibration(path)
    assert json.loads(path.read_text())["schema"] == CALIBRATION_SCHEMA
    assert loaded.cuts == calibration.cuts and loaded.judge_options()["cuts"] == tuple(calibration.cuts or [])
    with pytest.raises(CalibrationError, match="fitted for --task relevance --judge llm-graded"):
        check_applies(loaded, "correctness", "llm", path)


@pytest.mark.parametrize(
    ("text", "message"),
    [("{", "not JSON"), ('{"schema": "other"}', "not a ragjury calibration file"),
     (json.dumps({"schema": CALIBRATION_SCHEMA, "task": "relevance"}), "field")],
)
def test_bad_calibration_files_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=message):
        load_calibration(path)


# -- the command, with a scripted logprob model plugged in ------------------------------------------------


def scripted_correctness(settings: RagjurySettings, **opts: Any) -> CorrectnessJudge:
    """P(correct) is 0.3 when the answer holds the reference, else 0.1: right order, wrong scale."""

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        request = messages[0]
        assert isinstance(request, ModelRequest)
        prompt = "".join(str(p.content) for p in request.parts if isinstance(p, UserPromptPart))
        p_true = 0.3 if "<evaluated_answer>right" in prompt else 0.1
        top = [{"token": "1", "logprob": math.log(p_true)}, {"token": "0", "logprob": math.log(1 - p_true)}]
        return ModelResponse(
            parts=[TextPart("0")],
            provider_details={"logprobs": [{"token": "0", "logprob": top[1]["logprob"], "top_logprobs": top}]},
        )

    return CorrectnessJudge(FunctionModel(reply, model_name="scripted"), settings=settings, **opts)


def dev_set(path: Path, n: int = 40) -> Path:
    rows = [
        {"id": str(i), "question": f"q{i}", "answer": "right" if i % 2 else "wrong", "references": ["right"],
         "label": bool(i % 2)}
        for i in range(n)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


@pytest.fixture(autouse=False)
def plugin_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make this module importable as a ``python:`` plug-in judge."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))


@pytest.mark.usefixtures("plugin_path")
def test_calibrate_command_fits_reports_cv_and_evaluate_applies_it(tmp_path: Path) -> None:
    data = dev_set(tmp_path / "dev.jsonl")
    out = tmp_path / "cal.json"
    judge = "python:test_calibration:scripted_correctness"
    result = runner.invoke(app, ["calibrate", "--task", "correctness", "--data", str(data), "--judge", judge,
                                 "--out", str(out), "--no-cache", "--no-progress", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["kappa_uncalibrated"] == 0.0  # everything below 0.5: all "incorrect"
    assert summary["kappa_cv"] == pytest.approx(1.0) and 0.1 < summary["threshold"] < 0.3
    assert summary["ece_before"] > summary["ece_after_cv"]
    # Applied to other data with --calibration: the fitted threshold labels the right answers correct.
    other = dev_set(tmp_path / "other.jsonl", n=10)
    preds = tmp_path / "preds.jsonl"
    applied = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", judge, "--data", str(other),
                                  "--calibration", str(out), "--out", str(preds), "--no-cache", "--no-progress",
                                  "--json"])
    assert applied.exit_code == 0, applied.output
    labels = [json.loads(line)["label"] for line in preds.read_text().split("\n") if line.strip()]
    assert labels == [bool(i % 2) for i in range(10)]


@pytest.mark.usefixtures("plugin_path")
def test_calibration_for_another_judge_is_refused_before_judging(tmp_path: Path) -> None:
    data = dev_set(tmp_path / "dev.jsonl")
    out = tmp_path / "cal.json"
    judge = "python:test_calibration:scripted_correctness"
    runner.invoke(app, ["calibrate", "--task", "correctness", "--data", str(data), "--judge", judge,
                        "--out", str(out), "--no-cache", "--no-progress"])
    refused = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data),
                                  "--calibration", str(out), "--no-cache", "--no-progress"])
    assert refused.exit_code == 2 and "fitted for --task correctness --judge python:" in refused.output


def test_calibrate_refuses_to_overwrite_its_data(tmp_path: Path) -> None:
    data = dev_set(tmp_path / "dev.jsonl")
    before = data.read_bytes()
    result = runner.invoke(app, ["calibrate", "--task", "correctness", "--data", str(data), "--out", str(data)])
    assert result.exit_code == 2 and data.read_bytes() == before


@pytest.mark.usefixtures("plugin_path")
def test_calibration_fitted_on_another_model_is_applied_with_a_warning(tmp_path: Path) -> None:
    data = dev_set(tmp_path / "dev.jsonl")
    out = tmp_path / "cal.json"
    judge = "python:test_calibration:scripted_correctness"
    fitted = runner.invoke(app, ["calibrate", "--task", "correctness", "--data", str(data), "--judge", judge,
                                 "--out", str(out), "--no-cache", "--no-progress"])
    assert fitted.exit_code == 0, fitted.output
    stored = json.loads(out.read_text())
    stored["model"] = "some-other-model"
    out.write_text(json.dumps(stored))
    applied = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", judge, "--data", str(data),
                                  "--model", "phi3:mini", "--calibration", str(out), "--no-cache", "--no-progress"])
    assert applied.exit_code == 0, applied.output
    assert "fitted on model some-other-model, this run uses phi3:mini" in applied.output


def test_a_mean_panel_is_calibrated_on_its_mean_and_the_file_applies_to_it(tmp_path: Path) -> None:
    """panel-mean:A,B carries the members' mean P(True): calibrate fits its cut-off, and
    --calibration hands the panel only that threshold (its members keep their defaults)."""
    data = Path(__file__).resolve().parents[4] / "examples" / "data" / "correctness.jsonl"
    out = tmp_path / "panel.json"
    judge = "panel-mean:contains,token-overlap"
    fitted = runner.invoke(app, ["calibrate", "--task", "correctness", "--data", str(data), "--judge", judge,
                                 "--out", str(out), "--no-cache", "--no-progress", "--json"])
    assert fitted.exit_code == 0, fitted.output
    summary = json.loads(fitted.stdout)
    assert summary["fitted"] == 40 and 0.0 < summary["threshold"] < 1.0
    stored = json.loads(out.read_text())
    assert stored["judge"] == judge and "method" not in Calibration.model_validate(stored).judge_options()
    applied = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", judge, "--data", str(data),
                                  "--calibration", str(out), "--no-cache", "--no-progress", "--json"])
    assert applied.exit_code == 0, applied.output
    assert json.loads(applied.stdout)["figures"]["cohen_kappa"] == pytest.approx(summary["kappa_in_sample"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"threshold": None}, "needs a threshold"),
        ({"threshold": 1.7}, "needs a threshold"),
        ({"cuts": [0.5, 1.5, 2.5]}, "cut points are for a graded judge"),
    ],
)
def test_a_binary_calibration_that_would_change_nothing_is_refused(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    values = [Verdict(verdict=bool(i % 2), reason="r", method="logprobs", probability=0.2 + 0.6 * (i % 2)) for i in range(40)]
    calibration = fit_calibration("correctness", "llm", "answer_correctness", "m", "p@1", values,
                                  [bool(i % 2) for i in range(40)], data="d")
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(calibration.model_dump(mode="json", by_alias=True) | change), encoding="utf-8")
    with pytest.raises(CalibrationError, match=message):
        load_calibration(path)


@pytest.mark.parametrize(("change", "message"), [({"cuts": None}, "needs ascending"), ({"cuts": [2.0, 1.0, 0.5]}, "needs ascending"),
                                                 ({"threshold": 0.5}, "a threshold is for a probability")])
def test_a_graded_calibration_without_usable_cuts_is_refused(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    rng = np.random.default_rng(2)
    grades = rng.integers(0, 4, 60)
    values = [
        RelevanceGrade(grade=int(g), method="logprobs", probabilities=[0.25] * 4,
                       expected_grade=float(np.clip(g + rng.normal(0, 0.5), 0, 3)), p_relevant=0.5)
        for g in grades
    ]
    calibration = fit_calibration("relevance", "llm-graded", "relevance_grade", "m", "p@1", values, list(grades), data="d")
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(calibration.model_dump(mode="json", by_alias=True) | change), encoding="utf-8")
    with pytest.raises(CalibrationError, match=message):
        load_calibration(path)


def scripted_noise(settings: RagjurySettings, **opts: Any) -> CorrectnessJudge:
    """P(correct) follows the question number, not the answer: no signal about the labels."""

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        request = messages[0]
        assert isinstance(request, ModelRequest)
        prompt = "".join(str(p.content) for p in request.parts if isinstance(p, UserPromptPart))
        number = int(prompt.split("<question>")[-1].split("</question>")[0].strip().removeprefix("q"))
        p_true = 0.3 if number % 4 < 2 else 0.1  # independent of the label (number % 2)
        top = [{"token": "1", "logprob": math.log(p_true)}, {"token": "0", "logprob": math.log(1 - p_true)}]
        return ModelResponse(
            parts=[TextPart("0")],
            provider_details={"logprobs": [{"token": "0", "logprob": top[1]["logprob"], "top_logprobs": top}]},
        )

    return CorrectnessJudge(FunctionModel(reply, model_name="scripted"), settings=settings, **opts)


@pytest.mark.usefixtures("plugin_path")
def test_a_fit_no_better_than_chance_is_written_with_a_one_line_warning(tmp_path: Path) -> None:
    data = dev_set(tmp_path / "dev.jsonl")
    out = tmp_path / "cal.json"
    result = runner.invoke(app, ["calibrate", "--task", "correctness", "--data", str(data), "--judge",
                                 "python:test_calibration:scripted_noise", "--out", str(out), "--no-cache",
                                 "--no-progress", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    low, high = summary["kappa_cv_interval"]
    assert low <= 0.0 <= high and summary["no_better_than_chance"] is True
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "no better than chance" in warnings[0] and out.exists()


@pytest.mark.usefixtures("plugin_path")
def test_a_fit_with_signal_has_no_chance_warning(tmp_path: Path) -> None:
    data = dev_set(tmp_path / "dev.jsonl")
    result = runner.invoke(app, ["calibrate", "--task", "correctness", "--data", str(data), "--judge",
                                 "python:test_calibration:scripted_correctness", "--out", str(tmp_path / "c.json"),
                                 "--no-cache", "--no-progress", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["no_better_than_chance"] is False and "chance" not in result.stderr
