"""TokenOverlapJudge: Evret's rules pinned on hand-made pairs, and verdicts equal to Evret's own."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest

from ragjury.rag_agent.core.items import RelevanceItem
from ragjury.rag_agent.core.protocol import JudgmentUnscored
from ragjury.rag_agent.judges.model_free.token_overlap import TokenOverlapJudge, evret_tokens

WORDS = "apple bread chair dance eagle flute grape horse igloo joker kite lemon mango nest olive piano queen robin snake tiger".split()
EXPECTED = " ".join(WORDS)  # 20 content tokens of weight 1.0 each


def ctx(expected: str | None, retrieved: str, query: str = "unrelated words") -> RelevanceItem:
    return RelevanceItem(query=query, expected_text=expected, retrieved_text=retrieved)


def shared(count: int, extra: str = "zebra yacht") -> str:
    """The first ``count`` expected words in reverse order (no expected phrase survives), plus filler."""
    return " ".join(reversed(WORDS[:count])) + " " + extra


def test_normalised_exact_match_passes() -> None:
    assert TokenOverlapJudge().judge(ctx("The  Capital\nof FRANCE", "the capital of france"))


def test_substring_either_way_passes() -> None:
    judge = TokenOverlapJudge()
    assert judge.judge(ctx("Paris", "The capital of France is Paris."))
    assert judge.judge(ctx("The capital of France is Paris, a city of two million.", "france is paris"))


def test_negation_mismatch_fails_weighted_but_not_ratio() -> None:
    pair = ctx("the drug is safe for children", "the drug is not safe for children")
    assert TokenOverlapJudge(min_tokens=1).judge(pair) is False
    assert TokenOverlapJudge(scoring="ratio", min_tokens=1).judge(pair) is True


def test_min_tokens_gate() -> None:
    pair = ctx(EXPECTED, shared(14))
    assert TokenOverlapJudge(min_tokens=15, threshold=0.5).judge(pair) is False
    assert TokenOverlapJudge(min_tokens=14, threshold=0.5).judge(pair) is True


def test_weighted_threshold_and_query_boost() -> None:
    # 11 of 20 equally weighted tokens: 0.55 < 0.6; a shared query token adds 0.1.
    pair = ctx(EXPECTED, shared(11), query="which apple")
    assert TokenOverlapJudge(min_tokens=5, query_boost=False).judge(pair) is False
    assert TokenOverlapJudge(min_tokens=5, query_boost=True).judge(pair) is True
    no_query_hit = ctx(EXPECTED, shared(11), query="zebra")  # zebra is not an expected token
    assert TokenOverlapJudge(min_tokens=5).judge(no_query_hit) is False


def test_ratio_rule_relaxes_to_three_quarters_with_query_tokens() -> None:
    pair = ctx(EXPECTED, shared(10), query="apple")  # ratio 0.5 >= 0.75 * 0.6 = 0.45
    assert TokenOverlapJudge(scoring="ratio", min_tokens=2, query_boost=False).judge(pair) is False
    assert TokenOverlapJudge(scoring="ratio", min_tokens=2).judge(pair) is True
    lower = ctx(EXPECTED, shared(8), query="apple")  # 0.4 < 0.45
    assert TokenOverlapJudge(scoring="ratio", min_tokens=2).judge(lower) is False


def test_phrase_bonus_tips_a_pair_over() -> None:
    # 10 of 20 tokens (0.5); the same words in expected order add the 4-token phrase bonus 0.15.
    in_order = " ".join(WORDS[:10]) + " zebra"
    judge = TokenOverlapJudge(min_tokens=5, query_boost=False)
    assert judge.judge(ctx(EXPECTED, in_order)) is True  # 0.5 + 0.15 >= 0.6
    assert judge.judge(ctx(EXPECTED, shared(10))) is False  # same tokens, no phrase: 0.5
    assert (
        TokenOverlapJudge(min_tokens=5, query_boost=False, threshold=0.66).judge(ctx(EXPECTED, in_order))
        is False
    )


def test_digits_and_long_words_weigh_more() -> None:
    expected = "born 1879 menlo laboratory"  # weights 1.0, 1.5, 1.0, 1.35
    with_number = "1879 laboratory zebra"  # shares 2.85 of 4.85 = 0.59
    with_short = "born menlo zebra"  # shares 2.0 of 4.85 = 0.41
    judge = TokenOverlapJudge(min_tokens=2, threshold=0.55, query_boost=False)
    assert judge.judge(ctx(expected, with_number)) is True
    assert judge.judge(ctx(expected, with_short)) is False


def test_no_expected_text_judges_relevance_to_the_query() -> None:
    judge = TokenOverlapJudge()
    passage = "Thomas Edison's light bulb of 1879 used a carbon filament; Edison tested thousands."
    assert judge.judge(ctx(None, passage, query="who invented the light bulb edison")) is True
    assert (
        judge.judge(ctx(None, "Bananas are rich in potassium.", query="who invented the light bulb")) is False
    )
    # 4 query content tokens: min_tokens=15 is capped at ceil(0.6 x 4) = 3 rather than failing every pair.
    assert judge.judge(ctx(None, "a bulb of light", query="who invented the light bulb edison")) is False
    assert (
        TokenOverlapJudge(threshold=0.4).judge(ctx(None, "a bulb of light", query="light bulb edison lamp"))
        is True
    )


def test_empty_texts_are_unscored_not_false() -> None:
    judge = TokenOverlapJudge()
    with pytest.raises(JudgmentUnscored, match="empty retrieved"):
        judge.judge(ctx("Paris", "   "))
    with pytest.raises(JudgmentUnscored, match="empty expected"):
        judge.judge(ctx("", "Paris"))
    with pytest.raises(JudgmentUnscored, match="empty query"):
        judge.judge(ctx(None, "Paris", query=" "))
    judgments = judge.judge_batch_sync([ctx("Paris", ""), ctx("Paris", "Paris!")])
    assert (
        judgments[0].unscored
        and judgments[0].value is None
        and "empty" in (judgments[0].unscored_reason or "")
    )
    assert judgments[1].scored and judgments[1].value is True


def test_unicode_follows_evret_tokenizer() -> None:
    judge = TokenOverlapJudge(min_tokens=1)
    assert judge.judge(ctx("CAFÉ au lait", "café au lait"))  # lowercase equality
    assert (
        judge.judge(ctx("日本語のテキスト", "別の日本語の文章")) is False
    )  # no ASCII tokens: no overlap, still a verdict
    # Evret splits at accented letters: "zürich" gives tokens "z" and "rich".
    assert judge.judge(ctx("Zürich museum tickets", "tickets museum zürich zebra")) is True


def test_very_long_texts() -> None:
    rng = random.Random(7)
    long_text = " ".join(rng.choice(WORDS) + str(rng.randrange(500)) for _ in range(20_000))
    other = " ".join(rng.choice(WORDS) + str(rng.randrange(500, 1000)) for _ in range(20_000))
    judge = TokenOverlapJudge()
    assert judge.batch_judge([ctx(long_text[:50_000], long_text), ctx(long_text, other)]) == [True, False]


def test_batch_envelopes_keep_order_and_report_progress() -> None:
    judge = TokenOverlapJudge(min_tokens=1)
    items = [ctx("Paris", "Paris is the capital"), ctx("Paris", "Rome"), ctx("Paris", "")]
    seen: list[int] = []
    judgments = judge.judge_batch_sync(items)
    assert [j.value for j in judgments] == [True, False, None]
    assert all(
        j.judge == "token_overlap" and j.prompt_version == "token_overlap_weighted@1.0" for j in judgments
    )
    import asyncio

    asyncio.run(judge.ajudge_batch(items, on_result=lambda i, _: seen.append(i)))
    assert sorted(seen) == [0, 1, 2]
    assert "min_tokens=1" in judge.identity.params


@pytest.mark.parametrize(
    "kwargs", [{"threshold": 0.0}, {"threshold": 1.5}, {"min_tokens": 0}, {"scoring": "cosine"}]
)
def test_bad_parameters_are_rejected(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        TokenOverlapJudge(**kwargs)  # type: ignore[arg-type]


def _random_pairs(count: int, seed: int) -> list[tuple[str, str, str]]:
    """Pairs that exercise every rule: equal, substring, negation, shuffled overlap, unrelated."""
    rng = random.Random(seed)
    vocab = WORDS + "not no never 1879 2024 x9 ab laboratory independence Café ZÜRICH the of and".split()

    def sentence(n: int) -> str:
        return " ".join(rng.choice(vocab) for _ in range(n))

    pairs = []
    for _ in range(count):
        expected = sentence(rng.randint(1, 40))
        roll = rng.random()
        if roll < 0.15:
            retrieved = expected.upper()
        elif roll < 0.3:
            words = expected.split()
            start = rng.randrange(len(words))
            retrieved = sentence(3) + " " + " ".join(words[start:]) + " " + sentence(2)
        elif roll < 0.7:
            words = expected.split()
            rng.shuffle(words)
            retrieved = " ".join(words[: rng.randint(1, len(words))]) + " " + sentence(rng.randint(0, 20))
        else:
            retrieved = sentence(rng.randint(1, 40))
        pairs.append((sentence(rng.randint(1, 5)), expected, retrieved))
    return pairs


def exact_weighted_score(query: str, expected: str, retrieved: str, *, boost: bool) -> Fraction:
    """Evret's weighted score in exact arithmetic (no tie can depend on float summation order)."""
    from ragjury.rag_agent.judges.model_free.token_overlap import (
        EVRET_STOPWORDS,
        evret_normalise,
        phrase_bonus,
        token_weight,
    )

    def content(text: str) -> list[str]:
        return [t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in EVRET_STOPWORDS]

    exp, ret = content(expected), content(retrieved)
    shared = set(exp) & set(ret)
    score = Fraction(sum(Fraction(token_weight(t)).limit_denominator(20) for t in shared)) / sum(
        Fraction(token_weight(t)).limit_denominator(20) for t in set(exp)
    )
    score += Fraction(phrase_bonus(exp, evret_normalise(retrieved))).limit_denominator(20)
    if boost and shared & set(content(query)):
        score += Fraction(1, 10)
    return min(score, Fraction(1))


