"""SupportJudge: share of the answer's content tokens the context supports (model-free faithfulness)."""

from __future__ import annotations

import pytest

from ragjury.config.settings import RagjurySettings
from ragjury.rag_agent.judges.catalogue import build_judge, judge_names
from ragjury.rag_agent.core.items import FaithfulnessItem
from ragjury.rag_agent.core.labels import label_of
from ragjury.rag_agent.core.protocol import JudgmentUnscored
from ragjury.rag_agent.judges.model_free import SupportJudge as ExportedSupportJudge
from ragjury.rag_agent.judges.model_free.support import (
    DEFAULT_THRESHOLD,
    NEGATION_TOKEN,
    SupportJudge,
    SupportScore,
    support_tokens,
)

SETTINGS = RagjurySettings(base_url="http://127.0.0.1:9/v1")  # never contacted

CONTEXT = "The Louvre museum in Paris opened in 1793. It holds 35,000 works of art."


def item(answer: str, *contexts: str) -> FaithfulnessItem:
    return FaithfulnessItem(answer=answer, contexts=list(contexts) or [CONTEXT])


def test_tokens_expand_contractions_and_keep_numbers_whole() -> None:
    assert support_tokens("It didn't cost 1,000.50 dollars in the 1990s; I can’t.") == [
        "it", "did", "not", "cost", "1000.50", "dollars", "in", "the", "1990s", "i", "can", "not",
    ]  # fmt: skip
    assert support_tokens("Zürich won't") == ["zurich", "will", "not"]


def test_fully_supported_answer_is_faithful() -> None:
    value = SupportJudge().judge(item("The Louvre opened in 1793 in Paris."))
    assert value == SupportScore(
        score=1.0, label=True, threshold=DEFAULT_THRESHOLD, unigram_precision=1.0, unsupported=()
    )


def test_unsupported_words_lower_the_score_and_are_listed() -> None:
    value = SupportJudge(threshold=0.5).judge(item("The Louvre opened in 1793 with great fanfare."))
    # content tokens: louvre opened 1793(x2 weight) great fanfare -> 4 of 6 supported
    assert value.score == pytest.approx(4 / 6)
    assert value.label is True
    assert value.unsupported == ("great", "fanfare")
    assert value.unsupported_numbers == ()


def test_numbers_must_match_exactly_and_weigh_more() -> None:
    judge = SupportJudge(number_weight=2.0)
    wrong_year = judge.judge(item("The Louvre opened in 1795."))
    assert wrong_year.unsupported == ("1795",) and wrong_year.unsupported_numbers == ("1795",)
    assert wrong_year.score == pytest.approx(2 / 4)  # louvre, opened supported; 1795 weighs 2
    assert wrong_year.label is False
    # thousands separators do not matter; a different number does
    assert judge.judge(item("It holds 35000 works.")).score == 1.0
    assert judge.judge(item("It holds 35,000 works.")).score == 1.0
    assert judge.judge(item("It holds 3500 works.")).unsupported_numbers == ("3500",)
    # with weight 1 a number is one token like any other
    assert SupportJudge(number_weight=1.0).judge(item("The Louvre opened in 1795.")).score == pytest.approx(
        2 / 3
    )


def test_negation_mismatch_in_the_aligned_sentence_is_unsupported() -> None:
    context = "The museum is open on Mondays. Tickets cost 5 euros. Dogs are not allowed inside."
    judge = SupportJudge(negation_weight=1.0, threshold=0.9)
    flipped = judge.judge(item("The museum is not open on Mondays.", context))
    assert flipped.negation_mismatches == 1
    assert flipped.unsupported == (NEGATION_TOKEN,)
    assert flipped.score == pytest.approx(3 / 4) and flipped.label is False
    # the other way round: the aligned context sentence is negated, the answer is not
    allowed = judge.judge(item("Dogs are allowed inside the museum.", context))
    assert allowed.negation_mismatches == 1 and allowed.label is False
    # the same polarity on both sides (with a contraction) is agreement
    agreed = judge.judge(item("Dogs aren't allowed inside.", context))
    assert agreed.negation_mismatches == 0 and agreed.score == 1.0 and agreed.label is True
    # a negation elsewhere in the context does not count: only the aligned sentence does
    assert judge.judge(item("Tickets cost 5 euros.", context)).negation_mismatches == 0
    # "not only" is no negation
    only = judge.judge(item("It was the longest tour.", "It was not only the longest tour, but the loudest."))
    assert only.negation_mismatches == 0
    # off (weight 0, the default), the flip goes unnoticed: the words are all supported
    assert SupportJudge().judge(item("The museum is not open on Mondays.", context)).score == 1.0


