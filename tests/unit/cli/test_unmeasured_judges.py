"""A judge nobody measured against people (a rubric here) says so in every view when the run has no
labels: the terminal, the page, JUnit and the regression gate's line; --require-measured fails the
gate on it. A built-in judge without labels says its rate is the judge's, with the team's public bias."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fake_endpoints import fake_endpoint

ROOT = Path(__file__).resolve().parents[3]
RUBRIC = ROOT / "examples" / "rubrics" / "cites-source.yaml"
DATA = ROOT / "examples" / "rubrics" / "data" / "cites-source.jsonl"
RAGJURY = Path(sys.executable).with_name("ragjury")
NOTE = "not measured against your labels"


def ragjury(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(RAGJURY), *args], check=False, capture_output=True, text=True, timeout=120)


def unlabelled(tmp_path: Path) -> Path:
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps({k: v for k, v in row.items() if k != "label"}) + "\n" for row in rows))
    return path


def test_a_rubric_run_without_labels_says_not_measured_in_every_view(tmp_path: Path) -> None:
    data = unlabelled(tmp_path)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    with fake_endpoint() as server:
        for out in (a, b):
            run = ragjury("evaluate", "--task", "faithfulness", "--judge", f"rubric:{RUBRIC}", "--data", str(data),
                          "--base-url", server.base_url, "--no-cache", "--no-progress", "--out", str(out),
                          "--html", str(out.with_suffix(".html")), "--junit", str(out.with_suffix(".xml")))
            assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("judged to meet the criterion") and NOTE in lines[1]  # right under line 1
    assert NOTE in a.with_suffix(".html").read_text()
    assert 'name="measured_against_people" value="false"' in a.with_suffix(".xml").read_text()
    gate = ragjury("report", str(a), str(b), "--fail-if-worse", "0.02")
    assert gate.returncode == 0 and NOTE in next(l for l in gate.stdout.splitlines() if "regression gate" in l)
    strict = ragjury("report", str(a), str(b), "--fail-if-worse", "0.02", "--require-measured")
    assert strict.returncode == 1 and "--require-measured" in strict.stdout
    payload = json.loads(ragjury("report", str(a), "--json").stdout)
    assert payload is not None


def test_a_built_in_judge_without_labels_says_whose_rate_it_is_and_its_public_bias(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    rows = [json.loads(line) for line in (ROOT / "examples" / "data" / "config_a.jsonl").read_text().splitlines()]
    data.write_text("".join(json.dumps({k: v for k, v in row.items() if k != "label"}) + "\n" for row in rows))
    run = ragjury("evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data), "--no-progress",
                  "--json")
    trust = json.loads(run.stdout)["trust"]
    assert trust["measured_against_people"] is False and trust["judge_kind"] == "built-in"
    assert "under-stated people's rate" in trust["public_bias"] and "ragjury label" in trust["note"]
