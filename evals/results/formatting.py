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


LANDIS_KOCH: tuple[tuple[float, str], ...] = (
    (0.0, "poor"),
    (0.2, "slight"),
    (0.4, "fair"),
    (0.6, "moderate"),
    (0.8, "substantial"),
)
"""Landis & Koch (1977): the upper bound of each band (below 0: poor); above 0.8 almost perfect."""


BAND_MIN_N = 20
"""Fewest scored items a kappa is named on the Landis–Koch scale for: below it, "n too small"
(a kappa of 0.000 [0.000, 0.000] on 4 items is no evidence of "slight" agreement)."""


def agreement_band(value: float | None, n: int | None = None) -> str | None:
    """The Landis–Koch name of a kappa or alpha: ``0.008`` -> ``"slight"``, ``0.35`` -> ``"fair"``.

    Why: a kappa of 0.008 printed like any other number reads as a result; the band says it is
    barely above chance. Bounds are inclusive (0.2 is slight, 0.21 fair), as the scale is quoted.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if n is not None and n < BAND_MIN_N:
        return "n too small"
    if value < 0:
        return "poor"
    for upper, name in LANDIS_KOCH[1:]:
        if value <= upper:
            return name
    return "almost perfect"


def is_agreement_figure(name: str) -> bool:
    """Figures read on the Landis–Koch scale: Cohen's / quadratic kappa, Krippendorff's alpha."""
    lowered = name.lower()
    return "kappa" in lowered or "alpha" in lowered


__all__ = ["BAND_MIN_N", "LANDIS_KOCH", "Figure", "Value", "agreement_band", "fmt", "is_agreement_figure", "percent"]
