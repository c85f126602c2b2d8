"""Top log-probabilities that sum past 1 are no distribution: the judgment is unscored with the
reason, never renormalised into a verdict (two tokens at logprob 0.0 gave P = 0.5, issue 27 item 8)."""

from __future__ import annotations

import math

import pytest

from ragjury.rag_agent.model.logprobs import choice_distribution


def _details(*alternatives: tuple[str, float]) -> dict[str, object]:
    top = [{"token": token, "logprob": logprob} for token, logprob in alternatives]
    return {"logprobs": [{"token": alternatives[0][0], "logprob": alternatives[0][1], "top_logprobs": top}]}


@pytest.mark.parametrize(
    "alternatives",
    [
        (("1", 0.0), ("0", 0.0)),  # both certain
        (("1", math.log(0.7)), ("0", math.log(0.6))),  # 1.3
        (("1", math.log(0.9)), ("x", math.log(0.5))),  # another token's share counts too
    ],
)
def test_probabilities_summing_past_one_are_impossible(alternatives: tuple[tuple[str, float], ...]) -> None:
    with pytest.raises(ValueError, match="impossible log-probabilities .* more than 1"):
        choice_distribution(_details(*alternatives), ["0", "1"])


def test_a_distribution_that_sums_to_one_is_read_as_before() -> None:
    distribution = choice_distribution(_details(("1", math.log(0.6)), ("0", math.log(0.4))), ["0", "1"])
    assert distribution.probabilities["1"] == pytest.approx(0.6) and distribution.choice_mass == pytest.approx(1.0)
