"""Making a typed call to a model: the one place judges ask a model for structured output.

Why one place: timeouts, retries, output mode, the circuit breaker and the usage of failed runs
must be the same for every judge. Building the model (``server_model``) and wording failures
(``failures``) live beside it, one job each.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from pydantic_ai import Agent, NativeOutput, PromptedOutput, ToolOutput
from pydantic_ai.models import Model
from pydantic_ai.usage import RunUsage

from ragjury.config.settings import OutputMode, RagjurySettings
from ragjury.rag_agent.core.results import Usage
from ragjury.rag_agent.model.breaker import CircuitBreaker
from ragjury.rag_agent.model.failures import configuration_error, describe_failure
from ragjury.rag_agent.model.server_model import (
    capped_settings,
    model_base_url,
    model_label,
    model_settings,
    new_breaker,
)
from ragjury.rag_agent.model.transport import counting_requests

OutputT = TypeVar("OutputT")


def output_spec(output_type: type[OutputT], mode: OutputMode) -> object:
    """Wrap ``output_type`` in the pydantic-ai output mode the settings ask for; ``str`` is plain text
    (no schema, no JSON around it: a reduction's few words cost a few tokens)."""
    if output_type is str:
        return str
    if mode == "native":
        return NativeOutput(output_type)
    if mode == "tool":
        return ToolOutput(output_type)
    if mode == "prompted":
        return PromptedOutput(output_type)
    raise ValueError(f"unknown output mode {mode!r}; choose native, tool or prompted")


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


def guarded_by_model(model: Model | str, breaker: CircuitBreaker) -> bool:
    """True when ``model`` checks and records ``breaker`` on every request itself (the agent's)."""
    return bool(getattr(model, "guards_requests", False)) and getattr(model, "breaker", None) is breaker


def breaker_for(model: Model | str, settings: RagjurySettings) -> CircuitBreaker:
    """The circuit breaker of calls to ``model``: the model's own (``build_model``), or a new one."""
    own = getattr(model, "breaker", None)
    if isinstance(own, CircuitBreaker):
        return own
    return new_breaker(model_base_url(model), settings, model=model_label(model))


@dataclass
class StructuredCaller:
    """Runs typed calls against one model with one set of settings; agents are built once per
    (instructions, output type) and reused.

    Every call goes through ``breaker`` (``rag_agent.model.breaker``): while it is open (the server did
    not accept connections) a call returns at once, unscored "not attempted", without a request.
    A 401/403/404 before the server has answered anything is a configuration error: the breaker
    keeps it (nothing more is sent) and the runner stops the run with it (exit 2).
    The breaker is the model's own when ``build_model`` made it (shared by every caller of that
    model), else one of the caller's; the caller records each call's outcome, except where the
    model records every request itself (``GuardedOllamaModel``, the agent's).
    """

    model: Model | str
    settings: RagjurySettings
    output_mode: OutputMode | None = None
    _agents: dict[tuple[str, type, str | None], Agent[None, object]] = field(default_factory=dict, repr=False)
    breaker: CircuitBreaker | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.breaker is None:
            self.breaker = breaker_for(self.model, self.settings)

    @property
    def model_name(self) -> str:
        return model_label(self.model)

    def agent_for(
        self, instructions: str, output_type: type[OutputT], name: str | None = None
    ) -> Agent[None, OutputT]:
        """The agent for one prompt and output type; ``name`` (``judge:prompt@version``) names
        its OpenTelemetry spans (``invoke_agent NAME``) when tracing is on."""
        key = (instructions, output_type, name)
        if key not in self._agents:
            self._agents[key] = Agent(
                self.model,
                name=name,
                output_type=output_spec(output_type, self.output_mode or self.settings.output_mode),  # type: ignore[arg-type]
                instructions=instructions,
                model_settings=model_settings(self.settings),
                retries=self.settings.retries,
                defer_model_check=True,
            )
        return self._agents[key]  # type: ignore[return-value]

    async def call(
        self,
        instructions: str,
        output_type: type[OutputT],
        prompt: str,
        *,
        name: str | None = None,
        max_tokens: int | None = None,
    ) -> CallOutcome[OutputT]:
        """One structured call; failures become ``CallOutcome.error``, never exceptions.

        Usage is counted into our own ``RunUsage`` so that a run that fails (invalid output
        after the retries) still reports the requests and tokens it spent: they were paid for.
        ``requests`` counts every HTTP attempt the server saw (``rag_agent.transport``), failed
        ones and the SDK's retries included; for in-process models, pydantic-ai's count.
        ``max_tokens`` caps this call below the settings' cap (a reduction that needs a few words).
        """
        breaker = self.breaker
        assert breaker is not None
        guarded = guarded_by_model(self.model, breaker)
        if guarded and breaker.is_open:
            breaker.rejected += 1
            return CallOutcome(None, Usage(), 0.0, breaker.reason)
        if not guarded and not breaker.allow():
            return CallOutcome(None, Usage(), 0.0, breaker.reason)
        agent = self.agent_for(instructions, output_type, name)
        run_usage = RunUsage()
        started = time.perf_counter()
        output: OutputT | None = None
        error: str | None = None
        recorded = False
        try:
            with counting_requests() as attempts:
                try:
                    capped = capped_settings(self.settings, max_tokens) if max_tokens is not None else None
                    output = (await agent.run(prompt, usage=run_usage, model_settings=capped)).output
                except Exception as failure:  # noqa: BLE001 - mapped to an honest unscored reason
                    refused = await configuration_error(failure, breaker)  # 401/403/404: the run stops
                    error = str(refused) if refused is not None else describe_failure(failure, self.settings)
                    if not guarded:
                        breaker.record(failure)
                else:
                    if not guarded:
                        breaker.record(None)
                recorded = True
        finally:
            if not recorded and not guarded:  # cancelled: no outcome to learn from
                breaker.release()
        model_requests = run_usage.requests or 0
        usage = Usage(
            input_tokens=run_usage.input_tokens or 0,
            output_tokens=run_usage.output_tokens or 0,
            requests=max(model_requests, attempts.requests),
        )
        return CallOutcome(
            output, usage, time.perf_counter() - started, error, retries_used=max(0, model_requests - 1)
        )


__all__ = ["CallOutcome", "OutputT", "StructuredCaller", "breaker_for", "guarded_by_model", "output_spec"]
