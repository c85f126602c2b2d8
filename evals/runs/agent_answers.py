"""An agent's answers through the cached runner: the agent as a judge whose value is its answer.

A resumed ``evaluate --agent`` run must not ask again what was answered, and
``evals.runs.runner.run_judgments`` already caches, resumes and deduplicates. An answer is cached
under the agent's identity and the question; a failed run is an unscored judgment, asked again
on the next run like any other (``--no-retry-unscored`` keeps it).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from pydantic import Field
from rich.progress import Progress

from ragjury.evals.runs.cache import JudgmentCache
from ragjury.evals.runs.runner import RunStats, run_judgments
from ragjury.rag_agent.core.protocol import BaseJudge, JudgeIdentity
from ragjury.rag_agent.core.results import Judgment, Usage
from ragjury.rag_agent.core.schemas import RAGAnswer, SourceDocument
from ragjury.rag_agent.core.value_tags import value_tag


class RAGAgentLike(Protocol):
    """Anything with ``async query(question)`` returning a ``RAGAnswer``, an ``AgentResponse``
    (``answer``, ``sources``, ``error``, ``usage``, ``latency_s``) or a plain answer text."""

    async def query(self, question: str) -> Any: ...


@value_tag("agent_run")
class AgentRun(Judgment[RAGAnswer]):
    """One agent run as a judgment: the typed answer as its value (or the agent's error as the
    unscored reason), and the passages the retriever returned, kept for a failed run too.

    An envelope class of its own, so the cache stores and rebuilds it with its ``sources``.
    """

    sources: list[SourceDocument] = Field(default_factory=list)
    """Passages the agent's retriever returned in this run, in first-seen order."""


def agent_identity(agent: object) -> JudgeIdentity:
    """What identifies an agent's answers (their cache key): its ``identity`` when it has one
    (``RAGAgent``: model, prompt, retrieval and corpus fingerprint), else its class and model name."""
    identity = getattr(agent, "identity", None)
    if isinstance(identity, JudgeIdentity):
        return identity
    cls = f"{type(agent).__module__}.{type(agent).__qualname__}"
    if identity is not None and hasattr(identity, "key"):
        return JudgeIdentity(name=cls, params=str(identity.key()))
    settings = getattr(agent, "settings", None)
    model = getattr(agent, "model_name", None) or getattr(settings, "agent_model", None)
    return JudgeIdentity(name=cls, model=str(model) if model else None)


class AgentJudge(BaseJudge[str, RAGAnswer]):
    """``agent`` in the ``Judge`` protocol: the item is a question, the judgment an ``AgentRun``
    (value: the answer); an agent error, or an exception, makes it unscored with that reason."""

    def __init__(self, agent: RAGAgentLike, *, concurrency: int = 4) -> None:
        self.agent = agent
        self.concurrency = concurrency
        self._identity = agent_identity(agent)
        self.name = self._identity.name

    @property
    def identity(self) -> JudgeIdentity:
        return self._identity

    def scored(self, value: RAGAnswer, **kwargs: Any) -> AgentRun:  # type: ignore[override]
        return AgentRun(**dict(super().scored(value, **kwargs)))

    def unscored(self, reason: str, **kwargs: Any) -> AgentRun:  # type: ignore[override]
        return AgentRun(**dict(super().unscored(reason, **kwargs)))

    async def _judge(self, item: str) -> AgentRun:
        started = time.perf_counter()
        response = await self.agent.query(item)
        measured = time.perf_counter() - started
        if isinstance(response, str):
            response = RAGAnswer(answer=response)
        if isinstance(response, RAGAnswer):
            return self.scored(response).model_copy(update={"latency_s": measured})
        answer = getattr(response, "answer", None)
        if isinstance(answer, str):
            answer = RAGAnswer(answer=answer)
        usage = getattr(response, "usage", None) or Usage()
        if isinstance(answer, RAGAnswer):
            run = self.scored(answer, usage=usage)
        else:
            error = getattr(response, "error", None) or (
                f"the agent returned no answer ({type(response).__name__})"
            )
            run = self.unscored(str(error), usage=usage)
        sources = [
            s if isinstance(s, SourceDocument) else SourceDocument.model_validate(s)
            for s in getattr(response, "sources", None) or []
        ]
        latency = float(getattr(response, "latency_s", 0.0) or measured)
        return run.model_copy(update={"latency_s": latency, "sources": sources})


@dataclass
class AgentAnswer:
    """One question's agent run, as rows show it: the answer or the error, the sources, the cost."""

    question: str
    run: AgentRun

    @property
    def answer(self) -> RAGAnswer | None:
        return self.run.value

    @property
    def sources(self) -> list[SourceDocument]:
        """The passages the agent retrieved in this run (also when it then failed to answer)."""
        return self.run.sources

    @property
    def error(self) -> str | None:
        return self.run.unscored_reason if self.run.unscored else None

    @property
    def usage(self) -> Usage:
        return self.run.usage

    @property
    def latency_s(self) -> float:
        return self.run.latency_s


async def ask_agent(
    agent: RAGAgentLike,
    questions: Sequence[str],
    *,
    cache: JudgmentCache | None = None,
    concurrency: int = 4,
    progress: bool | Progress = False,
) -> tuple[list[AgentAnswer], RunStats]:
    """Ask ``agent`` every question through ``run_judgments``: cached answers are reused, each new
    one is stored as it completes, identical questions are asked once; failures become errors.

    The stats read as for judgments: ``unscored`` are the questions without an answer, ``judged``
    those asked in this run. No preflight: an unreachable agent server shows in each error.
    """
    judgments, stats = await run_judgments(
        AgentJudge(agent, concurrency=concurrency),
        list(questions),
        cache=cache,
        concurrency=concurrency,
        progress=progress,
        description="agent",
        preflight=False,
    )
    runs = cast(list[AgentRun], judgments)  # AgentJudge makes (and the cache rebuilds) AgentRuns
    return [AgentAnswer(q, run) for q, run in zip(questions, runs, strict=True)], stats


__all__ = ["AgentAnswer", "AgentJudge", "AgentRun", "RAGAgentLike", "agent_identity", "ask_agent"]
