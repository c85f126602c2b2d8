"""User-defined checks: subclass and decorator forms, thresholds, failures as unscored, the
batch pipeline, and the BERTScore-style embedding check."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from ragjury.rag_agent.judges.model_free.embedders import EmbedderUnavailable
from ragjury.rag_agent.judges.user_defined import (
    EmbeddingSimilarityCheck,
    CheckRow,
    Check,
    CheckJudge,
    CheckOutcome,
    FunctionCheck,
    check,
)


class MentionsPrice(Check):
    pass_threshold = 0.5

    def evaluate(self, row: CheckRow) -> CheckOutcome:
        hits = sum(word in row.output for word in ("$", "EUR", "price"))
        return CheckOutcome(score_raw=hits / 3, tags={"hits": str(hits)})


@check
def short_answer(row: CheckRow) -> bool:
    return len(row.output.split()) <= 5


@check(name="gold_in_output", pass_threshold=1.0, version="2")
async def gold_in_output(row: CheckRow) -> float:
    if row.gold_answer is None:
        raise ValueError("no gold answer")
    return float(row.gold_answer.lower() in row.output.lower())


def test_subclass_gets_a_name_and_threshold_fills_pass() -> None:
    judge = CheckJudge(MentionsPrice())
    assert judge.name == "evaluator:mentions_price"
    high, low = judge.judge_batch_sync([CheckRow(output="price: $5"), CheckRow(output="free")])
    assert high.value is not None and high.value.pass_ is True and high.value.tags == {"hits": "2"}
    assert low.value is not None and low.value.pass_ is False and low.value.score_raw == 0.0
    assert high.value.label is True
    assert high.prompt_version == "mentions_price@1"


def test_decorator_forms() -> None:
    assert isinstance(short_answer, FunctionCheck) and short_answer.name == "short_answer"
    assert short_answer(CheckRow(output="two words")) is True  # still callable as the function
    judgment = CheckJudge(short_answer).judge_sync(CheckRow(output="one two three four five six"))
    assert judgment.value == CheckOutcome(score_raw=0.0, pass_=False)
    judge = CheckJudge(gold_in_output)
    assert judge.identity.prompt_version == "gold_in_output@2"
    ok = judge.judge_sync(CheckRow(output="It is Paris.", gold_answer="paris"))
    assert ok.value is not None and ok.value.pass_ is True and ok.value.score_raw == 1.0
    assert (
        gold_in_output.evaluate(CheckRow(output="x", gold_answer="y")) == 0.0
    )  # the sync path of an async function


def test_failures_are_unscored_with_the_reason() -> None:
    judge = CheckJudge(gold_in_output)
    judgments = judge.judge_batch_sync([CheckRow(output="x"), CheckRow(output="Paris", gold_answer="Paris")])
    assert judgments[0].unscored and judgments[0].unscored_reason == "ValueError: no gold answer"
    assert judgments[1].scored

    @check
    def wrong_type(row: CheckRow) -> str:  # type: ignore[return-value]
        return "yes"

    bad = CheckJudge(wrong_type).judge_sync(CheckRow(output="x"))
    assert bad.unscored and "expected bool, a number or CheckOutcome" in (bad.unscored_reason or "")

    @check
    def nothing(row: CheckRow) -> CheckOutcome:
        return CheckOutcome(tags={"a": "b"})

    empty = CheckJudge(nothing).judge_sync(CheckRow(output="x"))
    assert empty.unscored and "neither score_raw nor pass" in (empty.unscored_reason or "")
    with pytest.raises(TypeError, match="decorate functions"):
        CheckJudge(lambda row: True)  # type: ignore[arg-type]


def test_score_without_threshold_keeps_pass_unknown_and_label_is_the_score() -> None:
    @check
    def length(row: CheckRow) -> float:
        return len(row.output) / 10

    result = CheckJudge(length).judge_sync(CheckRow(output="abcde")).value
    assert result is not None and result.pass_ is None and result.label == 0.5


def test_eval_row_and_result_shapes() -> None:
    row = CheckRow(output="o", context="one passage", question="q?", unknown_field=1)
    assert row.context == ["one passage"]
    dumped = CheckOutcome(score_raw=0.3, pass_=False).model_dump(mode="json")
    assert dumped["pass"] is False and "pass_" not in dumped
    assert CheckOutcome.model_validate({"pass": True}).pass_ is True


def test_batch_pipeline_reports_each_row() -> None:
    seen: list[int] = []
    rows = [CheckRow(output="a"), CheckRow(output="b c d e f g")]
    results = asyncio.run(
        CheckJudge(short_answer).ajudge_batch(rows, on_result=lambda i, _: seen.append(i))
    )
    assert [r.value.pass_ for r in results if r.value] == [True, False]
    assert sorted(seen) == [0, 1]


class Axes:
    """Embedder with hand-set vectors: cosine values are known exactly."""

    model = "test:axes"
    table: ClassVar[dict[str, list[float]]] = {
        "Paris is the capital.": [1.0, 0.0, 0.0],
        "It has the Louvre.": [0.0, 1.0, 0.0],
        "The capital is Paris.": [1.0, 0.0, 0.0],
        "Rome.": [0.6, 0.8, 0.0],
    }

    def __init__(self) -> None:
        self.calls = 0

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        return np.asarray([self.table.get(t, [0.0, 0.0, 1.0]) for t in texts], dtype=np.float32)


def test_embedding_similarity_is_bertscore_style() -> None:
    embedder = Axes()
    ev = EmbeddingSimilarityCheck(embedder, pass_threshold=0.7)
    judge = CheckJudge(ev)
    rows = [
        CheckRow(output="Paris is the capital. It has the Louvre.", gold_answer="The capital is Paris."),
        CheckRow(output="Rome.", gold_answer="The capital is Paris."),
        CheckRow(output="Paris is the capital."),
    ]
    verbose, wrong, no_gold = judge.judge_batch_sync(rows)
    assert embedder.calls == 1  # every sentence of the batch in one call
    assert verbose.value is not None
    assert verbose.value.tags == {"precision": "0.5000", "recall": "1.0000"}
    assert verbose.value.score_raw == pytest.approx(2 * 0.5 / 1.5) and verbose.value.pass_ is False
    assert (
        wrong.value is not None and wrong.value.score_raw == pytest.approx(0.6) and wrong.value.pass_ is False
    )
    assert no_gold.unscored and "no gold_answer" in (no_gold.unscored_reason or "")
    same = ev.evaluate(CheckRow(output="The capital is Paris.", gold_answer="Paris is the capital."))
    assert isinstance(same, CheckOutcome) and same.score_raw == pytest.approx(1.0)
    assert judge.identity.model == "test:axes"


def test_embedding_similarity_with_embedder_down() -> None:
    class Down:
        model = "test:down"

        async def aembed(self, texts: Sequence[str]) -> np.ndarray:
            raise EmbedderUnavailable("ollama at http://127.0.0.1:9 unreachable")

    judgment = CheckJudge(EmbeddingSimilarityCheck(Down())).judge_sync(
        CheckRow(output="a", gold_answer="b")
    )
    assert judgment.unscored and "unreachable" in (judgment.unscored_reason or "")


EVALUATOR_MODULE = '''
from ragjury import Check, CheckRow, CheckOutcome, check


@check(name="names_paris")
def names_paris(row: CheckRow) -> bool:
    return "paris" in row.output.lower()


class ShortAnswer(Check):
    pass_threshold = 0.5

    def evaluate(self, row: CheckRow) -> CheckOutcome:
        words = len(row.output.split())
        return CheckOutcome(score_raw=1.0 if words <= 3 else 0.0, tags={"words": str(words)})
'''


@pytest.mark.parametrize(("name", "expected"), [("names_paris", [True, False]), ("ShortAnswer", [True, False])])
def test_an_evaluator_is_a_judge_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, expected: list[bool]
) -> None:
    import json
    import sys

    from typer.testing import CliRunner

    from ragjury.cli import app

    (tmp_path / "my_checks.py").write_text(EVALUATOR_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "my_checks", raising=False)
    data = tmp_path / "d.jsonl"
    data.write_text(
        '{"id": "a", "question": "Capital of France?", "answer": "Paris", "references": ["Paris"]}\n'
        '{"id": "b", "question": "Capital of France?", "answer": "It is Lyon, I think.", "references": ["Paris"]}\n',
        encoding="utf-8",
    )
    out = tmp_path / "p.jsonl"
    result = CliRunner().invoke(app, ["evaluate", "--task", "correctness", "--judge", f"python:my_checks:{name}",
                                      "--data", str(data), "--no-cache", "--no-progress", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row["label"] for row in rows] == expected
    assert all(row["judge"].startswith("evaluator:") for row in rows)


def test_a_plugin_that_is_not_a_judge_is_one_line() -> None:
    from typer.testing import CliRunner

    from ragjury.cli import app

    trec = Path(__file__).resolve().parents[4] / "examples" / "data" / "trec"
    result = CliRunner().invoke(app, ["relevance", "--judge", "python:os:system", "--topics", str(trec / "topics.jsonl"),
                                      "--passages", str(trec / "passages.jsonl"), "--runs", str(trec / "runs"),
                                      "--out", "/tmp/never-written.qrels"])
    assert result.exit_code == 2, result.output
    assert "python:os:system" in result.output and "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
