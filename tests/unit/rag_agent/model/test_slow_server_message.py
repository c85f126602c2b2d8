"""A slow server is not an unreachable one (#54 item 3): its message names the deadline and how to
raise it, and never sends the user to start a server that is running."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.rag_agent.model.unreachable import unreachable_cause
from recording_server import recording_server


def test_a_server_that_answers_too_slowly_is_called_slow_with_the_timeout_and_the_option(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setenv("RAGJURY_HTTP_RETRIES", "0")
    monkeypatch.setenv("RAGJURY_PREFLIGHT_TIMEOUT_S", "0")
    data = tmp_path / "items.jsonl"
    data.write_text("".join(f'{{"id": "q{i}", "question": "Q{i}?", "answer": "A", "reference": "A"}}\n' for i in range(12)))
    with recording_server(mode="hang-chat") as server:
        result = CliRunner().invoke(app, ["evaluate", "--task", "correctness", "--data", str(data), "--judge", "llm",
                                          "--base-url", server.base_url, "--timeout", "1", "--no-cache",
                                          "--no-progress", "--concurrency", "2"])
    assert result.exit_code != 0
    assert "did not answer within 1s" in result.output and "--timeout" in result.output, result.output
    assert "unreachable" not in result.output and "start your server" not in result.output


def test_a_refused_connection_is_still_unreachable_and_a_timeout_reason_says_how_to_raise_it() -> None:
    refused = "not attempted: model server unreachable at http://h:1/v1 (3 consecutive connection failures, last: ConnectError: refused)"
    assert "start your server" in (unreachable_cause(refused) or "")
    slow = ("not attempted: model server unreachable at http://h:1/v1 (3 consecutive connection failures, last: "
            "no answer within 120s (ModelRequestTimeout: Model request timed out))")
    line = unreachable_cause(slow) or ""
    assert "did not answer within 120s" in line and "--timeout" in line and "start your server" not in line


def test_the_unscored_reason_of_a_timed_out_request_says_how_to_raise_the_deadline() -> None:
    from pydantic_ai.exceptions import ModelRequestTimeout

    from ragjury.config.settings import RagjurySettings
    from ragjury.rag_agent.model.failures import describe_failure

    reason = describe_failure(ModelRequestTimeout("m", 1.0), RagjurySettings(timeout_s=1))
    assert reason.startswith("model request timed out after 1s") and "--timeout" in reason
