"""The judge card's intervals: do they cover, and does the length test keep its false-positive rate?

Two parts, each over seeded draws:

- **simulated**: leniency (judge rate − people rate) of 0/1 and probability judges at 20–100
  labelled items, against its known value; the length slope's "found" rate where no length
  effect exists (should be ≈ 0.05) and where one is planted (power).
- **dev sets** (confirm half, ``bench/splits.py``): every item is labelled, so each system's
  leniency and the length slope over all its items are known; each draw labels n items per system
  and checks that the card's intervals cover those values. Judges: ``contains`` on evouna-nq,
  ``support`` on begin-dev (predictions made by ``bench_ppi.py``'s cached ``evaluate`` runs).

Every rate is printed with its count and a Wilson 95 % interval.

Run:  .venv/bin/python bench/bench_judge_card.py [--draws 1000]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_ppi import evaluate_predictions  # noqa: E402
from splits import BENCHMARKS, half_of  # noqa: E402

from ragjury.evals.io.predictions import load_predictions  # noqa: E402
from ragjury.evals.stats.judge_card import CardItem, length_slope, paired_difference  # noqa: E402
from ragjury.evals.stats.run_card import judged_text  # noqa: E402
from ragjury.evals.stats.run_estimates import judge_score  # noqa: E402


def wilson(k: int, n: int) -> str:
    p, z = k / n, 1.959964
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{k}/{n} = {p:.3f} [{centre - half:.3f}, {centre + half:.3f}]"


def simulated_leniency(draws: int) -> None:
    print("leniency, simulated: coverage of the 95 % interval")
    settings = {"0/1: +0.15 / -0.03 discordant": (0.15, 0.03), "0/1: 2 % yes-for-no only": (0.02, 0.0),
                "0/1: 10 % each way": (0.10, 0.10)}
    for n in (20, 50, 100):
        for name, (yes_for_no, no_for_yes) in settings.items():
            rng = np.random.default_rng(n)
            covered = 0
            for _ in range(draws):
                u = rng.random(n)
                agreed = (rng.random(n) < 0.5).astype(float)
                judge = np.where(u < yes_for_no, 1.0, np.where(u < yes_for_no + no_for_yes, 0.0, agreed))
                people = np.where(u < yes_for_no, 0.0, np.where(u < yes_for_no + no_for_yes, 1.0, agreed))
                span = paired_difference(judge, people)
                covered += span.low <= yes_for_no - no_for_yes <= span.high
            print(f"  n = {n:3d}  {name:32s} {wilson(covered, draws)}")
        rng = np.random.default_rng(9)
        labels = rng.random(200_000) < 0.6
        scores = np.clip(np.where(labels, 0.75, 0.3) + rng.normal(0, 0.2, labels.size), 0, 1)
        truth = scores.mean() - labels.mean()
        covered = 0
        for _ in range(draws):
            pick = rng.integers(0, labels.size, n)
            span = paired_difference(scores[pick], labels[pick].astype(float))
            covered += span.low <= truth <= span.high
        print(f"  n = {n:3d}  {'P(yes), noisy':32s} {wilson(covered, draws)}")


def simulated_items(rng: np.random.Generator, bias: float, n: int = 200, verdicts: bool = False) -> list[CardItem]:
    """Two systems; right answers longer; P(yes) from the label, noise and ``bias`` per 100 words."""
    items = []
    for system, scale in (("long", 60.0), ("short", 15.0)):
        label = rng.random(n // 2) < 0.6
        words = np.maximum(1, rng.gamma(2.0, scale / 2.0, n // 2) * np.where(label, 1.5, 1.0)).astype(int)
        logit = np.where(label, 1.8, -1.8) + rng.normal(0.0, 1.0, n // 2) + bias * words / 100.0
        p = 1.0 / (1.0 + np.exp(-logit))
        verdict = (rng.random(n // 2) < p).astype(int)
        for k in range(n // 2):
            score = float(verdict[k]) if verdicts else float(p[k])
            items.append(CardItem(system, score, int(verdict[k]), int(label[k]), int(words[k])))
    return items


def simulated_length(draws: int) -> None:
    print("length slope, simulated (200 answers, 2 systems): share of draws where it is 'found'")
    for bias in (0.0, 2.0):
        for verdicts in (False, True):
            rng = np.random.default_rng(11)
            found = 0
            for _ in range(draws):
                fitted = length_slope(simulated_items(rng, bias, verdicts=verdicts))
                found += fitted is not None and fitted[0].found
            name = f"{'planted +2 logit/100 words' if bias else 'no length effect'}, {'0/1 verdict' if verdicts else 'P(yes)'}"
            print(f"  {name:42s} {wilson(found, draws)}")


def dev_items(dataset: str, task: str, judge: str) -> dict[str, list[CardItem]]:
    """The confirm half's items of one judge, per system."""
    run = load_predictions(evaluate_predictions(dataset, task, judge))
    rows = {json.loads(line)["id"]: json.loads(line) for line in (BENCHMARKS / dataset / f"{task}.jsonl").open()}
    groups: dict[str, list[CardItem]] = defaultdict(list)
    for record in run.records:
        score = judge_score(record)
        text = judged_text(record)
        if score is None or record.gold is None or record.id not in rows or text is None:
            continue
        if half_of(dataset, rows[record.id]) != "confirm":
            continue
        groups[record.system or "all"].append(
            CardItem(record.system or "all", score, int(bool(record.label)), int(bool(record.gold)), len(text[1].split()),
                     cluster=record.question or record.id.rsplit("-", 1)[0])
        )
    return dict(sorted(groups.items()))


