"""``ModelJudge``: the one base of every judge that calls a model, resolved once.

Why one base: the model-calling judges (the multi-dimension ``JudgeLLM`` and the verdict judges)
each resolved the same things -- settings with an optional base-URL override, the model (a name,
or a pydantic-ai ``Model`` such as ``TestModel``), the output mode, the concurrency and the
``StructuredCaller`` -- and copies drift apart. A subclass declares only its own options.
"""

from __future__ import annotations

from typing import TypedDict

from pydantic_ai.models import Model
from typing_extensions import Unpack

from ragjury.config.settings import OutputMode, RagjurySettings, get_settings
from ragjury.rag_agent.core.needs import Needs
from ragjury.rag_agent.core.protocol import BaseJudge, ItemT, ValueT
from ragjury.rag_agent.model.client import StructuredCaller
from ragjury.rag_agent.model.server_model import build_model


class LLMOptions(TypedDict, total=False):
    """What every model-calling judge accepts besides its model."""

    base_url: str | None
    """Any OpenAI-compatible server; overrides ``settings.base_url``."""
    settings: RagjurySettings | None
    """Model, server, temperature, budgets; the environment's (``RAGJURY_*``) when omitted."""
    output_mode: OutputMode | None
    """How structured output is asked for (``native``, ``tool``, ``prompted``); the settings' when omitted."""


class ModelJudge(BaseJudge[ItemT, ValueT]):
    """A judge that calls a model: ``self.settings``, ``self.model``, ``self.output_mode`` and
    ``self.caller`` (typed calls through pydantic-ai, with the circuit breaker and token cap)."""

    def __init__(self, model: str | Model | None = None, **options: Unpack[LLMOptions]) -> None:
        settings = options.get("settings") or get_settings()
        base_url = options.get("base_url")
        if base_url is not None:
            settings = settings.model_copy(update={"base_url": base_url})
        self.settings: RagjurySettings = settings
        self.output_mode: OutputMode = options.get("output_mode") or settings.output_mode
        self.concurrency = settings.concurrency
        self.model: Model = model if isinstance(model, Model) else build_model(settings, model)
        self.caller = StructuredCaller(self.model, settings, self.output_mode)

    @property
    def server(self) -> str:
        """Where the model answers, for the cache key: the server's base URL (every server of a
        pool, sorted), credentials hidden; ``-`` for an in-process model (``TestModel``). Two
        servers naming the same model may serve different weights: their judgments are never
        shared (#54 item 28), nor is a nested judge's call memo (it is keyed by identity too)."""
        from ragjury.config.redaction import redact_url
        from ragjury.rag_agent.model.server_model import server_urls

        return ",".join(sorted({redact_url(url) for url in server_urls(self.model)})) or "-"

    def needs(self) -> Needs:
        """The breaker of the model server every call of this judge goes through."""
        return Needs(breakers=(self.caller.breaker,))


__all__ = ["LLMOptions", "ModelJudge"]