@pytest.mark.parametrize(
    ("min_tokens", "threshold", "query_boost"),
    [(15, 0.6, True), (1, 0.6, True), (3, 0.3, False), (2, 0.8, True)],
)
def test_verdicts_equal_evret_except_exact_ties(min_tokens: int, threshold: float, query_boost: bool) -> None:
    """Same verdicts as the evret package; where they differ, the pair's exact score equals the
    threshold (a tie that evret decides by float summation order, i.e. by PYTHONHASHSEED)."""
    evret = pytest.importorskip("evret.judges.token_overlap")
    from evret.judges.base import JudgmentContext as EvretContext

    reference = evret.TokenOverlapJudge(
        min_tokens=min_tokens, overlap_ratio=threshold, query_boost=query_boost
    )
    ours = TokenOverlapJudge(min_tokens=min_tokens, threshold=threshold, query_boost=query_boost)
    pairs = _random_pairs(600, seed=min_tokens * 100 + int(threshold * 10))
    expected = reference.batch_judge(
        [EvretContext(query=q, expected_text=e, retrieved_text=r) for q, e, r in pairs]
    )
    got = ours.batch_judge([ctx(e, r, q) for q, e, r in pairs])
    assert 0 < sum(got) < len(got)
    differences = [i for i, (a, b) in enumerate(zip(got, expected)) if a != b]
    assert len(differences) <= len(pairs) // 50
    for i in differences:
        q, e, r = pairs[i]
        assert got[i] is True  # a tie reaches the threshold
        assert exact_weighted_score(q, e, r, boost=query_boost) == Fraction(str(threshold))


