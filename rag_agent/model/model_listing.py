"""What a model server's ``GET {base_url}/models`` answers: the one cheap HTTP request sent before
a batch (the preflight) and before a 404 is explained (which models the server lists).

Why its own module: the breaker decides what an answer means for the run (open, closed, a
configuration refused); asking is HTTP, and a run that calls no model imports none of it (httpx
is imported when a request is sent).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragjury.config.redaction import redact_url
from ragjury.rag_agent.model.config_errors import ModelServerConfigError, model_listed, not_an_api, not_served
from ragjury.rag_agent.model.unreachable import root_cause


@dataclass(frozen=True)
class Listing:
    """One ``GET /models``: the HTTP status (None when nothing answered), the model ids a 200
    listed (None when its page was not JSON), or why the server could not be reached."""

    url: str
    status: int | None = None
    names: list[str] | None = None
    unreachable: str | None = None
    """A refused connection, a connect timeout, or no answer in time: the breaker opens on it."""
    location: str | None = None
    """Where a 3xx answer pointed (a web page's login or home, not an API)."""

    def refused(self, where: str | None, model: str | None) -> ModelServerConfigError | None:
        """What this answer proves wrong with the configuration, or None: a 404 or a page that is
        not JSON (not an OpenAI-compatible API at this URL), or a list of models without ours
        (the server would answer with another model, or refuse every request)."""
        if self.status == 404:
            return not_an_api(where, "HTTP 404")
        if self.status is not None and 300 <= self.status < 400:  # an API lists its models; a site redirects
            target = f" to {redact_url(self.location)}" if self.location else ""
            return not_an_api(where, f"HTTP {self.status}, a redirect{target}")
        if self.status != 200:
            return None
        if self.names is None:
            return not_an_api(where, "a page that is not JSON")
        if model and self.names and not model_listed(model, self.names):
            return not_served(model, where, self.names)
        return None


async def list_models(where: str, *, api_key: str | None, timeout_s: float) -> Listing:
    """``GET {where}/models`` within ``timeout_s``; never raises for a transport failure."""
    import httpx  # here, not at the top: a run with no model server imports none of it

    url = f"{where}/models"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        async with httpx.AsyncClient(timeout=httpx.Timeout(timeout_s)) as client:
            reply = await client.get(url, headers=headers)
    except (httpx.ConnectError, httpx.ConnectTimeout) as error:
        return Listing(url, unreachable=root_cause(error))
    except httpx.ReadTimeout:  # it took the connection and never answered: as good as gone
        return Listing(url, unreachable=f"no answer within {timeout_s:g}s")
    except httpx.HTTPError:
        return Listing(url)
    names = None
    if reply.status_code == 200:
        try:
            names = _listed_names(reply)
        except (ValueError, AttributeError):
            names = None
    return Listing(url, reply.status_code, names, location=reply.headers.get("location"))


def _listed_names(reply: Any) -> list[str]:
    """The model ids of a ``/models`` answer (OpenAI's ``{"data": [{"id": ...}]}``)."""
    payload = reply.json()
    data = payload.get("data") if isinstance(payload, dict) else None
    return [str(entry.get("id")) for entry in data or [] if isinstance(entry, dict) and entry.get("id")]


__all__ = ["Listing", "list_models"]
