"""One way to reach a model and get typed output back, shared by every LLM judge and the agent.

Why one place: timeouts, ``max_tokens``, retries, output mode and the mapping from failures
to honest "unscored" reasons must be the same for every judge.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from pydantic_ai import Agent, NativeOutput, PromptedOutput, ToolOutput
from pydantic_ai.exceptions import (
    AgentRunError,
    ModelConnectionError,
    ModelHTTPError,
    ModelRequestTimeout,
    UnexpectedModelBehavior,
    UsageLimitExceeded,
)
from pydantic_ai.models import Model
from pydantic_ai.models.ollama import OllamaModel
from pydantic_ai.providers.ollama import OllamaProvider
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RunUsage

from config.settings import OutputMode, RagjurySettings
from rag_agent.results import Usage

OutputT = TypeVar("OutputT")


def build_model(settings: RagjurySettings, model_name: str | None = None) -> Model:
    """A chat model on Ollama's OpenAI-compatible API, or any OpenAI-compatible server.

    Both go through ``OllamaModel``: its profile sends ``response_format: json_schema`` without
    OpenAI's ``strict`` flag, which Ollama and llama.cpp's ``llama-server`` both accept.
    """
    provider = OllamaProvider(base_url=settings.openai_base_url, api_key=settings.api_key or None)
    return OllamaModel(model_name or settings.judge_model, provider=provider)


def model_settings(settings: RagjurySettings) -> ModelSettings:
    """Request settings every call carries: temperature, ``max_tokens`` (always), deadlines."""
    return ModelSettings(
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        timeout=settings.timeout_s,
        request_timeout=settings.timeout_s,
        max_retries=settings.http_retries,
    )


def output_spec(output_type: type[OutputT], mode: OutputMode) -> object:
    """Wrap ``output_type`` in the pydantic-ai output mode the settings ask for."""
    if mode == "native":
        return NativeOutput(output_type)
    if mode == "tool":
        return ToolOutput(output_type)
    if mode == "prompted":
        return PromptedOutput(output_type)
    raise ValueError(f"unknown output mode {mode!r}; choose native, tool or prompted")


def model_label(model: Model | str) -> str:
    return model if isinstance(model, str) else model.model_name


@dataclass
class CallOutcome(Generic[OutputT]):
    """The result of one structured call: the output, or why there is none."""

    output: OutputT | None
    usage: Usage
    latency_s: float
    error: str | None = None
    retries_used: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None and self.output is not None


def describe_failure(error: BaseException, settings: RagjurySettings) -> str:
    """A one-line, user-facing reason for an unscored judgment."""
    if isinstance(error, ModelConnectionError):
        return f"model server unreachable at {settings.openai_base_url}: {error}"
    if isinstance(error, ModelRequestTimeout | TimeoutError):
        return f"model request timed out after {settings.timeout_s:g}s"
    if isinstance(error, ModelHTTPError):
        return f"model server answered HTTP {error.status_code}: {str(error.body)[:200]}"
    if isinstance(error, UnexpectedModelBehavior):
        return f"invalid model output after {settings.retries} retries: {str(error)[:300]}"
    if isinstance(error, UsageLimitExceeded):
        return f"usage limit exceeded: {error}"
    if isinstance(error, AgentRunError):
        return f"{type(error).__name__}: {str(error)[:300]}"
    return f"{type(error).__name__}: {str(error)[:300]}"


@dataclass
class StructuredCaller:
    """Runs typed calls against one model with one set of settings; agents are built once per
    (instructions, output type) and reused."""

    model: Model | str
    settings: RagjurySettings
    output_mode: OutputMode | None = None
    _agents: dict[tuple[str, type], Agent[None, object]] = field(default_factory=dict, repr=False)

    @property
    def model_name(self) -> str:
        return model_label(self.model)

    def agent_for(self, instructions: str, output_type: type[OutputT]) -> Agent[None, OutputT]:
        key = (instructions, output_type)
        if key not in self._agents:
            self._agents[key] = Agent(
                self.model,
                output_type=output_spec(output_type, self.output_mode or self.settings.output_mode),  # type: ignore[arg-type]
                instructions=instructions,
                model_settings=model_settings(self.settings),
                retries=self.settings.retries,
                defer_model_check=True,
            )
        return self._agents[key]  # type: ignore[return-value]

    async def call(self, instructions: str, output_type: type[OutputT], prompt: str) -> CallOutcome[OutputT]:
        """One structured call; failures become ``CallOutcome.error``, never exceptions.

        Usage is counted into our own ``RunUsage`` so that a run that fails (invalid output
        after the retries) still reports the requests and tokens it spent: they were paid for.
        """
        agent = self.agent_for(instructions, output_type)
        run_usage = RunUsage()
        started = time.perf_counter()
        output: OutputT | None = None
        error: str | None = None
        try:
            output = (await agent.run(prompt, usage=run_usage)).output
        except Exception as failure:  # noqa: BLE001 - mapped to an honest unscored reason
            error = describe_failure(failure, self.settings)
        usage = Usage(
            input_tokens=run_usage.input_tokens or 0,
            output_tokens=run_usage.output_tokens or 0,
            requests=run_usage.requests or 0,
        )
        return CallOutcome(
            output, usage, time.perf_counter() - started, error, retries_used=max(0, usage.requests - 1)
        )
