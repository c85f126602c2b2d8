"""``--base-url`` and $RAGJURY_BASE_URL(S) that cannot be one server list: one line naming the
option, exit 2, before any request (issue 27, items 15-17)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjury.cli import app
from ragjury.config.settings import parse_base_urls

DATA = Path(__file__).resolve().parents[3] / "examples" / "data" / "correctness.jsonl"
runner = CliRunner()
EVALUATE = ["evaluate", "--task", "correctness", "--judge", "llm", "--data", str(DATA), "--limit", "2", "--no-cache",
            "--no-progress"]


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RAGJURY_BASE_URL", "RAGJURY_BASE_URLS", "RAGJURY_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("http://127.0.0.1:8080/v1,http://127.0.0.1:99999/v1", "a port is a number from 1 to 65535"),
        ("http://127.0.0.1:abc/v1", "a port is a number from 1 to 65535"),
        ("http://[::1/v1", "does not parse"),
        ("http://127.0.0.1:0/v1", "port 0"),
    ],
)
@pytest.mark.parametrize("command", [EVALUATE, ["doctor"]])
def test_a_url_that_does_not_parse_is_one_line_naming_the_option(url: str, says: str, command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--base-url", url])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: --base-url: ") and says in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_the_scheme_is_case_insensitive() -> None:
    assert parse_base_urls("HTTP://Host:8080/v1") == ["http://Host:8080/v1"]


def test_one_server_spelled_two_ways_is_one_server() -> None:
    urls = "http://localhost:8080/v1,http://127.0.0.1:8080/v1/,http://[::1]:8080/v1,http://127.0.0.1:8081/v1"
    assert parse_base_urls(urls) == ["http://localhost:8080/v1", "http://127.0.0.1:8081/v1"]
    assert parse_base_urls("http://h/v1,http://h:80/v1") == ["http://h/v1"]


def test_both_base_url_variables_set_to_different_servers_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGJURY_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("RAGJURY_BASE_URLS", "http://127.0.0.1:7/v1,http://127.0.0.1:9/v1")
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 2 and "$RAGJURY_BASE_URL and $RAGJURY_BASE_URLS are both set" in result.output
    monkeypatch.setenv("RAGJURY_BASE_URLS", "http://localhost:9/v1")  # the same server: no conflict
    assert runner.invoke(app, ["doctor"]).exit_code == 1


def test_a_bad_url_in_the_environment_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGJURY_BASE_URLS", "http://127.0.0.1:abc/v1")
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 2 and "$RAGJURY_BASE_URL" in result.output and "Traceback" not in result.output


def test_an_ipv4_mapped_address_is_the_same_server() -> None:
    from ragjury.config.settings import parse_base_urls

    assert len(parse_base_urls("http://[::ffff:127.0.0.1]:8080/v1,http://127.0.0.1:8080/v1")) == 1
    assert len(parse_base_urls("http://127.0.0.2:8080/v1,http://127.0.0.1:8080/v1")) == 2


def test_the_no_scheme_hint_never_doubles_v1() -> None:
    import pytest

    from ragjury.config.settings import check_base_url

    with pytest.raises(ValueError) as caught:
        check_base_url("127.0.0.1:8080/v1")
    assert "http://127.0.0.1:8080/v1" in str(caught.value) and "/v1/v1" not in str(caught.value)


def test_a_tab_in_the_api_key_is_called_a_tab() -> None:
    import pytest

    from ragjury.config.settings import check_api_key

    with pytest.raises(ValueError, match="a tab at position 3"):
        check_api_key("ab\tcd")
    with pytest.raises(ValueError, match="carriage return"):
        check_api_key("abcd\r")
