"""Unscored judgments are gated (``--max-unscored``, 0 by default under any ``--fail-under``) and
said in one line that stands out; a key refused mid-run stops a gated run with exit 2, never a
pass on the items answered before it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_endpoints import fake_endpoint

from ragjury.evals.results.gates import Gates
from ragjury.evals.results.unscored_share import UnscoredShare, reason_kind
from ragjury.rag_agent.core.results import Judgment

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
RAGJURY = Path(sys.executable).with_name("ragjury")


def evaluate(base_url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [str(RAGJURY), "evaluate", "--task", "correctness", "--judge", "llm", "--data", str(DATA),
               "--base-url", base_url, "--model", "phi3:mini", "--no-cache", "--no-progress", "--concurrency", "1",
               *extra]
    env = {**os.environ, "RAGJURY_HTTP_RETRIES": "0", "RAGJURY_TIMEOUT_S": "10"}
    for name in ("RAGJURY_API_KEY", "OPENAI_API_KEY"):
        env.pop(name, None)
    return subprocess.run(command, check=False, capture_output=True, text=True, timeout=120, env=env)


def _judgment(reason: str | None) -> Judgment[bool]:
    return Judgment(judge="j", unscored=reason is not None, unscored_reason=reason, value=None if reason else True)


def test_the_share_unscored_names_its_commonest_reasons() -> None:
    share = UnscoredShare.of([_judgment("model server answered HTTP 500: boom"), _judgment(None),
                              _judgment("model server answered HTTP 500: bang"), _judgment("invalid output: x")])
    assert (share.count, share.total) == (3, 4)
    assert share.describe() == "3 of 4 judgments unscored (75 %): model server answered HTTP 500 ×2; invalid output ×1"
    assert reason_kind(None) == "no reason given"


def test_a_gated_run_allows_no_unscored_judgment_by_default() -> None:
    share = {"": UnscoredShare(1, 100, (("model request timed out after 1s", 1),))}
    assert Gates.parse(["accuracy=0.2"]).failures({"accuracy": 0.9}, {}, share)  # one hole fails it
    assert not Gates.parse(["accuracy=0.2"], max_unscored=0.01).failures({"accuracy": 0.9}, {}, share)
    assert not Gates.parse([]).failures({}, {}, share)  # no gate, no limit: the run only reports
    assert Gates.parse([], max_unscored=0).failures({}, {}, share)


def test_half_unscored_fails_the_gate_and_stands_out() -> None:
    with fake_endpoint(fail_every=2) as server:  # every other request answers HTTP 500
        gated = evaluate(server.base_url, "--limit", "10", "--fail-under", "accuracy=0")
        allowed = evaluate(server.base_url, "--limit", "10", "--fail-under", "accuracy=0", "--max-unscored", "1")
        as_json = evaluate(server.base_url, "--limit", "10", "--fail-under", "accuracy=0", "--json")
    assert gated.returncode == 1, gated.stdout + gated.stderr
    assert "unscored: 5 of 10 judgments unscored (50 %): model server answered HTTP 500 ×5" in gated.stdout
    failed = [line for line in gated.stderr.splitlines() if line.startswith("gate failed:")]
    assert len(failed) == 1 and "--max-unscored 0, the default with --fail-under" in failed[0], gated.stderr
    assert allowed.returncode == 0, allowed.stderr
    payload = json.loads(as_json.stdout)
    assert as_json.returncode == 1 and payload["unscored"] == 5
    assert any("--max-unscored" in failure for failure in payload["gate_failures"])


def test_a_key_refused_after_twenty_answers_is_exit_2_not_a_pass() -> None:
    with fake_endpoint(refuse_after=20) as server:
        result = evaluate(server.base_url, "--fail-under", "accuracy=0.3", "--max-unscored", "1")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        f"error: HTTP 401 from {server.base_url}: the server wants an API key: set RAGJURY_API_KEY or "
        "OPENAI_API_KEY (or pass --api-key)"
    )
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("option", ["--max-unscored"])
def test_the_option_is_a_share(option: str) -> None:
    result = evaluate("http://127.0.0.1:9/v1", option, "1.5")
    assert result.returncode == 2 and option in result.stderr
