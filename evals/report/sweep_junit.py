"""JUnit XML of a sweep (``report RUN1 ... RUNn --junit``): one case per config.

A config's case fails only when the gate (``--fail-if-worse``) fails for it; its regressed items
(the baseline said yes, the config no) are listed in the case's ``system-out`` as information,
never as failures: a sweep's CI question is "did any config get worse than the baseline", not
"which items does each config miss" (``report A B --junit`` gives those per item).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from ragjury.evals.report.junit import xml_safe

MAX_IDS = 200
"""Regressed ids listed per config (the count says how many in all)."""


def sweep_junit_xml(sweep: Any, gate: Any = None) -> str:
    """The sweep as one ``testsuite`` of one case per config, in ranking order."""
    outcomes = {c.name: c for c in gate.configs} if gate is not None else {}
    root = ET.Element("testsuites", name="ragjury report (sweep)")
    suite = ET.SubElement(root, "testsuite", name="configs vs baseline " + xml_safe(sweep.names[sweep.baseline]))
    failures = 0
    for row in sweep.rows:
        case = ET.SubElement(suite, "testcase", name=xml_safe(row.name), classname="ragjury.sweep", time="0")
        outcome = outcomes.get(row.name)
        if outcome is not None and outcome.failed:
            failures += 1
            failure = ET.SubElement(case, "failure", message=xml_safe(outcome.reason), type="regression")
            failure.text = xml_safe(outcome.reason)
        lines = [f"rate {sweep.amount(row.rate)}; verdict: {row.verdict}"]
        if outcome is not None:
            lines.append(f"gate: {outcome.reason}")
        if row.regressed:
            shown = ", ".join(row.regressed[:MAX_IDS])
            more = f" and {len(row.regressed) - MAX_IDS:,} more" if len(row.regressed) > MAX_IDS else ""
            lines.append(f"regressed items (the baseline said yes, {row.name} no; information, not failures): "
                         f"{len(row.regressed):,}: {shown}{more}")
        ET.SubElement(case, "system-out").text = xml_safe("\n".join(lines))
    for element in (suite, root):
        element.set("tests", str(len(sweep.rows)))
        element.set("failures", str(failures))
        element.set("errors", "0")
    suite.set("skipped", "0")
    suite.set("time", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_sweep_junit(path: Path, sweep: Any, gate: Any = None) -> Path:
    from ragjury.evals.io.atomic_io import write_text_atomic

    write_text_atomic(path, sweep_junit_xml(sweep, gate))
    return path


__all__ = ["sweep_junit_xml", "write_sweep_junit"]
