"""NonLLMJudge: the TREC AutoJudge non-LLM algorithm pinned by hand, the batch path equal to the
per-pair path, settings from workflow.yml, and the kit's own grades on its toy runs."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.core.input_files import InputError
from ragjury.rag_agent.core.items import RelevanceItem
from ragjury.rag_agent.core.protocol import JudgmentUnscored
from ragjury.rag_agent.judges.model_free.non_llm import (
    NonLLMJudge,
    NonLLMSettings,
    length_score,
    score_pair,
    words,
)

FIXTURES = Path(__file__).resolve().parents[4] / "fixtures"


def ctx(query: str, response: str) -> RelevanceItem:
    return RelevanceItem(query=query, retrieved_text=response)


@pytest.mark.parametrize(
    ("count", "expected"),
    [(0, 0.0), (25, 0.25), (50, 0.5), (125, 0.75), (200, 1.0), (350, 0.9), (500, 0.8), (1000, 0.4)],
)
def test_length_curve(count: int, expected: float) -> None:
    assert length_score(count, NonLLMSettings()) == pytest.approx(expected)


def test_signals_by_hand() -> None:
    # query words: what, is, quantum, computing (4 distinct, 4 occurrences)
    response = "quantum computing uses quantum bits"  # 5 words
    scores = NonLLMJudge().batch_scores(["What is quantum computing?"], [response])[0]
    assert scores is not None
    assert scores.keyword_score == pytest.approx(2 / 4)
    assert scores.coverage_score == pytest.approx(2 / 4)
    assert scores.length_score == pytest.approx(5 / 50 * 0.5)
    norm = 1.5 * (1 - 0.75 + 0.75 * 5 / 200)
    bm25 = (2 * 2.5 / (2 + norm) + 1 * 2.5 / (1 + norm)) / (4 * 2.5)
    assert scores.bm25_score == pytest.approx(bm25)
    combined = (0.2 * 0.05 + 0.3 * 0.5 + 0.3 * bm25 + 0.2 * 0.5) * 3
    assert scores.combined_score == pytest.approx(combined)
    assert scores.grade == round(combined) == 1


def test_repeated_query_words_count_in_bm25_and_coverage() -> None:
    once = score_pair("edison edison bulb", "edison", NonLLMSettings())
    assert once.keyword_score == pytest.approx(1 / 2)
    assert once.coverage_score == pytest.approx(1 / 3)  # one of the two "edison" occurrences matched
    judge = NonLLMJudge()
    assert judge.batch_scores(["edison edison bulb"], ["edison"])[0] == once


def test_kit_toy_grades(benchmarks_dir: Path) -> None:
    """The kit's published toy output (trec26/judges/non_llm_judge/toy_output/default.eval.txt)
    grades high 2,2,1; low 0,1,1; medium 2,2,1."""
    import json

    toy = benchmarks_dir / "trec-rag-toy"
    titles = {}
    for line in (toy / "topics.jsonl").read_text().splitlines():
        row = json.loads(line)
        titles[row["request_id"]] = row["title"]
    grades = {}
    judge = NonLLMJudge()
    for path in sorted((toy / "runs").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            run = json.loads(line)
            text = " ".join(r["text"] for r in run["responses"])
            grades[(run["metadata"]["run_id"], run["metadata"]["topic_id"])] = judge.grade(
                ctx(titles[run["metadata"]["topic_id"]], text)
            )
    assert [grades[("run_high_quality", t)] for t in ("q1", "q2", "q3")] == [2, 2, 1]
    assert [grades[("run_low_quality", t)] for t in ("q1", "q2", "q3")] == [0, 1, 1]
    assert [grades[("run_medium_quality", t)] for t in ("q1", "q2", "q3")] == [2, 2, 1]


def test_batch_equals_per_pair_reference() -> None:
    rng = random.Random(3)
    vocab = "the light bulb edison invented 1879 carbon filament lamp électricité über power grid what who".split()
    queries = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 8))) for _ in range(40)]
    responses = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 700))) for _ in range(60)]
    pairs = [(rng.choice(queries), rng.choice(responses)) for _ in range(800)]
    settings = NonLLMSettings(
        length_weight=1,
        keyword_weight=2,
        bm25_weight=3,
        coverage_weight=1,
        min_length=10,
        optimal_length=100,
        max_length=400,
    )
    judge = NonLLMJudge(settings)
    batch = judge.batch_scores([q for q, _ in pairs], [r for _, r in pairs])
    reference = [score_pair(q, r, settings) for q, r in pairs]
    assert [s.grade for s in batch if s] == [s.grade for s in reference]
    for got, want in zip(batch, reference):
        assert got is not None
        assert got.combined_score == pytest.approx(want.combined_score, abs=1e-12)
    assert len({s.grade for s in reference}) >= 3


def test_empty_query_is_unscored_and_empty_response_grades_zero() -> None:
    judge = NonLLMJudge()
    with pytest.raises(JudgmentUnscored, match="empty query"):
        judge.grade(ctx("?!", "Edison invented the light bulb."))
    assert judge.grade(ctx("who invented the light bulb", "")) == 0
    judgments = judge.judge_batch_sync([ctx("", "text"), ctx("light bulb", "light bulb")])
    assert judgments[0].unscored and "empty query" in (judgments[0].unscored_reason or "")
    assert judgments[1].value == judge.grade(ctx("light bulb", "light bulb"))


def test_judge_uses_pass_grade() -> None:
    good = ctx("who invented the light bulb", "Thomas Edison invented the light bulb in 1879.")
    assert NonLLMJudge().grade(good) == 2
    assert NonLLMJudge().judge(good) is True
    assert NonLLMJudge(pass_grade=3).judge(good) is False
    assert NonLLMJudge().batch_judge([good, ctx("who invented the light bulb", "Bananas.")]) == [True, False]


def test_unicode_words() -> None:
    scores = NonLLMJudge().batch_scores(["Über Électricité"], ["über électricité and ÜBER"])[0]
    assert scores is not None and scores.keyword_score == 1.0 and scores.coverage_score == 1.0
    assert words("Ünïcödé, 東京!") == ["ünïcödé", "東京"]


def test_very_long_response_is_penalised_for_length() -> None:
    text = "edison light bulb " * 2000
    scores = NonLLMJudge().batch_scores(["edison light bulb"], [text])[0]
    assert scores is not None
    assert scores.length_score == pytest.approx(0.8 * 500 / 6000)
    assert scores.keyword_score == 1.0 and scores.bm25_score <= 1.0


def test_settings_from_workflow(tmp_path: Path) -> None:
    settings = NonLLMSettings.from_workflow(FIXTURES / "deterministic_workflow.yml")
    assert settings.bm25_weight == 0.6 and settings.min_length == 40 and settings.topic_format == "rag"
    assert sum(settings.normalised_weights()) == pytest.approx(1.0)
    assert settings.normalised_weights()[2] == pytest.approx(0.6 / 1.3)
    no_block = tmp_path / "w.yml"
    no_block.write_text("judge_class: x\n")
    assert NonLLMSettings.from_workflow(no_block) == NonLLMSettings()


def test_workflow_errors_name_file_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "workflow.yml"
    bad.write_text("judge_class: x\njudge_settings:\n  length_weight: 0.2\n  bm25_weight: heavy\n")
    with pytest.raises(InputError) as caught:
        NonLLMSettings.from_workflow(bad)
    assert str(caught.value).startswith(f"{bad}:4: field 'judge_settings.bm25_weight'")
    broken = tmp_path / "broken.yml"
    broken.write_text("judge_settings:\n  a: [1, 2\n")
    with pytest.raises(InputError, match=r"broken.yml:\d+: malformed YAML"):
        NonLLMSettings.from_workflow(broken)
    order = tmp_path / "order.yml"
    order.write_text("judge_settings:\n  min_length: 300\n")
    with pytest.raises(InputError, match="min_length < optimal_length"):
        NonLLMSettings.from_workflow(order)


def test_generic_factories_may_pass_ragjury_settings() -> None:
    assert NonLLMJudge(settings=RagjurySettings()).settings == NonLLMSettings()
    with pytest.raises(TypeError, match="unknown NonLLMJudge option"):
        NonLLMJudge(weight=3)
