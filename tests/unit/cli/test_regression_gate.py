"""``report BASELINE NEW --fail-if-worse MARGIN``: exit 1 on a shown drop, 0 otherwise, never a pass
for NEW's unscored items; the verdict reaches a GitHub step summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.evals.results.comparison import regression_gate
from ragjury.evals.stats.paired_runs import paired_difference

DATA = Path(__file__).resolve().parents[3] / "examples" / "data"
runner = CliRunner()


def predictions(tmp_path: Path, name: str, answers: dict[int, str] | None = None, drop: int = 0) -> Path:
    """config_a's answers judged by ``contains``; ``drop`` answers that were right made wrong."""
    rows = [json.loads(line) for line in (DATA / "config_a.jsonl").read_text().splitlines() if line.strip()]
    dropped = 0
    for row in rows:
        refs = row.get("references") or [row.get("reference")]
        if dropped < drop and any(r and r.lower() in row["answer"].lower() for r in refs):
            row["answer"] = "I do not know."
            dropped += 1
    data = tmp_path / f"{name}-data.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / f"{name}.jsonl"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data),
                                 "--out", str(out), "--no-progress", "--no-cache", "--json"])
    assert result.exit_code == 0, result.output
    return out


def test_the_same_answers_pass_and_a_planted_drop_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    base = predictions(tmp_path, "base")
    same = runner.invoke(app, ["report", str(base), str(predictions(tmp_path, "same")), "--fail-if-worse", "0"])
    assert same.exit_code == 0, same.output
    assert "regression gate (--fail-if-worse 0) passed" in same.output
    worse = runner.invoke(app, ["report", str(base), str(predictions(tmp_path, "worse", drop=20)),
                                "--fail-if-worse", "0.02", "--json"])
    assert worse.exit_code == 1, worse.output
    gate = json.loads(worse.stdout)["gate"]
    assert gate["failed"] and gate["decided"] and gate["reason"].startswith("worse: NEW - BASELINE -20.0 points")
    text = summary.read_text()
    assert "✅ no regression" in text and "❌ regression" in text
    assert "| judged correct: " in text and "judged true" not in text  # the task's word, issue 42 item 4


def test_a_drop_inside_the_margin_passes(tmp_path: Path) -> None:
    base = predictions(tmp_path, "base")
    worse = predictions(tmp_path, "worse", drop=3)
    result = runner.invoke(app, ["report", str(base), str(worse), "--fail-if-worse", "0.5"])
    assert result.exit_code == 0 and "not shown worse than -50.0 points" in result.output


def test_the_gate_needs_two_files(tmp_path: Path) -> None:
    result = runner.invoke(app, ["report", str(predictions(tmp_path, "base")), "--fail-if-worse", "0"])
    assert result.exit_code == 2 and "BASELINE.jsonl NEW.jsonl" in result.output


def test_unscored_new_items_fail_and_too_few_pairs_are_undecided() -> None:
    paired = paired_difference([True] * 30, [True] * 30, binary=True)
    failed = regression_gate(paired, 0.0, unscored_new=2)
    assert failed.failed and "2 unscored" in failed.reason
    few = regression_gate(paired_difference([True] * 5, [False] * 5, binary=True), 0.0, unscored_new=0)
    assert not few.failed and not few.decided and "fewer than 10" in few.reason


def test_the_python_door_gives_the_same_comparison_and_gate(tmp_path: Path) -> None:
    import ragjury

    base = predictions(tmp_path, "base")
    worse = predictions(tmp_path, "worse", drop=20)
    comparison = ragjury.compare_predictions(base, worse)
    assert comparison.difference is not None and comparison.difference < -0.15
    assert comparison.gate(0.02).failed and not comparison.gate(0.5).failed
    printed = runner.invoke(app, ["report", str(base), str(worse)]).output
    assert comparison.lines()[2].split(" (")[0] in " ".join(printed.split())
    with pytest.raises(ValueError, match="no id in common"):
        other = tmp_path / "other.jsonl"
        other.write_text(json.dumps({"id": "zz", "label": True, "judge": "contains", "task": "correctness"}) + "\n")
        ragjury.compare_predictions(base, other)


