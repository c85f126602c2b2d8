"""``--base-url A,B``: one run over several servers of one model, from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fake_endpoints import fake_endpoint, fake_endpoints

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
RAGJURY = Path(sys.executable).with_name("ragjury")


def evaluate(base_url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [str(RAGJURY), "evaluate", "--task", "correctness", "--judge", "llm", "--data", str(DATA),
               "--base-url", base_url, "--model", "phi3:mini", "--no-cache", "--no-progress", *extra]
    return subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)


def test_json_says_what_each_server_answered() -> None:
    with fake_endpoints(2, latency_s=0.01) as servers:
        result = evaluate(",".join(s.base_url for s in servers), "--json", "--limit", "12")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["judged"] == 12 and payload["unscored"] == 0
    assert [entry["url"] for entry in payload["endpoints"]] == [s.base_url for s in servers]
    assert [entry["answered"] for entry in payload["endpoints"]] == [s.answered for s in servers]
    assert all(entry["failures"] == 0 and entry["mean_latency_s"] > 0 for entry in payload["endpoints"])


def test_the_summary_names_each_server() -> None:
    with fake_endpoints(2) as servers:
        result = evaluate(",".join(s.base_url for s in servers), "--limit", "4")
    assert result.returncode == 0, result.stderr
    for server in servers:
        assert f"{server.answered} answered" in result.stdout


def test_a_server_of_another_model_is_one_line_and_exit_2() -> None:
    with fake_endpoint() as good, fake_endpoint(models=("qwen2.5:7b",)) as other:
        result = evaluate(f"{good.base_url},{other.base_url}")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"error: model 'phi3:mini' is not served by {other.base_url} (it lists: qwen2.5:7b): "
        "every --base-url must serve the same model (it is part of the cache key)"
    )
    assert good.received == other.received == 0


def test_a_bad_url_in_the_list_is_one_line_and_exit_2() -> None:
    result = evaluate("http://127.0.0.1:8080/v1,localhost:8081")
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error: --base-url: 'localhost:8081' is not an http(s) URL")
    assert "Traceback" not in result.stderr
