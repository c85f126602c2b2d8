"""Settings from the environment and `.env`, so every knob has one documented home.

All variables take the prefix ``RAGJURY_`` (e.g. ``RAGJURY_JUDGE_MODEL=llama3.1:8b``), except
``OLLAMA_HOST``, which keeps the name the Ollama ecosystem already uses.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import AliasChoices, BaseModel, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

OutputMode = Literal["native", "tool", "prompted"]
"""How structured output is obtained: ``native`` = JSON-schema-constrained decoding
(``response_format: json_schema``; enforced by Ollama >= 0.5 and llama.cpp), ``tool`` = a tool
call, ``prompted`` = schema in the prompt and JSON parsed from text."""


class ScoreWeights(BaseModel):
    """Weights of the dimensions in ``overall_score``.

    ``overall_score`` is a weighted mean computed in code, never asked of the model, so it can
    never contradict the dimensions. Weights need not sum to one: they are normalised.
    Defaults favour the two things a RAG answer most often gets wrong: accuracy and relevance.
    """

    relevance: float = Field(default=0.25, ge=0.0)
    completeness: float = Field(default=0.20, ge=0.0)
    accuracy: float = Field(default=0.30, ge=0.0)
    source_attribution: float = Field(default=0.15, ge=0.0)
    coherence: float = Field(default=0.10, ge=0.0)

    @model_validator(mode="after")
    def _not_all_zero(self) -> ScoreWeights:
        if sum(self.model_dump().values()) <= 0:
            raise ValueError("at least one score weight must be positive")
        return self

    def normalised(self) -> dict[str, float]:
        raw = self.model_dump()
        total = sum(raw.values())
        return {name: value / total for name, value in raw.items()}


def _normalise_host(host: str) -> str:
    """Accept the forms ``OLLAMA_HOST`` takes in the wild: ``0.0.0.0``, ``host:port``, full URLs."""
    host = host.strip().rstrip("/")
    if "://" not in host:
        host = f"http://{host}"
    scheme, rest = host.split("://", 1)
    if rest.startswith("0.0.0.0"):
        rest = "127.0.0.1" + rest[len("0.0.0.0"):]
    if ":" not in rest.split("/", 1)[0]:
        rest = rest.replace("/", ":11434/", 1) if "/" in rest else f"{rest}:11434"
    return f"{scheme}://{rest}"


def check_base_url(url: str) -> str:
    """An OpenAI-compatible base URL, or a ValueError that says how to write one: a URL without
    its scheme or with spaces in it would otherwise fail on every request."""
    url = url.strip()
    if "," in url or any(char.isspace() for char in url):
        raise ValueError(f"{url!r} is not one URL; give one server, e.g. http://127.0.0.1:8080/v1")
    scheme, _, rest = url.partition("://")
    if scheme.lower() not in ("http", "https") or not rest or rest.startswith("/"):
        bare = url.split("://")[-1].rstrip("/") or "localhost:8080"
        suggestion = f"http://{bare}" if bare.endswith("/v1") else f"http://{bare}/v1"  # never .../v1/v1
        raise ValueError(f"{url!r} is not an http(s) URL; write it in full, e.g. {suggestion}"
                         if "://" not in url else f"{url!r} is not an http(s) URL with a host, e.g. http://127.0.0.1:8080/v1")
    _check_host_and_port(url)
    return f"{scheme.lower()}://{rest}".rstrip("/")


def _check_host_and_port(url: str) -> None:
    """A host that parses and a port in 1-65535: ``:99999``, ``:abc`` and ``[::1`` would fail on
    the first request, deep in the HTTP library, with its error instead of ours."""
    from urllib.parse import urlsplit

    from ragjury.config.redaction import redact_url

    shown = redact_url(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        reason = "a port is a number from 1 to 65535" if "port" in str(error).lower() else f"{error}"
        raise ValueError(f"{shown!r} does not parse: {reason}, e.g. http://127.0.0.1:8080/v1") from None
    if not parts.hostname:
        raise ValueError(f"{shown!r} has no host, e.g. http://127.0.0.1:8080/v1")
    if port == 0:
        raise ValueError(f"{shown!r} has port 0: a port is a number from 1 to 65535")
    host = parts.hostname
    if all(part.isdigit() for part in host.split(".")) and host.count(".") == 3:  # written as an IPv4 address
        import ipaddress

        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise ValueError(f"{shown!r}: {host!r} is not an IPv4 address (four numbers 0-255 without leading "
                             "zeros, e.g. 127.0.0.1)") from None


def check_api_key(key: str) -> str:
    """An API key that can go in an HTTP header: printable ASCII, no spaces. A key file saved on
    Windows ends in ``\r``, a pasted one may carry a non-breaking space; such a key cannot be sent,
    and the HTTP library's refusal would quote it. The message says where, never what."""
    for index, char in enumerate(key):
        if not (char.isascii() and char.isprintable()) or char.isspace():
            kind = ("a non-ASCII character" if not char.isascii() else "a space" if char == " " else "a tab"
                    if char == "\t" else "a carriage return (a key file saved on Windows ends in \\r)"
                    if char == "\r" else "a control character")
            where = "at its end" if index == len(key) - 1 else f"at position {index + 1} of {len(key)}"
            raise ValueError(f"the API key has {kind} {where}; a key is printable ASCII without spaces")
    return key


def parse_base_urls(value: str) -> list[str]:
    """The servers of a comma-separated ``--base-url`` (or ``RAGJURY_BASE_URLS``), each checked by
    ``check_base_url``; duplicates are dropped (one server listed twice is still one server)."""
    parts = [part.strip() for part in value.split(",")]
    if not any(parts):
        raise ValueError(f"{value!r} names no server; give one or more, e.g. http://127.0.0.1:8080/v1")
    if any(not part for part in parts):
        raise ValueError(f"{value!r} has an empty entry; separate the servers with single commas")
    servers: dict[str, str] = {}
    for part in parts:
        url = check_base_url(part)
        servers.setdefault(same_server(url), url)
    return list(servers.values())


_LOOPBACK = {"localhost": "127.0.0.1", "::1": "127.0.0.1", "0.0.0.0": "127.0.0.1"}  # noqa: S104
_DEFAULT_PORT = {"http": 80, "https": 443}


def same_server(url: str) -> str:
    """What two spellings of one server share: ``http://localhost:8080/v1`` and
    ``http://127.0.0.1:8080/v1/`` are one server (the host's case, the loopback name and the
    default port do not make a second one, which would double its share of the requests)."""
    from urllib.parse import urlsplit

    import ipaddress

    parts = urlsplit(url)
    host = parts.hostname or ""
    try:  # an IPv4 address written IPv6-mapped (::ffff:127.0.0.1) is that address
        address = ipaddress.ip_address(host)
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            host = str(address.ipv4_mapped)
    except ValueError:
        pass
    port = parts.port or _DEFAULT_PORT.get(parts.scheme.lower(), 0)
    return f"{parts.scheme.lower()}://{_LOOPBACK.get(host, host)}:{port}{parts.path.rstrip('/')}?{parts.query}"


def check_base_urls(value: str) -> str:
    """``parse_base_urls``, written back as one normalised comma-separated string."""
    return ",".join(parse_base_urls(value))


class RagjurySettings(BaseSettings):
    """Everything a judge or agent needs to reach a model, with production-safe defaults."""

    model_config = SettingsConfigDict(
        env_prefix="RAGJURY_", env_file=".env", env_file_encoding="utf-8", extra="ignore",
        populate_by_name=True, hide_input_in_errors=True,
    )

    judge_model: str = "phi3:mini"
    """Model name of the LLM judges (an Ollama tag, or the name an OpenAI-compatible server expects)."""
    agent_model: str = "llama3.2:3b"
    """Model name of the reference RAG agent."""
    ollama_host: str = Field(
        default="http://localhost:11434",
        validation_alias=AliasChoices("OLLAMA_HOST", "RAGJURY_OLLAMA_HOST"),
    )
    """Where Ollama listens; its OpenAI-compatible API is ``{ollama_host}/v1``."""
    base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("base_url", "RAGJURY_BASE_URL", "RAGJURY_BASE_URLS")
    )
    """An OpenAI-compatible base URL (``.../v1``), or several separated by commas (judgments go to
    the server with the fewest requests outstanding); when set it wins over ``ollama_host``.
    ``RAGJURY_BASE_URLS`` is the same setting under a plural name."""
    preferred_endpoint: int | None = Field(default=None, ge=0)
    """With several base URLs: the index of the server this process sends to first while it is
    live and has a free slot (a Ray worker bound to one endpoint); None: the least busy one."""
    api_key: str | None = Field(
        default=None, validation_alias=AliasChoices("api_key", "RAGJURY_API_KEY", "OPENAI_API_KEY")
    )
    """API key for a hosted or secured server (``RAGJURY_API_KEY``, else the conventional
    ``OPENAI_API_KEY``); local servers need none."""
    temperature: float = Field(default=0.1, ge=0.0, le=2.0)
    max_tokens: int = Field(default=512, ge=16)
    """Always sent: a small model that loops must not run until the context is full."""
    timeout_s: float = Field(default=120.0, gt=0)
    """Deadline of one model request, all HTTP attempts included."""
    check_timeout_s: float = Field(default=60.0, gt=0)
    """Deadline of one Python check on one item (``RAGJURY_CHECK_TIMEOUT_S``, ``--check-timeout``):
    a check still running then is unscored, and nothing waits for it."""
    retries: int = Field(default=2, ge=0, le=10)
    """How often an invalid structured output is sent back to the model for correction."""
    http_retries: int = Field(default=1, ge=0, le=10)
    """How often the HTTP client retries a failed request (connection errors, 5xx)."""
    concurrency: int = Field(default=4, ge=1, le=256)
    """Judgments in flight at once in batch methods."""
    breaker_failures: int = Field(default=3, ge=0, le=1000)
    """Consecutive connection failures after which no more requests are sent to the model server
    (the rest of the batch is unscored "not attempted"); 0 switches the circuit breaker off."""
    breaker_reset_s: float = Field(default=30.0, gt=0)
    """How long an open circuit breaker refuses requests before letting one probe through."""
    preflight_timeout_s: float = Field(default=5.0, ge=0)
    """Timeout of the ``GET {base_url}/models`` sent before a batch of LLM judgments; 0: no preflight."""
    output_mode: OutputMode = "native"
    weights: ScoreWeights = Field(default_factory=ScoreWeights)
    source_token_budget: int = Field(default=3000, ge=100)
    """Tokens (estimated at 4 characters each) of source text put into a judge prompt."""
    cache_path: str = ".ragjury/cache.sqlite"
    """SQLite file where batch runs store every judgment as it completes."""
    trace: bool = False
    """Trace the batch commands with OpenTelemetry, as ``--trace`` does (needs the ``trace`` extra)."""
    trace_file: str = ".ragjury/traces.jsonl"
    """Where traced spans are appended as JSON lines when no ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set."""
    trace_content: bool = True
    """Put prompts and model outputs (the data being judged) on the model-call spans."""

    @field_validator("ollama_host")
    @classmethod
    def _host_url(cls, value: str) -> str:
        return _normalise_host(value)

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        return None if value is None else check_base_urls(value)

    @field_validator("api_key")
    @classmethod
    def _api_key(cls, value: str | None) -> str | None:
        return None if value is None else check_api_key(value)

    @property
    def base_urls(self) -> list[str]:
        """Every OpenAI-compatible server to call: the ``base_url`` list, or Ollama's ``/v1``."""
        return parse_base_urls(self.base_url) if self.base_url else [f"{self.ollama_host}/v1".rstrip("/")]

    @property
    def openai_base_url(self) -> str:
        """The (first) OpenAI-compatible endpoint to call: ``base_url`` or Ollama's ``/v1``."""
        return self.base_urls[0]

    @property
    def targets_ollama(self) -> bool:
        """True when requests go to Ollama (so Ollama's native API may be used for health checks)."""
        return self.base_url is None


@lru_cache(maxsize=1)
def get_settings() -> RagjurySettings:
    """Settings read once per process; pass explicit settings to override."""
    return RagjurySettings()


__all__ = [
    "OutputMode",
    "RagjurySettings",
    "ScoreWeights",
    "check_api_key",
    "check_base_url",
    "check_base_urls",
    "get_settings",
    "parse_base_urls",
    "same_server",
]
