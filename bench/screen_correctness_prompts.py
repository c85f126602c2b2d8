"""Screen one-token correctness prompts on an evouna-nq tuning sample (not the reported one).

Why a screening harness beside ``bench_truthfulness.py``: a prompt variant that changes the user
message's layout (not only the instruction text) cannot go through the judge's
``use_token_instruction``; this sends each variant through the judge's own logprob caller (same
server settings, one output token, P("1") renormalised over the allowed tokens) and prints
kappa at 0.5, AUC and 5-fold cross-validated kappa. Variants that win here would be versioned in
``config/instructions.py`` and re-measured on the reported seed; the ones below lost:

- ``base``: ``answer_correctness_token@1.0`` (the shipped prompt), question, references, answer.
- ``answer-key``: "check against an answer key" wording, the key after the answer, and a closing
  question naming the key.
- ``answer-key-yes-no``: the same, answered Yes/No instead of 1/0.
- ``few-shot``: the shipped prompt plus five invented worked examples (a wrong entity, a date in
  another format, a shorter name, a wrong discoverer, a hedge).

    python bench/screen_correctness_prompts.py --base-url URL --variant few-shot --seed 14
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_truthfulness as bt

from ragjury import RagjurySettings, build_judge
from ragjury.config.instructions import ONE_DIGIT_RULE as _ONE_DIGIT
from ragjury.config.instructions import UNTRUSTED_DATA_RULE as RULE
from ragjury.evals.stats.calibration import auc, binary_kappa, cross_validate
from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.core.prompting import EVALUATED_ANSWER, QUESTION, REFERENCE, tagged
from ragjury.rag_agent.judges.llm.correctness import ANSWER_CORRECTNESS_TOKEN, correctness_prompt
from ragjury.rag_agent.judges.llm.verdict_base import tagged_list

KEY_RULES = (
    "1 = the evaluated answer gives the answer in the key: it names the same entity, number or date as at least "
    "one <reference> (any one suffices). Different wording, spelling, abbreviation, a fuller or shorter name, or "
    "extra detail is fine.\n"
    "0 = it names a different entity, number or date than every reference (even one that might also be true), "
    "only hedges or refuses, or gives no answer.\n\n"
)
KEY_HEAD = (
    "You check an answer against an answer key written by people. The answer key is always right; do not use "
    "your own knowledge of what is true.\n" + RULE + "\n\n"
)
FEW_SHOT = (
    "Examples:\n"
    '<question>what is the capital of australia</question>\n<reference index="1">Canberra</reference>\n'
    "<evaluated_answer>The capital of Australia is Sydney, its largest city.</evaluated_answer>\n0\n\n"
    '<question>when did the berlin wall fall</question>\n<reference index="1">9 November 1989</reference>\n'
    "<evaluated_answer>The Berlin Wall fell on November 9, 1989, after weeks of protests.</evaluated_answer>\n1\n\n"
    '<question>who wrote the novel frankenstein</question>\n<reference index="1">Mary Wollstonecraft Shelley</reference>\n'
    "<evaluated_answer>Mary Shelley</evaluated_answer>\n1\n\n"
    '<question>who discovered penicillin</question>\n<reference index="1">Alexander Fleming</reference>\n'
    "<evaluated_answer>Penicillin was discovered by Louis Pasteur in the 19th century.</evaluated_answer>\n0\n\n"
    '<question>where was the first modern olympics held</question>\n<reference index="1">Athens</reference>\n'
    "<evaluated_answer>I am not sure; it may have been in Europe.</evaluated_answer>\n0\n\n"
)


def key_last(item: CorrectnessItem) -> str:
    references, _ = tagged_list(REFERENCE, item.references, 2000)
    return "\n\n".join([
        tagged(QUESTION, item.question), tagged(EVALUATED_ANSWER, item.answer),
        f"Answer key (any one suffices):\n{references}",
        "Does the evaluated answer give one of the answers in the key?",
    ])


def shipped_layout(item: CorrectnessItem) -> str:
    return correctness_prompt(item, 2000)


Variant = tuple[str, Callable[[CorrectnessItem], str], tuple[str, str], str]
VARIANTS: dict[str, Variant] = {
    "base": (ANSWER_CORRECTNESS_TOKEN.text, shipped_layout, ("0", "1"), "1"),
    "answer-key": (KEY_HEAD + KEY_RULES + "Answer 1 or 0. " + _ONE_DIGIT, key_last, ("0", "1"), "1"),
    "answer-key-yes-no": (
        KEY_HEAD + KEY_RULES.replace("1 = ", "Yes = ").replace("0 = ", "No = ")
        + "Answer Yes or No. Reply with that single word and nothing else.",
        key_last, ("No", "Yes"), "Yes",
    ),
    "few-shot": (
        ANSWER_CORRECTNESS_TOKEN.text.replace("Answer 1 or 0.", FEW_SHOT + "Answer 1 or 0."), shipped_layout,
        ("0", "1"), "1",
    ),
}


async def screen(variant: Variant, cases: list[bt.Case], settings: RagjurySettings, store: Path) -> list[float | None]:
    instruction, build_prompt, choices, positive = variant
    done: dict[str, float | None] = json.loads(store.read_text()) if store.exists() else {}
    judge = build_judge("correctness", "llm", settings, method="logprobs")
    for index, case in enumerate(cases):
        if str(index) in done:
            continue
        outcome = await judge.logprob_caller.distribution(instruction, build_prompt(case.item), choices)
        done[str(index)] = outcome.distribution.probabilities[positive] if outcome.distribution else None
        if index % 25 == 0:
            store.write_text(json.dumps(done))
            print(f"{index}/{len(cases)}", flush=True)
    store.write_text(json.dumps(done))
    return [done[str(i)] for i in range(len(cases))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--variant", choices=sorted(VARIANTS), required=True)
    parser.add_argument("--seed", type=int, default=14, help="the tuning sample (13 is the reported one)")
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--store", type=Path, default=Path.home() / ".cache" / "ragjury-bench" / "screen")
    args = parser.parse_args()
    args.store.mkdir(parents=True, exist_ok=True)
    cases = bt.evouna_cases(bt.DEFAULT_DATA, args.n, args.seed)
    settings = RagjurySettings(base_url=args.base_url, concurrency=1, max_tokens=512, timeout_s=300)
    probabilities = asyncio.run(
        screen(VARIANTS[args.variant], cases, settings, args.store / f"{args.variant}-{args.seed}-{args.n}.json")
    )
    unscored = sum(p is None for p in probabilities)
    p = np.array([x if x is not None else 0.0 for x in probabilities])
    gold = np.array([c.gold for c in cases])
    cv = cross_validate(p, gold, folds=5, seed=args.seed)
    low, high = cv.kappa_interval
    print(f"{args.variant}: seed {args.seed}, n {len(cases)} ({gold.sum()} correct, {unscored} unscored): "
          f"kappa at 0.5 {binary_kappa(p >= 0.5, gold):.3f}, AUC {auc(p.tolist(), gold.tolist()):.3f}, "
          f"5-fold CV kappa {cv.kappa:.3f} [{low:.3f}, {high:.3f}]")


if __name__ == "__main__":
    main()
