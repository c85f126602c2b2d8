"""JUnit XML of finished runs, for CI systems that read test reports (GitHub, GitLab, Jenkins).

One test suite per run (and per system inside a run), one test case per judged item: a "no"
verdict is a failure whose text is the verdict's reason, an unscored item is an error (a failed
judgment is never a pass), a "yes" passes. The regression gate, when asked for, is its own suite
with one case. Written in the shape of the widely read Jenkins/Ant schema: ``testsuites`` >
``testsuite`` (name, tests, failures, errors, skipped, time) > ``testcase`` (name, classname,
time) with an optional ``failure`` or ``error`` (message, type, text); an item whose text addresses
its judge says so in its case's ``system-out``, with the words.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragjury.evals.io.joined_runs import nfc
from ragjury.evals.io.predictions import ItemRecord, PredictionRun
from ragjury.evals.results.headline import trust_note, unmeasured_kind
from ragjury.rag_agent.judges.model_free.injection import flags_in_item

MAX_TEXT = 2000
"""Characters of a verdict's reason kept in a failure's text."""


def _reason(record: ItemRecord) -> str:
    value = record.value if isinstance(record.value, dict) else {}
    for key in ("reason", "explanation", "reasoning"):
        text = value.get(key)
        if isinstance(text, str) and text.strip():
            return text.strip()[:MAX_TEXT]
    return f"{record.judge_name or record.judge or 'the judge'} said no"


def _passed(record: ItemRecord) -> bool:
    label = record.label
    if isinstance(label, bool):
        return label
    if isinstance(label, int):
        return label >= 2
    return float(label) >= 0.5  # type: ignore[arg-type]


def _suite(parent: ET.Element, name: str, records: Sequence[ItemRecord], classname: str, task: str | None = None) -> None:
    suite = ET.SubElement(parent, "testsuite", name=name)
    labelled = sum(record.gold is not None for record in records)
    judge = next((record.judge_name or record.judge for record in records if record.judge_name or record.judge), None)
    note = trust_note(task, judge, labelled)
    if note is not None and unmeasured_kind(judge) is not None:  # a rubric's pass rate is not people's
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="measured_against_people", value="false")
        ET.SubElement(properties, "property", name="trust", value=note)
    failures = errors = 0
    total_time = 0.0
    for record in records:
        seconds = record.latency_s or 0.0
        total_time += seconds
        case = ET.SubElement(suite, "testcase", name=record.id, classname=classname, time=f"{seconds:.3f}")
        if record.unscored or record.label is None:
            errors += 1
            error = ET.SubElement(case, "error", message=(record.unscored_reason or "unscored")[:200], type="unscored")
            error.text = record.unscored_reason or "unscored: the judge gave no verdict"
        elif not _passed(record):
            failures += 1
            text = _reason(record)
            failure = ET.SubElement(case, "failure", message=text[:200], type="verdict")
            failure.text = text
        flags = flags_in_item(dict(record.item)) if record.item else []
        if flags:  # the item's own text talks to its judge: said on its case, with the words
            ET.SubElement(case, "system-out").text = "flagged: text addressed to the judge: " + "; ".join(
                f"{flag.rule} in {flag.field}: {flag.text[:200]!r}" for flag in flags)
    suite.set("tests", str(len(records)))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", "0")
    suite.set("time", f"{total_time:.3f}")


def junit_xml(runs: Sequence[PredictionRun], gate: Any = None, gate_failures: Sequence[str] | None = None,
              regressions: Sequence[tuple[ItemRecord, ItemRecord]] | None = None, people: Any = None) -> str:
    """The JUnit document of ``runs`` (a suite per run and system), of the regression gate
    (``GateOutcome``) and of ``evaluate``'s gates (``gate_failures``: one failure each).

    ``regressions`` (``report A B``): the items BASELINE judged yes and NEW judged no, one case
    each, in place of every item of both runs (whose "no" verdicts, the baseline's too, made a green
    gate's report red). They fail only where the gate failed: under a gate that passed (or no gate)
    each is a skipped case with NEW's reason, so a green gate gives a green report (CI draws a
    failure red whatever the exit code said)."""
    root = ET.Element("testsuites", name="ragjury")
    if regressions is not None:
        failing = gate is not None and gate.failed
        suite = ET.SubElement(root, "testsuite", name="regressed items (BASELINE yes, NEW no)",
                              tests=str(len(regressions)), failures=str(len(regressions) if failing else 0),
                              errors="0", skipped="0" if failing else str(len(regressions)), time="0.000")
        for before, after in regressions:
            case = ET.SubElement(suite, "testcase", name=after.id, classname="ragjury.regression", time="0.000")
            text = f"BASELINE said yes, NEW says no: {_reason(after)}"
            if failing:
                failure = ET.SubElement(case, "failure", message=text[:200], type="regressed")
                failure.text = text
            else:  # reported, not failed: the gate decides the build
                ET.SubElement(case, "skipped", message=("regressed; the gate did not fail: " + text)[:200])
                ET.SubElement(case, "system-out").text = text
        if regressions and not failing:
            said = "no gate was asked for" if gate is None else f"the gate {gate.word.lower()}"
            ET.SubElement(suite, "system-out").text = (
                f"{len(regressions):,} regressed items, reported as skipped cases, not failures: {said}")
        runs = ()
    for run in runs:
        systems: dict[str | None, list[ItemRecord]] = {}
        for record in run.records:
            systems.setdefault(record.system, []).append(record)
        for system, records in systems.items():
            name = f"{run.name}" + (f" / {system}" if system else "")
            _suite(root, name, records, classname=f"ragjury.{run.task or run.kind}.{run.name}", task=run.task)
    if gate is not None:
        suite = ET.SubElement(root, "testsuite", name="regression gate", tests="1",
                              failures=str(int(gate.failed)), errors="0", skipped="0", time="0.000")
        option = getattr(gate, "option", "--fail-if-worse")  # the case is named for its own rule's option
        case = ET.SubElement(suite, "testcase", name=f"{option.lstrip('-')} {gate.margin:g}", classname="ragjury.gate",
                             time="0.000")
        _people_properties(case, people)
        if gate.failed:
            failure = ET.SubElement(case, "failure", message=gate.reason[:200], type="regression")
            failure.text = gate.reason
        else:
            ET.SubElement(case, "system-out").text = gate.reason
    if gate_failures is not None:
        suite = ET.SubElement(root, "testsuite", name="gates", tests="1", failures=str(int(bool(gate_failures))),
                              errors="0", skipped="0", time="0.000")
        case = ET.SubElement(suite, "testcase", name="--fail-under / --max-unscored / --max-fallback",
                             classname="ragjury.gates", time="0.000")
        if gate_failures:
            failure = ET.SubElement(case, "failure", message="; ".join(gate_failures)[:200], type="gate")
            failure.text = "\n".join(gate_failures)
    root.set("tests", str(sum(int(s.get("tests", "0")) for s in root)))
    root.set("failures", str(sum(int(s.get("failures", "0")) for s in root)))
    root.set("errors", str(sum(int(s.get("errors", "0")) for s in root)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + xml_safe(ET.tostring(root, encoding="unicode")) + "\n"


def _people_properties(case: ET.Element, people: Any) -> None:
    """Where people's labels decided the gate (``estimate A B --labels``'s B − A): their figures as
    the case's properties, B − A first, so CI shows people's figure, not only the judges'."""
    if people is None or people.comparison is None:
        return
    from ragjury.evals.results.headline import rates_of_estimates
    from ragjury.evals.stats.run_estimates import difference_text

    properties = ET.SubElement(case, "properties")
    ET.SubElement(properties, "property", name="decided_by", value="people's labels (B - A as people would judge it)")
    ET.SubElement(properties, "property", name="people_difference", value=difference_text(people.comparison))
    for rate in rates_of_estimates(people):
        ET.SubElement(properties, "property", name=f"people_rate {rate.system}",
                      value=f"{rate.text()} ({rate.n_labels:,} labels)")


NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 cannot hold at all (not even escaped): an id or a system with ``\\u0001`` or a
vertical tab made the whole report unreadable to CI."""


def xml_safe(text: str) -> str:
    """``text`` with each character XML cannot hold written as ``\\uXXXX`` (visible, and valid)."""
    return NOT_XML.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def write_junit(path: Path, runs: Sequence[PredictionRun], gate: Any = None,
                gate_failures: Sequence[str] | None = None,
                regressions: Sequence[tuple[ItemRecord, ItemRecord]] | None = None, people: Any = None) -> None:
    from ragjury.evals.io.atomic_io import write_text_atomic

    write_text_atomic(path, junit_xml(runs, gate, gate_failures, regressions, people))


def regressed(baseline: PredictionRun, new: PredictionRun) -> list[tuple[ItemRecord, ItemRecord]]:
    """(BASELINE record, NEW record) of each shared id (in NFC, as the comparison pairs them)
    BASELINE judged yes and NEW judged no."""
    before = {nfc(ident): record for ident, record in baseline.by_id().items()}
    out = []
    for record in new.records:
        old = before.get(nfc(record.id))
        if old is not None and old.label is not None and record.label is not None and _passed(old) and not _passed(record):
            out.append((old, record))
    return out


__all__ = ["junit_xml", "regressed", "write_junit"]
