"""Familywise coverage, width cost and gate of ``report RUN1 ... RUNn`` (issue #56) on stored data.

EVOUNA-NQ confirm's five systems are five configs; three verdict sources, all stored or computed
without a model: people's labels, ``contains`` (computed here) and the ``llm`` judge's stored pass
(bench/data/evouna-nq-correctness-llm.jsonl, 212 of the confirm questions). A source's population
is every confirm question all five systems answered (1,504; 212 for ``llm``); "true" differences
are the population's. Each draw takes n questions (50 / 100 / 200) and asks:

- coverage: do the simultaneous intervals (``evals.stats.simultaneous``, as the command makes them)
  cover every config's true difference to the baseline together? And today's per-pair 95 %
  intervals (``report A B`` on each pair: ``paired_runs.paired_bootstrap``, the library's)?
  Draws are i.i.d. from the population (with replacement: the bootstrap's own model, no finite-
  population help) and, where the population is large (people, contains), without replacement.
- width: mean width of the simultaneous vs the per-pair interval of each config - baseline.
- scale: ``ragjury report`` over 20 runs x 2,000 questions with --html, against ``report A B --html``
  (subprocess wall time, medians of 3), and the page's size.
- gate (``Sweep``'s rule, ``--fail-if-worse 0``): with one config (chatgpt) planted 8 points below
  the baseline on the population (its yes verdicts flipped to no on a fixed random set of
  questions until its population rate is the baseline's - 8 points), the others unchanged: false
  alarms (the gate fails for a config whose true difference to the baseline is >= 0) over all
  configs together, and power (it fails for the planted one); also with nothing planted.

Run:  .venv/bin/python bench/bench_sweep.py [--draws 1000] [--out bench/data/sweep-evouna-nq.json]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from splits import BENCHMARKS, half_of  # noqa: E402

from ragjury.evals.stats.paired_runs import paired_bootstrap  # noqa: E402
from ragjury.evals.stats.simultaneous import simultaneous  # noqa: E402
from ragjury.rag_agent.core.items import CorrectnessItem  # noqa: E402
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge  # noqa: E402

SYSTEMS = ("fid", "gpt35", "chatgpt", "gpt4", "newbing")
"""Config order; the first, fid (the retriever-reader), is the baseline."""
PLANTED = "chatgpt"
DROP = 0.08
SIZES = (50, 100, 200)
SEED = 56
DATA = Path(__file__).resolve().parent / "data"


def populations() -> dict[str, np.ndarray]:
    """Questions x configs verdicts per source, over the confirm questions all five answered."""
    by_question: dict[str, dict[str, dict]] = collections.defaultdict(dict)
    for line in (BENCHMARKS / "evouna-nq" / "correctness.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if half_of("evouna-nq", row) == "confirm" and row.get("label") is not None:
            by_question[row["id"].rsplit("-", 1)[0]][row["system"]] = row
    questions = sorted(q for q, rows in by_question.items() if all(s in rows for s in SYSTEMS))
    people = np.array([[bool(by_question[q][s]["label"]) for s in SYSTEMS] for q in questions], dtype=float)
    items = [CorrectnessItem(question=by_question[q][s]["question"], answer=by_question[q][s]["answer"] or " ",
                             references=by_question[q][s]["references"]) for q in questions for s in SYSTEMS]
    verdicts, _ = ContainsJudge().decide(items)
    contains = np.array([bool(v) for v in verdicts], dtype=float).reshape(len(questions), len(SYSTEMS))
    llm_rows = {}
    for line in (DATA / "evouna-nq-correctness-llm.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if not row["unscored"]:
            llm_rows[row["id"]] = bool(row["value"]["verdict"])
    llm_questions = [q for q in questions if all(f"{q}-{s}" in llm_rows for s in SYSTEMS)]
    llm = np.array([[llm_rows[f"{q}-{s}"] for s in SYSTEMS] for q in llm_questions], dtype=float)
    people_llm = np.array([[bool(by_question[q][s]["label"]) for s in SYSTEMS] for q in llm_questions], dtype=float)
    return {"people": people, "contains": contains, "llm": llm, "people_llm": people_llm}


def populations_of(path: Path, baseline: str | None = None) -> dict[str, np.ndarray]:
    """People's labels and ``contains`` over every question all systems of a correctness JSONL
    answered (EVOUNA's layout: question, references, system, answer, label; no half split): how
    the team re-checks the coverage on held-out data (``--data``). Sets the config order, the
    baseline first, and plants the drop on the third config."""
    global SYSTEMS, PLANTED
    by_question: dict[str, dict[str, dict]] = collections.defaultdict(dict)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if row.get("label") is not None:
                by_question[" ".join(str(row["question"]).split())][row["system"]] = row
    systems = sorted({s for rows in by_question.values() for s in rows})
    if baseline is not None:
        systems.remove(baseline)
        systems.insert(0, baseline)
    SYSTEMS = tuple(systems)
    PLANTED = SYSTEMS[min(2, len(SYSTEMS) - 1)]
    questions = sorted(q for q, rows in by_question.items() if all(s in rows for s in SYSTEMS))
    people = np.array([[bool(by_question[q][s]["label"]) for s in SYSTEMS] for q in questions], dtype=float)
    items = [CorrectnessItem(question=q, answer=by_question[q][s]["answer"] or " ",
                             references=by_question[q][s]["references"]) for q in questions for s in SYSTEMS]
    verdicts, _ = ContainsJudge().decide(items)
    contains = np.array([bool(v) for v in verdicts], dtype=float).reshape(len(questions), len(SYSTEMS))
    return {"people": people, "contains": contains}


def planted(population: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The population with PLANTED's verdicts lowered to the baseline's rate - DROP (yes -> no on a
    fixed random set of its yes questions)."""
    out = population.copy()
    k = SYSTEMS.index(PLANTED)
    target = population[:, 0].mean() - DROP
    flips = max(0, int(round((population[:, k].mean() - target) * len(population))))  # already that low: unchanged
    yes = np.flatnonzero(population[:, k] == 1)
    out[rng.choice(yes, size=flips, replace=False), k] = 0
    return out


def draw(population: np.ndarray, n: int, replace: bool, rng: np.random.Generator) -> np.ndarray:
    return population[rng.choice(len(population), size=n, replace=replace)]


def coverage(population: np.ndarray, n: int, draws: int, replace: bool, rng: np.random.Generator) -> dict:
    """Familywise coverage of config - baseline (and of every pair) and mean widths, per design."""
    truth = population.mean(axis=0)
    true_diff = truth - truth[0]
    k = population.shape[1]
    sim_cover = pair_cover = sim_all_pairs = 0
    single = np.zeros(k - 1)
    sim_width = np.zeros(k - 1)
    pair_width = np.zeros(k - 1)
    for _ in range(draws):
        sample = draw(population, n, replace, rng)
        s = simultaneous(sample, seed=int(rng.integers(1 << 30)))
        sim = [s.interval(j, 0) for j in range(1, k)]
        per = [paired_bootstrap(sample[:, 0], sample[:, j], seed=int(rng.integers(1 << 30))) for j in range(1, k)]
        sim_ok = [lo - 1e-12 <= true_diff[j] <= hi + 1e-12 for j, (lo, hi) in zip(range(1, k), sim)]
        per_ok = [p.low - 1e-12 <= true_diff[j] <= p.high + 1e-12 for j, p in zip(range(1, k), per)]
        sim_cover += all(sim_ok)
        pair_cover += all(per_ok)
        single += per_ok
        sim_all_pairs += all(s.diff_low[a, b] - 1e-12 <= truth[a] - truth[b] <= s.diff_high[a, b] + 1e-12
                             for a in range(k) for b in range(a + 1, k))
        sim_width += [hi - lo for lo, hi in sim]
        pair_width += [p.high - p.low for p in per]
    return {
        "simultaneous_familywise": sim_cover / draws,
        "simultaneous_all_pairs": sim_all_pairs / draws,
        "per_pair_familywise": pair_cover / draws,
        "per_pair_each": [round(x / draws, 4) for x in single],
        "simultaneous_width_points": round(float(sim_width.mean() / draws * 100), 2),
        "per_pair_width_points": round(float(pair_width.mean() / draws * 100), 2),
        "width_ratio": round(float(sim_width.sum() / pair_width.sum()), 3),
    }


def gate(population: np.ndarray, n: int, draws: int, rng: np.random.Generator) -> dict:
    """Share of draws the gate (margin 0) fails for a config not truly worse (false alarm, any
    config), and for each truly worse config (power); ``Sweep.gate``'s rule on the same intervals."""
    truth = population.mean(axis=0)
    not_worse = [j for j in range(1, population.shape[1]) if truth[j] - truth[0] >= 0]
    worse = [j for j in range(1, population.shape[1]) if truth[j] - truth[0] < 0]
    false_alarms = per_pair_false = 0
    fails = np.zeros(population.shape[1])
    per_pair_fails = np.zeros(population.shape[1])
    for _ in range(draws):
        sample = draw(population, n, True, rng)
        s = simultaneous(sample, seed=int(rng.integers(1 << 30)))
        failed = [s.interval(j, 0)[1] < 0 for j in range(population.shape[1]) if j]
        # today's gate, report BASELINE CONFIG --fail-if-worse 0, run once per config
        per_pair = [paired_bootstrap(sample[:, 0], sample[:, j], seed=int(rng.integers(1 << 30))).high < 0
                    for j in range(population.shape[1]) if j]
        false_alarms += any(failed[j - 1] for j in not_worse)
        per_pair_false += any(per_pair[j - 1] for j in not_worse)
        fails[1:] += failed
        per_pair_fails[1:] += per_pair
    return {"false_alarms": false_alarms / draws, "per_pair_false_alarms": per_pair_false / draws,
            "power": {SYSTEMS[j]: round(fails[j] / draws, 4) for j in worse},
            "per_pair_power": {SYSTEMS[j]: round(per_pair_fails[j] / draws, 4) for j in worse},
            "true_difference_points": {SYSTEMS[j]: round(float(truth[j] - truth[0]) * 100, 2)
                                       for j in range(1, population.shape[1])}}


def scale(runs: int = 20, questions: int = 2000, repeats: int = 3) -> dict:
    """Wall time of ``ragjury report`` over ``runs`` predictions files of ``questions`` each (with
    --html), against ``report A B --html`` on two of them, and the page's size; medians of ``repeats``."""
    import shutil
    import statistics
    import subprocess
    import tempfile

    ragjury = shutil.which("ragjury") or str(Path(sys.executable).parent / "ragjury")
    rng = np.random.default_rng(SEED)
    hard = rng.random(questions)
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for k in range(runs):
            verdicts = 0.7 * hard + 0.3 * rng.random(questions) < 0.5 + 0.01 * k
            path = Path(folder) / f"config-{k:02d}-chunk{256 * (1 + k % 4)}-top{3 + k % 5}.jsonl"
            with path.open("w", encoding="utf-8") as handle:
                for i in range(questions):
                    handle.write(json.dumps({
                        "id": f"q{i}", "task": "correctness", "judge": "llm", "label": bool(verdicts[i]),
                        "unscored": False, "value": {"verdict": bool(verdicts[i]), "reason": "compared with the reference"},
                        "item": {"question": f"Question number {i}: who or what is asked about here, in a few words?",
                                 "answer": f"Config {k} answers question {i} with a sentence or two of text. " * 3,
                                 "references": [f"reference {i}"]}}) + "\n")
            paths.append(str(path))

        def timed(arguments: list[str]) -> float:
            seconds = []
            for _ in range(repeats):
                started = time.perf_counter()
                done = subprocess.run([ragjury, "report", *arguments], capture_output=True, text=True)
                seconds.append(time.perf_counter() - started)
                assert done.returncode in (0, 1), done.stderr[-2000:]
            return statistics.median(seconds)

        page = Path(folder) / "sweep.html"
        many = timed([*paths, "--html", str(page)])
        size = page.stat().st_size
        pair = timed([paths[0], paths[1], "--html", str(Path(folder) / "pair.html")])
        help_only = timed(["--help"])
    return {"runs": runs, "questions": questions, "repeats": repeats, "report_many_s": round(many, 2),
            "report_a_b_s": round(pair, 2), "ratio": round(many / pair, 2), "report_help_s": round(help_only, 2),
            "page_bytes": size}


def people_rates(pops: dict[str, np.ndarray], draws: int, rng: np.random.Generator, n: int = 200,
                 budgets: tuple[int, ...] = (100, 250, 500)) -> list[dict]:
    """People's rates from ``label-plan RUN...`` draws (``--labels``): per sample of n questions, a
    plan of ``budget`` labels in all (budget / 5 questions, each labelled for every config) drawn
    uniformly or focused on the decision (``sweep_label_plan``'s rule), people's labels from the
    data, the prediction-powered simultaneous intervals. Coverage of all four true people's
    differences to the baseline (and of all ten pairs), mean width of the pairs' intervals, and how
    many of the four other configs are shown worse than the best; the truly best config called
    worse than the best counts as an error."""
    from ragjury.evals.pipelines.sweep_label_plan import decision_scores
    from ragjury.evals.stats.label_plan import UNIFORM_SHARE, draw as plan_draw, guarded_probabilities
    from ragjury.evals.stats.simultaneous import prediction_powered

    out = []
    for source in ("contains", "llm"):
        judge_pop = pops[source]
        people_pop = pops["people"] if source == "contains" else pops["people_llm"]
        truth = people_pop.mean(axis=0)
        k = truth.shape[0]
        top = int(np.argmax(truth))
        for budget in budgets:
            questions = budget / k
            cells = {plan: {"covered": 0, "all_pairs": 0, "width": 0.0, "resolved": 0, "errors": 0}
                     for plan in ("uniform", "focused")}
            for _ in range(draws):
                rows = rng.choice(len(judge_pop), size=n, replace=True)
                y, h = judge_pop[rows], people_pop[rows]
                judged = simultaneous(y, resamples=500, seed=int(rng.integers(1 << 30)))
                best = int(np.argmax(judged.means))
                relevant = sorted({best, 0, *(j for j in range(k) if j != best and judged.interval(j, best)[1] >= 0)})
                seed = int(rng.integers(1 << 30))
                for plan in ("uniform", "focused"):
                    if plan == "uniform":
                        pi = np.full(n, questions / n)
                    else:
                        pi, _ = guarded_probabilities(decision_scores(y, relevant), questions, uniform_share=UNIFORM_SHARE)
                    picked = plan_draw(pi, seed)
                    labels = np.where(picked[:, None], h, np.nan)
                    s = simultaneous(prediction_powered(y, labels, np.repeat(pi[:, None], k, axis=1)),
                                     seed=int(rng.integers(1 << 30)))
                    cell = cells[plan]
                    cell["covered"] += all(s.diff_low[j, 0] - 1e-12 <= truth[j] - truth[0] <= s.diff_high[j, 0] + 1e-12
                                           for j in range(1, k))
                    cell["all_pairs"] += all(s.diff_low[a, b] - 1e-12 <= truth[a] - truth[b] <= s.diff_high[a, b] + 1e-12
                                             for a in range(k) for b in range(a + 1, k))
                    cell["width"] += float(np.mean([s.diff_high[a, b] - s.diff_low[a, b]
                                                    for a in range(k) for b in range(a + 1, k)]))
                    best_p = int(np.argmax(s.means))
                    worse = [j for j in range(k) if j != best_p and s.diff_high[j, best_p] < 0]
                    cell["resolved"] += len(worse)
                    cell["errors"] += top in worse
            for plan, cell in cells.items():
                out.append({"source": source, "n": n, "budget": budget, "plan": plan,
                            "coverage": cell["covered"] / draws, "all_pairs": cell["all_pairs"] / draws,
                            "pair_width_points": round(cell["width"] / draws * 100, 2),
                            "shown_worse_than_best": round(cell["resolved"] / draws, 3),
                            "best_called_worse": cell["errors"] / draws})
                row = out[-1]
                print(f"| {source} | {n} | {budget} | {plan} | {row['coverage']:.3f} | {row['all_pairs']:.3f} | "
                      f"{row['pair_width_points']:.1f} | {row['shown_worse_than_best']:.2f} of 4 | "
                      f"{row['best_called_worse']:.3f} |", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--scale-only", action="store_true", help="only the 20 runs x 2,000 questions timing")
    parser.add_argument("--people", action="store_true", help="only people's rates from label-plan draws (--labels)")
    parser.add_argument("--data", type=Path, default=None, help="a held-out correctness JSONL in EVOUNA's layout "
                        "(e.g. TriviaQA's five systems): coverage and gate on people's labels and contains; no scale")
    parser.add_argument("--baseline", default=None, help="with --data: the baseline system (default: the first, sorted)")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.scale_only:
        print(json.dumps(scale(), indent=1))
        return
    if args.people:
        pops = populations()
        print("| judge | questions | labels in all | plan | people's differences to the baseline: all 4 covered | "
              "all 10 pairs | pair width (points) | configs shown worse than the best | true best called worse |")
        print("|---|---|---|---|---|---|---|---|---|")
        rows = people_rates(pops, args.draws, np.random.default_rng(SEED))
        result = {"command": "python bench/bench_sweep.py " + " ".join(sys.argv[1:]), "seed": SEED,
                  "draws": args.draws, "resamples": 2000, "people": rows,
                  "seconds": round(time.perf_counter() - started, 1)}
        print(f"{result['seconds']} s")
        if args.out is not None:
            args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        return
    if args.data is not None:
        pops = populations_of(args.data, args.baseline)
    else:
        pops = {source: population for source, population in populations().items() if source != "people_llm"}
    rng = np.random.default_rng(SEED)
    result: dict = {"command": "python bench/bench_sweep.py " + " ".join(sys.argv[1:]), "seed": SEED,
                    "draws": args.draws, "resamples": 2000, "per_pair_resamples": 1000, "confidence": 0.95,
                    "configs": list(SYSTEMS), "baseline": SYSTEMS[0], "planted": PLANTED, "drop": DROP,
                    "populations": {}, "coverage": [], "gate": []}
    for source, population in pops.items():
        result["populations"][source] = {"questions": len(population),
                                         "rates": [round(float(x), 4) for x in population.mean(axis=0)]}
        print(f"{source}: {len(population):,} questions; rates " + ", ".join(
            f"{s} {r:.3f}" for s, r in zip(SYSTEMS, population.mean(axis=0))), flush=True)
    print("| source | draws | n | simultaneous: all 4 covered | all 10 pairs | per-pair 95 %: all 4 covered "
          "| per-pair each | width simultaneous / per-pair (points) |")
    print("|---|---|---|---|---|---|---|---|")
    for source, population in pops.items():
        for replace in (True, False):
            if not replace and len(population) < 1000:
                continue  # 200 of 212 without replacement: the population is all but known
            for n in SIZES:
                row = {"source": source, "sampling": "iid" if replace else "without replacement", "n": n,
                       **coverage(population, n, args.draws, replace, rng)}
                result["coverage"].append(row)
                print(f"| {source} | {row['sampling']} | {n} | {row['simultaneous_familywise']:.3f} | "
                      f"{row['simultaneous_all_pairs']:.3f} | {row['per_pair_familywise']:.3f} | "
                      f"{', '.join(f'{x:.3f}' for x in row['per_pair_each'])} | "
                      f"{row['simultaneous_width_points']:.1f} / {row['per_pair_width_points']:.1f} "
                      f"(x{row['width_ratio']:.2f}) |", flush=True)
    print("\n| source | world | n | false alarms (any config not worse): simultaneous / per-pair | power "
          "(truly worse configs): simultaneous / per-pair |")
    print("|---|---|---|---|---|")
    for source, population in pops.items():
        worlds = {"nothing planted": population, f"{PLANTED} {DROP * 100:g} points below baseline":
                  planted(population, np.random.default_rng(SEED))}
        for world, pop in worlds.items():
            for n in SIZES:
                row = {"source": source, "world": world, "n": n, **gate(pop, n, args.draws, rng)}
                result["gate"].append(row)
                power = ", ".join(f"{s} ({row['true_difference_points'][s]:+.1f}) {p:.3f} / "
                                  f"{row['per_pair_power'][s]:.3f}" for s, p in row["power"].items()) or "-"
                print(f"| {source} | {world} | {n} | {row['false_alarms']:.3f} / {row['per_pair_false_alarms']:.3f} "
                      f"| {power} |", flush=True)
    if args.data is None:
        result["scale"] = scale()
        print("\nscale: " + json.dumps(result["scale"]))
    result["seconds"] = round(time.perf_counter() - started, 1)
    print(f"\n{result['seconds']} s")
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
