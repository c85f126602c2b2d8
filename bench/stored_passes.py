"""Read the stored model passes under ``bench/data/`` (see its README) as arrays, with no model running.

Why one reader: every later choice (signals, penalties, thresholds) is made from these files, and
they must be read the same way by every bench.
"""

from __future__ import annotations

import base64
import json
from functools import cache
from pathlib import Path

import numpy as np

from splits import BENCHMARKS, half_of

DATA = Path(__file__).resolve().parent / "data"
DL19 = BENCHMARKS / "trec-dl19"


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@cache
def dl19_grades() -> dict[tuple[str, str], int]:
    grades = {}
    for line in (DL19 / "qrels.txt").read_text().splitlines():
        qid, _, docid, grade = line.split()
        grades[(qid, docid)] = int(grade)
    return grades


@cache
def dl19_pairs() -> dict[str, object]:
    """The pairs of the stored ``llm`` relevance pass: qid, docid, half, NIST grade and P("1")."""
    rows = [r for r in _rows(DATA / "dl19-relevance-llm.jsonl") if not r["unscored"]]
    grades = dl19_grades()
    return {
        "qid": [r["qid"] for r in rows],
        "docid": [r["docid"] for r in rows],
        "half": np.array([half_of("trec-dl19", {"qid": r["qid"]}) for r in rows]),
        "grade": np.array([grades[(r["qid"], r["docid"])] for r in rows]),
        "p_llm": np.array([r["value"]["probability"] for r in rows], dtype=np.float64),
    }


def dl19_hidden() -> dict[tuple[str, str], np.ndarray]:
    """Last-token hidden states of the stored hidden-state pass (may cover only some pairs)."""
    path = DATA / "dl19-relevance-hidden.jsonl"
    if not path.exists():
        return {}
    out = {}
    for r in _rows(path):
        out[(r["qid"], r["docid"])] = np.frombuffer(base64.b64decode(r["f16"]), dtype=np.float16).astype(np.float64)
    return out


def dl19_cosine() -> dict[tuple[str, str], float]:
    """Embedding cosine of query and passage from the stored embedding pass (may be absent)."""
    path = DATA / "dl19-relevance-minilm.jsonl"
    if not path.exists():
        return {}
    return {(r["qid"], r["docid"]): float(r["cosine"]) for r in _rows(path)}


def dl19_runs() -> dict[str, list[tuple[str, str]]]:
    """The six retrieval runs' (qid, docid) lists, top 20 per query."""
    runs: dict[str, list[tuple[str, str]]] = {}
    for path in sorted((DL19 / "runs").glob("*.trec")):
        runs[path.stem] = [(line.split()[0], line.split()[2]) for line in path.read_text().splitlines() if line.strip()]
    return runs


@cache
def evouna_correctness(judge: str) -> dict[str, dict]:
    """A stored correctness pass over EVOUNA-NQ answers (``llm``: the built-in judge; ``rubric``: the
    rubric restating its question), by answer id: system, P(yes) and verdict; unscored rows left out."""
    name = {"llm": "evouna-nq-correctness-llm.jsonl", "rubric": "evouna-nq-correctness-rubric.jsonl"}[judge]
    return {r["id"]: {"system": r["system"], "p": float(r["value"]["probability"]), "verdict": bool(r["value"]["verdict"])}
            for r in _rows(DATA / name) if not r["unscored"]}