def test_exact_ties_reach_the_threshold_in_every_process() -> None:
    # 0.2 (one of five equal tokens) + 0.1 (a query token is shared) is exactly 0.3.
    pair = ctx("apple bread chair dance eagle", "apple zebra", query="apple")
    assert TokenOverlapJudge(min_tokens=1, threshold=0.3).judge(pair) is True
    assert TokenOverlapJudge(min_tokens=1, threshold=0.30001).judge(pair) is False


def test_dictionary_fallback_gives_the_same_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The analysis works on token hashes; if two words ever shared a hash it falls back to a
    dictionary vocabulary, which must decide every pair the same way."""
    pairs = _random_pairs(300, seed=11)
    contexts = [ctx(e, r, q) for q, e, r in pairs]
    for kwargs in ({"min_tokens": 1}, {"min_tokens": 3, "threshold": 0.3}, {"scoring": "ratio"}):
        judge = TokenOverlapJudge(**kwargs)  # type: ignore[arg-type]
        hashed = judge.batch_judge(contexts)
        monkeypatch.setattr(
            TokenOverlapJudge,
            "_analyse",
            lambda self, texts: self._analyse_exactly(texts, [evret_tokens(t) for t in texts]),
        )
        assert judge.batch_judge(contexts) == hashed
        monkeypatch.undo()
