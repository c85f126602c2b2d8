"""The tune / confirm split of each public dev set, by question or query, fixed once.

Choices (prompts, thresholds, weights, judges, interval rules) are made on *tune*; only *confirm*
figures are reported. A question is in one half only, so no choice can learn a question it is
scored on. The halves are assigned by a hash of the group key and stored in ``bench/splits/*.json``
(committed): ``python bench/splits.py --write`` rebuilds them, ``--check`` verifies them.

    from splits import half_of
    half_of("evouna-nq", row)   # -> "tune" | "confirm"
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPLITS = HERE / "splits"
BENCHMARKS = Path(os.environ.get("RAGJURY_BENCHMARKS", HERE.parent.parent / "shared" / "benchmarks"))
SEED = "ragjury-split-2026-11"


def group_key(dataset: str, row: Mapping[str, object]) -> str:
    """What must not straddle the halves: a question (EVOUNA), a dialogue turn (BEGIN), a query (DL)."""
    if dataset == "evouna-nq":
        return str(row["id"]).rsplit("-", 1)[0]  # nq-1166-fid -> nq-1166
    if dataset == "begin-dev":
        text = f"{row['question']}\n{row['context']}"
        return hashlib.sha1(text.encode()).hexdigest()[:12]
    if dataset == "trec-dl19":
        return str(row["qid"])
    raise ValueError(f"unknown dataset {dataset!r}")


def assign(key: str) -> str:
    digest = hashlib.sha256(f"{SEED}:{key}".encode()).digest()
    return "tune" if digest[0] % 2 == 0 else "confirm"


@cache
def _stored(dataset: str) -> dict[str, str]:
    data = json.loads((SPLITS / f"{dataset}.json").read_text())
    return {key: half for half in ("tune", "confirm") for key in data[half]}


def half_of(dataset: str, row: Mapping[str, object]) -> str:
    """The committed half of a row (a row whose group is not in the file is an error)."""
    return _stored(dataset)[group_key(dataset, row)]


def _rows(dataset: str) -> Iterable[Mapping[str, object]]:
    path = {
        "evouna-nq": BENCHMARKS / "evouna-nq" / "correctness.jsonl",
        "begin-dev": BENCHMARKS / "begin-dev" / "faithfulness.jsonl",
        "trec-dl19": BENCHMARKS / "trec-dl19" / "topics.jsonl",
    }[dataset]
    with path.open() as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


DATASETS = ("evouna-nq", "begin-dev", "trec-dl19")


def build(dataset: str) -> dict[str, list[str]]:
    keys = sorted({group_key(dataset, row) for row in _rows(dataset)})
    return {half: [key for key in keys if assign(key) == half] for half in ("tune", "confirm")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rebuild bench/splits/*.json")
    parser.add_argument("--check", action="store_true", help="verify the committed files")
    args = parser.parse_args()
    status = 0
    for dataset in DATASETS:
        built = build(dataset)
        path = SPLITS / f"{dataset}.json"
        if args.write:
            path.write_text(json.dumps({"seed": SEED, **built}, indent=0) + "\n")
        if args.check and json.loads(path.read_text()) != {"seed": SEED, **built}:
            print(f"{path}: differs from the split rebuilt from {BENCHMARKS}", file=sys.stderr)
            status = 1
        rows = list(_rows(dataset))
        halves = [assign(group_key(dataset, row)) for row in rows]
        print(
            f"{dataset}: groups tune {len(built['tune'])} / confirm {len(built['confirm'])}; "
            f"rows tune {halves.count('tune')} / confirm {halves.count('confirm')}"
        )
    return status


if __name__ == "__main__":
    raise SystemExit(main())
