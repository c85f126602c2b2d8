"""Sentence splitting keeps abbreviations and numbers inside their sentence (issue: a regex on
". " cut "Dr. Smith ... U.S. in 1990" into five claims)."""

from __future__ import annotations

from ragjury.rag_agent.core.text import split_sentences


def test_abbreviations_and_decimals_stay_inside_their_sentence() -> None:
    text = "Dr. Smith moved to the U.S. in 1990. The price rose 3.5 percent! Did it? Yes."
    assert split_sentences(text) == [
        "Dr. Smith moved to the U.S. in 1990.",
        "The price rose 3.5 percent!",
        "Did it?",
        "Yes.",
    ]


def test_a_line_break_always_ends_a_sentence_and_blank_text_has_none() -> None:
    assert split_sentences("First item\n\n- second item\nthird") == ["First item", "- second item", "third"]
    assert split_sentences("  \n\n ") == []
