"""One codec for a predictions row (issue #46): ``row_of`` writes it, ``record_of`` reads it, and a
run just judged makes its records by reading the rows it writes (``record_of_prediction``).

So a new predictions field touches 2 places, the writer and the reader; the second test says which
keys the writer writes and fails when one is written but never read (or read but never written)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from ragjury.evals.io.predictions import (
    ItemRecord,
    Prediction,
    Statement,
    load_predictions,
    record_of,
    record_of_prediction,
    row_of,
    run_of_predictions,
    write_jsonl,
)
from ragjury.rag_agent.core.items import CorrectnessItem, FaithfulnessItem
from ragjury.rag_agent.core.results import Judgment, Usage
from ragjury.rag_agent.judges.llm.correctness import Verdict
from ragjury.rag_agent.judges.llm.faithfulness import FaithfulnessResult, StatementVerdict

ROW_KEYS = ("id", "system", "task", "label", "gold", "inclusion_probability", "value", "judge", "model", "prompt_version", "fallback_used",
            "fallback_reason", "latency_s", "usage", "unscored", "unscored_reason", "attempts", "method", "judged_answer",
            "judge_name", "item")
"""Every key of a predictions row, in the order the writer writes them (``score`` for ``label`` in
a score task): a new field is added here, in the writer and in the reader."""
UNREAD = {"attempts"}
"""Written, kept in the file, read by no view."""
NOT_FROM_THE_ROW = {"line", "pair"}
"""Record fields that are not a row's: its line in the file, and what pairs it with another run."""
ROW_OF_FIELD = {"label": "label", "input_tokens": "usage", "output_tokens": "usage", "requests": "usage",
                "cost_usd": "usage"}
"""Record fields read from a row key of another name (``cost_usd``: also a top-level key in other tools' rows)."""

ITEM = CorrectnessItem(question="Where is the Eiffel tower?", answer="Paris", references=["In Paris."])


def correct(**changes: Any) -> Prediction:
    """A correctness prediction with every field set: probability, reason, usage, a fallback."""
    judgment = Judgment[Verdict](
        value=Verdict(verdict=True, reason="the reference says Paris", probability=0.875, method="logprobs"),
        judge="answer_correctness", model="m", prompt_version="answer_correctness@2", fallback_used=True,
        fallback_reason="timeout", latency_s=0.5, usage=Usage(input_tokens=120, output_tokens=7, requests=2),
        method="logprobs",
    )
    fields: dict[str, Any] = {"id": "q1", "system": "s1", "gold": True, "judgment": judgment, "label": True,
                              "task": "correctness", "item": ITEM, "judge_name": "llm", "inclusion_probability": 0.5}
    return Prediction(**{**fields, **changes})


def faithful() -> Prediction:
    statements = [StatementVerdict(statement="It is in Paris.", verdict=True, reason="context 1"),
                  StatementVerdict(statement="It is blue.", verdict=False, reason="nowhere")]
    value = FaithfulnessResult(score=0.5, statements=statements)
    judgment = Judgment[FaithfulnessResult](value=value, judge="faithfulness", model="m", latency_s=1.25,
                                            usage=Usage(input_tokens=300, output_tokens=40, requests=3))
    item = FaithfulnessItem(answer="It is in Paris. It is blue.", contexts=["The tower is in Paris."], question="q?")
    return Prediction("f1", None, False, judgment, False, task="faithfulness", item=item, judge_name="llm")


def unscored() -> Prediction:
    judgment = Judgment[Verdict](judge="answer_correctness", model="m", unscored=True, unscored_reason="HTTP 500",
                                 usage=Usage(input_tokens=10, requests=1), latency_s=0.25)
    return Prediction("q2", "s2", None, judgment, None, task="correctness", item=ITEM, judge_name="llm")


