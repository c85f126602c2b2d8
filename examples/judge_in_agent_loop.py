"""Judge each answer inside an async agent loop, and retry when faithfulness is too low.

The agent answers; the faithfulness judge splits the answer into statements and checks each
against exactly the passages the agent retrieved; if the share of supported statements is
below the threshold, the agent tries again with the unsupported statements as feedback. The
most faithful answer is kept. A judge that cannot score (server down, invalid output) never
counts as a pass: its reason is printed and the answer is not accepted on faith.

Run it from the repository root against Ollama (default) or any OpenAI-compatible server:

    python examples/judge_in_agent_loop.py                               # Ollama, llama3.2:3b
    python examples/judge_in_agent_loop.py --base-url http://127.0.0.1:8080/v1 --retrieval pre
    python examples/judge_in_agent_loop.py --question "do goldfish grow" --threshold 1.0

Small models that never call tools (e.g. SmolLM2 on llama-server) need ``--retrieval pre``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import dataclass
from pathlib import Path

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.agent.reference_agent import AgentResponse, RAGAgent
from ragjury.rag_agent.core.items import FaithfulnessItem
from ragjury.rag_agent.core.prompting import STATEMENT, tagged
from ragjury.rag_agent.judges.llm.faithfulness import FaithfulnessJudge

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO / "tests" / "fixtures" / "agent_passages.jsonl"  # 50 TREC DL 2019 passages
DEFAULT_TOPICS = REPO / "tests" / "fixtures" / "agent_topics.jsonl"


@dataclass
class Outcome:
    """The answer the loop settled on, its faithfulness, and how many attempts were made."""

    question: str
    response: AgentResponse | None
    faithfulness: float | None
    accepted: bool
    attempts: int = 0


def retry_feedback(unsupported: list[str]) -> str:
    """Tell the agent which of its claims the passages did not support (tagged: it is model text)."""
    listed = "\n".join(tagged(STATEMENT, statement) for statement in unsupported)
    return (
        "These statements of your previous answer are NOT supported by the passages:\n"
        f"{listed}\nAnswer again using only what the passages say; leave out anything they do not state."
    )


async def answer_faithfully(
    agent: RAGAgent, judge: FaithfulnessJudge, question: str, *, threshold: float, max_attempts: int
) -> Outcome:
    """Ask, judge, and retry with feedback until faithfulness >= threshold or attempts run out."""
    best = Outcome(question, None, None, accepted=False)
    feedback: str | None = None
    for attempt in range(1, max_attempts + 1):
        best.attempts = attempt
        response = await agent.query(question, feedback=feedback)
        if response.answer is None:
            print(f"  [{question[:40]}] attempt {attempt}: no answer: {response.error}")
            continue
        judgment = await judge.ajudge(
            FaithfulnessItem(answer=response.answer.answer, contexts=response.contexts, question=question)
        )
        if judgment.value is None:
            print(f"  [{question[:40]}] attempt {attempt}: faithfulness unscored: {judgment.unscored_reason}")
            if best.response is None:
                best = Outcome(question, response, None, accepted=False, attempts=attempt)
            continue
        score = judgment.value.score
        print(f"  [{question[:40]}] attempt {attempt}: faithfulness {score:.2f}")
        if best.faithfulness is None or score > best.faithfulness:
            best = Outcome(question, response, score, accepted=score >= threshold, attempts=attempt)
        if score >= threshold:
            return best
        feedback = retry_feedback([s.statement for s in judgment.value.unsupported])
    return best


async def main(args: argparse.Namespace) -> int:
    settings = RagjurySettings(**({"base_url": args.base_url} if args.base_url else {}))
    if args.model:
        settings = settings.model_copy(update={"agent_model": args.model})
    agent = RAGAgent(args.corpus, settings=settings, retrieval=args.retrieval, top_k=args.top_k)
    judge = FaithfulnessJudge(settings=settings)
    questions = (
        args.question
        or [json.loads(line)["query"] for line in Path(args.topics).read_text().splitlines() if line.strip()][
            : args.limit
        ]
    )

    print(
        f"agent {agent.model_name} ({agent.retrieval} retrieval), judge {judge.identity.model}, "
        f"{len(agent.index)} passages, threshold {args.threshold}"
    )
    semaphore = asyncio.Semaphore(settings.concurrency)

    async def bounded(question: str) -> Outcome:
        async with semaphore:
            return await answer_faithfully(
                agent, judge, question, threshold=args.threshold, max_attempts=args.max_attempts
            )

    outcomes = await asyncio.gather(*(bounded(q) for q in questions))
    print()
    for outcome in outcomes:
        answer = outcome.response.answer.answer if outcome.response and outcome.response.answer else None
        faithfulness = f"{outcome.faithfulness:.2f}" if outcome.faithfulness is not None else "unscored"
        status = "accepted" if outcome.accepted else "NOT accepted"
        print(f"- {outcome.question}")
        print(f"  {status} after {outcome.attempts} attempt(s), faithfulness {faithfulness}")
        print(f"  answer: {answer}")
    accepted = sum(outcome.accepted for outcome in outcomes)
    print(f"\n{accepted}/{len(outcomes)} answers reached faithfulness >= {args.threshold}")
    return 0 if accepted == len(outcomes) else 1


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base-url", help="OpenAI-compatible base URL (default: Ollama at $OLLAMA_HOST/v1)")
    parser.add_argument("--model", help="agent model (default: $RAGJURY_AGENT_MODEL or llama3.2:3b)")
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="JSONL of {docid, text} passages")
    parser.add_argument("--topics", default=str(DEFAULT_TOPICS), help="JSONL of {query} questions")
    parser.add_argument("--question", action="append", help="a question (repeatable); overrides --topics")
    parser.add_argument("--limit", type=int, default=3, help="how many topics to ask")
    parser.add_argument("--retrieval", choices=("tool", "pre"), default="tool")
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--threshold", type=float, default=0.8, help="minimum faithfulness to accept")
    parser.add_argument("--max-attempts", type=int, default=3)
    return parser.parse_args()


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse_args())))
