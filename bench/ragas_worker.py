"""Ragas ``Faithfulness`` as a worker process, run by the Python of its own virtual environment.

Why a separate process: ragas 0.4.3 needs ``instructor``, which needs ``openai<3``, while ragjury's
pydantic-ai needs ``openai>=3.26``; the two cannot share one environment. ``bench/peers.py`` builds
Ragas its own venv (from PyPI, outside the clone) and ``bench/bench_truthfulness.py`` talks to this
worker over stdin/stdout, one JSON object per line each way. Nothing of Ragas is copied: this file
only calls its public API (``llm_factory``, ``metrics.collections.Faithfulness``) and counts the
tokens its requests spent, from the ``usage`` of each HTTP response.

Input lines: ``{"id", "question", "answer", "contexts"}``. Output lines: ``{"id", "score" (or null),
"error" (or null), "input_tokens", "output_tokens", "requests", "latency_s"}``.
Usage: ``python bench/ragas_worker.py BASE_URL MODEL MAX_TOKENS``.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
import time

import httpx
from openai import AsyncOpenAI
from ragas.llms import llm_factory
from ragas.metrics.collections import Faithfulness

SPENT = {"input_tokens": 0, "output_tokens": 0, "requests": 0}


class CountingTransport(httpx.AsyncBaseTransport):
    """Counts the tokens each Chat Completions response reports, whatever Ragas does with it."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        SPENT["requests"] += 1
        try:
            usage = json.loads(body).get("usage") or {}
            SPENT["input_tokens"] += int(usage.get("prompt_tokens") or 0)
            SPENT["output_tokens"] += int(usage.get("completion_tokens") or 0)
        except (ValueError, AttributeError):
            pass
        return httpx.Response(response.status_code, headers=response.headers, content=body, request=request)


async def main(base_url: str, model: str, max_tokens: int) -> None:
    client = AsyncOpenAI(base_url=base_url, api_key="none",
                         http_client=httpx.AsyncClient(transport=CountingTransport(), timeout=600))
    metric = Faithfulness(llm=llm_factory(model, client=client, max_tokens=max_tokens, temperature=0.0))
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        item = json.loads(line)
        before = dict(SPENT)
        started = time.perf_counter()
        score: float | None = None
        error: str | None = None
        try:
            result = await metric.ascore(user_input=item.get("question") or "", response=item["answer"],
                                         retrieved_contexts=item["contexts"])
            value = float(result.value)
            if math.isnan(value):
                error = "ragas returned NaN (no statements)"
            else:
                score = value
        except Exception as failure:  # noqa: BLE001 - reported per item, like an unscored judgment
            error = f"{type(failure).__name__}: {str(failure)[:300]}"
        out = {"id": item["id"], "score": score, "error": error, "latency_s": time.perf_counter() - started}
        out.update({key: SPENT[key] - before[key] for key in SPENT})
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
