"""Prediction-powered system estimates on the dev sets: do the intervals cover, how narrow are they?

Every item of the dev sets carries a human label, so each system's true rate (the mean of all
its labels) is known. Each draw hides all but n labels per system and estimates the rate from
the judge on every item plus those n labels; over >= 1,000 seeded draws per setting the bench
prints, per judge and n:

- coverage of the 95 % interval (prediction-powered and human-only), lowest and highest over systems;
- mean width of the prediction-powered interval relative to the human-only one at the same n
  labels, and the effective number of labels it is worth (n / ratio²);
- the judge's bias (its mean minus the true rate), per system;
- the estimate's bias (its mean over draws minus the true rate) at each n, 30 included;
- label-plan (uncertainty-weighted, drawn by label_plan.draw (systematic πps), its uniform share raised until Kish's
  effective sample size is ≥ 70 % of the labels) vs uniform at the same expected budget;
- A/B: coverage of the difference of two systems' rates with independent label sets and with
  half of each system's labels on questions labelled for both, and its width relative to the two
  systems' own intervals combined (``hypot`` of their standard errors).

Protocol: the dev sets are split by question/query (``bench/splits.py``, committed). The
interval rule (jackknife, t, normal) is chosen on the *tune* half; the figures reported are the
*confirm* half's. Judges: ``contains`` and ``token-overlap`` on evouna-nq (correctness),
``support`` and ``token-overlap`` on begin-dev (faithfulness), token-overlap relevance for
per-run precision@10 on trec-dl19; any predictions file with gold (e.g. an LLM judge's run,
``--predictions NAME=PATH``) is added as is.

Run:  .venv/bin/python bench/bench_ppi.py [--draws 1000] [--confirm-only] [--predictions llm=PATH ...]
(``--confirm-only`` skips the tune-half choices and uses the committed defaults: the jackknife
interval and label-plan's guarded share.)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from splits import BENCHMARKS, half_of  # noqa: E402

from ragjury.evals.io.predictions import load_predictions  # noqa: E402
from ragjury.evals.stats.run_estimates import estimate_items  # noqa: E402
from ragjury.evals.stats.label_plan import (  # noqa: E402
    UNIFORM_SHARE,
    draw,
    effective_sample_size,
    guarded_probabilities,
    paired_scores,
)
from ragjury.evals.stats.prediction_powered import finite_population_mean  # noqa: E402
from ragjury.evals.stats.system_estimates import RARE_CLASS, EstimateItem, compare_systems  # noqa: E402

CACHE = Path(os.environ.get("RAGJURY_BENCH_CACHE", Path.home() / ".cache" / "ragjury-bench" / "ppi"))
SIZES = (10, 20, 30, 50, 100, 200)
KINDS = ("jackknife", "t", "normal")


@dataclass
class Population:
    """One system's items in one half: the judge's score on each, people's label on each."""

    judge: str
    system: str
    half: str
    scores: np.ndarray
    labels: np.ndarray
    keys: tuple[str, ...] = ()
    """Each item's question (``pair_key``): what two systems' items share."""

    @property
    def truth(self) -> float:
        return float(self.labels.mean())

    def rare(self, n: int) -> bool:
        """Fewer than ``RARE_CLASS`` labels of one class expected among n: ``estimate`` warns there."""
        return n * min(self.truth, 1 - self.truth) < RARE_CLASS


