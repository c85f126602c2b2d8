"""The label of a judgment value: one definition, used by every door (CLI, evals, Python API).

A protocol, not attribute guessing: a value's type says what its label is, so metrics, gates,
panels and reports never guess from whatever fields it has. Plain ``bool``/``int``/``float``
values are their own label; anything else is a programming error, said as such.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

Label = bool | int | float
"""A comparable label: ``bool`` (binary), ``int`` (a 0-3 grade) or ``float`` (a [0, 1] score)."""

GRADE_CUT = 2
"""A graded (0-3) relevance label counts as relevant from this grade, as TREC DL's binary measures."""
SCORE_CUT = 0.5
"""A [0, 1] score (``JudgeScore.overall_score``) counts as positive from this value."""


@runtime_checkable
class Labelled(Protocol):
    """A judge value that states its own label."""

    @property
    def label(self) -> Label: ...


def label_of(value: object) -> Label | None:
    """The label of a judgment's value; ``None`` for no value (an unscored judgment)."""
    if value is None:
        return None
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, Labelled):
        label = value.label
        if isinstance(label, bool | int | float):
            return label
        raise TypeError(f"{type(value).__name__}.label is a {type(label).__name__}, not bool, int or float")
    raise TypeError(
        f"a {type(value).__name__} value has no label: judge values are bool, int or float, "
        "or carry a .label (the Labelled protocol)"
    )


def binary_label(value: object, *, grade_cut: int = GRADE_CUT, score_cut: float = SCORE_CUT) -> bool | None:
    """A value's label as pass/fail, whatever its scale: a bool as it is, an int as a 0-3 grade
    (``>= grade_cut``), a float as a [0, 1] score (``>= score_cut``); ``None`` for no value."""
    label = label_of(value)
    if label is None or isinstance(label, bool):
        return label
    if isinstance(label, int):
        return label >= grade_cut
    return label >= score_cut


def binarizer(scale: str) -> Callable[[object], bool | None]:
    """The pass/fail label for values of a catalogue scale: ``binary``, ``graded`` (0-3) or ``score``.

    Why by scale and not by type: a graded judge's label is an ``int`` grade, but a plug-in's
    binary judge may also give ``0``/``1`` ints; the scale its entry declares says which it is."""
    if scale == "binary":
        return binary_label
    if scale == "graded":
        return lambda value: None if (label := label_of(value)) is None else float(label) >= GRADE_CUT
    if scale == "score":
        return lambda value: None if (label := label_of(value)) is None else float(label) >= SCORE_CUT
    raise ValueError(f"unknown scale {scale!r}: binary, graded or score")


__all__ = ["GRADE_CUT", "SCORE_CUT", "Label", "Labelled", "binarizer", "binary_label", "label_of"]
