"""The labelled items a calibration is fitted on: judged items and their people's labels.

Kept apart from ``evals.stats.calibration`` (the fitting) and from the command because reading a
dev set and drawing a seeded, grade-stratified sample is work a script fitting its own
calibration needs too.
"""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path
from typing import Any


def sample_pairs(qrels: dict[str, dict[str, int]], have: set[tuple[str, str]], limit: int | None, seed: int
                 ) -> list[tuple[tuple[str, str], int]]:
    """Gold (pair, grade) rows with text; with ``limit``, a seeded sample that keeps each grade's share."""
    rows = [((qid, docid), grade) for qid, docs in sorted(qrels.items()) for docid, grade in sorted(docs.items())
            if (qid, docid) in have]
    if limit is None or limit >= len(rows):
        return rows
    by_grade: dict[int, list[tuple[tuple[str, str], int]]] = defaultdict(list)
    for row in rows:
        by_grade[row[1]].append(row)
    rng = random.Random(seed)
    sample: list[tuple[tuple[str, str], int]] = []
    for grade in sorted(by_grade):
        share = round(limit * len(by_grade[grade]) / len(rows))
        sample.extend(rng.sample(by_grade[grade], min(share, len(by_grade[grade]))))
    return sorted(sample)


def qrels_labels(qrels: dict[str, dict[str, int]], labels: Path | Any, data: Path) -> dict[str, dict[str, int]]:
    """``--labels`` of a relevance task: people's grades as TREC qrels, read by the labels type
    (``people.people_of_qrels``: 0-3, file/line/field), in place of ``data``'s grades; a pair of
    ``data`` they do not grade is left out, as a dataset row without a label is. Labels of another
    form are refused: relevance's labels are grades of (query, passage) pairs."""
    from ragjury.evals.io.people import People, check_regular_file, is_qrels, people_of_qrels
    from ragjury.rag_agent.core.input_files import InputError, read_text

    if isinstance(labels, People):
        people = labels
    else:
        check_regular_file(labels)
        text = read_text(labels)  # the labels file opened once
        if not is_qrels(labels, text):
            raise ValueError(f"--labels {labels}: relevance reads people's grades from the qrels in --data, or "
                             "from TREC qrels (qid iter docid grade) given as --labels; not from labels rows")
        people = people_of_qrels(str(labels), text, "score")
    if people.form != "qrels":
        raise ValueError(f"--labels {people.source}: relevance reads people's grades from TREC qrels")
    given = people.qrels()
    out = {qid: {docid: given[qid][docid] for docid in docs if docid in given.get(qid, {})} for qid, docs in qrels.items()}
    out = {qid: docs for qid, docs in out.items() if docs}
    if not out:
        raise InputError(people.source, f"no (query, passage) pair in this file is one of {data}'s")
    return out


def calibration_items(
    task: str,
    data: Path,
    *,
    topics: Path | None = None,
    passages: Path | None = None,
    limit: int | None = None,
    seed: int = 0,
    labels: Path | None = None,
    allow_shown_judge: bool = False,
    left_out: list[str] | None = None,
) -> tuple[list[Any], list[bool | int]]:
    """The items to judge and their gold labels: for ``relevance``, the qrels pairs of ``data``
    whose topic and passage texts are known (0-3 grades); otherwise the labelled rows of a
    ``task`` dataset (bool labels). With ``limit``, a seeded sample (per grade for qrels).
    ``labels``: people's labels apart from the dataset (a labels file of ``ragjury label``, or
    ``{"id", "label"}`` rows; for relevance, TREC qrels: ``qrels_labels``), read and joined once
    (``evals.io.people``); they replace the dataset's own;
    labels given with the judge shown are refused unless ``allow_shown_judge``.
    ``ValueError`` (``InputError`` for a file) when the inputs cannot give labelled items."""
    if task == "relevance":
        from ragjury.evals.io.loaders import load_passages, load_topics
        from ragjury.evals.io.people import read_people
        from ragjury.rag_agent.core.items import RelevanceItem

        if topics is None or passages is None:
            raise ValueError("--task relevance needs --topics and --passages beside the gold qrels in --data")
        # people's grades, read by the labels type (0-3 each, or file, line, field)
        topic_texts, passage_texts = load_topics(topics), load_passages(passages)
        qrels = read_people(data, "score").qrels()
        if labels is not None:  # people's grades apart from --data: TREC qrels, in place of --data's
            qrels = qrels_labels(qrels, labels, data)
        have = {(q, d) for q, docs in qrels.items() for d in docs if q in topic_texts and d in passage_texts}
        if left_out is not None:  # a pair whose query or passage has no text: counted, never dropped unsaid
            left_out.extend(f"{q} {d}" for q, docs in sorted(qrels.items()) for d in sorted(docs) if (q, d) not in have)
        rows = sample_pairs(qrels, have, limit, seed)
        items: list[Any] = [RelevanceItem(query=topic_texts[q], retrieved_text=passage_texts[d]) for (q, d), _ in rows]
        return items, [grade for _, grade in rows]
    from ragjury.evals.io.tasks import load_task_rows

    rows = load_task_rows(task, data)
    if labels is not None:
        from ragjury.evals.io.human_labels import relabelled

        rows = relabelled(rows, labels, "binary", data, allow_shown_judge=allow_shown_judge)
    labelled = [row for row in rows if isinstance(row.gold, bool)]
    if limit is not None and limit < len(labelled):
        labelled = random.Random(seed).sample(labelled, limit)
    return [row.item for row in labelled], [bool(row.gold) for row in labelled]


__all__ = ["calibration_items", "qrels_labels", "sample_pairs"]
