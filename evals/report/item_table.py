"""The per-item table of an HTML report: every judged item, filterable, searchable, expandable.

Why a per-item view: a kappa says how often the judge disagrees with people, never *where*. The
2,227 false negatives of a run are where a threshold, a prompt or a reference list goes wrong,
and they can only be fixed by reading them. So the report carries every item's text (question,
answer, reference or context), the gold label, the verdict with its probability and reason, the
faithfulness statements with their verdicts, the judge that answered (and whether it was the
fallback) and the tokens it spent; filters pick the disagreements, false positives / negatives,
unscored and fallback items (and, comparing two runs, the items whose verdict changed), and a
search box finds text.

How: the rows go into the page as one JSON data island (``<script type="application/json">``,
with ``<``, ``>`` and ``&`` escaped so item text can never close it), and one small inline script
(``static/item_table.js``) renders a page of rows at a time with ``textContent`` (never
``innerHTML`` of data), so 15,000 items stay fast and dataset text stays inert. The filter, search
and page live in the URL fragment (``report.html#filter=fn&q=paris``): a link or a headless
screenshot shows exactly that view.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from ragjury.evals.io.predictions import ItemRecord, Kind, PredictionRun

MAX_TEXT_CHARS = 4000
"""Characters of one text kept in the page (the predictions file keeps the rest)."""
MAX_TEXTS = 20
"""Reference / context entries kept per item."""
SCORE_DISAGREEMENT = 0.25
"""Score tasks: |judge - people| from which an item counts as a disagreement."""


@dataclass
class ItemTable:
    """Rows ready for the page: item text, gold, and one verdict per run (None where a run lacks
    the item)."""

    kind: Kind
    runs: list[str]
    rows: list[dict[str, Any]] = field(default_factory=list)
    context_label: str = "reference"
    answers_per_run: bool = False
    """A run comparison: each run answered, so each verdict carries its own run's answer."""
    clipped: int = 0
    """Texts cut to ``MAX_TEXT_CHARS`` (or lists cut to ``MAX_TEXTS``) for the page."""


def _clip(text: str | None, table: ItemTable) -> str | None:
    if text is None or len(text) <= MAX_TEXT_CHARS:
        return text
    table.clipped += 1
    return f"{text[:MAX_TEXT_CHARS]} … [{len(text) - MAX_TEXT_CHARS:,} more characters in the predictions file]"


def _clip_list(texts: list[str], table: ItemTable) -> list[str]:
    kept = [t for t in (_clip(t, table) for t in texts[:MAX_TEXTS]) if t is not None]
    if len(texts) > MAX_TEXTS:
        table.clipped += 1
        kept.append(f"… {len(texts) - MAX_TEXTS} more in the predictions file")
    return kept


_SHOWN_KEYS = frozenset(
    {"reason", "reasoning", "statements", "probability", "label", "verdict", "relevance", "completeness",
     "accuracy", "source_attribution", "coherence", "confidence", "overall_score"}
)


def _details(value: Mapping[str, Any]) -> list[list[str]]:
    """The value's other fields (thresholds, unsupported words, votes...) as short name/text pairs:
    a model-free judge gives no reason, but these say why it decided as it did."""
    out: list[list[str]] = []
    for key, item in value.items():
        if key in _SHOWN_KEYS or item is None or item == [] or item == {}:
            continue
        if isinstance(item, float):
            text = f"{item:.4g}"
        elif isinstance(item, list):
            text = ", ".join(str(v) for v in item)
        else:
            text = str(item) if not isinstance(item, Mapping) else json.dumps(item, ensure_ascii=False)
        out.append([key, text if len(text) <= 300 else text[:299] + "…"])
    return out


def _verdict(record: ItemRecord, kind: Kind, table: ItemTable) -> dict[str, Any]:
    """One run's verdict on one item, in the page's short keys."""
    statements = record.statements
    out: dict[str, Any] = {
        "l": record.label,
        "o": record.outcome(kind),
        "u": record.unscored,
        "j": record.judge,
        "m": record.model,
        "pv": record.prompt_version,
        "fb": record.fallback_used,
        "t": [record.input_tokens, record.output_tokens, record.requests],
    }
    if record.probability is not None:
        out["p"] = round(record.probability, 4)
    reason = _clip(record.reason, table)
    if reason:
        out["r"] = reason
    if record.fallback_reason:
        out["fr"] = _clip(record.fallback_reason, table)
    if record.judged_answer is not None:
        out["ja"] = _clip(record.judged_answer, table)
    if statements:
        out["st"] = [[_clip(s.text, table), s.supported, _clip(s.reason, table) or ""] for s in statements]
    faithful_score = record.value.get("score")
    if statements and isinstance(faithful_score, int | float):
        out["sc"] = round(float(faithful_score), 4)
    if kind == "score":
        dims = {
            k: v
            for k, v in record.value.items()
            if k in ("relevance", "completeness", "accuracy", "source_attribution", "coherence", "confidence")
            and isinstance(v, int | float)
        }
        if dims:
            out["dims"] = dims
    extra = _details(record.value)
    if extra:
        out["x"] = extra
    if record.latency_s is not None:
        out["lat"] = round(record.latency_s, 4)
    if record.method:
        out["me"] = record.method
    return out