def test_bigram_blend_rewards_copied_phrasing() -> None:
    context = "the red car hit the blue truck"
    judge = SupportJudge(bigram_weight=0.5)
    copied = judge.judge(item("the red car hit the blue truck", context))
    swapped = judge.judge(item("the blue car hit the red truck", context))
    assert copied.score == 1.0 and copied.bigram_precision == 1.0
    assert swapped.unigram_precision == 1.0
    assert swapped.bigram_precision is not None and swapped.bigram_precision < 1.0
    assert swapped.score < copied.score
    assert SupportJudge().judge(item("the red car", context)).bigram_precision is None


def test_unscored_cases() -> None:
    judge = SupportJudge()
    with pytest.raises(JudgmentUnscored, match="empty answer"):
        judge.judge(item("   "))
    with pytest.raises(JudgmentUnscored, match="no content word"):
        judge.judge(item("How about you?"))
    with pytest.raises(JudgmentUnscored, match="no context"):
        judge.judge(FaithfulnessItem(answer="Paris", contexts=[" ", ""]))
    with pytest.raises(JudgmentUnscored, match="no context"):
        judge.judge(FaithfulnessItem(answer="Paris", contexts=[]))
    judgments = judge.judge_batch_sync([item(""), item("The Louvre opened in 1793.")])
    assert judgments[0].unscored and judgments[0].value is None
    assert judgments[0].unscored_reason == "empty answer: nothing to judge"
    assert judgments[1].scored and judgments[1].judge == "support"


def test_several_contexts_are_joined() -> None:
    value = SupportJudge().judge(
        item("The Louvre opened in 1793 in Paris.", "The Louvre opened in 1793.", "It is in Paris.")
    )
    assert value.score == 1.0


def test_batch_equals_single() -> None:
    judge = SupportJudge(negation_weight=1.0, bigram_weight=0.3)
    items = [
        item("The Louvre opened in 1793."),
        item("The Louvre opened in 1795 to great fanfare."),
        item(""),
        item("The Louvre opened in 1793."),  # a repeated item: the same value
        item("The museum is not in Paris."),
        item("How about you?"),
    ]
    batch = judge.judge_batch_sync(items)
    single = [judge.judge_sync(one) for one in items]
    assert [j.value for j in batch] == [j.value for j in single]
    assert [j.unscored_reason for j in batch] == [j.unscored_reason for j in single]
    seen: list[int] = []
    import asyncio

    asyncio.run(judge.ajudge_batch(items, on_result=lambda index, _: seen.append(index)))
    assert seen == list(range(len(items)))


def test_value_is_hashable_and_labelled() -> None:
    value = SupportJudge().judge(item("The Louvre opened in 1793."))
    assert hash(value) == hash(SupportJudge().judge(item("The Louvre opened in 1793.")))
    assert label_of(value) is True


def test_identity_changes_with_parameters() -> None:
    keys = {
        SupportJudge().identity.key(),
        SupportJudge(threshold=0.5).identity.key(),
        SupportJudge(bigram_weight=0.3).identity.key(),
        SupportJudge(number_weight=1.0).identity.key(),
        SupportJudge(negation_weight=1.0).identity.key(),
    }
    assert len(keys) == 5


@pytest.mark.parametrize(
    "kwargs", [{"threshold": 1.5}, {"bigram_weight": -0.1}, {"number_weight": 0.0}, {"negation_weight": -1.0}]
)
def test_invalid_parameters(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        SupportJudge(**kwargs)


def test_registry_builds_it() -> None:
    assert "support" in judge_names("faithfulness")
    judge = build_judge("faithfulness", "support", SETTINGS)
    assert isinstance(judge, SupportJudge) and judge.threshold == DEFAULT_THRESHOLD
    assert build_judge("faithfulness", "support", SETTINGS, threshold=0.5).threshold == 0.5  # type: ignore[attr-defined]
    assert ExportedSupportJudge is SupportJudge