def test_junit_has_the_gate_and_a_case_per_regressed_item_and_is_valid(tmp_path: Path) -> None:
    """A green gate's JUnit is green: it holds the gate and the regressed items (BASELINE yes, NEW no),
    not every "no" of both runs (501 cases, 220 failures, exit 0 before); --junit-items all keeps them."""
    import xml.etree.ElementTree as ET

    base = predictions(tmp_path, "base")
    worse = predictions(tmp_path, "worse", drop=20)
    out = tmp_path / "results.xml"
    result = runner.invoke(app, ["report", str(base), str(worse), "--fail-if-worse", "0.02", "--junit", str(out)])
    assert result.exit_code == 1
    root = ET.parse(out).getroot()
    suites = {s.get("name"): s for s in root}
    assert set(suites) == {"regressed items (BASELINE yes, NEW no)", "regression gate"}
    regressed = suites["regressed items (BASELINE yes, NEW no)"].findall("testcase")
    assert len(regressed) == 20 == int(suites["regressed items (BASELINE yes, NEW no)"].get("failures"))
    gate = suites["regression gate"].find("testcase/failure")
    assert gate is not None and gate.get("message").startswith("worse: NEW - BASELINE")
    etree = pytest.importorskip("lxml.etree")
    schema = etree.XMLSchema(etree.parse(str(Path(__file__).resolve().parents[2] / "fixtures" / "junit" / "junit.xsd")))
    assert schema.validate(etree.parse(str(out))), schema.error_log
    same = predictions(tmp_path, "same")
    green = tmp_path / "green.xml"
    passed = runner.invoke(app, ["report", str(base), str(same), "--fail-if-worse", "0.02", "--junit", str(green)])
    assert passed.exit_code == 0 and ET.parse(green).getroot().get("failures") == "0"
    every = tmp_path / "all.xml"
    runner.invoke(app, ["report", str(base), str(worse), "--junit", str(every), "--junit-items", "all"])
    names = {s.get("name") for s in ET.parse(every).getroot()}
    assert names == {"base", "worse"}


def test_evaluate_writes_junit_with_a_case_per_item_and_the_gates(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    out = tmp_path / "evaluate.xml"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                                 str(DATA / "correctness.jsonl"), "--no-progress", "--no-cache", "--junit", str(out),
                                 "--fail-under", "kappa=0.99", "--max-unscored", "1"])
    assert result.exit_code == 1, result.output  # the gate fails: kappa is below 0.99
    suites = {s.get("name"): s for s in ET.parse(out).getroot()}
    assert sum(len(s.findall("testcase")) for name, s in suites.items() if name != "gates") == 40  # a suite per system
    assert suites["gates"].find("testcase/failure").get("message").startswith("cohen_kappa")
    etree = pytest.importorskip("lxml.etree")
    schema = etree.XMLSchema(etree.parse(str(Path(__file__).resolve().parents[2] / "fixtures" / "junit" / "junit.xsd")))
    assert schema.validate(etree.parse(str(out))), schema.error_log


def test_questions_missing_from_new_fail_the_gate_unless_allowed(tmp_path: Path) -> None:
    base = predictions(tmp_path, "base")
    rows = base.read_text().splitlines()
    partial = tmp_path / "partial.jsonl"
    kept = [json.loads(line) for line in rows][:9]
    for row in kept:
        row["label"] = False  # NEW holds 9 of BASELINE's questions, all wrong
    partial.write_text("".join(json.dumps(row) + "\n" for row in kept))
    failed = runner.invoke(app, ["report", str(base), str(partial), "--fail-if-worse", "0.02"])
    assert failed.exit_code == 1, failed.output
    assert f"NEW lacks {len(rows) - 9} of BASELINE's {len(rows)} questions" in failed.output
    allowed = runner.invoke(app, ["report", str(base), str(partial), "--fail-if-worse", "0.02", "--allow-missing"])
    assert "missing from NEW (allowed)" in allowed.output or "undecided" in allowed.output


def test_the_same_file_twice_is_said_not_passed(tmp_path: Path) -> None:
    base = predictions(tmp_path, "base")
    result = runner.invoke(app, ["report", str(base), str(base), "--fail-if-worse", "0.02"])
    assert "same file" in result.output and "passed" not in result.output


def test_a_nan_margin_is_refused() -> None:
    pairs = paired_difference([True, False] * 20, [True, True] * 20) if False else None  # noqa: F841
    from ragjury.evals.results.comparison import check_margin

    for bad in (float("nan"), float("inf"), -0.1, 2.0):
        with pytest.raises(ValueError, match="margin"):
            check_margin(bad)