def item_table(
    runs: Sequence[PredictionRun], *, answers_per_run: bool = False, unpaired: frozenset[str] = frozenset()
) -> ItemTable:
    """The per-item rows of one run, or of two runs joined on the item id (items of the first
    run first, in file order, then those only the second has).

    ``answers_per_run``: the runs answered the questions themselves (a run comparison), so each
    verdict sits beside its own run's answer. ``unpaired``: ids whose question differs between
    the runs; each run's row is shown on its own, never one run's verdict beside another's question.
    """
    if not runs:
        raise ValueError("item_table needs at least one run")
    kind = runs[0].kind
    table = ItemTable(kind=kind, runs=[run.name for run in runs], answers_per_run=answers_per_run)
    indexes = [run.by_id() for run in runs]
    order: dict[tuple[str, int], None] = {}
    for number, run in enumerate(runs):
        order.update(((record.id, number if record.id in unpaired else -1), None) for record in run.records)
    has_contexts = False
    has_references = False
    for ident, only in order:
        present = [index.get(ident) if only in (-1, k) else None for k, index in enumerate(indexes)]
        first = next(r for r in present if r is not None)
        text_source = next((r for r in present if r is not None and r.item), first)
        gold = next((r.gold for r in present if r is not None and r.gold is not None), None)
        contexts = text_source.contexts
        references = text_source.references
        has_contexts |= bool(contexts)
        has_references |= bool(references)
        row: dict[str, Any] = {
            "id": ident,
            "sys": first.system,
            "q": _clip(text_source.question, table),
            "a": _clip(text_source.answer, table),
            "ref": _clip_list(references, table),
            "ctx": _clip_list(contexts, table),
            "gold": gold,
            "v": [None if r is None else _verdict(r, kind, table) for r in present],
        }
        if answers_per_run:
            row["a"] = None
            for record, verdict in zip(present, row["v"], strict=True):
                if record is not None:
                    verdict["a"] = _clip(record.answer, table)
        table.rows.append(row)
    if has_contexts and has_references:
        table.context_label = "reference / context"
    elif has_contexts:
        table.context_label = "context" if runs[0].task != "score" else "sources"
    return table


def _data_island(table: ItemTable) -> str:
    """The rows as JSON that no item text can break out of (``</script>`` is escaped)."""
    payload = {
        "kind": table.kind,
        "runs": table.runs,
        "contextLabel": table.context_label,
        "answersPerRun": table.answers_per_run,
        "scoreDisagreement": SCORE_DISAGREEMENT,
        "rows": table.rows,
    }
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    return f"<script type='application/json' id='ragjury-items'>{text}</script>"


def _asset(name: str) -> str:
    """A file of ``static/`` as text: the page's script and style are JavaScript and CSS files
    (read by editors and linters as such), embedded inline so the report stays one file."""
    return resources.files("ragjury.evals.report").joinpath("static", name).read_text(encoding="utf-8")


ITEMS_CSS = _asset("item_table.css")
"""The per-item table's style, appended to the page's own."""
_SCRIPT = _asset("item_table.js")
"""The script that renders, filters, sorts and pages the rows of the data island."""


def items_html(table: ItemTable) -> str:
    """The per-item section: heading, explanation, the data island and the script that renders it."""
    n = len(table.rows)
    compare = len(table.runs) > 1
    what = (
        "Each question with each run's answer and verdict side by side; the filters pick the questions "
        "where A's answer was judged better, B's, or both failed. Click a row for the whole text and the reasons."
        if table.answers_per_run
        else "Each item with its text, the gold label and the verdict of each run; click a row for the "
        "whole text, the reasons and the statements."
        if compare
        else "Each item with its text, gold label, verdict and judge, and the probability, reason and "
        "tokens where the judge gave them; click a row for the whole text, the faithfulness statements "
        "and the envelope."
    )
    clipped = (
        f" {table.clipped:,} long text(s) are cut at {MAX_TEXT_CHARS:,} characters here; the predictions "
        "file has them whole."
        if table.clipped
        else ""
    )
    return (
        f"<h2 id='items-heading'>Items ({n:,})</h2>"
        f"<p class='note'>{what} Filters and search live in the address (e.g. <code>#filter=disagree</code>)."
        f"{clipped}</p>"
        "<noscript><p class='warn'>The per-item table needs JavaScript.</p></noscript>"
        f"<div id='items' data-items='{n}'></div>{_data_island(table)}<script>{_SCRIPT}</script>"
    )


__all__ = ["ITEMS_CSS", "MAX_TEXT_CHARS", "ItemTable", "item_table", "items_html"]
