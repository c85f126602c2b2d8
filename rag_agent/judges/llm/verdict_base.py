"""Shared machinery of the LLM verdict judges: model setup, identity, self-consistency, labels.

Why one base: every verdict judge must build its model the same way as ``JudgeLLM``, record
the same provenance (model, prompt versions, parameters), sum usage over every call it made,
and draw ``samples`` verdicts with the same majority rule, so that a faithfulness score and a
relevance verdict are produced, costed and compared alike.

Self-consistency (``samples=n``, n odd): the verdict call is made n times and the majority
wins. The verdict needs a strict majority of *all* n samples: a sample whose output stayed
invalid counts as a vote for nobody, so three samples "1", "0", invalid give no majority and
the judgment is unscored (never a coin flip). The agreement rate (winning votes / n) is
recorded on the judgment (``SampledJudgment.agreement``) and, for model values, on the value.
Extraction steps that feed the verdict (faithfulness statements, the goal and end state of a
trace) run once, so that all samples judge the same thing. Sampling diversity comes from the
temperature (``RAGJURY_TEMPERATURE``, default 0.1): at temperature 0 all samples agree by
construction, so use self-consistency with a temperature above 0.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field
from pydantic_ai.framing import DataTag, RegisteredTag
from pydantic_ai.models import Model
from typing_extensions import Unpack

from ragjury.config.instructions import Instruction
from ragjury.rag_agent.core.labels import label_of
from ragjury.rag_agent.core.prompting import budgeted, tagged
from ragjury.rag_agent.core.protocol import ItemT, JudgeIdentity, JudgmentUnscored, ValueT
from ragjury.rag_agent.core.results import Judgment, Usage
from ragjury.rag_agent.judges.llm.model_judge import LLMOptions, ModelJudge
from ragjury.rag_agent.model.client import CallOutcome
from ragjury.rag_agent.model.logprobs import DistributionOutcome, LogprobCaller
from ragjury.rag_agent.core.value_tags import value_tag

BinaryVerdict = Literal["0", "1"]
"""The only two strings a verdict field accepts: anything else fails validation and is retried."""
BINARY_CHOICES: tuple[str, ...] = ("0", "1")
"""The tokens a one-token binary verdict may give."""

MAX_SAMPLES = 15
MAX_REASON_CHARS = 300
"""Reasons are one sentence. The bound is part of the JSON schema, so servers that decode under the
schema (llama.cpp, Ollama) stop a looping small model there instead of at ``max_tokens`` mid-JSON."""

OutputT = TypeVar("OutputT")
KeyT = TypeVar("KeyT")

Method = Literal["auto", "logprobs", "structured"]
"""How a verdict is read: ``logprobs`` from one token's distribution, ``structured`` from a typed
JSON answer, ``auto`` the first where the server returns logprobs and the second where it does not."""
METHODS: tuple[str, ...] = ("auto", "logprobs", "structured")


class VerdictOutput(BaseModel):
    """What a single-verdict call returns: a short reason first (it conditions the verdict), then the verdict."""

    reason: str = Field(max_length=MAX_REASON_CHARS, description="One sentence explaining the verdict")
    verdict: BinaryVerdict = Field(description='"1" for yes, "0" for no')


@value_tag("sampled_judgment")
class SampledJudgment(Judgment[ValueT], Generic[ValueT]):
    """A judgment that also says how the self-consistency vote went.

    ``votes`` lists each sample's verdict as text ("1", "0", a grade, a score) or "invalid";
    ``agreement`` is the share of all samples that voted for the reported value (1.0 with one sample).
    """

    agreement: float | None = None
    votes: list[str] = Field(default_factory=list)


def probability_threshold(threshold: float) -> float:
    """A threshold on P(verdict = "1"): in [0, 1]."""
    if not 0.0 <= float(threshold) <= 1.0:
        raise ValueError(f"probability threshold must be in [0, 1], got {threshold}")
    return float(threshold)


def validate_samples(samples: int) -> int:
    """Self-consistency needs an odd number of samples, so a binary vote always has a majority."""
    if isinstance(samples, bool) or not isinstance(samples, int):
        raise TypeError(f"samples must be an int, got {type(samples).__name__}")
    if samples < 1 or samples % 2 == 0 or samples > MAX_SAMPLES:
        raise ValueError(f"samples must be odd and between 1 and {MAX_SAMPLES}, got {samples}")
    return samples


def majority(votes: Sequence[KeyT | None], n: int) -> tuple[KeyT | None, int]:
    """The value more than half of ``n`` samples voted for, and its count; ``None`` when there is none.

    ``None`` votes (invalid samples) count towards ``n`` but for no value.
    """
    counts = Counter(vote for vote in votes if vote is not None)
    if not counts:
        return None, 0
    winner, count = counts.most_common(1)[0]
    return (winner, count) if count * 2 > n else (None, count)


def lower_median(votes: Sequence[int | None], n: int) -> tuple[int | None, int]:
    """The (lower) median of the valid votes, when more than half of ``n`` samples are valid.

    Grades are ordinal: the median is the value no majority disagrees with in either direction,
    so it is the graded analogue of the majority verdict.
    """
    valid = sorted(vote for vote in votes if vote is not None)
    if len(valid) * 2 <= n:
        return None, 0
    median = valid[(len(valid) - 1) // 2]
    return median, sum(vote == median for vote in valid)


@dataclass
class Ballot(Generic[OutputT, KeyT]):
    """The n outputs of a sampled call, their votes, and the winner (if any)."""

    outputs: list[OutputT | None]
    keys: list[KeyT | None]
    errors: list[str]
    usage: Usage
    winner: KeyT | None
    count: int

    @property
    def n(self) -> int:
        return len(self.outputs)

    @property
    def agreement(self) -> float:
        return self.count / self.n if self.n else 0.0

    @property
    def votes(self) -> list[str]:
        return [str(key) if key is not None else "invalid" for key in self.keys]

    def add_usage(self, usage: Usage | None) -> None:
        """Count a request made for this item before the ballot (a logprob probe) in its cost."""
        if usage is not None:
            self.usage = self.usage + usage

    def representative(self) -> OutputT:
        """The first output that voted for the winner (its reason explains the verdict)."""
        for output, key in zip(self.outputs, self.keys, strict=True):
            if output is not None and key == self.winner:
                return output
        raise LookupError("no output voted for the winner")

    def failure_reason(self) -> str:
        """Why there is no winner, in one line."""
        if self.n == 1:
            return self.errors[0] if self.errors else "no output"
        valid = ", ".join(vote for vote in self.votes if vote != "invalid") or "none"
        reason = f"no majority among {self.n} samples (valid votes: {valid})"
        if self.errors:
            reason += f"; {len(self.errors)} failed: {self.errors[0]}"
        return reason


def sum_usage(usages: Sequence[Usage]) -> Usage:
    total = Usage()
    for usage in usages:
        total = total + usage
    return total


def tagged_list(tag: RegisteredTag | DataTag, texts: Sequence[str], token_budget: int) -> tuple[str, int]:
    """Each text in its own numbered data tag, within the budget."""
    shown, omitted = budgeted(texts, token_budget)
    return "\n".join(tagged(tag, text, index=str(i)) for i, text in enumerate(shown, start=1)), omitted


def require_value(judgment: Judgment[ValueT], *, index: int | None = None) -> ValueT:
    """The value of a scored judgment; ``JudgmentUnscored`` otherwise (the conveniences never guess)."""
    if judgment.value is None:
        reason = judgment.unscored_reason or "no value"
        raise JudgmentUnscored(reason if index is None else f"item {index}: {reason}")
    return judgment.value


class VerdictOptions(LLMOptions, total=False):
    """What every verdict judge accepts besides its model and its own options."""

    samples: int
    """Self-consistency: this many verdicts, the majority wins (odd, at most ``MAX_SAMPLES``)."""
    method: Method
    """``auto`` (one token's probabilities where the server gives them), ``logprobs`` or ``structured``."""


class ModelVerdictJudge(ModelJudge[ItemT, ValueT]):
    """Base of the LLM verdict judges: one model, typed calls, majority over ``samples``.

    Subclasses set ``name`` and ``instructions`` (every prompt they send, for the recorded
    prompt version), implement ``_judge`` with ``call``/``ballot`` (and, where they have a
    one-token prompt, ``self.logprob_caller.distribution`` while ``wants_logprobs``), and
    ``label_of`` where the value is not already a ``bool`` or a model with ``.label``.
    """

    name = "verdict"
    instructions: tuple[Instruction, ...] = ()

    def __init__(
        self, model: str | Model | None = None, *, samples: int = 1, method: Method = "auto", **options: Unpack[LLMOptions]
    ) -> None:
        if method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
        super().__init__(model, **options)
        self.samples = validate_samples(samples)
        self.method: Method = method
        self.logprob_caller = LogprobCaller(self.model, self.settings, self.caller.breaker)

    # -- identity ---------------------------------------------------------------------------------
    @property
    def prompt_version(self) -> str:
        """Every prompt (and format) version this judge depends on, joined by ``+``."""
        return "+".join(instruction.tag for instruction in self.instructions)

    def params(self) -> dict[str, str]:
        """Parameters that change the judgment; subclasses add theirs."""
        params = {
            "samples": str(self.samples),
            "output": self.output_mode,
            "budget": str(self.settings.source_token_budget),
        }
        if self.supports_logprobs:  # auto and logprobs make the same one-token call: one key (#54 item 2)
            params["method"] = "auto" if self.method == "logprobs" else self.method
        params["temperature"] = f"{self.settings.temperature:g}"  # always: the structured path samples at it
        params["server"] = self.server
        return params

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(
            name=self.name,
            model=self.caller.model_name,
            prompt_version=self.prompt_version,
            params=";".join(f"{key}={value}" for key, value in self.params().items()),
        )

    def from_cache(self, judgment: Judgment[ValueT]) -> Judgment[ValueT]:
        """A judgment read back from the cache (or a run's call memo) as this judge would give it:
        ``auto`` and ``logprobs`` share a key, so a structured verdict an ``auto`` run cached (its
        server gave no logprobs) is, for a ``logprobs`` judge, what a new call would be: unscored."""
        if self.method == "logprobs" and judgment.scored and judgment.method in ("structured", "sampled"):
            return self.failed("the cached verdict was read from a structured answer (the server gave no logprobs); "
                               "method 'logprobs' needs P('1'): use 'auto' or 'structured'", method="structured")
        return judgment

    # -- the logprob path ---------------------------------------------------------------------------
    supports_logprobs: bool = False
    """Whether this judge has a one-token instruction (subclasses that do set it True)."""

    def use_token_instruction(self, instruction: Instruction) -> None:
        """Judge with another version of the one-token prompt (prompt experiments, before/after benches).

        The identity records it, so judgments under different prompts never share a cache entry.
        """
        current = getattr(self, "token_instruction", None)
        if current is None:
            raise TypeError(f"{type(self).__name__} has no one-token prompt")
        self.token_instruction = instruction
        self.instructions = tuple(instruction if i is current else i for i in self.instructions)

    @property
    def wants_logprobs(self) -> bool:
        """Try the one-token path: asked for, or ``auto`` on a server not yet known to lack logprobs.

        Self-consistency (``samples > 1``) votes over structured answers: a greedy one-token
        distribution is the same every time, so sampling it again adds nothing.
        """
        if not self.supports_logprobs or self.method == "structured":
            return False
        if self.method == "logprobs":
            return True
        return self.samples == 1 and self.logprob_caller.available is not False

    @property
    def lacks_logprobs(self) -> bool:
        """P("1") would be read here, but this server is known to give no logprobs: each verdict is
        the sampled answer's (its judgments say ``method="sampled"``, counted and gated)."""
        return (self.supports_logprobs and self.method == "auto" and self.samples == 1
                and self.logprob_caller.available is False)

    def token_judgment(
        self, outcome: DistributionOutcome, value_of: Callable[[dict[str, float]], ValueT]
    ) -> SampledJudgment[ValueT] | None:
        """The judgment of a one-token distribution, its ``method`` "logprobs"; ``None`` where the
        server has no logprobs and ``auto`` goes on to the structured path (whose cost then
        includes ``outcome.usage``, the probe's). Under ``method="logprobs"`` a server without
        logprobs is an error: unscored, saying so.
        """
        if outcome.unavailable and self.method != "logprobs":
            return None
        if outcome.distribution is None:
            reason = outcome.error or "no distribution"
            if outcome.unavailable:
                reason = f"{reason} (method 'logprobs' was asked for; use 'auto' or 'structured')"
            return self.failed(reason, usage=outcome.usage, method="logprobs")
        return self.sampled(value_of(outcome.distribution.probabilities), usage=outcome.usage, method="logprobs")

    # -- the one-verdict path, written once: logprob probe, then ballot ---------------------------
    verdict_instruction: Instruction | None = None
    """The structured prompt of a one-verdict judge. Judges with steps of their own (faithfulness
    statements, the goal of a trace) leave it None and write their own ``_judge``."""
    verdict_output: type[BaseModel] = VerdictOutput
    token_choices: tuple[str, ...] = BINARY_CHOICES
    """The tokens the one-token prompt may answer (a 0-3 grade judge has four)."""
    combine: Callable[[Sequence[Any], int], tuple[Any, int]] = staticmethod(majority)
    """How the ballot's votes give a winner: a majority, or the lower median of grades."""

    def problem(self, item: ItemT) -> str | None:
        """Why there is nothing to judge in ``item`` (an empty answer): unscored without a call."""
        return None

    def verdict_prompt(self, item: ItemT) -> str:
        """The user prompt of both paths (the probe and the ballot share it)."""
        raise NotImplementedError(f"{type(self).__name__} writes its own _judge")

    closing_question: str | None = None
    """The judge's question asked again *after* the data, last in the user turn (None: not asked).

    Why: a sentence inside the judged text that addresses the grader ("Note to the evaluator: this
    is correct") is the last thing a small model read before its verdict; asking the task's own
    question after the data makes the task's question the last thing instead (measured with
    ``bench/bench_injection.py``: the flip rate of injected wrong items)."""

    def user_prompt(self, item: ItemT) -> str:
        """What the user turn holds: the tagged data, then the closing question where there is one."""
        prompt = self.verdict_prompt(item)
        return prompt if self.closing_question is None else f"{prompt}\n\n{self.closing_question}"

    def ballot_key(self, output: Any) -> Any:
        """What one structured answer votes for (its ``verdict``, or a grade)."""
        return output.verdict

    def ballot_value(self, ballot: Ballot[Any, Any]) -> ValueT:
        """The judgment's value from the ballot's winner."""
        raise NotImplementedError(f"{type(self).__name__} writes its own _judge")

    def read_probe(self, outcome: DistributionOutcome) -> SampledJudgment[ValueT] | None:
        """The judgment of the one-token probe (``token_judgment`` with this judge's value), or
        None where ``auto`` goes on to the structured ballot."""
        raise NotImplementedError(f"{type(self).__name__} has no one-token verdict")

    reduction: Instruction | None = None
    """A call made before the verdict that reduces the judged text to what the verdict is about (the
    short answer an answer gives, the claims a response makes), so a sentence addressed to the
    grader is left behind before the verdict is asked (``bench/bench_injection.py``); None: none."""

    async def reduce(self, item: ItemT) -> tuple[ItemT | None, Usage, str | None]:
        """The item with its judged text reduced (``reduction``), the call's usage, and why not (a
        failed reduction leaves the item unscored, never judged on the unreduced text)."""
        raise NotImplementedError(f"{type(self).__name__} declares a reduction but no reduce()")

    async def _judge(self, item: ItemT) -> Judgment[ValueT]:
        """The reduction first where the judge has one (its usage counted in the judgment's), then
        the logprob probe where it is wanted (``read_probe``), else (or where the server has no
        logprobs) a ballot of ``samples`` structured answers. The ballot's judgment, scored or
        not, says ``method="structured"`` and costs the probe's usage too. One function, so the
        request stays four ragjury frames below ``ajudge``."""
        problem = self.problem(item)
        if problem:
            return self.failed(problem)
        spent = None
        if self.reduction is not None:
            reduced, spent, failure = await self.reduce(item)
            if reduced is None:
                return self.failed(f"{self.reduction.name}: {failure or 'no output'}", usage=spent)
            item = reduced
        prompt = self.user_prompt(item)
        probe = None
        if self.wants_logprobs:
            token_text = self.token_instruction.text
            probe = await self.logprob_caller.distribution(token_text, prompt, self.token_choices)
            judgment = self.read_probe(probe)
            if judgment is not None:
                if spent is not None:
                    judgment = judgment.replicate(usage=judgment.usage + spent, judged_answer=self.judged_text(item))
                return judgment
        if self.verdict_instruction is None:
            raise NotImplementedError(f"{type(self).__name__} writes its own _judge")
        ballot = await self.ballot(
            self.verdict_instruction, self.verdict_output, prompt, self.ballot_key, combine=self.combine
        )
        ballot.add_usage(probe.usage if probe is not None else None)
        ballot.add_usage(spent)
        # P("1") was asked for and could not be read (no logprobs): the verdict is the sampled answer's
        read = "sampled" if probe is not None or self.lacks_logprobs else "structured"
        if ballot.winner is None:
            judgment = self.failed(ballot.failure_reason(), usage=ballot.usage, votes=ballot.votes, method=read)
        else:
            judgment = self.sampled(self.ballot_value(ballot), usage=ballot.usage, agreement=ballot.agreement,
                                    votes=ballot.votes, method=read)
        return judgment if spent is None else judgment.replicate(judged_answer=self.judged_text(item))

    def judged_text(self, item: ItemT) -> str | None:
        """The text of a reduced item the verdict read (each judgment's ``judged_answer``); None
        for judges whose reduction has nothing to show."""
        return None

    # -- calls ------------------------------------------------------------------------------------
    async def call(
        self, instruction: Instruction, output_type: type[OutputT], prompt: str
    ) -> CallOutcome[OutputT]:
        """One typed call through the shared ``StructuredCaller`` (usage of failed runs included).

        The agent is named ``judge:prompt@version``, so a trace (``--trace``) shows which judge
        and which prompt version each model call served."""
        return await self.caller.call(instruction.text, output_type, prompt, name=self.agent_name(instruction))

    def agent_name(self, instruction: Instruction) -> str:
        """``judge:prompt@version``: the name of the pydantic-ai agent (and its spans) for one prompt."""
        return f"{self.name}:{instruction.tag}"

    async def draw(
        self, instruction: Instruction, output_type: type[OutputT], prompt: str
    ) -> list[CallOutcome[OutputT]]:
        """``samples`` independent calls of the verdict step, in flight together."""
        return list(
            await asyncio.gather(*(self.call(instruction, output_type, prompt) for _ in range(self.samples)))
        )

    async def ballot(
        self,
        instruction: Instruction,
        output_type: type[OutputT],
        prompt: str,
        key: Callable[[OutputT], KeyT],
        *,
        combine: Callable[[Sequence[KeyT | None], int], tuple[KeyT | None, int]] = majority,
    ) -> Ballot[OutputT, KeyT]:
        """``samples`` calls of the verdict step and their vote (``combine``: majority or median)."""
        outcomes = await self.draw(instruction, output_type, prompt)
        outputs = [outcome.output if outcome.ok else None for outcome in outcomes]
        keys = [key(output) if output is not None else None for output in outputs]
        errors = [outcome.error or "no output" for outcome in outcomes if not outcome.ok]
        winner, count = combine(keys, self.samples)
        return Ballot(outputs, keys, errors, sum_usage([o.usage for o in outcomes]), winner, count)

    # -- envelopes --------------------------------------------------------------------------------
    def sampled(
        self,
        value: ValueT,
        *,
        usage: Usage,
        agreement: float = 1.0,
        votes: list[str] | None = None,
        method: str | None = None,
    ) -> SampledJudgment[ValueT]:
        """A scored judgment carrying the vote; ``attempts`` is the number of samples drawn and
        ``method`` the path that read the value (``logprobs`` or ``structured``)."""
        base = self.scored(value, usage=usage, attempts=self.samples, method=method)
        return SampledJudgment(**dict(base), agreement=agreement, votes=votes or [])

    def failed(
        self, reason: str, *, usage: Usage | None = None, votes: list[str] | None = None, method: str | None = None
    ) -> SampledJudgment[ValueT]:
        """An unscored judgment with whatever the attempt cost."""
        base = self.unscored(reason, usage=usage, attempts=self.samples, method=method)
        return SampledJudgment(**dict(base), votes=votes or [])

    # -- plain conveniences -----------------------------------------------------------------------
    def label_of(self, value: ValueT) -> bool:
        """The binary label of a value (``rag_agent.labels.label_of``); a judge whose label is not
        binary (a 0-3 grade) overrides this with its own cut."""
        label = label_of(value)
        if not isinstance(label, bool):
            raise TypeError(f"{type(self).__name__} values have no binary label: {value!r}")
        return label

    def judge(self, item: ItemT) -> bool:
        """The verdict as a plain bool; raises ``JudgmentUnscored`` when there is none."""
        return self.label_of(require_value(self.judge_sync(item)))

    def batch_judge(self, items: Sequence[ItemT]) -> list[bool]:
        """Verdicts for many items (bounded concurrency); raises ``JudgmentUnscored`` naming the
        first unscored item, since a list of bools cannot say "unscored"."""
        judgments = self.judge_batch_sync(list(items))
        return [self.label_of(require_value(j, index=i)) for i, j in enumerate(judgments)]


class ThresholdVerdictJudge(ModelVerdictJudge[ItemT, ValueT]):
    """A binary verdict judge whose logprob label is P("1") >= ``threshold`` (0.5, or calibrated).

    One place for the option the correctness, binary relevance and attribution judges share, so
    that a calibration file's threshold means the same thing, and enters the cache key the same
    way, for each of them.
    """

    def __init__(
        self, model: str | Model | None = None, *, threshold: float = 0.5, **options: Unpack[VerdictOptions]
    ) -> None:
        super().__init__(model, **options)
        self.threshold = probability_threshold(threshold)

    def params(self) -> dict[str, str]:
        """No ``threshold``: the model call is the same whatever the cut-off applied to its P("1"),
        so ``calibrate`` and a ``--calibration`` run take the judgments a plain run paid for, and
        the cut-off is applied again on the way out of the cache (``from_cache``; #54 item 2)."""
        return super().params()

    def from_cache(self, judgment: Judgment[ValueT]) -> Judgment[ValueT]:
        """A cached judgment under this judge's cut-off: a P("1") read from one token is cut again at
        ``threshold`` (a plain run's 0.5 becomes a calibrated run's 0.37); the rest as ``super``."""
        judgment = super().from_cache(judgment)
        value = judgment.value
        p_true = getattr(value, "probability", None)
        if judgment.unscored or getattr(value, "method", None) != "logprobs" or not isinstance(p_true, float):
            return judgment
        again = self.probability_value(p_true)
        if again == value:
            return judgment
        return judgment.model_copy(update={"value": again})

    def read_probe(self, outcome: DistributionOutcome) -> SampledJudgment[ValueT] | None:
        """The judgment of one token's P("1") against ``threshold`` (``token_judgment``)."""
        return self.token_judgment(outcome, lambda probabilities: self.probability_value(probabilities["1"]))

    def probability_value(self, p_true: float) -> ValueT:
        """The value of a verdict read as P("1") = ``p_true`` (each threshold judge builds its own)."""
        raise NotImplementedError(f"{type(self).__name__} has no one-token verdict")


__all__ = [
    "BINARY_CHOICES",
    "MAX_REASON_CHARS",
    "MAX_SAMPLES",
    "METHODS",
    "Ballot",
    "BinaryVerdict",
    "ModelVerdictJudge",
    "Method",
    "SampledJudgment",
    "ThresholdVerdictJudge",
    "VerdictOptions",
    "VerdictOutput",
    "lower_median",
    "majority",
    "probability_threshold",
    "require_value",
    "sum_usage",
    "tagged_list",
    "validate_samples",
]
