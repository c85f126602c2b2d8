"""``redact_url`` / ``redact_secrets``: the one function every shown or stored URL goes through."""

from __future__ import annotations

import pytest

from ragjury.config.redaction import redact_secrets, redact_url
from ragjury.rag_agent.core.results import Judgment


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://admin:pw@host/v1", "http://***@host/v1"),
        ("https://tok@host:8443/v1?key=abc&x", "https://***@host:8443/v1?key=***&***"),
        ("http://host/v1", "http://host/v1"),
        ("http://[::1/v1", "http://[::1/v1"),  # malformed: returned, not raised on
        ("http://a:b@h?t=1#frag", "http://***@h?t=***#frag"),
    ],
)
def test_a_url_loses_its_userinfo_and_query_values(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_a_message_loses_every_url_secret_and_a_quoted_bearer_key() -> None:
    text = "Illegal header value b'Bearer sk-abc\\rX' at http://u:p@h/v1 (GET http://u:p@h/v1/models?t=9)"
    assert redact_secrets(text) == "Illegal header value b'Bearer ***' at http://***@h/v1 (GET http://***@h/v1/models?t=***)"


def test_a_judgments_reasons_are_stored_redacted() -> None:
    judgment = Judgment(judge="j", unscored=True, unscored_reason="unreachable at http://admin:pw@h/v1",
                        fallback_reason="Bearer sk-1")
    assert judgment.unscored_reason == "unreachable at http://***@h/v1" and judgment.fallback_reason == "Bearer ***"