def evaluate_predictions(dataset: str, task: str, judge: str) -> Path:
    """The ``ragjury evaluate`` predictions of a model-free judge on a whole dev set (cached)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    out = CACHE / f"{dataset}-{judge}.jsonl"
    if not out.exists():
        data = BENCHMARKS / dataset / f"{task}.jsonl"
        command = [str(Path(sys.executable).parent / "ragjury"), "evaluate", "--task", task, "--judge", judge]
        command += ["--data", str(data), "--out", str(out), "--no-cache", "--no-progress", "--json"]
        subprocess.run(command, check=False, stdout=subprocess.DEVNULL)
        if not out.exists():
            raise SystemExit(f"evaluate failed: {' '.join(command)}")
    return out


def populations_of(name: str, path: Path, dataset: str) -> list[Population]:
    run = load_predictions(path)
    rows = {json.loads(line)["id"]: json.loads(line) for line in (BENCHMARKS / dataset / f"{run.task}.jsonl").open()}
    items, unscored = estimate_items(run)
    if unscored:
        print(f"  {name}: {unscored} unscored judgments left out")
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for item in items:
        if item.label is None or item.id not in rows:
            continue
        groups[(item.system, half_of(dataset, rows[item.id]))].append(item)
    return [
        Population(
            name, system, half, np.array([i.score for i in group]), np.array([i.label for i in group]),
            tuple(str(i.pair_key) for i in group),
        )
        for (system, half), group in sorted(groups.items())
    ]


POOLED = ("begin-dev support", "begin-dev stack")
"""Judges whose systems are too small for label-plan at 25 % (about 36 labels each, rare classes):
their systems pooled, as ``estimate --overall`` sees them."""


def pooled(populations: list[Population]) -> list[Population]:
    groups: dict[tuple[str, str], list[Population]] = defaultdict(list)
    for population in populations:
        groups[(population.judge, population.half)].append(population)
    return [
        Population(f"{judge} (pooled)", "all", half, np.concatenate([p.scores for p in group]),
                   np.concatenate([p.labels for p in group]))
        for (judge, half), group in groups.items()
    ]


def llm_member_file(path: Path) -> Path | None:
    """A panel's run seen as its ``llm`` member alone (the member's P(yes) from the same calls), or None."""
    rows = [json.loads(line) for line in path.open() if line.strip()]
    out_rows = []
    for row in rows:
        votes = (row.get("value") or {}).get("votes") or []
        llm = next((v for v in votes if v.get("name") == "llm"), None)
        if llm is None:
            return None
        p = llm.get("probability")
        if p is None or llm.get("unscored_reason"):
            out_rows.append({**row, "judge": "llm", "unscored": True, "unscored_reason": "llm member unscored", "value": {}})
        else:
            out_rows.append({**row, "judge": "llm", "label": p >= 0.5, "value": {"probability": p}})
    out = CACHE / f"{path.stem}.llm-member.jsonl"
    CACHE.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r) + "\n" for r in out_rows))
    return out


def dl19_populations() -> list[Population]:
    """Per run, its top-10 passages with a NIST grade and text; relevant = grade >= 2."""
    from ragjury.rag_agent.core.items import RelevanceItem
    from ragjury.rag_agent.judges.model_free.token_overlap import TokenOverlapJudge

    root = BENCHMARKS / "trec-dl19"
    passages = {str(r["docid"]): r["text"] for r in map(json.loads, (root / "passages.jsonl").open())}
    topics = {str(r["qid"]): r["query"] for r in map(json.loads, (root / "topics.jsonl").open())}
    grades = {}
    for line in (root / "qrels.txt").open():
        qid, _, docid, grade = line.split()
        grades[(qid, docid)] = int(grade)
    pairs = {}
    for run_file in sorted((root / "runs").glob("*.trec")):
        for line in run_file.open():
            qid, _, docid, rank, *_ = line.split()
            if int(rank) <= 10 and (qid, docid) in grades and docid in passages and qid in topics:
                pairs.setdefault((qid, docid), set()).add(run_file.stem)
    keys = sorted(pairs)
    contexts = [RelevanceItem(query=topics[q], retrieved_text=passages[d]) for q, d in keys]
    verdicts = TokenOverlapJudge().decide(contexts)[0].tolist()
    judged = dict(zip(keys, verdicts))
    groups: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for key in keys:
        half = half_of("trec-dl19", {"qid": key[0]})
        for run in pairs[key]:
            groups[(run, half)].append((float(judged[key]), float(grades[key] >= 2)))
    return [
        Population("dl19 P@10 token-overlap", run, half, np.array([s for s, _ in v]), np.array([g for _, g in v]))
        for (run, half), v in sorted(groups.items())
    ]


@dataclass
class Cell:
    covered: int = 0
    covered_human: int = 0
    width: float = 0.0
    width_human: float = 0.0
    error: float = 0.0
    error_sq: float = 0.0
    draws: int = 0

    def add(self, truth: float, powered, human) -> None:  # type: ignore[no-untyped-def]
        self.draws += 1
        self.error += powered.value - truth
        self.error_sq += (powered.value - truth) ** 2
        self.covered += powered.low <= truth <= powered.high
        self.covered_human += human.low <= truth <= human.high
        self.width += powered.width
        self.width_human += human.width


def simulate(population: Population, n: int, draws: int, kind: str, seed: int) -> Cell:
    rng = np.random.default_rng(seed)
    cell = Cell()
    size = population.scores.shape[0]
    for _ in range(draws):
        index = rng.choice(size, n, replace=False)
        y, yhat = population.labels[index], population.scores[index]
        powered = finite_population_mean(y, yhat, population.scores, interval=kind)  # type: ignore[arg-type]
        human = finite_population_mean(y, yhat, population.scores, lam=0.0, interval=kind)  # type: ignore[arg-type]
        cell.add(population.truth, powered, human)
    return cell


def simulate_plan(
    population: Population, budget: int, draws: int, seed: int, planned: bool, share: float = UNIFORM_SHARE
) -> Cell:
    """label-plan's own draw (systematic πps) at ``budget`` expected labels: its π or uniform π = budget/N."""
    size = population.scores.shape[0]
    pi = guarded_probabilities(population.scores, budget, uniform_share=share)[0] if planned else np.full(size, budget / size)
    cell = Cell()
    for d in range(draws):
        picked = draw(pi, seed * 100_003 + d)
        if picked.sum() < 3:
            continue
        y, yhat = population.labels[picked], population.scores[picked]
        powered = finite_population_mean(y, yhat, population.scores, inclusion=pi[picked])
        human = finite_population_mean(y, yhat, population.scores, inclusion=pi[picked], lam=0.0)
        cell.add(population.truth, powered, human)
    return cell


