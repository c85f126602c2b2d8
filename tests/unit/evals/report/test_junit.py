"""JUnit of ``report A B`` (issue #54 item 1): regressed items fail only where the gate failed; under a
gate that passed, or no gate, they are skipped cases with NEW's reason, so CI draws a green gate green.
The gate's own case is named for its rule's option."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from ragjury.evals.io.predictions import ItemRecord, PredictionRun
from ragjury.evals.report.junit import junit_xml, regressed
from ragjury.evals.results.comparison import GateOutcome


def run(name: str, labels: list[bool]) -> PredictionRun:
    records = [ItemRecord(id=f"q{i}", line=i + 1, label=label, value={"reason": f"{name} says {label}"}) for i, label in
               enumerate(labels)]
    return PredictionRun(name=name, path=f"{name}.jsonl", records=records, kind="binary", task="correctness",
                         output_key="label")


@pytest.mark.parametrize(("gate", "failures", "skipped"), [
    (None, 0, 10),
    (GateOutcome(False, True, "not shown worse than -2.0 points", 0.02), 0, 10),
    (GateOutcome(False, False, "5 questions scored in both runs, fewer than 10", 0.02), 0, 10),
    (GateOutcome(True, True, "worse: ...", 0.02), 10, 0),
    (GateOutcome(True, False, "too few questions to show NEW within -2.0 points", 0.02, "within"), 10, 0),
])
def test_regressed_items_fail_only_under_a_failed_gate(gate: GateOutcome | None, failures: int, skipped: int) -> None:
    base = run("base", [True] * 10 + [False] * 50)
    new = run("new", [False] * 10 + [True] * 50)
    root = ET.fromstring(junit_xml([base, new], gate, regressions=regressed(base, new)).split("\n", 1)[1])
    suite = next(s for s in root if s.get("name", "").startswith("regressed items"))
    assert (int(suite.get("failures")), int(suite.get("skipped"))) == (failures, skipped)
    cases = suite.findall("testcase")
    assert len(cases) == 10 and all("new says False" in ET.tostring(case, encoding="unicode") for case in cases)
    gate_failed = int(gate is not None and gate.failed)
    assert int(root.get("failures")) == failures + gate_failed


def test_the_gate_case_is_named_for_its_option() -> None:
    base = run("base", [True] * 20)
    for rule, name in (("worse", "fail-if-worse 0.05"), ("within", "fail-unless-within 0.05")):
        gate = GateOutcome(False, True, "passed", 0.05, rule)
        root = ET.fromstring(junit_xml([base, base], gate, regressions=[]).split("\n", 1)[1])
        assert [case.get("name") for case in root.iter("testcase")] == [name]
