"""Connection settings a newcomer gets wrong: hosted-model keys and base URLs."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ragjury.config.settings import RagjurySettings


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RAGJURY_API_KEY", "OPENAI_API_KEY", "RAGJURY_BASE_URL", "RAGJURY_BASE_URLS"):
        monkeypatch.delenv(name, raising=False)


def test_the_conventional_openai_key_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    assert RagjurySettings(_env_file=None).api_key == "sk-openai"


def test_ragjury_key_wins_over_openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("RAGJURY_API_KEY", "sk-ragjury")
    assert RagjurySettings(_env_file=None).api_key == "sk-ragjury"
    assert RagjurySettings(_env_file=None, api_key="sk-given").api_key == "sk-given"


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("localhost:8080", "write it in full, e.g. http://localhost:8080/v1"),
        ("http://127.0.0.1:8080/v1,localhost:8081", "write it in full, e.g. http://localhost:8081/v1"),
        ("http://127.0.0.1:8080/v1,,http://127.0.0.1:8081/v1", "has an empty entry"),
        ("http://127.0.0.1:8080/v1 http://127.0.0.1:8081/v1", "is not one URL"),
        ("ftp://example.org/v1", "not an http(s) URL"),
        ("http://", "not an http(s) URL"),
    ],
)
def test_a_base_url_that_cannot_work_is_refused_with_the_fix(url: str, fragment: str) -> None:
    with pytest.raises(ValidationError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        RagjurySettings(_env_file=None, base_url=url)


def test_a_full_base_url_is_kept() -> None:
    assert RagjurySettings(_env_file=None, base_url="https://api.openai.com/v1/").base_url == "https://api.openai.com/v1"


def test_several_base_urls_are_a_list_of_servers() -> None:
    settings = RagjurySettings(_env_file=None, base_url=" http://127.0.0.1:8080/v1/ , http://127.0.0.1:8081/v1")
    assert settings.base_urls == ["http://127.0.0.1:8080/v1", "http://127.0.0.1:8081/v1"]
    assert settings.openai_base_url == "http://127.0.0.1:8080/v1"


def test_the_plural_variable_names_the_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGJURY_BASE_URLS", "http://a:1/v1,http://b:2/v1,http://a:1/v1")
    assert RagjurySettings(_env_file=None).base_urls == ["http://a:1/v1", "http://b:2/v1"]
