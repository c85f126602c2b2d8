"""No credential of a base URL reaches any --json or --dry-run --json output (issue 35 item 2):
a password and a token are planted in the URL, and every command's JSON is searched for them."""

from __future__ import annotations

from pathlib import Path

import pytest
from recording_server import recording_server
from typer.testing import CliRunner

from ragjury.cli import app

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "data"
PASSWORD, TOKEN = "s3cretPW", "TOKEN4242"
VERDICT = '{"reason": "it names the same person", "verdict": "1"}'

runner = CliRunner()


def planted(base_url: str) -> str:
    scheme, rest = base_url.split("://", 1)
    return f"{scheme}://user:{PASSWORD}@{rest}/?api_key={TOKEN}"


COMMANDS = {
    "evaluate": ["evaluate", "--task", "correctness", "--judge", "llm", "--data",
                 str(FIXTURES / "pipeline_correctness.jsonl"), "--no-progress"],
    "relevance": ["relevance", "--judge", "llm", "--topics", str(FIXTURES / "pipeline_topics.jsonl"), "--passages",
                  str(FIXTURES / "pipeline_passages.jsonl"), "--pairs", str(FIXTURES / "pipeline_pairs.qrels"),
                  "--no-progress"],
    "calibrate": ["calibrate", "--task", "correctness", "--data", str(EXAMPLES / "correctness.jsonl"), "--no-progress"],
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_dry_run_json_shows_no_credential(name: str, tmp_path: Path, offline_cli: Path) -> None:
    with recording_server(content=VERDICT) as server:
        url = planted(server.base_url)
        out = ["--out", str(tmp_path / ("out.qrels" if name == "relevance" else "out.json"))]
        result = runner.invoke(app, [*COMMANDS[name], *(out if name != "evaluate" else []), "--base-url", url,
                                     "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    assert '"base_url"' in result.stdout  # the URL is shown ...
    assert PASSWORD not in result.output and TOKEN not in result.output  # ... without its secrets


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_run_json_shows_no_credential(name: str, tmp_path: Path, offline_cli: Path) -> None:
    with recording_server(content=VERDICT) as server:
        url = planted(server.base_url)
        out = ["--out", str(tmp_path / ("out.qrels" if name == "relevance" else "out.json"))]
        result = runner.invoke(app, [*COMMANDS[name], *(out if name != "evaluate" else []), "--base-url", url,
                                     "--json", "--no-cache"])
    assert result.exit_code in (0, 1, 3), result.output  # judged (a gate or unscored items may say so)
    assert PASSWORD not in result.output and TOKEN not in result.output
    for written in tmp_path.iterdir():
        assert PASSWORD not in written.read_text(errors="replace") and TOKEN not in written.read_text(errors="replace")