def sizes_for(populations: Sequence[Population]) -> list[int]:
    smallest = min(p.scores.shape[0] for p in populations)
    return [n for n in SIZES if n <= smallest // 2]


def choose_kind(populations: list[Population], draws: int) -> str:
    """The interval rule whose worst coverage over judges, systems and n >= 50 on *tune* is closest to 0.95."""
    print(
        "\n== tune half: choosing the interval rule (worst and mean coverage over every judge, system, "
        "n >= 50, at least 5 labels of each class expected)"
    )
    worst: dict[str, float] = {}
    for kind in KINDS:
        coverages = []
        for population in populations:
            for n in sizes_for([population]):
                if n >= 50 and not population.rare(n):
                    cell = simulate(population, n, draws, kind, seed=n)
                    coverages.append(cell.covered / cell.draws)
        worst[kind] = min(coverages)
        print(f"  {kind:<9} worst {min(coverages):.3f}  mean {np.mean(coverages):.3f}  ({len(coverages)} settings)")
    return min(worst, key=lambda k: abs(worst[k] - 0.95))


def report(populations: list[Population], kind: str, draws: int) -> None:
    by_judge: dict[str, list[Population]] = defaultdict(list)
    for population in populations:
        by_judge[population.judge].append(population)
    print(f"\n== confirm half: interval rule '{kind}', {draws} draws per setting, 95 % intervals")
    print(
        f"  {'judge':<28} {'n':>4}  {'PPI coverage':>15}  {'human coverage':>15}  {'width ratio':>11}  {'labels worth':>12}"
        "  max |bias| ± MC s.e."
    )
    for judge, group in by_judge.items():
        for n in sizes_for(group):
            cells = [simulate(p, n, draws, kind, seed=1000 + n) for p in group]
            common = [c for c, p in zip(cells, group) if not p.rare(n)]
            rare = [(c, p) for c, p in zip(cells, group) if p.rare(n)]
            if common:
                cov = [c.covered / c.draws for c in common]
                hum = [c.covered_human / c.draws for c in common]
                ratio = float(np.mean([c.width / c.width_human for c in common]))
                worst = max(common, key=lambda c: abs(c.error / c.draws))
                bias = worst.error / worst.draws
                spread = np.sqrt(max(worst.error_sq / worst.draws - bias**2, 0.0) / worst.draws)
                print(
                    f"  {judge:<28} {n:>4}  {min(cov):.3f}–{max(cov):.3f}    {min(hum):.3f}–{max(hum):.3f}    "
                    f"{ratio:>9.2f}×  {n / ratio**2:>10.0f}   {bias:+.4f} ± {spread:.4f}  ({len(common)} systems)"
                )
            every = [c.covered / c.draws for c in cells]
            print(f"  {'':<28} {n:>4}  every system, rare classes included: {min(every):.3f}–{max(every):.3f}")
            for c, p in rare:
                print(
                    f"  {judge:<28} {n:>4}  {c.covered / c.draws:.3f} PPI, {c.covered_human / c.draws:.3f} human: "
                    f"{p.system} (rate {p.truth:.2f}: under {RARE_CLASS} labels of one class expected; estimate warns)"
                )
        bias = ", ".join(f"{p.system} {p.scores.mean() - p.truth:+.3f}" for p in group)
        print(f"  {'':<28} judge bias (mean − true): {bias}  (n items: {', '.join(str(p.scores.size) for p in group)})")


SHARES = (0.1, 0.3, 0.5)


def continuous(population: Population) -> bool:
    return not np.all(np.isin(population.scores, (0.0, 1.0)))


def choose_share(populations: list[Population], draws: int, budget: float) -> float:
    """label-plan's uniform share with the narrowest mean width (relative to uniform) on *tune*."""
    candidates = [p for p in populations if continuous(p)]
    if not candidates:
        return UNIFORM_SHARE
    print(f"\n== tune half: label-plan's uniform share, mean width relative to uniform sampling ({budget:.0%} of items labelled)")
    ratios = {}
    for share in SHARES:
        ratio = []
        for population in candidates:
            labels = max(10, round(budget * population.scores.shape[0]))
            planned = simulate_plan(population, labels, draws, 3, True, share)
            uniform = simulate_plan(population, labels, draws, 3, False)
            ratio.append((planned.width / planned.draws) / (uniform.width / uniform.draws))
        ratios[share] = float(np.mean(ratio))
        print(f"  share {share:.1f}: {ratios[share]:.3f}× ({len(candidates)} populations)")
    return min(ratios, key=lambda k: ratios[k])


def report_plan(populations: list[Population], draws: int, budget: float, share: float = UNIFORM_SHARE) -> None:
    print(
        f"\n== confirm half: label-plan (uniform share {share:.1f}) vs uniform, {budget:.0%} of each system's "
        "items labelled in expectation (label-plan's systematic draw)"
    )
    for population in populations:
        if not continuous(population):
            continue
        labels = max(10, round(budget * population.scores.shape[0]))
        planned = simulate_plan(population, labels, draws, 7, True, share)
        uniform = simulate_plan(population, labels, draws, 7, False)
        pi, used = guarded_probabilities(population.scores, labels, uniform_share=share)
        rare = " (rare class: estimate warns)" if population.rare(labels) else ""
        print(
            f"  {population.judge:<28} {population.system:<10} {labels} labels, share {used:.1f}, "
            f"ESS {effective_sample_size(pi) / pi.sum():.0%}; "
            f"width planned {planned.width / planned.draws:.3f} "
            f"vs uniform {uniform.width / uniform.draws:.3f} ({planned.width / planned.draws / (uniform.width / uniform.draws):.2f}×); "
            f"coverage {planned.covered / planned.draws:.3f} / {uniform.covered / uniform.draws:.3f}{rare}"
        )
    if all(np.all(np.isin(p.scores, (0.0, 1.0))) for p in populations):
        print("  every judge here gives 0/1 verdicts only: no per-item uncertainty, label-plan draws uniformly")


def report_bias(populations: list[Population], n: int, draws: int) -> None:
    """The estimate's mean error at n labels, per system with 1,000+ items: cross-fitted λ
    should leave none beyond Monte Carlo noise (λ fitted in-sample gave up to +0.006 at 30)."""
    print(f"\n== confirm half: bias of the estimate at {n} labels, {draws} draws (mean error ± MC s.e.)")
    for population in populations:
        if population.scores.shape[0] < 1000:
            continue
        rng = np.random.default_rng(77)
        errors = []
        for _ in range(draws):
            index = rng.choice(population.scores.shape[0], n, replace=False)
            errors.append(finite_population_mean(population.labels[index], population.scores[index], population.scores).value - population.truth)
        print(f"  {population.judge:<28} {population.system:<10} {np.mean(errors):+.4f} ± {np.std(errors) / np.sqrt(draws):.4f}")


AB_SIZES = (50, 100)
AB_JUDGES = ("evouna-nq contains", "evouna-nq token-overlap", "evouna-nq llm (stored pass)")


def stored_llm_populations() -> list[Population]:
    """The stored ``llm`` correctness pass (bench/data, confirm half: five systems, the same questions),
    P(yes) per answer, people's label from the dataset: a judge with probabilities, so the paired
    plan's chances differ from question to question."""
    labels = {}
    for line in (BENCHMARKS / "evouna-nq" / "correctness.jsonl").open():
        if line.strip():
            row = json.loads(line)
            labels[row["id"]] = row
    groups: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
    for line in (HERE / "data" / "evouna-nq-correctness-llm.jsonl").open():
        row = json.loads(line)
        value = row.get("value") or {}
        if row["unscored"] or value.get("probability") is None or row["id"] not in labels:
            continue
        source = labels[row["id"]]
        groups[row["system"]].append((float(value["probability"]), float(bool(source["label"])), source["question"]))
    return [Population("evouna-nq llm (stored pass)", system, "confirm", np.array([g[0] for g in group]),
                       np.array([g[1] for g in group]), tuple(g[2] for g in group))
            for system, group in sorted(groups.items())]
"""The judge whose five systems answered the same questions (BEGIN's systems share too few)."""


AB_DESIGNS = ("independent", "same questions", "half shared", "paired plan")
"""How the two systems' labels are drawn: two independent draws (questions shared by chance, not
paired), the same n questions for both (paired, found by ``compare_systems`` itself), half of each
system's labels on questions drawn for both (paired, said with ``paired=True``), and ``label-plan A B``'s
own draw: n questions for both, a question's chance growing with both judges' uncertainty
(``paired_scores``, systematic πps), each label weighted by 1/π."""


def simulate_ab(a: Population, b: Population, n: int, draws: int, design: str, seed: int) -> tuple[Cell, float]:
    """A − B over the questions both answered: n labels each, drawn by ``design`` (``AB_DESIGNS``).
    Returns the coverage cell and the mean standard error relative to the two systems' own
    estimates combined as if independent (``Difference.independent_std_error``)."""
    position = {key: i for i, key in enumerate(b.keys)}
    common = [(i, position[key]) for i, key in enumerate(a.keys) if key in position]
    size = len(common)
    truth = float(np.mean([a.labels[i] for i, _ in common]) - np.mean([b.labels[j] for _, j in common]))
    bare, known = {}, {}
    for name, population, column in (("a", a, 0), ("b", b, 1)):
        index = [pair[column] for pair in common]
        bare[name] = [EstimateItem(f"{name}{k}", float(population.scores[i]), name, None, population.keys[i]) for k, i in enumerate(index)]
        known[name] = [EstimateItem(f"{name}{k}", float(population.scores[i]), name, float(population.labels[i]), population.keys[i])
                       for k, i in enumerate(index)]
    rng = np.random.default_rng(seed)
    cell, ratio = Cell(), 0.0
    for _ in range(draws):
        if design == "paired plan":
            scores = paired_scores([a.scores[i] for i, _ in common], [b.scores[j] for _, j in common])
            pi = guarded_probabilities(scores, n)[0]
            chosen = draw(pi, int(rng.integers(2**31)))
            items = [
                EstimateItem(f"{name}{k}", row.score, name, row.label if chosen[k] else None, row.pair_key,
                             float(pi[k]) if chosen[k] else None)
                for name in "ab" for k, row in enumerate(known[name])
            ]
            difference = compare_systems(items, "a", "b")
            cell.add(truth, difference.estimate, difference.estimate)
            ratio += difference.estimate.std_error / (difference.independent_std_error or float("nan"))
            continue
        if design == "half shared":
            order = rng.permutation(size)
            both, rest = order[: n // 2], order[n // 2 :]
            picks = [set(np.concatenate([both, rng.choice(rest, n - n // 2, replace=False)]).tolist()) for _ in "ab"]
        elif design == "same questions":
            same = set(rng.choice(size, n, replace=False).tolist())
            picks = [same, same]
        else:
            picks = [set(rng.choice(size, n, replace=False).tolist()) for _ in "ab"]
        items = [
            known[name][k] if k in pick else bare[name][k] for name, pick in zip("ab", picks) for k in range(size)
        ]
        difference = compare_systems(items, "a", "b", paired=True if design == "half shared" else None)
        cell.add(truth, difference.estimate, difference.estimate)
        ratio += difference.estimate.std_error / (difference.independent_std_error or float("nan"))
    return cell, ratio / draws


def keep_paired_wilson(share: float) -> None:
    """Measurement only: keep ``share`` of the difference's Wilson term (``compare_systems``), in
    every design; with ``--ab-design`` limited to the paired ones it says whether the term can
    shrink where the design pairs (it stays whole in the package: see docs/benchmarks.md)."""
    import ragjury.evals.stats.system_estimates as system_estimates

    influence = system_estimates._influence

    def scaled(*args, **kwargs):  # type: ignore[no-untyped-def]
        keyed, extra, wilson = influence(*args, **kwargs)
        return keyed, extra, wilson * share

    system_estimates._influence = scaled


def report_ab(
    populations: list[Population], draws: int, designs: Sequence[str] = AB_DESIGNS, half: str = "confirm"
) -> None:
    """Neighbouring systems (by rate) of each judge whose systems answered the same questions."""
    print(f"\n== {half} half: A − B, {draws} draws per setting (neighbouring systems by rate; 95 % intervals)")
    print(f"  {'judge':<28} {'n':>4}  {'labels':<12} {'coverage':>13}  {'width vs own combined':>21}")
    by_judge: dict[str, list[Population]] = defaultdict(list)
    for population in populations:
        if population.judge in AB_JUDGES and len(set(population.keys)) == len(population.keys):
            by_judge[population.judge].append(population)
    for judge, group in by_judge.items():
        group = sorted(group, key=lambda p: p.truth)
        pairs = [(x, y) for x, y in zip(group, group[1:]) if len(set(x.keys) & set(y.keys)) >= 2 * max(AB_SIZES)]
        if not pairs:
            continue
        for n in AB_SIZES:
            for index, design in enumerate(AB_DESIGNS):
                if design not in designs:
                    continue
                results = [simulate_ab(x, y, n, draws, design, seed=n + index) for x, y in pairs]
                cov = [c.covered / c.draws for c, _ in results]
                ratios = [r for _, r in results]
                print(
                    f"  {judge:<28} {n:>4}  {design:<14} {min(cov):.3f}–{max(cov):.3f}  "
                    f"{min(ratios):.2f}–{max(ratios):.2f}× ({len(pairs)} pairs)"
                )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--predictions", action="append", default=[], metavar="NAME=PATH",
                        help="more predictions files with gold (e.g. an LLM judge's evaluate --out); "
                        "a NAME given twice (a tune run and a confirm run) adds both halves")
    parser.add_argument("--budget", type=float, default=0.25, help="label-plan: share of each system's items labelled")
    parser.add_argument("--confirm-only", action="store_true",
                        help="skip the tune-half choices: the jackknife interval, label-plan's guarded share")
    parser.add_argument("--bias-draws", type=int, default=0, metavar="DRAWS",
                        help="also the estimate's bias at 30 labels over DRAWS draws (e.g. 3000)")
    parser.add_argument("--skip", action="append", default=[], choices=("rates", "plan", "ab"),
                        help="leave a section out (to measure the others quickly)")
    parser.add_argument("--ab-design", action="append", default=[], choices=AB_DESIGNS,
                        help="the A/B section for these label designs only")
    parser.add_argument("--ab-judge", action="append", default=[], metavar="NAME",
                        help=f"the A/B section for these judges only (of {', '.join(AB_JUDGES)})")
    parser.add_argument("--ab-half", choices=("tune", "confirm"), default="confirm",
                        help="the A/B section on this half (the stored llm pass has confirm answers only)")
    parser.add_argument("--ab-wilson-share", type=float, default=1.0, metavar="C",
                        help="measurement only: keep C of the difference's Wilson term (with --ab-design "
                        "limited to the paired designs: can the term shrink where the design pairs?)")
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average; the machine has {os.cpu_count()} cores)")
    populations: list[Population] = []
    for dataset, task, judge in (
        ("evouna-nq", "correctness", "contains"),
        ("evouna-nq", "correctness", "token-overlap"),
        ("begin-dev", "faithfulness", "support"),
        ("begin-dev", "faithfulness", "token-overlap"),
        ("begin-dev", "faithfulness", "stack"),
    ):
        populations += populations_of(f"{dataset} {judge}", evaluate_predictions(dataset, task, judge), dataset)
    populations += pooled([p for p in populations if p.judge in POOLED])
    for spec in args.predictions:
        name, _, path = spec.partition("=")
        run = load_predictions(path)
        dataset = {"correctness": "evouna-nq", "faithfulness": "begin-dev"}[run.task or ""]
        populations += populations_of(name, Path(path), dataset)
        member = llm_member_file(Path(path))
        if member is not None:
            populations += populations_of(f"{name} › llm alone", member, dataset)
    populations += dl19_populations()
    tune = [p for p in populations if p.half == "tune"]
    confirm = [p for p in populations if p.half == "confirm"]
    print(f"split: {len(tune)} system×judge populations in tune, {len(confirm)} in confirm (bench/splits/*.json)")
    kind = "jackknife" if args.confirm_only else choose_kind(tune, args.draws)
    print(f"  interval rule: {kind}")
    if "rates" not in args.skip:
        report(confirm, kind, args.draws)
    if "plan" not in args.skip:
        share = UNIFORM_SHARE if args.confirm_only else choose_share(tune, args.draws, args.budget)
        report_plan(confirm, args.draws, args.budget, share)
    if "ab" not in args.skip:
        if args.ab_wilson_share != 1.0:
            keep_paired_wilson(args.ab_wilson_share)
            print(f"  (measurement: {args.ab_wilson_share:g} of the difference's Wilson term kept)")
        half = confirm + stored_llm_populations() if args.ab_half == "confirm" else tune
        chosen = [p for p in half if not args.ab_judge or p.judge in args.ab_judge]
        report_ab(chosen, args.draws, designs=tuple(args.ab_design) or AB_DESIGNS, half=args.ab_half)
    if args.bias_draws:
        report_bias(confirm, 30, args.bias_draws)
    print(f"\ndone in {time.perf_counter() - started:.0f} s; load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
