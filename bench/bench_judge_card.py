"""The judge card's intervals: do they cover, and does the length test keep its false-positive rate?

Two parts, each over seeded draws:

- **simulated**: leniency (judge rate − people rate) of 0/1 and probability judges at 20–100
  labelled items, against its known value; the length slope's "found" rate where no length
  effect exists (should be ≈ 0.05) and where one is planted (power).
- **dev sets** (confirm half, ``bench/splits.py``; ``--half tune`` for choices): every item is
  labelled, so each system's leniency and the length slope over all its items are known; each
  draw labels n items per system (or, for the slope, n questions with every system's answer to
  each) and checks that the card's intervals cover those values. Judges: ``contains`` (and
  ``token-overlap`` for the slope) on evouna-nq, ``support`` on begin-dev (``bench_ppi.py``'s cached
  ``evaluate`` runs), and the stored ``llm`` / ``llm-attribution`` passes (``bench/data``).

Every rate is printed with its count and a Wilson 95 % interval.

Run:  .venv/bin/python bench/bench_judge_card.py [--draws 1000] [--slopes-only | --subsets] [--half tune]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_ppi import evaluate_predictions  # noqa: E402
from splits import BENCHMARKS, half_of  # noqa: E402

from ragjury.evals.io.predictions import load_predictions  # noqa: E402
from ragjury.evals.stats.judge_card import CardItem, length_slope, paired_difference  # noqa: E402
from ragjury.evals.stats.run_estimates import judged_text  # noqa: E402
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


def _cluster(dataset: str, row: dict) -> str:
    """The item's question: what several systems' answers share (EVOUNA's question; BEGIN's turn)."""
    return str(row["question"]) if dataset == "evouna-nq" else f"{row['question']}\n{row['context']}"


def dev_items(dataset: str, task: str, judge: str, half: str = "confirm") -> dict[str, list[CardItem]]:
    """One half's items of one model-free judge (``ragjury evaluate``, cached by bench_ppi), per system."""
    run = load_predictions(evaluate_predictions(dataset, task, judge))
    rows = {json.loads(line)["id"]: json.loads(line) for line in (BENCHMARKS / dataset / f"{task}.jsonl").open()}
    groups: dict[str, list[CardItem]] = defaultdict(list)
    for record in run.records:
        score = judge_score(record)
        text = judged_text(record)
        if score is None or record.gold is None or record.id not in rows or text is None:
            continue
        if half_of(dataset, rows[record.id]) != half:
            continue
        groups[record.system or "all"].append(
            CardItem(record.system or "all", score, int(bool(record.label)), int(bool(record.gold)), len(text[1].split()),
                     cluster=_cluster(dataset, rows[record.id]))
        )
    return dict(sorted(groups.items()))


STORED = {"evouna-nq": ("correctness", "evouna-nq-correctness-llm.jsonl"),
          "begin-dev": ("faithfulness", "begin-faithfulness-llm-attribution.jsonl")}
"""The stored model passes with P(yes) (bench/data): ``llm`` on EVOUNA-NQ (confirm answers only) and
``llm-attribution`` on BEGIN (both halves)."""


def stored_items(dataset: str, half: str) -> dict[str, list[CardItem]]:
    task, name = STORED[dataset]
    rows = {json.loads(line)["id"]: json.loads(line) for line in (BENCHMARKS / dataset / f"{task}.jsonl").open()}
    groups: dict[str, list[CardItem]] = defaultdict(list)
    for line in (HERE / "data" / name).open():
        record = json.loads(line)
        value = record.get("value") or {}
        source = rows.get(record["id"])
        if record["unscored"] or value.get("probability") is None or source is None:
            continue
        if half_of(dataset, source) != half:
            continue
        groups[record["system"]].append(
            CardItem(record["system"], float(value["probability"]), int(bool(value["verdict"])),
                     int(bool(source["label"])), len(source["answer"].split()), cluster=_cluster(dataset, source))
        )
    return dict(sorted(groups.items()))


def dev_leniency(draws: int) -> None:
    for dataset, task, judge in (("evouna-nq", "correctness", "contains"), ("begin-dev", "faithfulness", "support")):
        groups = dev_items(dataset, task, judge)
        print(f"{judge} on {dataset} (confirm half, {sum(map(len, groups.values())):,} items, {len(groups)} systems): "
              "leniency coverage")
        for n in (50, 100):
            rng = np.random.default_rng(n)
            covered: dict[str, int] = defaultdict(int)
            for _ in range(draws):
                for name, group in groups.items():
                    truth = np.mean([i.score for i in group]) - np.mean([i.label for i in group])
                    sample = [group[k] for k in rng.choice(len(group), size=min(n, len(group)), replace=False)]
                    span = paired_difference([i.score for i in sample], [i.label for i in sample])
                    covered[name] += span.low <= truth <= span.high
            for name in groups:
                print(f"  n = {n:3d}  leniency of {name:12s} {wilson(covered[name], draws)}")


SLOPE_SIZES = (25, 50, 100, 200)
DESIGNS = ("per system", "same questions")
"""How the labelled items are drawn: n answers of each system, each system on its own questions
(independent draws); or n questions, every system's answer to each labelled (answers cluster)."""


def slope_draw(
    groups: dict[str, list[CardItem]], design: str, n: int, rng: np.random.Generator
) -> list[CardItem]:
    if design == "per system":
        return [group[k] for group in groups.values() for k in rng.choice(len(group), n, replace=False)]
    by_question: dict[str, list[CardItem]] = defaultdict(list)
    for group in groups.values():
        for item in group:
            by_question[str(item.cluster)].append(item)
    questions = sorted(by_question)
    return [item for k in rng.choice(len(questions), n, replace=False) for item in by_question[questions[k]]]


