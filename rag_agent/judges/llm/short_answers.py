"""When an answer is already a short answer, so the guarded correctness judge can skip its reduction.

Why: ``llm-guarded`` first reduces the answer to the short answer it gives, so a sentence aimed at
the grader is never read by the verdict. That costs a second call. An answer that is already a few
words in one clause has no room for such a sentence: reducing it returns it. The rule is strict on
purpose (measured on the injection set's tune half: no injected answer passes it; on the confirm
half the same; ``bench/bench_short_answers.py``): at most ``MAX_WORDS`` words, no sentence break,
none of the marks that open a second clause, tag or instruction, and no word that talks to a grader.
"""

from __future__ import annotations

import re
import unicodedata

MAX_WORDS = 5
MAX_CHARS = 60

_CLAUSE_MARKS = re.compile(r"[:;!?\[\]{}<>#|=*_`\"“”«»()\\/@]|\.\s|\n|\r|\t")
"""A mark that opens a second clause, a tag, markup or a quotation: the answer is not one phrase."""

_GRADER_WORDS = re.compile(
    r"\b(answer|answers|correct|correctly|incorrect|wrong|right|true|false|yes|no|grade|grader|grading|"
    r"evaluat\w*|assess\w*|judg\w*|verdict|score\w*|scoring|rate|rating|label\w*|output|reply|"
    r"respond|ignore|instruction\w*|system|assistant|model|bot|ai|prompt|reference\w*|approve\w*|"
    r"accept\w*|pass|fail|please|note|tip|key|digit)\b",
    re.IGNORECASE,
)
"""Words of a sentence addressed to a grader (English; any other script is refused below)."""


def _latin_or_digits(text: str) -> bool:
    """Only Latin letters, digits, spaces and light punctuation: other scripts are not judged here."""
    for char in text:
        if char.isspace() or char.isdigit() or char in ".,'’-–&%$€£+°":
            continue
        if not char.isalpha() or "LATIN" not in unicodedata.name(char, ""):
            return False
    return True


def is_short_answer(text: str) -> bool:
    """True when ``text`` is already a short answer: a few words, one clause, nothing to a grader."""
    stripped = text.strip()
    if not stripped or len(stripped) > MAX_CHARS:
        return False
    body = stripped[:-1] if stripped.endswith(".") else stripped
    if len(body.split()) > MAX_WORDS or _CLAUSE_MARKS.search(body + " "):
        return False
    if not _latin_or_digits(body):
        return False
    return _GRADER_WORDS.search(body) is None


__all__ = ["MAX_CHARS", "MAX_WORDS", "is_short_answer"]