def dev_sets(draws: int) -> None:
    for dataset, task, judge in (("evouna-nq", "correctness", "contains"), ("begin-dev", "faithfulness", "support")):
        groups = dev_items(dataset, task, judge)
        everything = [item for group in groups.values() for item in group]
        whole = length_slope(everything)
        slope = None if whole is None else whole[0].value
        print(f"{judge} on {dataset} (confirm half, {len(everything):,} items, {len(groups)} systems); slope over all: "
              f"{'-' if whole is None else whole[0].text()} per 100 words")
        for n in (50, 100):
            rng = np.random.default_rng(n)
            covered: dict[str, int] = defaultdict(int)
            slope_covered = slope_fitted = 0
            for _ in range(draws):
                picked: list[CardItem] = []
                for name, group in groups.items():
                    truth = np.mean([i.score for i in group]) - np.mean([i.label for i in group])
                    sample = [group[k] for k in rng.choice(len(group), size=min(n, len(group)), replace=False)]
                    span = paired_difference([i.score for i in sample], [i.label for i in sample])
                    covered[name] += span.low <= truth <= span.high
                    picked += sample
                fitted = length_slope(picked)
                if fitted is not None and slope is not None:
                    slope_fitted += 1
                    slope_covered += fitted[0].low <= slope <= fitted[0].high
            for name in groups:
                print(f"  n = {n:3d}  leniency of {name:12s} {wilson(covered[name], draws)}")
            if slope_fitted:
                print(f"  n = {n:3d}  length slope (all systems)  {wilson(slope_covered, slope_fitted)}")
            by_question: dict[str, list[CardItem]] = defaultdict(list)
            for item in everything:
                by_question[str(item.cluster)].append(item)
            questions = sorted(by_question)
            if len(questions) < len(everything):  # the same questions labelled for every system: answers cluster
                rng = np.random.default_rng(10_000 + n)
                slope_covered = slope_fitted = 0
                for _ in range(draws):
                    chosen = rng.choice(len(questions), size=min(n, len(questions)), replace=False)
                    fitted = length_slope([item for k in chosen for item in by_question[questions[k]]])
                    if fitted is not None and slope is not None:
                        slope_fitted += 1
                        slope_covered += fitted[0].low <= slope <= fitted[0].high
                if slope_fitted:
                    print(f"  n = {n:3d}  length slope, same {n} questions for every system  "
                          f"{wilson(slope_covered, slope_fitted)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--skip-dev", action="store_true", help="only the simulated part")
    args = parser.parse_args()
    simulated_leniency(args.draws)
    simulated_length(min(args.draws, 500))
    if not args.skip_dev:
        dev_sets(args.draws)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
