"""How figures read in every report: ``-`` for undefined, rounded floats, shares as percentages."""

from __future__ import annotations

import math

Figure = float | None


Value = float | int | bool | None


def fmt(value: object, digits: int = 4) -> str:
    """A figure for people: ``-`` for undefined, integers as is, floats rounded."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def percent(share: float) -> str:
    """``0.185`` -> ``"18.5 %"``, ``1.0`` -> ``"100 %"``: one decimal, no trailing ``.0``."""
    text = f"{share * 100:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + " %"


__all__ = ["Figure", "Value", "fmt", "percent"]
