"""Two runs (config A and config B) as one run of two systems, joined on the question.

Why: an A/B as people would judge it labels both configs' answers to the same questions, and the
two files' ids need not agree (or may collide: both call their first row ``q1``). So each record
becomes system CONFIG with id ``CONFIG/ID`` (labels can never land on the other config's answer),
and its ``pair`` is the question (text, or query for relevance), which pairs A's and B's answers
whatever ids they carry. A file that holds several systems itself is refused: one config per file.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ragjury.evals.io.predictions import ItemRecord, PredictionRun, load_predictions
from ragjury.rag_agent.core.input_files import InputError

SEPARATOR = "/"


def nfc(value: str) -> str:
    """``value`` in Unicode NFC, without its outer whitespace: how two runs' ids and questions are
    compared wherever runs join (``question_key``, ``report A B``'s pairs), so the same text typed
    once precomposed (é) and once decomposed (e + ´) is one question, not two."""
    return unicodedata.normalize("NFC", value).strip()


def _folded(value: object) -> str:
    return re.sub(r"\s+", " ", nfc(value)).strip().casefold() if isinstance(value, str) else ""


def question_key(record: ItemRecord) -> str:
    """What two configs' answers share: the question text, whitespace and case folded (for a
    relevance pair, its query and passage: two retrievals pair where they found the same passage);
    the id where the row carries no text."""
    question = _folded(record.item.get("question"))
    if question:
        return question
    query = _folded(record.item.get("query"))
    if query:
        passage = _folded(record.item.get("retrieved_text") or record.item.get("passage"))
        return f"{query}\n{passage}"
    return f"id:{nfc(record.id)}"


def config_names(paths: Sequence[str | Path], runs: Sequence[PredictionRun]) -> list[str]:
    """Each file's config name: the one system its rows name where both files name one and they
    differ, else the file stems, else (stems alike: ``v1/preds.jsonl``, ``v2/preds.jsonl``) the folders
    they are in, else (runs in memory, or nothing tells them apart) A and B. A name comes from the
    file, never from its place in the command line: the same plan given with the files swapped keeps
    each label with its own file."""
    systems = [{record.system for record in run.records} for run in runs]
    if all(len(found) == 1 and None not in found for found in systems):
        names = [next(iter(found)) for found in systems]
        if len(set(names)) == len(names) and all(SEPARATOR not in str(name) for name in names):
            return [str(name) for name in names]
    stems = [Path(str(path)).stem for path in paths]
    if any(not stem or "<" in str(path) for stem, path in zip(stems, paths)):
        return ["A", "B"]  # runs in memory: the letters
    if len(set(stems)) < len(stems):  # two files of one name: the folders they are in
        folders = [Path(str(path)).resolve().parent.name for path in paths]
        if len(set(folders)) < len(folders) or any(not folder for folder in folders):
            return ["A", "B"]
        return [folder.replace(SEPARATOR, "-") for folder in folders]
    return [stem.replace(SEPARATOR, "-") for stem in stems]


def joined_run(sources: Sequence[str | Path | PredictionRun]) -> tuple[PredictionRun, list[str]]:
    """One ``PredictionRun`` of two configs (files, or runs already read), and their names (A's first)."""
    if len(sources) != 2:
        raise ValueError("join two runs: config A's and config B's")
    runs = [source if isinstance(source, PredictionRun) else load_predictions(source) for source in sources]
    paths = [run.path for run in runs]
    for path, run in zip(paths, runs):
        named = sorted({record.system for record in run.records if record.system})
        if len(named) > 1:
            raise InputError(str(path), f"holds {len(named)} systems ({', '.join(named[:4])}): give one config per "
                             "file, or estimate the systems of one file with --compare")
    if runs[0].kind != runs[1].kind or runs[0].task != runs[1].task:
        raise InputError(str(paths[1]), f"is a {runs[1].task or runs[1].kind} run but {paths[0]} is a "
                         f"{runs[0].task or runs[0].kind} run: compare two runs of the same task")
    names = config_names(paths, runs)
    records: list[ItemRecord] = []
    for path, name, run in zip(paths, names, runs):
        seen: dict[str, int] = {}
        for record in run.records:
            key = question_key(record)
            if key in seen:
                raise InputError(str(path), f"the same question as on line {seen[key]}: the join pairs one answer "
                                 "per question of each config", line=record.line, field="question")
            seen[key] = record.line
            records.append(replace(record, id=f"{name}{SEPARATOR}{record.id}", system=name, pair=key))
    joined = PredictionRun(name=f"{names[0]} vs {names[1]}", path=f"{paths[0]} + {paths[1]}", records=records,
                           kind=runs[0].kind, task=runs[0].task, output_key=runs[0].output_key)
    return joined, names


def shared_questions(run: PredictionRun, names: Sequence[str]) -> tuple[set[str], dict[str, int]]:
    """The questions both configs answered, and per config how many of its rows have no partner."""
    keys = {name: {record.pair for record in run.records if record.system == name} for name in names}
    both = set.intersection(*keys.values()) if keys else set()
    alone = {name: sum(1 for record in run.records if record.system == name and record.pair not in both)
             for name in names}
    return {key for key in both if key is not None}, alone


def joined_notes(run: PredictionRun, names: Sequence[str]) -> list[str]:
    """How the two configs were joined: on how many questions, and the rows with no partner."""
    both, alone = shared_questions(run, names)
    shown = [name if name == letter else f"{name} ({letter})" for name, letter in zip(names, "AB")]
    note = f"{shown[0]} and {shown[1]} joined on the question: {len(both):,} questions answered by both"
    extra = [f"{count:,} of {name} only" for name, count in alone.items() if count]
    return [note + (f"; {', '.join(extra)} (estimated, not paired)" if extra else "")]


__all__ = ["SEPARATOR", "config_names", "joined_notes", "joined_run", "nfc", "question_key", "shared_questions"]
