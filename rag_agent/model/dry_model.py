"""A stand-in model for ``--dry-run``: it records every request a judge would send and answers
in-process, so a dry run walks the judge's real code path without a model server.

Why simulate rather than count items: how many prompts an item costs depends on the judge
(faithfulness extracts statements, then judges them; ``--samples 5`` sends the verdict prompt five
times; the relevance judges read one token's logprobs where the server has them), and the size
of each prompt depends on its template, the item and the token budget. Running the judge itself
against this model measures exactly what it would render, with no second copy of any template.

``recording_models()`` switches it on: inside it ``rag_agent.llm.build_model`` returns a
``DryRunModel`` with the real model's name, provider and profile (so judge identities and cache
keys are those of the real run), and pydantic-ai's ``ALLOW_MODEL_REQUESTS`` is off, so a model
that was not built from the settings (a judge factory's own) fails instead of calling a server.

Answers are the smallest valid ones: JSON generated from the output schema (pydantic-ai's
``TestModel`` generator), one placeholder item per list (faithfulness then judges one
statement), and a flat distribution over the digits where logprobs are asked for (the relevance
judges' one-token path, which ``--method auto`` tries first).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model, ModelRequestParameters, override_allow_model_requests
from pydantic_ai.models.test import TestModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RequestUsage

from ragjury.rag_agent.core.prompting import CHARS_PER_TOKEN


def tokens_of(chars: int) -> int:
    """Tokens of ``chars`` characters at ``CHARS_PER_TOKEN`` each (the judges' own budget rule)."""
    return (chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass(frozen=True)
class RecordedRequest:
    """One request a judge would have sent: to which model, how big, with what output cap."""

    model: str
    provider_url: str | None
    input_chars: int
    output_cap: int | None
    logprobs: bool

    @property
    def input_tokens(self) -> int:
        """Estimated at 4 characters per token, as the judges' token budget counts them."""
        return tokens_of(self.input_chars)


@dataclass
class RequestLog:
    """Every request recorded inside one ``recording_models()`` block, and the models built."""

    requests: list[RecordedRequest] = field(default_factory=list)
    models_built: int = 0


_ACTIVE: ContextVar[RequestLog | None] = ContextVar("ragjury_dry_run_log", default=None)


def active_log() -> RequestLog | None:
    """The log of the ``recording_models()`` block we are in, if any (``build_model`` asks)."""
    return _ACTIVE.get()


@contextmanager
def recording_models() -> Iterator[RequestLog]:
    """Within the block, models built from the settings record instead of calling a server, and
    any other model request (a real model built elsewhere) raises instead of being sent."""
    log = RequestLog()
    token = _ACTIVE.set(log)
    try:
        with override_allow_model_requests(False):
            yield log
    finally:
        _ACTIVE.reset(token)


def _part_chars(messages: list[ModelMessage]) -> int:
    """Characters of every text part of the conversation so far (system, user, retries)."""
    total = 0
    for message in messages:
        instructions = getattr(message, "instructions", None)
        if isinstance(instructions, str):
            total += len(instructions)
        for part in message.parts:
            content = getattr(part, "content", None)
            if isinstance(content, str):
                total += len(content)
            elif isinstance(part, ToolCallPart):
                total += len(part.args_as_json_str())
    return total


def _schema_chars(params: ModelRequestParameters) -> int:
    """Characters of the output schema sent with the request (response format or tool definitions)."""
    schemas: list[Any] = []
    if params.output_object is not None:
        schemas.append(params.output_object.json_schema)
    schemas += [tool.parameters_json_schema for tool in (*params.output_tools, *params.function_tools)]
    return sum(len(json.dumps(schema, separators=(",", ":"))) for schema in schemas)


def _instruction_chars(messages: list[ModelMessage], params: ModelRequestParameters) -> int:
    """Instructions carried by the request parameters and not already on a message."""
    on_messages = any(isinstance(getattr(m, "instructions", None), str) for m in messages)
    if on_messages or not params.instruction_parts:
        return 0
    return sum(len(part.content) for part in params.instruction_parts)


FLAT_CHOICES = ("0", "1", "2", "3")
"""Tokens of the simulated one-token distribution: the binary and the 0-3 graded choices."""


class DryRunModel(Model):
    """Records each request and answers it in-process; never opens a connection."""

    def __init__(self, real: Model, log: RequestLog) -> None:
        super().__init__(profile=real.profile)
        self._name = real.model_name
        self._system = real.system
        self.provider_url = getattr(real, "base_url", None)
        """Where the real model would be called: the price of a hosted model is looked up by it."""
        pool = getattr(real, "pool", None)  # (server_model.server_urls reads this; it imports this module)
        urls = [e.url for e in pool.endpoints] if pool is not None else [getattr(real, "base_url", None)]
        self.server_urls = sorted({str(url).rstrip("/") for url in urls if url})
        """The real model's servers: a dry run's judge keys its judgments as the real run would."""
        self.log = log
        self._generator = TestModel()

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def system(self) -> str:
        return self._system

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        settings = dict(model_settings or {})
        params = model_request_parameters
        logprobs = bool(settings.get("openai_logprobs"))
        chars = _part_chars(messages) + _instruction_chars(messages, params) + _schema_chars(params)
        cap = settings.get("max_tokens")
        self.log.requests.append(
            RecordedRequest(self._name, self.provider_url, chars, int(cap) if cap else None, logprobs)
        )
        usage = RequestUsage(input_tokens=tokens_of(chars), output_tokens=1)
        if logprobs:
            flat = math.log(1 / len(FLAT_CHOICES))
            alternatives = [{"token": choice, "logprob": flat} for choice in FLAT_CHOICES]
            details = {"logprobs": [{"token": "1", "logprob": flat, "top_logprobs": alternatives}]}
            return ModelResponse(
                parts=[TextPart("1")], usage=usage, model_name=self._name, provider_details=details
            )
        if params.output_tools and params.output_mode == "tool":
            tool = params.output_tools[0]
            args = self._generator.gen_tool_args(tool)
            return ModelResponse(parts=[ToolCallPart(tool.name, args)], usage=usage, model_name=self._name)
        if params.output_object is not None:
            schema = ToolDefinition(name=params.output_object.name or "output",
                                    parameters_json_schema=params.output_object.json_schema)
            text = json.dumps(self._generator.gen_tool_args(schema))
            return ModelResponse(parts=[TextPart(text)], usage=usage, model_name=self._name)
        return ModelResponse(parts=[TextPart("1")], usage=usage, model_name=self._name)


__all__ = ["DryRunModel", "RecordedRequest", "RequestLog", "active_log", "recording_models"]