def test_assert_judged_refuses_a_nan_threshold() -> None:
    from ragjury.evals.adapters.pytest_helpers import assert_judged
    from ragjury.rag_agent.core.items import CorrectnessItem
    from ragjury.rag_agent.judges.model_free.contains import ContainsJudge

    item = CorrectnessItem(question="Who wrote Hamlet?", answer="Shakespeare", references=["Shakespeare"])
    with pytest.raises(ValueError, match="threshold"):
        assert_judged(ContainsJudge(), item, float("nan"))


@pytest.mark.parametrize("where", ["input", "symlink", "directory", "missing-folder", "dev-full", "fifo"])
def test_the_step_summary_never_harms_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    import os

    base = predictions(tmp_path, "base")
    worse = predictions(tmp_path, "worse", drop=20)
    before = base.read_bytes()
    target = {
        "input": base, "directory": tmp_path, "missing-folder": tmp_path / "no" / "such" / "summary.md",
        "dev-full": Path("/dev/full"), "symlink": tmp_path / "link.md", "fifo": tmp_path / "fifo",
    }[where]
    if where == "symlink":
        target.symlink_to(base)
    if where == "fifo":
        os.mkfifo(target)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(target))
    result = runner.invoke(app, ["report", str(base), str(worse), "--fail-if-worse", "0.02"])
    assert result.exit_code == 1, result.output  # the gate's own verdict, not exit 2
    assert "regression gate (--fail-if-worse 0.02) FAILED" in result.output
    assert "step summary not written" in result.output
    assert base.read_bytes() == before


def test_junit_stays_valid_when_an_id_or_system_holds_a_control_character(tmp_path: Path) -> None:
    from lxml import etree

    data = tmp_path / "data.jsonl"
    rows = [{"id": f"q\u0001{k}", "system": "sys\u000btem", "question": "q?", "answer": "Paris", "references": ["Paris"],
             "label": True} for k in range(3)]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    junit = tmp_path / "r.xml"
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data),
                                 "--junit", str(junit), "--no-progress", "--no-cache"])
    assert result.exit_code == 0, result.output
    schema = etree.XMLSchema(etree.parse(str(Path(__file__).resolve().parents[2] / "fixtures" / "junit" / "junit.xsd")))
    document = etree.parse(str(junit))  # parses at all: the control characters are written as \\u0001
    assert schema.validate(document), schema.error_log
    assert "q\\u00010" in junit.read_text()


def test_the_non_inferiority_rule_fails_a_drop_the_significance_rule_lets_through(tmp_path: Path) -> None:
    base = predictions(tmp_path, "base")
    slightly = predictions(tmp_path, "slightly", drop=4)
    loose = runner.invoke(app, ["report", str(base), str(slightly), "--fail-if-worse", "0.02"])
    strict = runner.invoke(app, ["report", str(base), str(slightly), "--fail-unless-within", "0.02", "--json"])
    assert loose.exit_code == 0 and strict.exit_code == 1, loose.output + strict.output
    gate = json.loads(strict.stdout)["gate"]
    assert gate["reason"].startswith("not shown within -2.0 points") and "lower end" in gate["rule"]
    same = runner.invoke(app, ["report", str(base), str(predictions(tmp_path, "same")), "--fail-unless-within", "0.02"])
    assert same.exit_code == 0 and "shown within -2.0 points" in same.output
    both = runner.invoke(app, ["report", str(base), str(slightly), "--fail-if-worse", "0.02", "--fail-unless-within", "0.02"])
    assert both.exit_code == 2


