"""``--dry-run``: what a batch would send to the model, and cost, before any model call.

A large batch costs money or hours, so it can be priced first. Uncached items go through the
real judge against ``rag_agent.model.dry_model``'s recording model, so every prompt is counted as
rendered; input tokens are estimated at 4 characters each (the judges' budget rule), output
tokens bounded by ``max_tokens``, and prices come from ``genai-prices`` for hosted providers.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from rich.table import Table

from ragjury.config.redaction import redact_url
from ragjury.evals.runs.cache import JudgmentCache, judgment_key
from ragjury.rag_agent.core.protocol import Judge
from ragjury.rag_agent.model.dry_model import RequestLog

ASSUMPTIONS = (
    "input tokens estimated at 4 characters per token of the rendered prompt "
    "(instructions, item, output schema)",
    "output tokens bounded by each prompt's max_tokens (RAGJURY_MAX_TOKENS; 1 for one-token logprob prompts)",
    "judges that read one token's logprobs (--method auto) are counted as if the server returns them",
    "multi-step judges are counted with one placeholder per list the model returns "
    "(faithfulness: one statement per answer)",
)


@dataclass
class ModelEstimate:
    """The prompts one model would receive, and their price where one is known."""

    model: str
    provider_url: str | None
    prompts: int = 0
    logprob_prompts: int = 0
    input_tokens: int = 0
    output_token_cap: int = 0
    price_usd: dict[str, float] | None = None
    """{input, output_at_cap, total_at_most} in US dollars; None where no price is known."""
    price_note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "base_url": None if self.provider_url is None else redact_url(self.provider_url),
            "prompts": self.prompts,
            "logprob_prompts": self.logprob_prompts,
            "input_tokens": self.input_tokens,
            "output_token_cap": self.output_token_cap,
            "price_usd": self.price_usd,
            "price_note": self.price_note,
        }


@dataclass
class DryRunEstimate:
    """What a batch would send: items to judge, prompts, estimated tokens, price."""

    items: int
    cached: int
    duplicates: int
    to_judge: int
    models: list[ModelEstimate] = field(default_factory=list)
    not_estimated: int = 0
    """Items whose prompts are not counted: their judge is user code (``python:``), or calls a
    model that was not built from the settings."""
    model_free: bool = False
    """No model was built from the settings for this judge: it sends nothing (a ``python:``
    factory's own model, if it has one, is not simulated and not counted)."""

    @property
    def prompts(self) -> int:
        return sum(m.prompts for m in self.models)

    @property
    def input_tokens(self) -> int:
        return sum(m.input_tokens for m in self.models)

    @property
    def output_token_cap(self) -> int:
        return sum(m.output_token_cap for m in self.models)

    @property
    def price_usd(self) -> float | None:
        """Total price at most (input estimate + output at the cap); None unless every model has one."""
        if not self.models or any(m.price_usd is None for m in self.models):
            return None
        return round(sum(m.price_usd["total_at_most"] for m in self.models if m.price_usd), 6)

    def as_dict(self) -> dict[str, Any]:
        """The ``dry_run`` object of ``--json`` (docs/tracing.md: "Cost before a long run")."""
        return {
            "items": self.items,
            "cached": self.cached,
            "duplicates": self.duplicates,
            "to_judge": self.to_judge,
            "prompts": self.prompts,
            "input_tokens": self.input_tokens,
            "output_token_cap": self.output_token_cap,
            "price_usd": self.price_usd,
            "models": [m.as_dict() for m in self.models],
            "not_estimated": self.not_estimated,
            "model_free": self.model_free,
            "assumptions": list(ASSUMPTIONS),
        }


def _local(url: str | None) -> bool:
    """A server on this machine or a private network (Ollama, llama-server): no per-token price."""
    host = urlsplit(url or "").hostname or ""
    if host in ("localhost", "") or host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_unspecified


def price(
    model: str, url: str | None, input_tokens: int, output_tokens: int
) -> tuple[dict[str, float] | None, str]:
    """The price of the tokens at the provider of ``url``, from ``genai-prices``, and a note.

    Looked up by the base URL only, never by the model name alone: a local server that serves a
    model named like a hosted one costs nothing per token.
    """
    if _local(url):
        return None, f"local server ({redact_url(url or '')}): no per-token price"
    from genai_prices import Usage, calc_price

    try:
        calculation = calc_price(
            Usage(input_tokens=input_tokens, output_tokens=output_tokens), model, provider_api_url=url
        )
    except LookupError as error:
        return None, f"no price in genai-prices: {error}"
    provider = getattr(calculation.provider, "name", None) or getattr(calculation.provider, "id", "")
    rates = [
        f"${rate} per million {kind} tokens"
        for kind, rate in (
            ("input", getattr(calculation.model_price, "input_mtok", None)),
            ("output", getattr(calculation.model_price, "output_mtok", None)),
        )
        if rate is not None
    ]
    return (
        {
            "input": round(float(calculation.input_price), 6),
            "output_at_cap": round(float(calculation.output_price), 6),
            "total_at_most": round(float(calculation.total_price), 6),
        },
        f"{provider} list price, {', '.join(rates) or calculation.model_price}",
    )


async def estimate(
    judge: Judge[Any, Any],
    items: Sequence[Any],
    log: RequestLog,
    *,
    cache: JudgmentCache | None = None,
    simulate: bool = True,
) -> DryRunEstimate:
    """Count what judging ``items`` would send. ``judge`` must have been built inside
    ``rag_agent.model.dry_model.recording_models()`` (whose ``log`` is passed), and this must run inside it.

    ``simulate=False`` (a judge with user code in it, ``python:module:Factory``): the judge is not
    run at all, since its code may call a server on its own; its items are counted, its prompts not.
    """
    keys = [judgment_key(judge.identity, item) for item in items]
    hits = cache.get_many(keys) if cache is not None else {}
    todo: dict[str, Any] = {}
    for key, item in zip(keys, items, strict=True):
        if key not in hits:
            todo.setdefault(key, item)
    misses = sum(key not in hits for key in keys)
    result = DryRunEstimate(
        items=len(items), cached=len(items) - misses, duplicates=misses - len(todo), to_judge=len(todo)
    )
    if not simulate:
        result.not_estimated = len(todo)
        return result
    if log.models_built == 0:  # model-free (contains, non-llm, ...): nothing to simulate
        result.model_free = True
        return result
    if todo:
        judgments = await judge.ajudge_batch(list(todo.values()))
        result.not_estimated = sum(
            bool(j.unscored and "ALLOW_MODEL_REQUESTS" in (j.unscored_reason or "")) for j in judgments
        )
    by_model: dict[tuple[str, str | None], ModelEstimate] = {}
    for request in log.requests:
        entry = by_model.setdefault(
            (request.model, request.provider_url), ModelEstimate(request.model, request.provider_url)
        )
        entry.prompts += 1
        entry.logprob_prompts += request.logprobs
        entry.input_tokens += request.input_tokens
        entry.output_token_cap += request.output_cap or 0
    for entry in by_model.values():
        entry.price_usd, entry.price_note = price(
            entry.model, entry.provider_url, entry.input_tokens, entry.output_token_cap
        )
    result.models = list(by_model.values())
    return result


def dollars(amount: float) -> str:
    """``$0.0123``; amounts under a hundredth of a cent keep two significant digits."""
    if amount >= 0.0001 or amount == 0:
        return f"${amount:,.4f}"
    return "$" + f"{float(f'{amount:.2g}'):.10f}".rstrip("0")


def estimate_table(result: DryRunEstimate, title: str) -> Table:
    """The terminal summary of a dry run."""
    table = Table(title=title, show_header=False)
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_row("items", f"{result.items:,}")
    table.add_row("cached (not sent)", f"{result.cached:,}")
    if result.duplicates:
        table.add_row("duplicates (judged once)", f"{result.duplicates:,}")
    table.add_row("items to judge", f"{result.to_judge:,}")
    if result.not_estimated:
        table.add_row("items whose prompts are not counted", f"{result.not_estimated:,}")
    table.add_row("prompts", f"{result.prompts:,}")
    table.add_row("input tokens (estimated)", f"{result.input_tokens:,}")
    table.add_row("output tokens (at most)", f"{result.output_token_cap:,}")
    for entry in result.models:
        table.add_row("model", entry.model)
        if entry.price_usd is None:
            table.add_row("price", "none: local server" if _local(entry.provider_url) else "unknown")
        else:
            table.add_row("price (at most)", dollars(entry.price_usd["total_at_most"]))
    return table


def estimate_notes(result: DryRunEstimate) -> list[str]:
    """One line each: what the figures assume, and anything that was not counted."""
    if result.model_free and not result.not_estimated:
        return [
            "dry run: no model is built for this judge, so this batch sends no prompt "
            "(a python: factory's own model, if it has one, cannot be counted)"
        ]
    notes = [
        "dry run: nothing was sent. Input tokens: about 4 characters per token of each rendered "
        "prompt. Output: at most each prompt's max_tokens. Logprob judges are counted as if the "
        "server returns logprobs; multi-step judges with one placeholder per list (faithfulness: "
        "one statement per answer)."
    ]
    for entry in result.models:
        if entry.price_usd is not None:
            notes.append(
                f"price of {entry.model}: input {dollars(entry.price_usd['input'])} + output at most "
                f"{dollars(entry.price_usd['output_at_cap'])} ({entry.price_note})"
            )
        elif not _local(entry.provider_url):
            notes.append(f"price of {entry.model}: {entry.price_note}")
    if result.not_estimated:
        notes.append(
            f"the prompts of {result.not_estimated:,} item(s) are not counted: their judge is user code "
            "(python:module:Factory) or calls a model that was not built from the settings, and a dry "
            "run does not run what could call a server"
        )
    return notes


__all__ = [
    "ASSUMPTIONS",
    "DryRunEstimate",
    "ModelEstimate",
    "dollars",
    "estimate",
    "estimate_notes",
    "estimate_table",
    "price",
]
