"""The estimates as the terminal shows them: one table of system rates, the comparison, the card.

Shared by ``estimate`` and ``evaluate --labels`` so both print the same table from one place.
"""

from __future__ import annotations

from rich.table import Table

from ragjury.commands._common import stdout


def _cell(estimate) -> str:  # type: ignore[no-untyped-def]
    """``0.680±.078``, or ``0.967+.033/−.061`` where the interval was clipped at 0 or 1 (or is
    Wilson's): short enough to keep the table within 80 columns."""
    if estimate is None:
        return "-"
    up, down = estimate.high - estimate.value, estimate.value - estimate.low
    if abs(up - down) < 0.0005:
        return f"{estimate.value:.3f}±{f'{(up + down) / 2:.3f}'.removeprefix('0')}"
    return f"{estimate.value:.3f}+{f'{up:.3f}'.removeprefix('0')}/−{f'{down:.3f}'.removeprefix('0')}"


def estimates_table(result) -> Table:  # type: ignore[no-untyped-def]
    """One row per system: the judge's mean, people's alone, and the two combined (what to act on)."""
    table = Table(
        title=f"System rates ± {result.level:.0%} interval ({result.judge}, {result.n_labels} human labels)",
        caption="estimate: prediction-powered (judge on every item, corrected by the labels); "
        "worth: labels the people-only interval would need to be as narrow",
    )
    # the system's name is what a row is about: it keeps room for a name (wrapping if it must), and
    # the number columns give way first (a clipped "1.000+.000/-.278" once squeezed it to nothing)
    width = max((len(system.system) for system in result.systems), default=6)
    table.add_column("system", min_width=min(max(width, 6), 16), no_wrap=True)
    table.add_column("labels", justify="right", overflow="fold")
    for name in ("judge", "people", "estimate"):  # a clipped interval folds at 80 columns rather than the names
        table.add_column(name, justify="right", overflow="fold", min_width=8, style="bold" if name == "estimate" else None)
    table.add_column("bias", justify="right", overflow="fold")
    table.add_column("worth", justify="right", overflow="fold")
    for system in result.systems:
        bias = system.bias
        worth = system.effective_labels
        table.add_row(
            system.system,
            f"{system.n_labels:,}/{system.n_items:,}",
            _cell(system.judge),
            _cell(system.human_only),
            _cell(system.prediction_powered),
            f"{bias:+.3f}" if bias is not None else "-",
            f"{worth:.0f}" if worth is not None else "-",
        )
    return table


def lead_lines(result) -> list[str]:  # type: ignore[no-untyped-def]
    """The answer first, as ``report`` and ``evaluate`` give it (``headline.estimates_lead``)."""
    from ragjury.evals.results.headline import estimates_lead

    return estimates_lead(result)


def print_estimates(result, *, lead: bool = True) -> None:  # type: ignore[no-untyped-def]
    """The estimates: line 1 people's figure (and B - A), then the table; ``lead=False`` where the
    command's own first lines already said people's rates (``evaluate``)."""
    lines = lead_lines(result)
    if lead:
        for line in lines:
            stdout.print(line, highlight=False, soft_wrap=True, markup=False)
    stdout.print(estimates_table(result))
    comparison = result.comparison
    if comparison is not None:
        if not lead:  # B - A (after the line saying the runs were judged differently, where they were)
            from ragjury.evals.results.headline import judged_differently_lines

            for line in lines[:len(judged_differently_lines(result)) + 1]:
                stdout.print(line, highlight=False, soft_wrap=True, markup=False)
        for note in comparison.notes:
            stdout.print(f"note: {note}", style="yellow", highlight=False, soft_wrap=True)
    for note in result.notes:
        stdout.print(f"note: {note}", style="yellow", highlight=False, soft_wrap=True)
    for system in result.systems:
        for note in system.notes:
            stdout.print(f"note: {system.system}: {note}", style="yellow", highlight=False, soft_wrap=True)
    if result.card is not None:
        print_card(result.card)


def print_card(card) -> None:  # type: ignore[no-untyped-def]
    """The judge card: its table, the length figures, its notes, and one line when a bias is found."""
    from ragjury.evals.report.card_view import card_table, length_lines

    stdout.print(card_table(card))
    for line in length_lines(card):
        stdout.print(line, markup=False, highlight=False, soft_wrap=True)
    for note in card.notes:
        stdout.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
    summary = card.summary_line()
    if summary is not None:
        stdout.print(summary, style="yellow", markup=False, highlight=False, soft_wrap=True)


__all__ = ["estimates_table", "lead_lines", "print_card", "print_estimates"]