def _run(path: Path, labels: list[bool | None], *, ids: range | None = None) -> Path:
    """A predictions file of ``contains`` verdicts on questions q0, q1, ...; None is unscored."""
    ids = ids if ids is not None else range(len(labels))
    rows = [{"id": f"q{i}", "question": f"question {i}?", "answer": f"answer {i}", "judge": "contains",
             "task": "correctness", **({"unscored": True} if label is None else {"label": label})}
            for i, label in zip(ids, labels, strict=True)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.mark.parametrize(("case", "new_labels", "args", "expected"), [
    ("pass", [True] * 30, [], (False, True)),
    ("fail", [True] * 10 + [False] * 20, [], (True, True)),
    ("undecided", None, [], (False, False)),
    ("missing", [True] * 25, [], (True, True)),
    ("missing allowed", [True] * 25, ["--allow-missing"], (False, True)),
    ("unscored", [True] * 28 + [None] * 2, [], (True, True)),
    ("within", [True] * 28 + [False] * 2, ["--fail-unless-within"], (True, True)),
])
def test_one_gate_decides_for_report_a_b_and_compare_predictions(
    tmp_path: Path, case: str, new_labels: list[bool | None] | None, args: list[str], expected: tuple[bool, bool]
) -> None:
    """Issue #46: one comparison type and one gate. ``report A B --fail-if-worse`` and
    ``compare_predictions(a, b).gate`` go through ``Comparison.gate`` and decide identically (failed,
    decided, reason, exit code); the twin they once had is gone."""
    import ragjury
    from ragjury.commands import report as report_command
    from ragjury.evals.pipelines import compare_predictions
    from ragjury.evals.results import comparison as comparison_module
    from ragjury.evals.results.comparison import Comparison

    size = 5 if case == "undecided" else 30
    base = _run(tmp_path / "base.jsonl", [True] * size)
    new = _run(tmp_path / "new.jsonl", [True, False] * 2 + [True] if new_labels is None else new_labels)
    rule = "within" if "--fail-unless-within" in args else "worse"
    flags = [flag for flag in args if flag != "--fail-unless-within"]
    margin = "0.05"
    result = runner.invoke(app, ["report", str(base), str(new), "--fail-unless-within" if rule == "within"
                                 else "--fail-if-worse", margin, *flags, "--json"])
    assert result.exit_code == (1 if expected[0] else 0), result.output
    cli = json.loads(result.stdout)["gate"]
    comparison = ragjury.compare_predictions(base, new)
    python = comparison.gate(float(margin), allow_missing="--allow-missing" in flags, rule=rule)
    assert (python.failed, python.decided) == expected == (cli["failed"], cli["decided"])
    assert python.as_dict() == cli
    # one type, one gate: what compare_predictions returns is what report A B measures
    assert type(comparison) is Comparison and ragjury.Comparison is Comparison
    assert not hasattr(report_command, "_gate") and not hasattr(comparison_module, "RunComparison")
    assert not hasattr(compare_predictions, "PredictionsComparison")  # retired: only ragjury._RETIRED has it
    with pytest.warns(DeprecationWarning, match="Comparison"):
        assert ragjury.PredictionsComparison is Comparison  # the retired name still loads


# -- issue #54: the gate's honesty (items 1, 23, 24, 29 and the report bits of 36) ----------------------


def _rows(path: Path, labels: list[bool], *, questions: list[str] | None = None, ids: list[str] | None = None,
          judge: str = "contains", gold: dict[int, bool] | None = None) -> Path:
    """A predictions file of ``judge`` verdicts; ``gold``: row -> people's label."""
    questions = questions or [f"question {i}?" for i in range(len(labels))]
    ids = ids or [f"q{i}" for i in range(len(labels))]
    rows = [{"id": ident, "item": {"question": question, "answer": f"answer {i}", "references": ["x"]},
             "judge": judge, "task": "correctness", "label": label, **({"gold": (gold or {})[i]} if i in (gold or {}) else {})}
            for i, (ident, question, label) in enumerate(zip(ids, questions, labels, strict=True))]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_a_passing_gate_writes_a_green_junit_with_the_regressed_items_reported(tmp_path: Path) -> None:
    """Item 1: NEW better overall, 10 answers regressed: exit 0 and 0 failures (10 before); the
    regressed items are skipped cases with NEW's reason. Where the gate fails they are failures."""
    import xml.etree.ElementTree as ET

    base = _rows(tmp_path / "base.jsonl", [True] * 10 + [False] * 50)
    new = _rows(tmp_path / "new.jsonl", [False] * 10 + [True] * 50)
    out = tmp_path / "j.xml"
    result = runner.invoke(app, ["report", str(base), str(new), "--fail-if-worse", "0.02", "--junit", str(out)])
    assert result.exit_code == 0, result.output
    root = ET.parse(out).getroot()
    assert root.get("failures") == "0" and root.get("errors") == "0"
    suite = next(s for s in root if s.get("name", "").startswith("regressed items"))
    assert suite.get("tests") == "10" and suite.get("skipped") == "10" and suite.get("failures") == "0"
    assert all(case.find("skipped") is not None and case.find("failure") is None for case in suite.iter("testcase"))
    etree = pytest.importorskip("lxml.etree")
    schema = etree.XMLSchema(etree.parse(str(Path(__file__).resolve().parents[2] / "fixtures" / "junit" / "junit.xsd")))
    assert schema.validate(etree.parse(str(out))), schema.error_log
    failing = tmp_path / "f.xml"  # the same items, now under a gate that fails: failures
    result = runner.invoke(app, ["report", str(new), str(base), "--fail-if-worse", "0.02", "--junit", str(failing)])
    assert result.exit_code == 1 and ET.parse(failing).getroot().get("failures") == str(50 + 1)


def test_the_docs_ci_example_gives_a_green_junit(tmp_path: Path) -> None:
    """Item 1: docs/ci.md's own example (config_a vs config_b, --fail-if-worse 0.05) passes; its JUnit
    had 14 failures, now 0."""
    import xml.etree.ElementTree as ET

    files = []
    for name in ("config_a", "config_b"):
        out = tmp_path / f"{name}.jsonl"
        ran = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                                  str(DATA / f"{name}.jsonl"), "--out", str(out), "--no-progress", "--no-cache"])
        assert ran.exit_code == 0, ran.output
        files.append(out)
    junit = tmp_path / "results.xml"
    result = runner.invoke(app, ["report", *map(str, files), "--fail-if-worse", "0.05", "--junit", str(junit)])
    assert result.exit_code == 0, result.output
    root = ET.parse(junit).getroot()
    assert root.get("failures") == "0"
    assert int(next(s for s in root if s.get("name", "").startswith("regressed")).get("skipped")) > 0


