"""Judging from one output token's probability distribution.

Why: a small judge model asked for a structured grade commits to one value, and which value it
commits to swings with the prompt (too lenient with one wording, too strict with another). The
same model asked for one bare digit, with the grade read from the ``top_logprobs`` of that one
token, gives the whole distribution over grades: an expected grade and P(verdict = "1") that rank
items and can be calibrated on labelled data, and it costs one output token instead of a JSON
object.

How: the request goes through pydantic-ai's ``model_request`` (or, to a plain OpenAI-compatible
server, the same request straight over aiohttp: ``rag_agent.model.direct``) with
``max_tokens=1``, temperature 0 and the OpenAI-compatible settings ``openai_logprobs`` /
``openai_top_logprobs``; pydantic-ai puts the server's per-token logprobs in
``ModelResponse.provider_details["logprobs"]`` (llama-server, Ollama and OpenAI all return them in
the Chat Completions ``logprobs.content`` field). The first token's alternatives are mapped to the
allowed choices ("0".."3", or "0"/"1") by their stripped text; their probabilities are
renormalised over the choices, and the probability mass the choices held before renormalising is
kept (``choice_mass``): a low mass says the model wanted to answer something else.

A server that returns no logprobs makes ``LogprobUnavailable`` the outcome; the judges then use
their structured path and remember that this server has none, so the cost is one request.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field
from pydantic_ai.direct import model_request
from pydantic_ai.messages import ModelRequest, ModelResponse, SystemPromptPart, UserPromptPart
from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.results import Usage
from ragjury.rag_agent.model.breaker import CircuitBreaker
from ragjury.rag_agent.model.client import breaker_for, guarded_by_model
from ragjury.rag_agent.model.direct import direct_chat, traced
from ragjury.rag_agent.model.failures import configuration_error, describe_failure
from ragjury.rag_agent.model.server_model import model_settings
from ragjury.rag_agent.model.transport import counting_requests

TOP_LOGPROBS = 20
"""How many alternatives of the first token to ask for (OpenAI's maximum; llama-server and Ollama accept it)."""

MIN_CHOICE_MASS = 0.05
"""Below this share of probability on the allowed choices, the distribution is noise: unscored."""


class ChoiceDistribution(BaseModel):
    """Probabilities of the allowed answers, renormalised over them, and the mass they held."""

    probabilities: dict[str, float] = Field(description="choice -> probability, summing to 1")
    choice_mass: float = Field(ge=0.0, le=1.0, description="probability the choices held before renormalising")
    sampled_token: str = Field(description="the token the server actually generated")

    def expectation(self, values: Mapping[str, float]) -> float:
        """Expected value of the choices under the distribution (e.g. the expected grade)."""
        return sum(self.probabilities.get(choice, 0.0) * value for choice, value in values.items())

    def argmax(self) -> str:
        return max(self.probabilities, key=lambda choice: (self.probabilities[choice], choice))


class LogprobUnavailable(RuntimeError):
    """The server answered, but without per-token logprobs: use the structured path instead."""


MAX_TOTAL = 1.01
"""The most the top alternatives' probabilities may sum to (1, and a server's rounding); more is
no distribution, and renormalising it would invent a verdict (two tokens at 0.0 gave P = 0.5)."""


def choice_distribution(details: Mapping[str, Any] | None, choices: Sequence[str]) -> ChoiceDistribution:
    """The distribution over ``choices`` from the first generated token's ``top_logprobs``.

    ``details`` is ``ModelResponse.provider_details``. Alternatives are matched by their text with
    whitespace stripped ("1", " 1" and "1\\n" are the same answer); several alternatives with the
    same stripped text add up. Raises ``LogprobUnavailable`` when there are no logprobs at all and
    ``ValueError`` when none of the alternatives is an allowed choice.
    """
    entries = (details or {}).get("logprobs")
    if not entries:
        raise LogprobUnavailable("the server returned no logprobs")
    first = entries[0]
    alternatives = first.get("top_logprobs") or [first]
    wanted = set(choices)
    values = [alternative.get("logprob") for alternative in alternatives]
    if any(isinstance(v, int | float) and not isinstance(v, bool) and math.isnan(v) for v in values):
        raise ValueError("the server returned impossible log-probabilities (NaN)")
    if any(isinstance(v, int | float) and not isinstance(v, bool) and v > 1e-6 for v in values):
        raise ValueError("the server returned impossible log-probabilities (> 0, a probability above 1)")
    finite = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)]
    if sum(math.exp(v) for v in finite) > MAX_TOTAL:  # two tokens at logprob 0.0 each claim certainty
        raise ValueError(
            f"the server returned impossible log-probabilities (the top {len(finite)} tokens' probabilities "
            f"sum to {sum(math.exp(v) for v in finite):.3f}, more than 1)"
        )
    mass: dict[str, float] = {}
    for alternative in alternatives:
        token = str(alternative.get("token", "")).strip()
        logprob = alternative.get("logprob")
        if token in wanted and isinstance(logprob, int | float) and math.isfinite(logprob):
            mass[token] = mass.get(token, 0.0) + math.exp(logprob)
    total = sum(mass.values())
    sampled = str(first.get("token", ""))
    if total <= 0.0:
        raise ValueError(f"none of the top {len(alternatives)} tokens is one of {'/'.join(choices)} "
                         f"(the model began with {sampled!r})")
    return ChoiceDistribution(
        probabilities={choice: mass.get(choice, 0.0) / total for choice in choices},
        choice_mass=min(1.0, total),
        sampled_token=sampled,
    )


