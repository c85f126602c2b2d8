"""How many labels a system needs before its interval can be trusted, as measured.

``bench/bench_ppi.py --confirm-only --draws 700`` measured the coverage of the 95 % interval on
the *confirm* half of the dev sets (30 judge × system populations, rare classes included) at
10–200 labels per system. From 50 labels every system without a rare class covered 0.940–0.974;
below, coverage strays both ways (0.906 at 30 labels, intervals so wide they cover 1.000 at 10),
so ``estimate`` warns there with the range measured at that n.
"""

from __future__ import annotations

MEASURED = {10: (0.941, 1.000), 20: (0.934, 1.000), 30: (0.906, 0.997)}
"""Labels per system → lowest and highest coverage over every system (bench_ppi, confirm half)."""

WARN_BELOW = 50
"""The smallest n measured from which every system's coverage stayed in 0.94–0.97."""


def coverage_note(n_labels: int) -> str | None:
    """The warning for a system with ``n_labels`` labels, or None at ``WARN_BELOW`` or more."""
    if n_labels >= WARN_BELOW:
        return None
    at = max((n for n in MEASURED if n <= n_labels), default=min(MEASURED))
    low, high = MEASURED[at]
    return (
        f"{n_labels} labels: at {at} labels per system the 95 % interval covered {low:.2f}–{high:.2f} "
        f"of the time (bench_ppi, confirm half; 0.94–0.97 from {WARN_BELOW}); label at least {WARN_BELOW}"
    )


__all__ = ["MEASURED", "WARN_BELOW", "coverage_note"]