def test_the_within_gate_case_is_named_for_its_own_option(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    base = _rows(tmp_path / "base.jsonl", [True] * 30)
    new = _rows(tmp_path / "new.jsonl", [True] * 30)
    out = tmp_path / "j.xml"
    runner.invoke(app, ["report", str(base), str(new), "--fail-unless-within", "0.05", "--junit", str(out)])
    names = [case.get("name") for case in ET.parse(out).getroot().iter("testcase") if case.get("classname") == "ragjury.gate"]
    assert names == ["fail-unless-within 0.05"]


def test_fail_unless_within_fails_on_too_little_evidence(tmp_path: Path) -> None:
    """Item 23: 9 questions, NEW 100 points worse: "undecided" and exit 0 before; now exit 1, saying why."""
    base = _rows(tmp_path / "base.jsonl", [True] * 9)
    new = _rows(tmp_path / "new.jsonl", [False] * 9)
    result = runner.invoke(app, ["report", str(base), str(new), "--fail-unless-within", "0.02"])
    assert result.exit_code == 1, result.output
    line = next(line for line in result.output.splitlines() if line.startswith("regression gate"))
    assert "FAILED" in line and "too few questions" in line and "lack of evidence" in " ".join(result.output.split())
    loose = runner.invoke(app, ["report", str(base), str(new), "--fail-if-worse", "0.02"])
    assert loose.exit_code == 0 and "undecided: undecided" not in loose.output  # the doubled prefix, item 36
    assert "undecided: 9 questions scored in both runs" in " ".join(loose.output.split())


@pytest.mark.parametrize("flag", ["--fail-if-worse", "--fail-unless-within"])
def test_the_same_file_twice_fails_unless_allowed(tmp_path: Path, flag: str) -> None:
    """Item 23: the same file twice exited 0 under either rule; now it is said to be the same run and
    fails, unless --allow-same."""
    base = _rows(tmp_path / "base.jsonl", [True, False] * 15)
    result = runner.invoke(app, ["report", str(base), str(base), flag, "0.02", "--json"])
    assert result.exit_code == 1, result.output
    gate = json.loads(result.stdout)["gate"]
    assert gate["failed"] and "same run" in gate["reason"] and "--allow-same" in gate["reason"]
    allowed = runner.invoke(app, ["report", str(base), str(base), flag, "0.02", "--allow-same"])
    assert allowed.exit_code == 0 and "same file" in allowed.output and "--allow-same" in allowed.output


def test_require_measured_is_not_satisfied_by_one_label(tmp_path: Path) -> None:
    """Item 24: a rubric run with 1 gold label of 16 rows passed --require-measured; now the gate fails
    and says what is missing (the 50 labels, 10 of each class, that estimate asks for)."""
    rubric = "rubric:cites-source.yaml"
    base = _rows(tmp_path / "base.jsonl", [True, False] * 8, judge=rubric, gold={0: True})
    new = _rows(tmp_path / "new.jsonl", [True, False] * 8, judge=rubric, gold={0: True})
    result = runner.invoke(app, ["report", str(base), str(new), "--fail-if-worse", "0.02", "--require-measured"])
    assert result.exit_code == 1, result.output
    text = " ".join(result.output.split())
    assert "has 1 people labels on scored items (1 yes, 0 no)" in text and "50 people labels" in text
    assert "10 of each class" in text and "--require-measured" in text
    many = {i: i % 3 == 0 for i in range(60)}  # 60 labels, 20 yes and 40 no: measured
    base = _rows(tmp_path / "base60.jsonl", [i % 3 == 0 for i in range(60)], judge=rubric, gold=many)
    new = _rows(tmp_path / "new60.jsonl", [i % 3 == 0 for i in range(60)], judge=rubric, gold=many)
    passed = runner.invoke(app, ["report", str(base), str(new), "--fail-if-worse", "0.02", "--require-measured"])
    assert passed.exit_code == 0, passed.output


def test_questions_in_nfc_and_nfd_pair_and_what_stays_unpaired_counts_as_missing(tmp_path: Path) -> None:
    """Item 29: question texts (and ids) differing only by NFC/NFD were "different questions": 10 left
    out, and the gate passed over the other 90. Now they pair; a question that really differs counts
    as missing, and the gate fails on it (unless --allow-missing)."""
    import unicodedata

    questions = [f"Où est née Amélie {i}?" for i in range(100)]
    ids = [f"é-{i}" for i in range(100)]
    base = _rows(tmp_path / "base.jsonl", [True] * 100, questions=questions, ids=ids)
    nfd = [unicodedata.normalize("NFD", q) if i < 10 else q for i, q in enumerate(questions)]
    nfd_ids = [unicodedata.normalize("NFD", ident) if i < 10 else ident for i, ident in enumerate(ids)]
    new = _rows(tmp_path / "new.jsonl", [True] * 100, questions=nfd, ids=nfd_ids)
    result = runner.invoke(app, ["report", str(base), str(new), "--fail-if-worse", "0.02", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["comparison"]["paired"]["n_pairs"] == 100
    assert payload["comparison"]["unmatched"]["different_question"]["count"] == 0
    changed = [q if i >= 10 else f"A different question {i}?" for i, q in enumerate(questions)]
    other = _rows(tmp_path / "other.jsonl", [True] * 100, questions=changed, ids=ids)
    gated = runner.invoke(app, ["report", str(base), str(other), "--fail-if-worse", "0.02"])
    assert gated.exit_code == 1, gated.output
    assert "NEW lacks 10 of BASELINE's 100 questions (10 of them under ids whose question differs" in " ".join(
        gated.output.split())
    allowed = runner.invoke(app, ["report", str(base), str(other), "--fail-if-worse", "0.02", "--allow-missing"])
    assert allowed.exit_code == 0 and "10 of BASELINE's questions missing from NEW (allowed)" in " ".join(
        allowed.output.split())


def test_a_margin_of_zero_is_zero_points_not_minus_zero(tmp_path: Path) -> None:
    base = _rows(tmp_path / "base.jsonl", [True] * 30)
    new = _rows(tmp_path / "new.jsonl", [True] * 30)
    result = runner.invoke(app, ["report", str(base), str(new), "--fail-if-worse", "0"])
    assert result.exit_code == 0 and "not shown worse than 0.0 points" in result.output
    assert "-0.0" not in result.output


def test_the_step_summary_is_never_written_into_the_runs_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 36: GITHUB_STEP_SUMMARY pointing at a gated evaluate's --cache appended Markdown to the
    SQLite database; it is refused with one warning line."""
    cache = tmp_path / "cache.sqlite"
    args = ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(DATA / "correctness.jsonl"),
            "--no-progress", "--cache", str(cache), "--max-unscored", "1"]
    assert runner.invoke(app, args).exit_code == 0
    before = cache.read_bytes()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(cache))
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "step summary not written" in result.output and "SQLite" in result.output
    assert b"### ragjury" not in cache.read_bytes()
    import sqlite3

    sqlite3.connect(cache).execute("select count(*) from sqlite_master").fetchone()  # still a database


def test_the_step_summary_is_never_written_into_a_json_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 36: a gated evaluate's --labels (a JSONL input the summary was not told of) is refused too."""
    labels = tmp_path / "labels.jsonl"
    rows = [json.loads(line) for line in (DATA / "correctness.jsonl").read_text().splitlines() if line.strip()]
    labels.write_text("".join(json.dumps({"id": row["id"], "label": bool(row.get("label"))}) + "\n" for row in rows))
    before = labels.read_bytes()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(labels))
    result = runner.invoke(app, ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                                 str(DATA / "correctness.jsonl"), "--labels", str(labels), "--no-progress",
                                 "--no-cache", "--max-unscored", "1"])
    assert result.exit_code == 0, result.output
    assert "step summary not written" in result.output and labels.read_bytes() == before
