"""A server that answers but will not serve this configuration: a missing or refused API key, a
model it does not serve, a URL that is no API. One line with the fix (an ``InputError``, exit 2).

Why apart from the breaker: the wording is shared by the breaker (a 401/403/404 answered to a
request), the preflight (what ``GET /models`` lists) and ``ragjury doctor`` (``judges.health``),
and none of them should carry the others' code to say it.
"""

from __future__ import annotations

from collections.abc import Iterable

from ragjury.rag_agent.core.input_files import InputError

KEY_VARIABLES = "RAGJURY_API_KEY or OPENAI_API_KEY"
"""Where ragjury reads an API key from (``RagjurySettings.api_key``)."""
KEY_SOURCES = f"{KEY_VARIABLES} (or pass --api-key)"
"""The same, with the command-line option that overrides them, for a fix a user can act on."""


REFUSED_KEY = frozenset({401, 403})
"""HTTP statuses that refuse the key: a configuration error whenever they come."""


class ModelServerConfigError(InputError):
    """The model server will not serve this configuration: HTTP 401/403 (a missing or refused API
    key) at any point, or 404 for the model (a wrong ``--model`` or ``--base-url``) at preflight or
    on the first request. Not an item failure: nothing would succeed, so no item may fall back and no verdict is
    cached; every command prints this one line (an ``InputError``) and exits 2.

    ``headline`` says what the server answered, ``fix`` what to change."""

    def __init__(self, headline: str, fix: str, *, status: int, where: str | None) -> None:
        self.headline = headline
        self.fix = fix
        self.status = status
        self.where = where
        super().__init__(headline, fix)


def model_listed(model: str, listed: Iterable[str]) -> bool:
    """Whether a server that lists ``listed`` serves ``model`` (``name`` and ``name:latest`` alike)."""
    names = set(listed)
    return model in names or f"{model}:latest" in names or model.removesuffix(":latest") in names


def not_an_api(where: str | None, answered: str) -> ModelServerConfigError:
    """A URL that answers HTTP but is no OpenAI-compatible API (``GET /models`` gave ``answered``)."""
    return ModelServerConfigError(
        f"{where} is not an OpenAI-compatible API (GET {where}/models answered {answered})",
        "check --base-url (RAGJURY_BASE_URL): the server's API base, usually ending in /v1",
        status=404,
        where=where,
    )


def not_served(model: str, where: str | None, listed: list[str]) -> ModelServerConfigError:
    """A server whose ``GET /models`` lists other models than the one asked for."""
    more = f" and {len(listed) - 12} more" if len(listed) > 12 else ""
    return ModelServerConfigError(
        f"model '{model}' is not served by {where} (it lists: {', '.join(listed[:12])}{more})",
        "pass --model with one of the listed names",
        status=404,
        where=where,
    )


def config_error(
    status: int,
    where: str | None,
    *,
    model: str | None,
    api_key_set: bool,
    body: str = "",
    listed: list[str] | None = None,
    path: str = "/chat/completions",
) -> ModelServerConfigError | None:
    """The configuration error an HTTP ``status`` from the server at ``where`` stands for (401,
    403, 404), with its fix; None for any other status (an item failure, or a server failure)."""
    url = where or "the configured URL"
    if status == 401:
        if api_key_set:
            return ModelServerConfigError(
                f"HTTP 401 from {url}",
                f"the server refused the API key: check {KEY_SOURCES}",
                status=status,
                where=where,
            )
        return ModelServerConfigError(
            f"HTTP 401 from {url}",
            f"the server wants an API key: set {KEY_SOURCES}",
            status=status,
            where=where,
        )
    if status == 403:
        if not api_key_set:
            return ModelServerConfigError(
                f"HTTP 403 from {url}",
                f"access refused without an API key: set {KEY_SOURCES}",
                status=status,
                where=where,
            )
        subject = f"model '{model}'" if model else "this model"
        return ModelServerConfigError(
            f"HTTP 403 from {url}",
            f"the API key may not use {subject}: check the key ({KEY_VARIABLES}, or --api-key) and --model",
            status=status,
            where=where,
        )
    if status == 404:
        lists = ""
        if listed:
            more = f" and {len(listed) - 12} more" if len(listed) > 12 else ""
            lists = f"; the server lists: {', '.join(listed[:12])}{more}"
        about_model = "model" in body.lower() or bool(model and listed and not model_listed(model, listed))
        if model and about_model:
            return ModelServerConfigError(
                f"model '{model}' not found on {url}", f"check --model{lists}", status=status, where=where
            )
        return ModelServerConfigError(
            f"HTTP 404 from {url}{path}",
            f"no such endpoint or model: check --base-url (it usually ends in /v1) and --model{lists}",
            status=status,
            where=where,
        )
    return None

__all__ = [
    "KEY_SOURCES",
    "KEY_VARIABLES",
    "REFUSED_KEY",
    "ModelServerConfigError",
    "config_error",
    "model_listed",
    "not_an_api",
    "not_served",
]
