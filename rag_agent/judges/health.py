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


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def _model_matches(wanted: str, available: list[str]) -> bool:
    wanted_base = wanted if ":" in wanted else f"{wanted}:latest"
    return wanted in available or wanted_base in available


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
    """Reachability, model presence, one structured call; stops at the first hard failure."""
    where = settings.ollama_host if settings.targets_ollama else settings.openai_base_url
    start_hint = (
        "start Ollama with `ollama serve` (or set OLLAMA_HOST)"
        if settings.targets_ollama
        else "start your server, or check --base-url (it should end in /v1)"
    )
    try:
        models = await list_models(settings)
    except (httpx.HTTPError, ConnectionError, OSError, ollama.ResponseError) as error:
        return [Check("server reachable", False, f"{where}: {type(error).__name__}: {error}", start_hint)]
    checks = [Check("server reachable", True, where)]
    wanted = settings.judge_model
    if _model_matches(wanted, models):
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
    judgment = await JudgeLLM(settings=settings).ajudge(
        ScoreItem(question="What is 2 + 2?", answer="2 + 2 = 4.")
    )
    if judgment.value is not None:
        checks.append(
            Check(
                "structured call",
                True,
                f"overall {judgment.value.overall_score:.2f} in {judgment.latency_s:.1f}s",
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


__all__ = [
    "Check",
    "list_models",
    "run_checks",
]