def slope_sets(half: str) -> list[tuple[str, dict[str, list[CardItem]]]]:
    sets = [("contains, evouna-nq", dev_items("evouna-nq", "correctness", "contains", half)),
            ("token-overlap, evouna-nq", dev_items("evouna-nq", "correctness", "token-overlap", half)),
            ("support, begin-dev", dev_items("begin-dev", "faithfulness", "support", half)),
            ("llm-attribution (stored), begin-dev", stored_items("begin-dev", half))]
    if half == "confirm":
        sets.insert(2, ("llm (stored, 212 questions), evouna-nq", stored_items("evouna-nq", half)))
    return [(name, groups) for name, groups in sets if groups]


def dev_slopes(draws: int, half: str) -> None:
    """Coverage of the length slope over all of one half's items, in both label designs. A size
    is left out where it would label more than half of a system's answers (per system) or of the
    questions several systems answered (same questions): the draw would then be most of the set."""
    print(f"\nlength slope on the dev sets' {half} half: coverage of the 95 % interval of the slope over all "
          f"items, {draws} draws; 'above' / 'below': the interval wholly above / below it")
    for name, groups in slope_sets(half):
        everything = [item for group in groups.values() for item in group]
        whole = length_slope(everything)
        if whole is None:
            continue
        truth = whole[0].value
        shared = defaultdict(set)
        for item in everything:
            shared[str(item.cluster)].add(item.system)
        questions = sum(len(systems) > 1 for systems in shared.values())
        print(f"  {name}: {len(everything):,} items, {len(groups)} systems, {len(shared):,} questions "
              f"({questions:,} answered by more than one); slope over all {whole[0].text()} per 100 words")
        for design in DESIGNS:
            for n in SLOPE_SIZES:
                room = min(map(len, groups.values())) if design == "per system" else (
                    len(shared) if questions * 2 >= len(shared) else 0)
                if 2 * n > room:
                    continue
                rng = np.random.default_rng(n + 7 * DESIGNS.index(design))
                covered = above = below = fitted = 0
                width = 0.0
                for _ in range(draws):
                    got = length_slope(slope_draw(groups, design, n, rng))
                    if got is None:
                        continue
                    span = got[0]
                    fitted += 1
                    covered += span.low <= truth <= span.high
                    above += span.low > truth
                    below += span.high < truth
                    width += span.high - span.low
                if fitted:
                    print(f"    {design:14s} n = {n:3d}  {wilson(covered, fitted)}  above {above / fitted:.3f}  "
                          f"below {below / fitted:.3f}  mean width {width / fitted:.3f}")


def slope_coverage(
    groups: dict[str, list[CardItem]], design: str, n: int, draws: int, seed: int
) -> tuple[float, float]:
    """Coverage of the slope over all of ``groups`` and the mean width, over ``draws`` draws."""
    whole = length_slope([item for group in groups.values() for item in group])
    assert whole is not None
    rng = np.random.default_rng(seed)
    covered = fitted = 0
    width = 0.0
    for _ in range(draws):
        got = length_slope(slope_draw(groups, design, n, rng))
        if got is not None:
            fitted += 1
            covered += got[0].low <= whole[0].value <= got[0].high
            width += got[0].high - got[0].low
    return covered / fitted, width / fitted


def system_subsets(draws: int, half: str, sizes: Sequence[int] = (50, 100)) -> None:
    """The slope's coverage over every set of EVOUNA-NQ's systems (one to five), the same questions
    labelled for each: other mixes of answer lengths than the whole set's, fid's one-to-five-word
    answers alone among them (short answers with ties, where a 0/1 judge's few errors carry the slope)."""
    print(f"\nlength slope over every set of EVOUNA-NQ's systems ({half} half), the same n questions for each, "
          f"{draws} draws: coverage (mean width)")
    for judge in ("contains", "token-overlap"):
        groups = dev_items("evouna-nq", "correctness", judge, half)
        for n in sizes:
            rows = []
            for size in range(1, len(groups) + 1):
                for names in itertools.combinations(sorted(groups), size):
                    chosen = {name: groups[name] for name in names}
                    cover, width = slope_coverage(chosen, "same questions", n, draws, n)
                    rows.append((cover, "+".join(names), width))
                    print(f"  {judge:13s} n = {n:3d}  {'+'.join(names):34s} {cover:.3f} ({width:.2f})", flush=True)
            low = min(rows)
            print(f"  {judge:13s} n = {n:3d}  lowest over {len(rows)} sets: {low[0]:.3f} ({low[1]}); "
                  f"median {float(np.median([r[0] for r in rows])):.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--skip-dev", action="store_true", help="only the simulated part")
    parser.add_argument("--slopes-only", action="store_true", help="only the dev sets' length slopes")
    parser.add_argument("--subsets", action="store_true",
                        help="only the slope over every set of EVOUNA-NQ's systems (same questions, n = 50 and 100)")
    parser.add_argument("--half", choices=("tune", "confirm"), default="confirm",
                        help="the dev sets' half for the length slopes (choices on tune, figures on confirm)")
    args = parser.parse_args()
    if args.subsets:
        system_subsets(args.draws, args.half)
        return 0
    if not args.slopes_only:
        simulated_leniency(args.draws)
        simulated_length(min(args.draws, 500))
        if not args.skip_dev:
            dev_leniency(args.draws)
    if not args.skip_dev:
        dev_slopes(args.draws, args.half)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
