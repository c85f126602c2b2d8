"""How many labels a system needs before its interval can be trusted, as measured.

``bench/bench_ppi.py`` measures the coverage of the 95 % interval on the *confirm* half of the
dev sets at 10–200 labels per system; below ``WARN_BELOW`` labels some system's coverage fell
under 0.93, so ``estimate`` says so with the figure measured at that n.
"""

from __future__ import annotations

MEASURED = {10: (0.55, 0.73), 30: (0.91, 0.95)}
"""Labels per system → lowest and highest coverage over the systems (bench_ppi, confirm half)."""

WARN_BELOW = 50
"""The smallest n measured at which every system's coverage was ≥ 0.93."""


def coverage_note(n_labels: int) -> str | None:
    """The warning for a system with ``n_labels`` labels, or None at ``WARN_BELOW`` or more."""
    if n_labels >= WARN_BELOW:
        return None
    at = max((n for n in MEASURED if n <= n_labels), default=min(MEASURED))
    low, high = MEASURED[at]
    return (
        f"{n_labels} labels: at {at} labels per system the 95 % interval covered only {low:.2f}–{high:.2f} "
        f"(bench_ppi, confirm half); label at least {WARN_BELOW}"
    )


__all__ = ["MEASURED", "WARN_BELOW", "coverage_note"]
