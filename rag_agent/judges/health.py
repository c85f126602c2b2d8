"""Is the judge's model server usable? Checks with a plain fix for each failure.

Ollama is asked through its own API (the ``ollama`` client), any other server through the
OpenAI-compatible ``/v1/models``. The last check makes one real structured call.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx
import ollama

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.items import ScoreItem
from ragjury.rag_agent.judges.llm.multi_dimension import JudgeLLM
from ragjury.rag_agent.model.breaker import config_error_of
from ragjury.rag_agent.model.config_errors import config_error, model_listed


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


async def list_models(settings: RagjurySettings) -> list[str]:
    """Model names the server offers; raises on connection problems."""
    if settings.targets_ollama:
        response = await ollama.AsyncClient(host=settings.ollama_host, timeout=10).list()
        return [str(model.model) for model in response.models]
    headers = {"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
    async with httpx.AsyncClient(timeout=10) as client:
        reply = await client.get(f"{settings.openai_base_url}/models", headers=headers)
        reply.raise_for_status()
        return [str(entry.get("id")) for entry in reply.json().get("data", [])]


async def run_checks(settings: RagjurySettings) -> list[Check]:
    """Reachability, model presence, one structured call; stops at the first hard failure. With
    several base URLs, every server is checked on its own (each check names its server)."""
    urls = settings.base_urls
    if settings.base_url is None or len(urls) == 1:
        return await _checks_of_one(settings)
    checks: list[Check] = []
    for url in urls:
        for check in await _checks_of_one(settings.model_copy(update={"base_url": url})):
            checks.append(Check(f"{check.name} at {url}", check.ok, check.detail, check.fix))
    return checks


async def _checks_of_one(settings: RagjurySettings) -> list[Check]:
    where = settings.ollama_host if settings.targets_ollama else settings.openai_base_url
    start_hint = (
        "start Ollama with `ollama serve` (or set OLLAMA_HOST)"
        if settings.targets_ollama
        else "start your server, or check --base-url (it should end in /v1)"
    )
    try:
        models = await list_models(settings)
    except httpx.HTTPStatusError as error:  # the server is there; what it answered says what to fix
        return [Check("server reachable", True, where), _refused_listing(settings, error.response.status_code)]
    except ollama.ResponseError as error:
        if error.status_code in (401, 403):
            return [Check("server reachable", True, where), _refused_listing(settings, error.status_code)]
        return [Check("server reachable", False, f"{where}: {type(error).__name__}: {error}", start_hint)]
    except (httpx.HTTPError, ConnectionError, OSError) as error:
        return [Check("server reachable", False, f"{where}: {type(error).__name__}: {error}", start_hint)]
    checks = [Check("server reachable", True, where)]
    wanted = settings.judge_model
    if model_listed(wanted, models):  # the rule every command's preflight applies
        checks.append(Check("model available", True, wanted))
    else:
        fix = (
            f"ollama pull {wanted}"
            if settings.targets_ollama
            else "pass --model with one of the listed names"
        )
        shown = ", ".join(models[:8]) or "none"
        checks.append(Check("model available", False, f"{wanted} not among: {shown}", fix))
        return checks
    judge = JudgeLLM(settings=settings)
    judgment = await judge.ajudge(ScoreItem(question="What is 2 + 2?", answer="2 + 2 = 4."))
    refused = config_error_of(judge)  # 401/403/404 on the chat request: the key or the model
    if refused is not None:
        checks.append(Check("structured call", False, refused.headline, refused.fix))
    elif judgment.value is not None:
        checks.append(
            Check(
                "structured call",
                True,
                f"overall {judgment.value.overall_score:.2f} in {judgment.latency_s:.1f}s",
            )
        )
    elif "timed out" in (judgment.unscored_reason or ""):
        took = f"{judgment.latency_s:.0f}s" if judgment.latency_s else f"{settings.timeout_s:g}s"
        checks.append(
            Check(
                "structured call",
                False,
                f"{judgment.unscored_reason} (the call took {took}; a run uses the same deadline)",
                f"a slow server needs a longer deadline: --timeout SECONDS or RAGJURY_TIMEOUT_S "
                f"(now {settings.timeout_s:g}s), e.g. --timeout {max(300, 3 * settings.timeout_s):g}",
            )
        )
    else:
        checks.append(
            Check(
                "structured call",
                False,
                judgment.unscored_reason or "no output",
                "try --output-mode tool or prompted (RAGJURY_OUTPUT_MODE), a larger model, "
                "or raise RAGJURY_MAX_TOKENS",
            )
        )
    return checks


def _refused_listing(settings: RagjurySettings, status: int) -> Check:
    """The check for an HTTP error status answered to ``GET /models``: the fix it calls for (the
    API key for 401/403, the base URL for 404), not "start your server"."""
    where = settings.ollama_host if settings.targets_ollama else settings.openai_base_url
    refused = config_error(status, where, model=None, api_key_set=bool(settings.api_key))
    if status in (401, 403) and refused is not None:
        return Check("API key", False, f"{refused.headline} (GET /models)", refused.fix)
    if status == 404:
        return Check(
            "model list",
            False,
            f"HTTP 404 from {where}/models",
            "check --base-url: an OpenAI-compatible server answers GET /models under it (it usually ends in /v1)",
        )
    return Check("model list", False, f"HTTP {status} from {where}/models", "see the model server's log")


__all__ = [
    "Check",
    "list_models",
    "run_checks",
]