@dataclass
class DistributionOutcome:
    """One logprob call: the distribution, or why there is none, and what it cost."""

    distribution: ChoiceDistribution | None
    usage: Usage
    latency_s: float
    error: str | None = None
    unavailable: bool = False
    """True when the server gave no logprobs at all (not a judging failure: switch paths)."""


def logprob_settings(settings: RagjurySettings) -> ModelSettings:
    """One output token, greedy, with the first token's alternatives and their logprobs."""
    base = dict(model_settings(settings))
    base.update(
        temperature=0.0,
        max_tokens=1,
        openai_logprobs=True,
        openai_top_logprobs=TOP_LOGPROBS,
    )
    extra = dict(base.get("extra_body") or {})  # type: ignore[arg-type]
    if extra:  # a token cap sent in the body too (for servers that ignore the standard field)
        for key in ("max_tokens", "num_predict", "n_predict"):
            if key in extra:
                extra[key] = 1
        if isinstance(extra.get("options"), dict):
            extra["options"] = {**extra["options"], "num_predict": 1}
        base["extra_body"] = extra
    return ModelSettings(**base)  # type: ignore[typeddict-item]


class LogprobCaller:
    """Asks one model for one token and returns the distribution over the allowed choices.

    ``available`` turns False after the first response without logprobs, so a server that has
    none costs one extra request per judge, not one per item. Calls go through ``breaker`` (the
    model's own, shared with the judge's ``StructuredCaller``): while it is open nothing is sent.
    """

    def __init__(self, model: Model, settings: RagjurySettings, breaker: CircuitBreaker | None = None) -> None:
        self.model = model
        self.settings = settings
        self.available: bool | None = None
        self.breaker = breaker or breaker_for(model, settings)
        self._guarded = guarded_by_model(model, self.breaker)
        self._settings = logprob_settings(settings)
        self.direct = direct_chat(model, settings, self._settings)
        """The request sent straight over aiohttp where the server is a plain OpenAI-compatible one
        (``rag_agent.model.direct``: the same body, answer and failures at a tenth of the CPU); None:
        pydantic-ai's ``model_request``."""

    async def distribution(self, instructions: str, prompt: str, choices: Sequence[str]) -> DistributionOutcome:
        """One request; failures become ``DistributionOutcome.error``, never exceptions.

        The request, the breaker and the reading of the answer are all here, one frame above
        pydantic-ai: the model client adds no layer of its own between a judge and the server.
        """
        breaker = self.breaker
        if self._guarded and breaker.is_open:
            breaker.rejected += 1
            return DistributionOutcome(None, Usage(), 0.0, breaker.reason)
        if not self._guarded and not breaker.allow():
            return DistributionOutcome(None, Usage(), 0.0, breaker.reason)
        started = time.perf_counter()
        request = ModelRequest(parts=[SystemPromptPart(content=instructions), UserPromptPart(content=prompt)])
        response: ModelResponse | None = None
        recorded = self._guarded
        try:
            with counting_requests() as sent:  # HTTP attempts, retries included
                try:
                    if self.direct is not None and not traced():
                        response = await self.direct.request(instructions, prompt)
                    else:
                        response = await model_request(self.model, [request], model_settings=self._settings)
                except Exception as failure:  # noqa: BLE001 - mapped to an honest unscored reason
                    refused = await configuration_error(failure, breaker)  # 401/403/404: the run stops
                    if not recorded:
                        breaker.record(failure)
                        recorded = True
                    return DistributionOutcome(
                        None, Usage(requests=sent.requests), time.perf_counter() - started,
                        str(refused) if refused is not None else describe_failure(failure, self.settings),
                    )
        finally:
            if not recorded and response is None:  # cancelled: no outcome to learn from
                breaker.release()
        if not recorded:
            breaker.record(None)
        usage = Usage(
            input_tokens=response.usage.input_tokens or 0,
            output_tokens=response.usage.output_tokens or 0,
            requests=max(1, sent.requests),
        )
        latency = time.perf_counter() - started
        try:
            distribution = choice_distribution(response.provider_details, choices)
        except LogprobUnavailable as missing:
            self.available = False
            return DistributionOutcome(None, usage, latency, str(missing), unavailable=True)
        except ValueError as invalid:
            self.available = True
            reason = str(invalid) if "impossible" in str(invalid) else f"no grade in the model's answer: {invalid}"
            return DistributionOutcome(None, usage, latency, reason)
        self.available = True
        if distribution.choice_mass < MIN_CHOICE_MASS:
            return DistributionOutcome(
                None, usage, latency,
                f"the allowed answers held only {distribution.choice_mass:.3f} of the probability "
                f"(the model began with {distribution.sampled_token!r})",
            )
        return DistributionOutcome(distribution, usage, latency)


__all__ = [
    "MIN_CHOICE_MASS",
    "TOP_LOGPROBS",
    "ChoiceDistribution",
    "DistributionOutcome",
    "LogprobCaller",
    "LogprobUnavailable",
    "choice_distribution",
    "logprob_settings",
]
