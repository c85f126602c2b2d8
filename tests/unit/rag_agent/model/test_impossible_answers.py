"""A broken server's answers are unscored with a reason that says what was wrong, never a verdict."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from recording_server import recording_server


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("positive-logprobs", "impossible log-probabilities (> 0"),
        ("nan-logprobs", "impossible log-probabilities (NaN)"),
        ("empty-choices", "returned no choices"),
    ],
)
def test_an_impossible_answer_is_unscored_with_its_reason(mode: str, reason: str) -> None:
    with recording_server(mode=mode) as server:
        # relevance: one call, read from its first token (the correctness default reduces the answer
        # first, a structured call that such a server fails before any token is read)
        result = CliRunner().invoke(app, ["verdict", "relevance", "-q", "q", "-p", "a", "--judge", "llm",
                                          "--json", "--base-url", server.base_url])
    assert result.exit_code == 3, result.output  # unscored: never a 0 or a 1
    payload = json.loads(result.stdout)
    assert payload["label"] is None and reason in payload["unscored_reason"]
