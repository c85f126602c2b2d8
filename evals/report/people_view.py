"""People against people on the page: each two annotators' Cohen's kappa with its interval, and
the items they disagree on.

Why on the page: two people's agreement is the ceiling a judge is read against (a judge's kappa of
0.5 reads differently beside people's 0.55 than beside 0.9); ``report --json`` carries it
(``people_labels.people_vs_people``), and the page must not hide what the JSON says.
"""

from __future__ import annotations

import html
from typing import Any

from ragjury.evals.results.formatting import fmt

SHOWN = 20
"""Disagreeing items listed per pair; the rest are counted."""


def people_vs_people_html(people: Any) -> str:
    """The section for a labels file with several annotators, or "" (one annotator, no acts)."""
    from ragjury.evals.stats.judge_card import pair_agreements

    pairs = pair_agreements(people.acts) if getattr(people, "acts", None) else []
    if not pairs:
        return ""
    rows = []
    for pair in pairs:
        interval = "" if pair.interval is None else f" <span class='ci'>{html.escape(pair.interval.text())}</span>"
        items = [f"{key[0]}: {key[1]}" if key[0] else key[1] for key in pair.disagreements]
        listed = ", ".join(html.escape(item) for item in items[:SHOWN])
        more = f" and {len(items) - SHOWN:,} more" if len(items) > SHOWN else ""
        rows.append(f"<tr><td class='name'>{html.escape(pair.a)} · {html.escape(pair.b)}</td><td>{pair.n:,}</td>"
                    f"<td>{html.escape(fmt(pair.kappa, 3))}{interval}</td><td>{html.escape(fmt(pair.agree, 3))}</td>"
                    f"<td class='name'>{listed or '-'}{more}</td></tr>")
    return ("<section id='people-vs-people'><h2>People vs people</h2><p class='note'>Each two annotators on the items "
            "both labelled: the agreement a judge is read against.</p><table><tr><th class='name'>annotators</th>"
            "<th>items both labelled</th><th>Cohen's kappa (95 %)</th><th>agreement</th>"
            f"<th class='name'>items they disagree on</th></tr>{''.join(rows)}</table></section>")


__all__ = ["people_vs_people_html"]
