"""Before any item is judged: one ``GET /models`` per server a judge calls, and the configuration
errors those servers answered raised as one line.

Why its own module: the runner (a batch) and the one-item commands both ask "do the judge's
servers answer, and serve this model?" the same way; the breaker keeps the answer
(``rag_agent.model.breaker``), this module asks every server once.
"""

from __future__ import annotations

import asyncio

from ragjury.rag_agent.model.breaker import CircuitBreaker, breakers_of, raise_config_error
from ragjury.rag_agent.model.config_errors import model_listed, not_served


async def preflight(judge: object) -> list[CircuitBreaker]:
    """Preflight every server the judge calls (one request per URL); returns the breakers left
    open. A model-free judge sends nothing. A 401/403 is passed on to every
    breaker of that URL (``config_error_of`` finds it)."""
    by_url: dict[str, list[CircuitBreaker]] = {}
    for breaker in breakers_of(judge):
        if breaker.where is not None:  # a pool of servers is a group of its own (``group_key``)
            by_url.setdefault(getattr(breaker, "group_key", breaker.where), []).append(breaker)
    if not by_url:
        return []
    leaders = [group[0] for group in by_url.values()]
    await asyncio.gather(*(leader.preflight() for leader in leaders))
    for group in by_url.values():
        leader = group[0]
        for other in group[1:]:
            other.listed = leader.listed
            if leader.config_error is not None:
                other.refuse_configuration(leader.config_error)
            elif other.model and leader.listed and not model_listed(other.model, leader.listed):
                other.refuse_configuration(not_served(other.model, other.where, leader.listed))
            elif leader.is_open and leader.last_error:
                other.trip(leader.last_error)
            elif not leader.is_open:
                other.reset()
    return [b for group in by_url.values() for b in group if b.is_open]


async def check_servers(judge: object) -> None:
    """Preflight every server the judge calls and raise the configuration error one answered
    (an unknown model, a URL that is no API, a refused key): one line, exit 2, before any item is
    judged -- for the commands that judge one item without the runner."""
    await preflight(judge)
    raise_config_error(judge)


__all__ = ["check_servers", "preflight"]
