"""The judge card for people: a terminal table and an HTML section, both read from one ``JudgeCard``.

Per system the judge's and people's rates on the labelled items, the gap between them (leniency)
and κ, each with its interval; then the length slope and the quartile gaps. A bias whose interval
excludes 0 is marked "found"; the rest say "not found", so silence is never read as a clean bill.
"""

from __future__ import annotations

import html

from rich.markup import escape
from rich.table import Table

from ragjury.evals.results.formatting import agreement_band
from ragjury.evals.stats.judge_card import WORDS_UNIT, JudgeCard, LengthBias, Span


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _short(value: float) -> str:
    """``-0.117`` -> ``-.117``: keeps the table within 80 columns."""
    return f"{value:+.3f}".replace("0.", ".", 1)


def _plain(value: float) -> str:
    """``0.685`` -> ``.685``, ``-0.1`` -> ``-.100``: κ, unsigned when positive."""
    return f"{value:.3f}".replace("0.", ".", 1)


def span_text(span: Span) -> str:
    return f"{_short(span.value)} [{_short(span.low)}, {_short(span.high)}]"


def _kappa(card_kappa: float | None, interval: tuple[float, float] | None) -> str:
    if card_kappa is None:
        return "-"
    text = _plain(card_kappa)
    if interval is not None:
        text += f" [{_plain(interval[0])}, {_plain(interval[1])}]"
    return text


def _verdict(span: Span) -> str:
    return "found" if span.found else "not found"


def length_lines(card: JudgeCard) -> list[str]:
    """The length slope and each label class's quartile gap, one sentence each."""
    length: LengthBias | None = card.length
    if length is None:
        return []
    held = " and ".join(length.held_fixed)
    lines = [
        f"length bias: {span_text(length.slope)} per {WORDS_UNIT:.0f} words of {card.length_of} at a fixed "
        f"{held} (n = {length.slope.n}): {_verdict(length.slope)}"
    ]
    for gap in length.quartile_gaps:
        lines.append(
            f"  label {gap.label}: longest quarter ({gap.long_words:.0f} words) − shortest ({gap.short_words:.0f}) "
            f"= {span_text(gap.gap)} (n = {gap.gap.n})"
        )
    return lines


def card_table(card: JudgeCard) -> Table:
    """One row per system: rates on the labelled items, leniency and κ with their 95 % intervals."""
    table = Table(
        title=f"Judge card ({card.n_labelled:,} labelled items, 95 % intervals)",
        caption="leniency: judge rate − people rate on the same items (+ lenient, − strict)",
    )
    table.add_column("system")
    table.add_column("n", justify="right")
    table.add_column("judge", justify="right")
    table.add_column("people", justify="right")
    table.add_column("leniency", justify="right", no_wrap=True)
    table.add_column("κ", justify="right", no_wrap=True)
    for system in card.systems:
        table.add_row(
            escape(system.system),
            f"{system.n:,}",
            f"{system.judge_rate:.3f}",
            f"{system.people_rate:.3f}",
            span_text(system.leniency),
            _kappa(system.kappa, system.kappa_interval),
        )
    return table


def card_html(card: JudgeCard) -> str:
    """The report's section: the same table with full digits, the κ band, and the length figures."""
    rows = []
    for system in card.systems:
        band = agreement_band(system.kappa)
        kappa = "-" if system.kappa is None else f"{system.kappa:.3f}"
        if system.kappa_interval is not None:
            kappa += f" [{system.kappa_interval[0]:.3f}, {system.kappa_interval[1]:.3f}]"
        lean = system.leniency
        mark = ("lenient" if lean.value > 0 else "strict") if lean.found else "not found"
        rows.append(
            f"<tr><td>{_e(system.system)}</td><td>{system.n:,}</td><td>{system.judge_rate:.3f}</td>"
            f"<td>{system.people_rate:.3f}</td><td>{_e(lean.text())}</td><td>{mark}</td>"
            f"<td>{_e(kappa)}{f' ({band})' if band else ''}</td></tr>"
        )
    findings = card.findings()
    lead = (
        f'<p class="finding"><strong>{_e("; ".join(findings))}</strong></p>' if findings
        else "<p>No bias found: every interval includes 0.</p>"
    )
    return (
        '<section id="judge-card"><h2>Judge card</h2>'
        f"<p>{card.n_labelled:,} items labelled by people; 95 % intervals. Leniency is the judge's rate minus "
        "people's on the same items; a bias counts as found only when its interval excludes 0.</p>"
        + lead
        + "<table><thead><tr><th>system</th><th>labelled</th><th>judge rate</th><th>people rate</th>"
        "<th>leniency</th><th>bias</th><th>Cohen's κ</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
        + "".join(f'<p class="length">{_e(line.strip())}</p>' for line in length_lines(card))
        + "".join(f'<p class="note">{_e(note)}</p>' for note in card.notes)
        + "</section>"
    )


__all__ = ["card_html", "card_table", "length_lines", "span_text"]