def test_a_prediction_and_its_row_read_back_are_the_same_record_over_every_field(tmp_path: Path) -> None:
    """Prediction -> record, and Prediction -> row -> file -> record, field by field, against what
    the prediction itself says (not against the codec)."""
    predictions = [correct(), faithful(), unscored()]
    made = [record_of_prediction(p, 1, "label") for p in predictions]
    for prediction, record in zip(predictions, made, strict=True):  # one task a file
        path = tmp_path / f"{prediction.id}.jsonl"
        write_jsonl(path, [prediction.as_dict()])
        assert load_predictions(path).records == [record]
        assert run_of_predictions([prediction], output_key="label", path=str(path), name="p").records == [record]

    verdict, statements, failed = made
    assert dataclasses.asdict(verdict) == {
        "id": "q1", "line": 1, "label": True, "gold": True, "system": "s1", "task": "correctness",
        "item": ITEM.model_dump(mode="json"), "value": predictions[0].judgment.value.model_dump(mode="json"),
        "judge": "answer_correctness", "judge_name": "llm", "model": "m", "prompt_version": "answer_correctness@2",
        "fallback_used": True, "fallback_reason": "timeout", "unscored": False, "unscored_reason": None,
        "input_tokens": 120, "output_tokens": 7, "requests": 2, "latency_s": 0.5, "method": "logprobs",
        "cost_usd": None, "inclusion_probability": 0.5, "judged_answer": None, "pair": None,
    }
    assert (verdict.probability, verdict.reason, verdict.tokens) == (0.875, "the reference says Paris", 127)
    assert (verdict.question, verdict.answer, verdict.references) == (ITEM.question, "Paris", ["In Paris."])
    assert statements.statements == [Statement("It is in Paris.", True, "context 1"), Statement("It is blue.", False, "nowhere")]
    assert (statements.label, statements.gold, statements.system, statements.contexts) == (False, False, None,
                                                                                         ["The tower is in Paris."])
    assert (statements.tokens, statements.requests, statements.latency_s, statements.probability) == (340, 3, 1.25, None)
    assert (failed.unscored, failed.label, failed.reason, failed.value) == (True, None, "HTTP 500", {})
    assert (failed.input_tokens, failed.requests, failed.outcome("binary")) == (10, 1, "unscored")


def test_scores_read_back_as_floats_and_a_rows_price_is_read() -> None:
    score = Prediction("z", None, 1, Judgment[float](value=0.5, judge="heuristic"), 1, task="score")
    record = record_of_prediction(score, 1, "score")
    assert list(row_of(score, "score")) == ["id", "task", "score", "gold", "judge", "model", "prompt_version",
                                            "fallback_used", "fallback_reason", "latency_s", "usage", "unscored",
                                            "unscored_reason", "attempts", "method", "judged_answer"]
    assert (record.label, record.gold) == (1.0, 1.0) and isinstance(record.label, float)
    row = correct().as_dict()
    priced = record_of("<run>", 1, {**row, "usage": {**row["usage"], "cost_usd": 0.002}}, "label")  # type: ignore[dict-item]
    assert priced.cost_usd == 0.002 and record_of("<run>", 1, {**row, "cost_usd": 0.5}, "label").cost_usd == 0.5


def changed(key: str, value: Any) -> Any:
    """Another valid value for ``key`` (a key the reader reads then changes the record)."""
    if key == "task":
        return "faithfulness"
    if key == "value":
        return {"reason": "another reason"}
    if key == "inclusion_probability":
        return value / 2
    if value is None:
        return "why"
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, dict):
        return {inner: changed(inner, v) for inner, v in value.items()}
    return value


def test_a_new_field_touches_the_writer_and_the_reader() -> None:
    """The writer writes exactly ``ROW_KEYS``; the reader reads each of them (changing the key
    changes the record) but ``UNREAD``; and every record field comes from a row key. A field
    written and not read, or a record field no row key fills, fails here."""
    row = json.loads(json.dumps(correct().as_dict()))
    assert tuple(row) == ROW_KEYS
    record = record_of("<run>", 1, row, "label")
    read = {key for key in ROW_KEYS
            if record_of("<run>", 1, {**row, key: changed(key, row[key])}, "label") != record}
    assert read == set(ROW_KEYS) - UNREAD
    fields = {f.name for f in dataclasses.fields(ItemRecord)} - NOT_FROM_THE_ROW
    assert {ROW_OF_FIELD.get(name, name) for name in fields} <= set(ROW_KEYS), "a record field no row key fills"
    assert set(ROW_KEYS) - UNREAD <= {ROW_OF_FIELD.get(name, name) for name in fields} | {"usage"}
