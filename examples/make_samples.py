"""Draw the small sample data in ``examples/data/`` from the public dev sets.

Why: every README and docs/ example must run verbatim from a fresh clone, where ``../shared/benchmarks``
does not exist. The samples are a few dozen rows of the same human-labelled sets the benchmarks
use, drawn with a fixed seed so that re-running this script gives byte-identical files. Sources and
licences are in ``examples/data/LICENSES.md``.

    python examples/make_samples.py --benchmarks ../shared/benchmarks
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data"
TREC_TOPICS = 4
TREC_RUNS = ("bm25", "d_bert_kd_tasb", "rep_llama", "splade_p_p_ensemble_distil")
TREC_DEPTH = 10


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle.read().split("\n") if line.strip()]


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


def sample_balanced(rows: list[dict], n: int, rng: random.Random) -> list[dict]:
    """Half positive, half negative labels, so the agreement figures of a sample mean something."""
    positives = [row for row in rows if row["label"]]
    negatives = [row for row in rows if not row["label"]]
    chosen = rng.sample(positives, n // 2) + rng.sample(negatives, n - n // 2)
    return sorted(chosen, key=lambda row: row["id"])


def sample_trec(bench: Path, rng: random.Random) -> None:
    """A few queries, the top 10 of three runs for them, their passages and NIST grades."""
    source = bench / "trec-dl19"
    topics = read_jsonl(source / "topics.jsonl")
    chosen = sorted(rng.sample(topics, TREC_TOPICS), key=lambda topic: topic["qid"])
    qids = {topic["qid"] for topic in chosen}
    out = OUT / "trec"
    (out / "runs").mkdir(parents=True, exist_ok=True)
    pooled: set[tuple[str, str]] = set()
    for run in TREC_RUNS:
        kept = []
        for line in (source / "runs" / f"{run}.trec").read_text(encoding="utf-8").split("\n"):
            fields = line.split()
            if len(fields) == 6 and fields[0] in qids and int(fields[3]) <= TREC_DEPTH:
                kept.append(line)
                pooled.add((fields[0], fields[2]))
        (out / "runs" / f"{run}.trec").write_text("\n".join(kept) + "\n", encoding="utf-8")
    docids = {docid for _, docid in pooled}
    passages = [row for row in read_jsonl(source / "passages.jsonl") if row["docid"] in docids]
    write_jsonl(out / "passages.jsonl", sorted(passages, key=lambda row: row["docid"]))
    write_jsonl(out / "topics.jsonl", chosen)
    grades: dict[tuple[str, str], str] = {}
    for line in (source / "qrels.txt").read_text(encoding="utf-8").split("\n"):
        fields = line.split()
        if len(fields) == 4 and (fields[0], fields[2]) in pooled:
            grades[(fields[0], fields[2])] = line
    (out / "qrels.txt").write_text("\n".join(grades[key] for key in sorted(grades)) + "\n", encoding="utf-8")
    by_topic: dict[str, int] = defaultdict(int)
    for qid, _ in grades:
        by_topic[qid] += 1
    print(f"trec: {len(chosen)} topics, {len(passages)} passages, {len(grades)} graded pairs {dict(by_topic)}")


def sample_systems(bench: Path, rng: random.Random, questions: int = 250, labelled: int = 60) -> None:
    """Two systems' answers to the same questions, people's label on a few: the estimate example.

    A user who wants a system's rate labels a few answers and lets the judge cover the rest, so
    the file keeps the label on ``labelled`` questions (both systems' answers) and drops it
    elsewhere. Its own random stream, so the other samples stay byte-identical."""
    local = random.Random(rng.random())
    rows = read_jsonl(bench / "evouna-nq" / "correctness.jsonl")
    by_question: dict[str, dict[str, dict]] = defaultdict(dict)
    for row in rows:
        by_question[row["id"].rsplit("-", 1)[0]][row["system"]] = row
    shared = sorted(key for key, answers in by_question.items() if {"chatgpt", "fid"} <= set(answers))
    chosen = local.sample(shared, questions)
    keep = set(local.sample(chosen, labelled))
    out = []
    for key in sorted(chosen):
        for system in ("chatgpt", "fid"):
            row = dict(by_question[key][system])
            if key not in keep:
                del row["label"]
            out.append(row)
    write_jsonl(OUT / "systems.jsonl", out)


def sample_configs(questions: int = 100) -> None:
    """Two configs' answers to the same questions, no labels: the "which config is better?"
    example. Derived from ``systems.jsonl`` (fid as config A, chatgpt as config B, the first
    ``questions`` questions in id order), one row per question under the question's id."""
    by_question: dict[str, dict[str, dict]] = defaultdict(dict)
    for row in read_jsonl(OUT / "systems.jsonl"):
        by_question[row["id"].rsplit("-", 1)[0]][row["system"]] = row
    chosen = sorted(by_question)[:questions]
    for name, system in (("config_a", "fid"), ("config_b", "chatgpt")):
        rows = []
        for key in chosen:
            source = by_question[key][system]
            rows.append({"id": key, **{k: source[k] for k in ("question", "references", "answer")}})
        write_jsonl(OUT / f"{name}.jsonl", rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--benchmarks", type=Path, default=Path("../shared/benchmarks"))
    parser.add_argument("--seed", type=int, default=2019)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    OUT.mkdir(parents=True, exist_ok=True)
    correctness = sample_balanced(read_jsonl(args.benchmarks / "evouna-nq" / "correctness.jsonl"), 40, rng)
    write_jsonl(OUT / "correctness.jsonl", correctness)
    begin = [row for row in read_jsonl(args.benchmarks / "begin-dev" / "faithfulness.jsonl")
             if not row["id"].startswith("begin_dev_tc")]  # CC BY 4.0 parts only (WoW, CMU-DoG)
    write_jsonl(OUT / "faithfulness.jsonl", sample_balanced(begin, 30, rng))
    sample_trec(args.benchmarks, rng)
    sample_systems(args.benchmarks, random.Random(args.seed + 1))
    sample_configs()
    print(f"correctness: {len(correctness)} rows; faithfulness: 30 rows -> {OUT}")


if __name__ == "__main__":
    main()
