"""A judge says what it needs (``needs()``): breakers and embedders are asked for, never crawled.

Why: ``breakers_of`` and the embeddings check used to walk a judge's attributes by name
(``caller``, ``inner``, ``members``, ...), so a composite that held its parts under another name
was skipped without a word, and one that held a breaker for some other purpose was preflighted.
"""

from __future__ import annotations

import numpy as np
import pytest
from pydantic_ai.models.test import TestModel

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.items import ScoreItem
from ragjury.rag_agent.core.needs import NOTHING, Needs, needs_of, needs_of_all
from ragjury.rag_agent.core.protocol import BaseJudge
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.judges.combined.adapted import adapted
from ragjury.rag_agent.judges.combined.fallback import FallbackJudge
from ragjury.rag_agent.judges.combined.panel import Panel
from ragjury.rag_agent.judges.llm.correctness import CorrectnessJudge
from ragjury.rag_agent.judges.llm.multi_dimension import JudgeLLM
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge
from ragjury.rag_agent.judges.model_free.embedders import EmbeddingsUnavailable, OllamaEmbedder
from ragjury.rag_agent.judges.model_free.score import HeuristicScoreJudge
from ragjury.rag_agent.judges.model_free.semantic import SemanticJudge
from ragjury.rag_agent.judges.user_defined import EmbeddingSimilarityCheck, CheckJudge
from ragjury.rag_agent.model.breaker import CircuitBreaker, any_open, breakers_of


def settings() -> RagjurySettings:
    return RagjurySettings(_env_file=None, breaker_failures=3)  # type: ignore[call-arg]


class Hidden(BaseJudge[ScoreItem, bool]):
    """A composite that keeps its model judge and a breaker under names nobody guesses, and says
    nothing of them: the old crawl found the breaker (``breaker``), not the judge (``scorer``)."""

    name = "hidden"

    def __init__(self, scorer: JudgeLLM) -> None:
        self.scorer = scorer
        self.breaker = CircuitBreaker("http://elsewhere/v1")

    async def _judge(self, item: ScoreItem) -> Judgment[bool]:
        return self.scored(True)


class Declared(Hidden):
    """The same composite, declaring what its part needs."""

    name = "declared"

    def needs(self) -> Needs:
        return needs_of(self.scorer)


class ToyEmbedder:
    model = "toy"

    async def aembed(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 2), dtype=np.float32)


def test_an_undeclared_breaker_is_not_found_and_a_declared_one_is() -> None:
    scorer = JudgeLLM(TestModel(), settings=settings())
    (own,) = breakers_of(scorer)  # the model judge declares the breaker of its caller
    assert own is scorer.caller.breaker
    assert breakers_of(Hidden(scorer)) == []  # held, not declared: not crawled for
    assert breakers_of(Declared(scorer)) == [own]


def test_composites_add_up_their_parts_needs_once() -> None:
    llm = CorrectnessJudge(TestModel(), settings=settings())
    (breaker,) = breakers_of(llm)
    item_free = ContainsJudge()
    assert needs_of(item_free) is NOTHING
    fallback = FallbackJudge(llm, item_free)
    assert breakers_of(fallback) == [breaker]
    panel = Panel([llm, item_free, FallbackJudge(llm, item_free)])
    assert breakers_of(panel) == [breaker]  # one breaker, however many parts share it
    view = CorrectnessJudge.view_fallback(item_free)
    assert breakers_of(view) == []
    breaker.trip("3 consecutive connection failures")
    assert any_open(panel) is breaker and any_open(item_free) is None


def test_a_plug_in_that_declares_nothing_needs_nothing() -> None:
    class Plain:  # the ``Judge`` protocol only: no ``needs``
        identity = None

    assert needs_of(Plain()) is NOTHING and breakers_of(Plain()) == []
    assert needs_of_all([Plain(), ContainsJudge()]) == NOTHING


def test_embedders_are_declared_through_adapters_fallbacks_and_evaluators() -> None:
    stand_in = OllamaEmbedder(host="http://127.0.0.1:9")
    stand_in.instead_of_extra = True
    semantic = SemanticJudge(stand_in)
    correctness = adapted(semantic, "correctness")
    wrapped = FallbackJudge(correctness, ContainsJudge())
    assert [e.inner for e in needs_of(wrapped).embedders] == [stand_in]
    evaluator = CheckJudge(EmbeddingSimilarityCheck(stand_in))
    assert [getattr(e, "inner", e) for e in needs_of(evaluator).embedders] == [stand_in]
    assert needs_of(HeuristicScoreJudge(settings())) is NOTHING


async def test_ready_probes_only_a_stand_in_and_says_how_to_install_the_extra() -> None:
    await needs_of(SemanticJudge(ToyEmbedder())).ready()  # nothing to probe
    stand_in = OllamaEmbedder(host="http://127.0.0.1:9")  # nothing listens on port 9
    stand_in.instead_of_extra = True
    judge = adapted(SemanticJudge(stand_in), "correctness")
    with pytest.raises(EmbeddingsUnavailable, match="--judge semantic: needs an embedding model"):
        await needs_of(judge).ready()
