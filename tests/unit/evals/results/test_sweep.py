"""N runs in one comparison: one test per verdict word, questions not scored by every run counted
and named, and the gate failing only for a config shown worse than the baseline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragjury.evals.io.predictions import PredictionRun, load_predictions
from ragjury.evals.results.sweep import BEST, NOT_SHOWN, WORSE_THAN_BEST, Sweep, worse_than_baseline


def write_run(path: Path, verdicts: Any, *, drop: set[int] = frozenset(), unscored: set[int] = frozenset(),
              task: str = "correctness") -> PredictionRun:
    rows = []
    for i, verdict in enumerate(verdicts):
        if i in drop:
            continue
        gone = i in unscored
        rows.append({"id": f"q{i}", "task": task, "judge": "contains", "label": None if gone else bool(verdict),
                     "unscored": gone, "unscored_reason": "server down" if gone else None,
                     "item": {"question": f"Question {i}?", "answer": f"{path.stem} answer {i}"}})
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return load_predictions(path, name=path.stem)


def sweep_of(tmp_path: Path, rates: dict[str, float], n: int = 200, seed: int = 1, **options: Any) -> Sweep:
    """Configs sharing a question difficulty (paired, as real configs are), each at about its rate."""
    rng = np.random.default_rng(seed)
    hard = rng.random(n)
    runs = [write_run(tmp_path / f"{name}.jsonl", 0.7 * hard + 0.3 * rng.random(n) < rate)
            for name, rate in rates.items()]
    return Sweep.of(runs, **options)


def test_a_clear_best_and_the_others_worse_than_it(tmp_path: Path) -> None:
    sweep = sweep_of(tmp_path, {"base": 0.4, "good": 0.8, "meh": 0.45})
    assert sweep.row("good").verdict == BEST
    assert sweep.row("base").verdict == WORSE_THAN_BEST
    assert sweep.row("meh").verdict == WORSE_THAN_BEST
    assert sweep.ranking()[0] == "good" and sweep.clearly_best
    assert sweep.headline().startswith("good is best (")


def test_a_config_close_to_the_best_is_not_shown_different(tmp_path: Path) -> None:
    sweep = sweep_of(tmp_path, {"base": 0.6, "twin": 0.61, "low": 0.2})
    best = sweep.rows[0]
    other = next(r for r in sweep.rows if r.name in ("base", "twin") and r.name != best.name)
    assert other.verdict == NOT_SHOWN and not sweep.clearly_best
    assert sweep.headline().startswith("no config is clearly best:")
    assert sweep.row("low").verdict == WORSE_THAN_BEST


def test_worse_than_the_baseline_by_more_than_the_margin_fails_the_gate(tmp_path: Path) -> None:
    sweep = sweep_of(tmp_path, {"base": 0.7, "same": 0.7, "broken": 0.3}, margin=0.05)
    assert sweep.row("broken").verdict == worse_than_baseline(0.05) == "worse than the baseline by more than 5 points"
    gate = sweep.gate(0.05)
    assert gate.failed and [c.name for c in gate.configs if c.failed] == ["broken"]
    assert "broken" in gate.reason


def test_the_gate_passes_configs_of_the_same_quality(tmp_path: Path) -> None:
    sweep = sweep_of(tmp_path, {"base": 0.6, "a": 0.6, "b": 0.62, "c": 0.58})
    gate = sweep.gate(0.02)
    assert not gate.failed and gate.decided


def test_questions_not_scored_by_every_run_are_counted_and_named(tmp_path: Path) -> None:
    verdicts = [i % 3 != 0 for i in range(40)]
    a = write_run(tmp_path / "a.jsonl", verdicts)
    b = write_run(tmp_path / "b.jsonl", verdicts, drop={3, 4})
    c = write_run(tmp_path / "c.jsonl", verdicts, unscored={7})
    sweep = Sweep.of([a, b, c])
    assert sweep.stats.n == 37 and len(sweep.shared) == 37
    assert sweep.left_out.missing.ids == ("q3", "q4") and sweep.left_out.lacking["b"] == 2
    assert sweep.left_out.unscored.ids == ("q7",) and sweep.left_out.unscored_by_run["c"] == 1
    text = "\n".join(sweep.lines())
    assert "q3, q4" in text and "b lacks 2" in text and "q7" in text
    # the gate: a config that lacks the baseline's questions or left them unscored fails
    gate = sweep.gate(0.5)
    assert {c.name: c.failed for c in gate.configs} == {"b": True, "c": True}


def test_runs_that_cannot_be_compared_are_refused(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a.jsonl", [True] * 20)
    b = write_run(tmp_path / "b.jsonl", [True] * 20, task="faithfulness")
    with pytest.raises(ValueError, match="one task"):
        Sweep.of([a, b])
    with pytest.raises(ValueError, match="two runs or more"):
        Sweep.of([a])


def test_a_pair_is_n_equal_2(tmp_path: Path) -> None:
    sweep = sweep_of(tmp_path, {"base": 0.5, "new": 0.6})
    comparison = sweep.pair()
    assert comparison.difference == pytest.approx(sweep.row("new").to_baseline)
    low, high = sweep.row("new").to_baseline_interval
    assert low <= comparison.paired.interval.low and comparison.paired.interval.high <= high + 1e-9


def test_the_document_has_every_config(tmp_path: Path) -> None:
    sweep = sweep_of(tmp_path, {"base": 0.5, "x": 0.6, "y": 0.55})
    doc = sweep.as_dict()
    assert doc["configs"] == 3 and doc["baseline"] == "base" and len(doc["ranking"]) == 3
    assert doc["intervals"]["method"].startswith("max-t simultaneous")
    json.dumps(doc)


def test_compare_runs_from_the_top_level(tmp_path: Path) -> None:
    import ragjury

    rng = np.random.default_rng(2)
    hard = rng.random(120)
    paths = [write_run(tmp_path / f"{name}.jsonl", 0.7 * hard + 0.3 * rng.random(120) < rate) and
             tmp_path / f"{name}.jsonl" for name, rate in (("base", 0.5), ("new", 0.9), ("old", 0.1))]
    sweep = ragjury.compare_runs([str(p) for p in paths], baseline=str(paths[0]))
    assert sweep.ranking() == ["new", "base", "old"] and sweep.row("new").verdict == BEST
    assert sweep.gate(0.02).failed and [c.name for c in sweep.gate(0.02).configs if c.failed] == ["old"]
    assert ragjury.compare_runs(paths, baseline=1).names[sweep.baseline + 1] == "new"
    with pytest.raises(ValueError, match="baseline must be one of runs"):
        ragjury.compare_runs(paths, baseline="elsewhere.jsonl")


def test_mean_scores_are_ranked_and_gated_in_their_own_units(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    runs = []
    for name, mean in (("base", 0.7), ("same", 0.7), ("low", 0.3)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({
            "id": f"q{i}", "task": "faithfulness", "judge": "support", "unscored": False,
            "score": float(np.clip(rng.normal(mean, 0.1), 0, 1)), "item": {"question": f"Q{i}?", "answer": name}})
            + "\n" for i in range(80)), encoding="utf-8")
        runs.append(load_predictions(path, name=name))
    sweep = Sweep.of(runs, margin=0.05)
    assert not sweep.binary and sweep.row("low").verdict == "worse than the baseline by more than 0.05"
    assert "highest mean score (0.7" in sweep.headline()
    gate = sweep.gate(0.05)
    assert gate.failed and "0.05" in gate.configs[-1].reason and "points" not in gate.configs[-1].reason


def people_world(tmp_path: Path, n: int = 300, labelled: int = 90) -> tuple[list[Path], Path, dict[str, float]]:
    """Three configs whose judge is lenient with one of them: people rank 'careful' first, the judge
    'lenient'. People labelled every config's answer to the same ``labelled`` questions (uniform,
    inclusion probability labelled / n)."""
    rng = np.random.default_rng(8)
    hard = rng.random(n)
    truth = {"base": 0.55, "careful": 0.75, "lenient": 0.5}
    picked = set(rng.choice(n, size=labelled, replace=False).tolist())
    paths, label_rows = [], []
    for name, rate in truth.items():
        right = 0.7 * hard + 0.3 * rng.random(n) < rate
        judged = right | (rng.random(n) < (0.8 if name == "lenient" else 0.05))  # the judge's yes
        write_run(tmp_path / f"{name}.jsonl", judged)
        paths.append(tmp_path / f"{name}.jsonl")
        label_rows += [{"id": f"{name}/q{i}", "label": bool(right[i]), "inclusion_probability": labelled / n}
                       for i in sorted(picked)]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in label_rows), encoding="utf-8")
    return paths, labels, truth


def test_people_labels_rank_the_configs_as_people_would(tmp_path: Path) -> None:
    import ragjury

    paths, labels, _ = people_world(tmp_path)
    judge_only = ragjury.compare_runs(paths)
    assert judge_only.ranking()[0] == "lenient" and judge_only.people is None
    sweep = ragjury.compare_runs(paths, labels=labels, margin=0.0)
    assert sweep.people is not None and sweep.labelled == [90, 90, 90]
    assert sweep.people.ranking()[0] == "careful" and sweep.people.row("careful").verdict == BEST
    assert sweep.lines()[0].startswith("as people would judge it: ")
    doc = sweep.as_dict()["people"]
    assert doc["best"] == "careful" and doc["labelled"] == {"base": 90, "careful": 90, "lenient": 90}
    # the gate decides on people's differences: the judge's lenient config is no regression, by people's it is
    outcome = {c.name: c for c in sweep.gate(0.0).configs}
    assert outcome["careful"].failed is False and outcome["lenient"].reason.startswith(
        ("worse than the baseline", "not shown worse")) and "as people would judge it" in outcome["lenient"].reason


def test_too_few_labels_of_a_config_is_refused(tmp_path: Path) -> None:
    import ragjury

    paths, labels, _ = people_world(tmp_path, labelled=5)
    with pytest.raises(ValueError, match="people's figures need 10 labelled answers of every config"):
        ragjury.compare_runs(paths, labels=labels)
