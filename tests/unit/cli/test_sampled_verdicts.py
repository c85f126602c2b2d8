"""#54 item 6 (second half): a run whose judgments had no logprobs says so on line 2, counts them
in --json (``method: sampled`` per row, ``sampled`` {judgments, of}) and ``--max-sampled`` gates them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recording_server import recording_server
from typer.testing import CliRunner

from ragjury.cli import app

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
VERDICT = '{"reason": "it names the same person", "verdict": "1"}'


def run(server_url: str, *extra: str, out: Path | None = None) -> object:
    return CliRunner().invoke(app, ["evaluate", "--task", "correctness", "--judge", "llm", "--data", str(DATA),
                                    "--limit", "10", "--base-url", server_url, "--no-cache", "--no-progress",
                                    *(["--out", str(out)] if out else []), *extra], env={"COLUMNS": "300"})


def test_a_server_without_logprobs_is_said_on_line_2_and_counted(tmp_path: Path, offline_cli: Path) -> None:
    out = tmp_path / "p.jsonl"
    with recording_server(content=VERDICT) as server:
        said = run(server.base_url, out=out)
        payload = json.loads(run(server.base_url, "--json").stdout)
    assert said.exit_code == 0, said.output
    second = said.stdout.splitlines()[1]
    assert second.startswith("P(yes) could not be read for 10 of 10 judgments: verdict from the sampled token")
    assert payload["sampled"] == {"judgments": 10, "of": 10}
    rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    assert {row["method"] for row in rows} == {"sampled"}


def test_a_server_with_logprobs_has_nothing_sampled(offline_cli: Path) -> None:
    with recording_server(mode="logprobs") as server:
        result = run(server.base_url, "--json")
    payload = json.loads(result.stdout)
    assert payload["sampled"] == {"judgments": 0, "of": 10}
    assert "could not be read" not in result.stderr


@pytest.mark.parametrize(("limit", "code"), [("0", 1), ("0.5", 1), ("9", 1), ("1", 1), ("10", 0)])
def test_max_sampled_gates_a_count_or_a_share(limit: str, code: int, offline_cli: Path) -> None:
    with recording_server(content=VERDICT) as server:
        result = run(server.base_url, "--max-sampled", limit, "--json")
    assert result.exit_code == code, result.output
    failures = json.loads(result.stdout)["gate_failures"]
    assert bool(failures) is bool(code) and all("--max-sampled" in f for f in failures)
