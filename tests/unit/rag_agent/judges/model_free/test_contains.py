"""ContainsJudge: normalised containment of any reference in the answer."""

from __future__ import annotations

import pytest

from ragjury.rag_agent.core.items import CorrectnessItem
from ragjury.rag_agent.core.protocol import JudgmentUnscored
from ragjury.rag_agent.judges.model_free.contains import ContainsJudge, normalise_answer


def item(answer: str, *references: str) -> CorrectnessItem:
    return CorrectnessItem(question="q?", answer=answer, references=list(references))


def test_normalisation_drops_case_accents_articles_and_punctuation() -> None:
    assert normalise_answer("The  Édouard-Manet, an artist!") == "edouard manet artist"
    assert normalise_answer("A theory of the atom") == "theory of atom"  # "theory" keeps its "the"


@pytest.mark.parametrize(
    ("answer", "references", "expected"),
    [
        ("It was painted by Édouard Manet in 1863.", ["Edouard Manet"], True),
        ("Wilhelm Conrad Röntgen", ["wilhelm conrad rontgen"], True),
        ("The answer is Paris.", ["London", "paris"], True),  # any alternative suffices
        ("The answer is Lyon.", ["London", "Paris"], False),
        ("the 1990s", ["1990"], True),  # substring, as EVOUNA's people accept
        ("Rontgen", ["Wilhelm Conrad Röntgen"], False),  # a partial answer does not contain the reference
        ("U.S. Navy", ["US Navy"], False),  # punctuation becomes a space: "u s navy"
        ("Zürich, Switzerland", ["ZURICH"], True),
    ],
)
def test_contains(answer: str, references: list[str], expected: bool) -> None:
    assert ContainsJudge().judge(item(answer, *references)) is expected


def test_unscored_cases() -> None:
    judge = ContainsJudge()
    with pytest.raises(JudgmentUnscored, match="empty answer"):
        judge.judge(item("   ", "Paris"))
    with pytest.raises(JudgmentUnscored, match="empty after normalisation"):
        judge.judge(item("The answer", "the", "?!"))
    judgments = judge.judge_batch_sync([item("", "x"), item("x marks", "X")])
    assert judgments[0].unscored and judgments[0].value is None
    assert judgments[1].value is True and judgments[1].judge == "contains"


def test_very_long_answer() -> None:
    long_answer = "filler words here " * 50_000 + "and finally Marie Curie."
    assert ContainsJudge().judge(item(long_answer, "Marie Curie")) is True
    assert ContainsJudge().batch_judge([item(long_answer, "Pierre"), item("Curie", "curie")]) == [False, True]


async def test_the_batch_path_gives_every_item_the_judgment_it_gets_alone() -> None:
    judge = ContainsJudge()
    batch = [
        item("It was Édouard Manet.", "Edouard Manet"),
        item("Claude Monet", "Edouard Manet"),  # same references: normalised once for the batch
        item("  ", "Paris"),
        item("The answer", "the", "?!"),
        item("in paris, france", "Paris", "Lyon"),
    ]
    judgments = await judge.ajudge_batch(batch)
    alone = [await judge.ajudge(one) for one in batch]
    assert [j.value for j in judgments] == [j.value for j in alone] == [True, False, None, None, True]
    assert [j.unscored_reason for j in judgments] == [j.unscored_reason for j in alone]
    assert all(j.judge == "contains" and j.prompt_version == "contains@1.0" for j in judgments)
    assert all(j.latency_s > 0 for j in judgments)  # each item's share of the pass
    assert judge.batch_judge([batch[0], batch[1]]) == [True, False]
    with pytest.raises(JudgmentUnscored, match="empty answer"):
        judge.batch_judge(batch)


def test_ascii_text_skips_the_accent_pass_with_the_same_result() -> None:
    assert normalise_answer("KELVIN \u212a and Ångström") == "kelvin k and angstrom"  # non-ASCII path
    assert normalise_answer("The U.S. (an) Army_Corps") == "u s army corps"  # ASCII path
