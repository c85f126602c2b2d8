"""Per-judgment latency and throughput of JudgeLLM against a real server.

Why: speed claims must be measured, not asserted in unit tests. By default this starts the
test llama-server (``tests/llama_server.py``: SmolLM2-135M aliased ``phi3:mini``); pass
``--base-url`` to measure Ollama or any OpenAI-compatible server instead.

    python bench/bench_judge_latency.py                      # test llama-server, 10 judgments
    python bench/bench_judge_latency.py --base-url http://localhost:11434/v1 --model phi3:mini
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from ragjury.config.settings import RagjurySettings  # noqa: E402
from ragjury.rag_agent.core.schemas import SourceDocument  # noqa: E402
from ragjury.rag_agent.judges.llm.multi_dimension import JudgeLLM  # noqa: E402

SOURCE = SourceDocument(
    id="d1",
    content="Retrieval-augmented generation (RAG) retrieves passages from a corpus and gives them to a "
    "language model, which writes an answer grounded in them.",
)
ANSWERS = [
    "RAG combines retrieval with generation.",
    "RAG is a kind of cheese from the Alps.",
    "It retrieves passages and then generates an answer grounded in them.",
    "Retrieval-augmented generation.",
    "RAG means the model answers from memory only.",
]


@contextlib.contextmanager
def server(base_url: str | None) -> Iterator[str]:
    if base_url:
        yield base_url
        return
    sys.path.insert(0, str(REPO / "tests"))
    from llama_server import running_server

    with running_server() as running:
        yield running.base_url


async def measure(settings: RagjurySettings, n: int) -> None:
    judge = JudgeLLM(settings=settings)
    latencies: list[float] = []
    unscored: list[str] = []
    tokens_out = 0
    started = time.perf_counter()
    for index in range(n):
        judgment = await judge.evaluate("What is RAG?", ANSWERS[index % len(ANSWERS)], [SOURCE])
        latencies.append(judgment.latency_s)
        tokens_out += judgment.usage.output_tokens
        if judgment.unscored:
            unscored.append(judgment.unscored_reason or "")
    wall = time.perf_counter() - started
    print(f"model {judge.identity.model} at {settings.openai_base_url}, output mode {settings.output_mode}")
    print(f"judgments: {n}, unscored: {len(unscored)}")
    print(f"latency s: median {statistics.median(latencies):.2f}, mean {statistics.mean(latencies):.2f}, "
          f"min {min(latencies):.2f}, max {max(latencies):.2f}")
    print(f"throughput: {n / wall:.3f} judgments/s sequential; output tokens/judgment {tokens_out / n:.0f}")
    for reason in unscored[:3]:
        print("  unscored:", reason[:160])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    parser.add_argument("--max-tokens", type=int, default=384)
    args = parser.parse_args()
    with server(args.base_url) as base_url:
        update: dict[str, object] = {"base_url": base_url, "max_tokens": args.max_tokens, "timeout_s": 300}
        if args.model:
            update["judge_model"] = args.model
        asyncio.run(measure(RagjurySettings().model_copy(update=update), args.n))


if __name__ == "__main__":
    main()
