"""JudgeLLM: a multi-dimension judge of RAG answers on pydantic-ai with typed output.

The model rates five dimensions plus its confidence; ``overall_score`` is computed in code
from the ratings with configurable weights (``RAGJURY_WEIGHTS``), so it cannot contradict
them. Sources go into the prompt in full up to a token budget, inside data tags.
"""

from __future__ import annotations

from pydantic_ai.models import Model
from typing_extensions import Unpack

from ragjury.config.instructions import UNTRUSTED_DATA_RULE, Instruction
from ragjury.rag_agent.core.items import ScoreItem
from ragjury.rag_agent.core.prompting import EVALUATED_ANSWER, QUESTION, format_sources, tagged
from ragjury.rag_agent.core.protocol import JudgeIdentity
from ragjury.rag_agent.core.results import Judgment
from ragjury.rag_agent.core.schemas import JudgeScore, ModelRatings
from ragjury.rag_agent.core.judge_entry import judge_entry
from ragjury.rag_agent.judges.llm.model_judge import LLMOptions, ModelJudge

JUDGE_SCORE = Instruction(
    name="judge_score",
    version="2.0",
    text=(
        "You are a strict, fair evaluator of answers produced by a retrieval-augmented "
        "generation (RAG) system.\n"
        f"{UNTRUSTED_DATA_RULE}\n\n"
        "Rate the evaluated answer on each dimension with a whole number from 0 (worst) to 10 (best):\n"
        "- relevance: does it address the question that was asked?\n"
        "- completeness: does it cover what the question needs?\n"
        "- accuracy: is every claim correct and, where sources are given, supported by them?\n"
        "- source_attribution: are claims traceable to the given sources (0 if it cites none "
        "or cites sources that do not say it)?\n"
        "- coherence: is it clear, well organised and free of contradictions?\n"
        "- confidence: how sure you are of your own ratings.\n"
        "Give a short reasoning (one to three sentences) that names the main weakness.\n"
        "Answer with the JSON object only."
    ),
)


def score_prompt(item: ScoreItem, token_budget: int) -> str:
    """The user prompt of a score judgment: question, answer and sources as tagged data."""
    parts = [tagged(QUESTION, item.question), tagged(EVALUATED_ANSWER, item.answer)]
    if item.sources:
        sources_text, omitted = format_sources(item.sources, token_budget)
        parts.append("Sources the answer may rely on:\n" + sources_text)
        if omitted:
            parts.append(f"({omitted} characters of sources were not shown: token budget.)")
    else:
        parts.append("No sources were given: rate source_attribution 0 unless the answer needs none.")
    if item.sources_used:
        parts.append("The answer says it used sources: " + ", ".join(item.sources_used))
    return "\n\n".join(parts)


@judge_entry(
    "score",
    "llm",
    "JudgeLLM, five dimensions",
    scale="score",
    uses_model=True,
    fallback="heuristic",
    default=True,
)
class JudgeLLM(ModelJudge[ScoreItem, JudgeScore]):
    """Rates an answer on relevance, completeness, accuracy, source attribution and coherence.

    Defaults come from ``RagjurySettings``: local Ollama, ``phi3:mini``, temperature 0.1,
    ``NativeOutput``. Pass ``base_url`` for any OpenAI-compatible server, or a pydantic-ai
    ``Model`` (e.g. ``TestModel``) directly.
    """

    name = "judge_llm"

    def __init__(
        self,
        model: str | Model | None = None,
        *,
        instruction: Instruction = JUDGE_SCORE,
        **options: Unpack[LLMOptions],
    ) -> None:
        super().__init__(model, **options)
        self.instruction = instruction

    @property
    def identity(self) -> JudgeIdentity:
        weights = ",".join(f"{k}={v:.4g}" for k, v in self.settings.weights.normalised().items())
        return JudgeIdentity(
            name=self.name,
            model=self.caller.model_name,
            prompt_version=self.instruction.tag,
            params=f"budget={self.settings.source_token_budget};weights={weights};"
                   f"temperature={self.settings.temperature:g};server={self.server}",
        )

    async def _judge(self, item: ScoreItem) -> Judgment[JudgeScore]:
        prompt = score_prompt(item, self.settings.source_token_budget)
        outcome = await self.caller.call(
            self.instruction.text, ModelRatings, prompt, name=f"{self.name}:{self.instruction.tag}"
        )
        if not outcome.ok or outcome.output is None:
            judgment = self.unscored(outcome.error or "no output", usage=outcome.usage)
        else:
            score = JudgeScore.from_ratings(outcome.output.to_ratings(), self.settings.weights.normalised())
            judgment = self.scored(score, usage=outcome.usage, attempts=1 + outcome.retries_used)
        return judgment.model_copy(update={"latency_s": outcome.latency_s})


__all__ = ["JudgeLLM", "score_prompt"]
