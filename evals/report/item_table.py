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
renders a page of rows at a time with ``textContent`` (never ``innerHTML`` of data), so 15,000
items stay fast and dataset text stays inert. The filter, search and page live in the URL
fragment (``report.html#filter=fn&q=paris``): a link or a headless screenshot shows exactly that view.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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
    a deterministic judge gives no reason, but these say why it decided as it did."""
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


ITEMS_CSS = """
#items{margin-top:1rem}
.filters{display:flex;flex-wrap:wrap;gap:.35rem;align-items:center;margin:.5rem 0}
.filters button{font:inherit;font-size:.85rem;padding:.2rem .55rem;border:1px solid #bcccdc;border-radius:4px;
background:#fff;cursor:pointer}
.filters button.on{background:#1f2933;color:#fff;border-color:#1f2933}
.filters button .count{color:#7b8794;margin-left:.25rem}.filters button.on .count{color:#d9e2ec}
.filters input[type=search]{font:inherit;font-size:.85rem;padding:.2rem .45rem;min-width:14rem;flex:1 1 14rem}
.pager{display:flex;gap:.5rem;align-items:center;font-size:.85rem;margin:.4rem 0}
.pager button{font:inherit;font-size:.85rem}
table.items{table-layout:auto;width:100%;font-size:.8rem}
table.items th,table.items td{text-align:left;vertical-align:top;overflow-wrap:anywhere;padding:.25rem .35rem}
table.items td.short{overflow-wrap:normal;word-break:normal}.badge{white-space:nowrap}
table.items td.num,table.items th.num{text-align:right}
table.items th{overflow-wrap:normal;word-break:normal;hyphens:manual}
table.items th button.sort{font:inherit;font-weight:600;border:none;background:none;padding:0;margin:0;cursor:pointer;
color:inherit;text-align:inherit;overflow-wrap:normal}
table.items th[aria-sort=ascending],table.items th[aria-sort=descending]{background:#d9e2ec}
.pager a.csv{margin-left:auto}
table.items tr.item{cursor:pointer}table.items tr.item:hover{background:#f8fafc}
table.items .sys{color:#7b8794}
table.items button.toggle{border:none;background:none;cursor:pointer;font-size:.8rem;padding:0}
.v-tp,.v-tn{color:#027a48}.v-fp,.v-fn{color:#b42318;font-weight:600}.v-unscored{color:#7b8794;font-style:italic}
.badge{display:inline-block;font-size:.7rem;border-radius:3px;padding:0 .25rem;margin-left:.2rem;
background:#fef0c7;color:#93370d}
.badge.fn,.badge.fp{background:#fee4e2;color:#b42318}
tr.detail td{background:#f8fafc}
tr.detail dl{display:grid;grid-template-columns:8rem 1fr;gap:.2rem .6rem;margin:.2rem 0}
tr.detail dt{font-weight:600;color:#52606d}tr.detail dd{margin:0;white-space:pre-wrap}
tr.detail table{width:100%;table-layout:fixed;font-size:.78rem}
tr.detail h4{margin:.5rem 0 .2rem;font-size:.85rem}
.st-yes{color:#027a48}.st-no{color:#b42318;font-weight:600}
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var root = document.getElementById("items");
  var data = JSON.parse(document.getElementById("ragjury-items").textContent);
  var rows = data.rows, runs = data.runs, two = runs.length > 1, score = data.kind === "score";
  var perRun = two && data.answersPerRun;
  var short = two ? ["A", "B"] : [""];
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function clip(text, n) {
    if (text === null || text === undefined) return "";
    text = String(text);
    return text.length > n ? text.slice(0, n - 1) + "\u2026" : text;
  }
  function fmtLabel(v) { return v === null || v === undefined ? "-" : (typeof v === "number" && !Number.isInteger(v) ? v.toFixed(3) : String(v)); }
  function wrong(v) { return v && (v.o === "fp" || v.o === "fn"); }
  function off(v, gold) { return v && !v.u && gold !== null && typeof v.l === "number" && Math.abs(v.l - gold) >= data.scoreDisagreement; }
  function disagrees(r) { return r.v.some(function (v) { return score ? off(v, r.gold) : wrong(v); }); }
  function same(a, b) { return a && b && a.u === b.u && (a.u || a.l === b.l); }
  var filters = [["all", "all", function () { return true; }]];
  if (score) {
    filters.push(["disagree", "off by \u2265 " + data.scoreDisagreement, disagrees]);
  } else {
    filters.push(["disagree", "disagreements", disagrees]);
    filters.push(["fp", "false positives", function (r) { return r.v.some(function (v) { return v && v.o === "fp"; }); }]);
    filters.push(["fn", "false negatives", function (r) { return r.v.some(function (v) { return v && v.o === "fn"; }); }]);
  }
  filters.push(["unscored", "unscored", function (r) { return r.v.some(function (v) { return v && v.u; }); }]);
  filters.push(["fallback", "fallback", function (r) { return r.v.some(function (v) { return v && v.fb; }); }]);
  if (perRun) {  // a run comparison: which config's answer the judge preferred
    function val(v) { return v && !v.u ? Number(v.l) : null; }
    function both(r) { return val(r.v[0]) !== null && val(r.v[1]) !== null; }
    filters.push(["abetter", "A better", function (r) { return both(r) && val(r.v[0]) > val(r.v[1]); }]);
    filters.push(["bbetter", "B better", function (r) { return both(r) && val(r.v[1]) > val(r.v[0]); }]);
    if (!score) filters.push(["bothfail", "both fail", function (r) { return both(r) && !val(r.v[0]) && !val(r.v[1]); }]);
  }
  if (two) {
    filters.push(["changed", "verdict changed", function (r) { return !same(r.v[0], r.v[1]); }]);
    if (!score) {
      filters.push(["fixed", "B right, A wrong", function (r) { return wrong(r.v[0]) && r.v[1] && !r.v[1].u && !wrong(r.v[1]) && r.v[1].o !== "nogold"; }]);
      filters.push(["broken", "A right, B wrong", function (r) { return wrong(r.v[1]) && r.v[0] && !r.v[0].u && !wrong(r.v[0]) && r.v[0].o !== "nogold"; }]);
    }
  }
  var state = { filter: "all", q: "", page: 1, size: 50, open: "", sort: "", dir: "asc" };
  function readState() {
    var text = (location.search || "").replace(/^\?/, "") + "&" + (location.hash || "").replace(/^#/, "");
    var params = new URLSearchParams(text);
    if (params.get("filter") && filters.some(function (f) { return f[0] === params.get("filter"); })) state.filter = params.get("filter");
    if (params.get("q")) state.q = params.get("q");
    if (params.get("page")) state.page = Math.max(1, parseInt(params.get("page"), 10) || 1);
    if (params.get("size")) state.size = Math.min(1000, Math.max(10, parseInt(params.get("size"), 10) || 50));
    if (params.get("open")) state.open = params.get("open");
    state.sort = params.get("sort") || "";
    state.dir = params.get("dir") === "desc" ? "desc" : "asc";
  }
  function writeState() {
    var params = new URLSearchParams();
    if (state.filter !== "all") params.set("filter", state.filter);
    if (state.q) params.set("q", state.q);
    if (state.page > 1) params.set("page", String(state.page));
    if (state.size !== 50) params.set("size", String(state.size));
    if (state.sort) { params.set("sort", state.sort); if (state.dir === "desc") params.set("dir", "desc"); }
    var hash = params.toString();
    try { history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search); } catch (e) { /* file: URLs in some browsers */ }
  }
  var haystacks = [];
  function haystack(i) {
    if (haystacks[i] === undefined) {
      var r = rows[i], parts = [r.id, r.sys, r.q, r.a].concat(r.ref, r.ctx);
      r.v.forEach(function (v) { if (v) { parts.push(v.a, v.r, v.fr, v.j); (v.st || []).forEach(function (s) { parts.push(s[0], s[2]); }); } });
      haystacks[i] = parts.filter(Boolean).join("\n").toLowerCase();
    }
    return haystacks[i];
  }
  function any(test) { return rows.some(function (r) { return r.v.some(function (v) { return v && test(v); }); }); }
  function why(v) {  // the reason, or for judges that give none, the details of their value
    if (!v) return "";
    if (v.r) return v.r;
    return (v.x || []).map(function (pair) { return pair[0].replace(/_/g, " ") + ": " + pair[1]; }).join("; ");
  }
  function tokens(v) { return v ? (v.t[0] + v.t[1]).toLocaleString("en-US") : "-"; }
  function text(value, n) { return function (r) { return el("td", "", clip(value(r), n)); }; }
  function label(v) { return !v || v.u || v.l === null || v.l === undefined ? null : (typeof v.l === "boolean" ? (v.l ? 1 : 0) : v.l); }
  function lower(value) { return value === null || value === undefined ? null : String(value).toLowerCase(); }
  // Columns: [header, relative width, numeric, cell(row) -> td, id (in #sort=), sort key(row)];
  // columns no item fills are left out. A key is a number or a string; null sorts last either way.
  var columns = [
    ["item", 9, false, function (r) {
      var td = el("td", "", clip(r.id, 40));
      if (r.sys) { td.appendChild(el("br")); td.appendChild(el("span", "sys", clip(r.sys, 30))); }
      return td;
    }, "id", function (r) { return lower(r.id); }],
    ["question", 15, false, text(function (r) { return r.q; }, 140), "question", function (r) { return lower(r.q); }],
    ["answer", 18, false, text(function (r) { return r.a; }, 200), "answer", function (r) { return lower(r.a); }],
    [data.contextLabel, 16, false, text(function (r) { return (r.ref.length ? r.ref : r.ctx).join(" | "); }, 160), "context",
      function (r) { return lower((r.ref.length ? r.ref : r.ctx).join(" | ")); }],
    [score ? "people" : "gold", 5, true, function (r) { return el("td", "num", fmtLabel(r.gold)); }, "gold",
      function (r) { return r.gold === null || r.gold === undefined ? null : Number(r.gold); }]
  ];
  function hasLatency() { return any(function (v) { return v.lat !== undefined; }); }
  if (perRun) {  // each run's answer beside its verdict, not one answer for both
    columns = columns.filter(function (c) { return c[4] !== "answer"; });
    columns.splice(2, 0,
      [short[0] + ": answer", 16, false, text(function (r) { return r.v[0] && r.v[0].a; }, 200), "answerA", function (r) { return lower(r.v[0] && r.v[0].a); }],
      [short[1] + ": answer", 16, false, text(function (r) { return r.v[1] && r.v[1].a; }, 200), "answerB", function (r) { return lower(r.v[1] && r.v[1].a); }]);
  }
  if (two) {
    runs.forEach(function (name, i) {
      columns.push([short[i] + ": " + name, 11, false, function (r) { return verdictCell(r.v[i], r, true); }, "verdict" + short[i],
        function (r) { var v = r.v[i]; return v && v.p !== undefined ? v.p : label(v); }]);
    });
    if (any(function (v) { return v.t[0] + v.t[1] > 0; })) {
      columns.push(["tokens A / B", 7, true, function (r) { return el("td", "num", r.v.map(tokens).join(" / ")); }, "tokens",
        function (r) { return r.v.reduce(function (sum, v) { return sum + (v ? v.t[0] + v.t[1] : 0); }, 0); }]);
    }
  } else {
    columns.push([score ? "judge score" : "verdict", 8, false, function (r) { return verdictCell(r.v[0], r, false); }, "verdict",
      function (r) { return label(r.v[0]); }]);
    if (score) {
      columns.push(["judge \u2212 people", 6, true, function (r) { var v = r.v[0]; return el("td", "num", v && !v.u && r.gold !== null ? (v.l - r.gold).toFixed(3) : "-"); }, "diff",
        function (r) { var v = r.v[0]; return v && !v.u && r.gold !== null && r.gold !== undefined ? v.l - r.gold : null; }]);
    } else if (any(function (v) { return v.p !== undefined; })) {
      columns.push(["P(yes)", 6, true, function (r) { var v = r.v[0]; return el("td", "num", v && v.p !== undefined ? v.p.toFixed(2) : "-"); }, "p",
        function (r) { var v = r.v[0]; return v && v.p !== undefined ? v.p : null; }]);
    }
    if (any(function (v) { return v.r || v.x; })) columns.push(["reason", 15, false, text(function (r) { return why(r.v[0]); }, 160), "reason",
      function (r) { return lower(why(r.v[0]) || null); }]);
    columns.push(["judge", 8, false, function (r) {
      var v = r.v[0], td = el("td", "", v ? v.j : "");
      if (v && v.fb) td.appendChild(el("span", "badge", "fallback"));
      return td;
    }, "judge", function (r) { return r.v[0] ? lower(r.v[0].j) : null; }]);
    if (any(function (v) { return v.t[0] + v.t[1] > 0; })) {
      columns.push(["tokens", 6, true, function (r) { return el("td", "num", tokens(r.v[0])); }, "tokens",
        function (r) { return r.v[0] ? r.v[0].t[0] + r.v[0].t[1] : null; }]);
    }
    if (hasLatency()) {
      columns.push(["latency (s)", 6, true, function (r) { var v = r.v[0]; return el("td", "num", v && v.lat !== undefined ? v.lat.toFixed(2) : "-"); }, "latency",
        function (r) { var v = r.v[0]; return v && v.lat !== undefined ? v.lat : null; }]);
    }
  }
  var totalWidth = columns.reduce(function (sum, c) { return sum + c[1]; }, 0);
  var filterBar = el("div", "filters"), buttons = {};
  filters.forEach(function (f) {
    var count = rows.filter(f[2]).length;
    var button = el("button", "filter", f[1]);
    button.type = "button";
    button.dataset.filter = f[0];
    button.appendChild(el("span", "count", count.toLocaleString("en-US")));
    button.addEventListener("click", function () { state.filter = f[0]; state.page = 1; render(); });
    buttons[f[0]] = button;
    filterBar.appendChild(button);
  });
  var search = el("input");
  search.type = "search";
  search.placeholder = "search question, answer, reference, reason\u2026";
  search.setAttribute("aria-label", "search items");
  search.addEventListener("input", function () { state.q = search.value; state.page = 1; render(); });
  filterBar.appendChild(search);
  var pager = el("div", "pager"), prev = el("button", "", "\u2039 previous"), next = el("button", "", "next \u203a");
  var info = el("span", "pageinfo"), sizeSelect = el("select");
  [25, 50, 200, 1000].forEach(function (n) { var o = el("option", "", n + " per page"); o.value = String(n); sizeSelect.appendChild(o); });
  prev.type = next.type = "button";
  prev.addEventListener("click", function () { state.page -= 1; render(); });
  next.addEventListener("click", function () { state.page += 1; render(); });
  sizeSelect.addEventListener("change", function () { state.size = parseInt(sizeSelect.value, 10); state.page = 1; render(); });
  pager.appendChild(prev); pager.appendChild(info); pager.appendChild(next); pager.appendChild(sizeSelect);
  var table = el("table", "items"), colgroup = el("colgroup"), head = el("tr"), body = el("tbody");
  var toggleCol = el("col"); toggleCol.style.width = "1.6rem"; colgroup.appendChild(toggleCol);
  head.appendChild(el("th", "", ""));
  var headers = {};
  columns.forEach(function (c) {
    var col = el("col"); col.style.width = (100 * c[1] / totalWidth).toFixed(2) + "%"; colgroup.appendChild(col);
    var th = el("th", "sortable" + (c[2] ? " num" : "")), button = el("button", "sort", c[0]);
    button.type = "button";
    button.title = "sort by " + c[0] + " (click again to reverse, a third time to unsort)";
    button.appendChild(el("span", "sort-mark", ""));
    button.addEventListener("click", function () {
      if (state.sort !== c[4]) { state.sort = c[4]; state.dir = c[2] ? "desc" : "asc"; }
      else if (state.dir === (c[2] ? "desc" : "asc")) { state.dir = c[2] ? "asc" : "desc"; }
      else { state.sort = ""; }
      state.page = 1; render();
    });
    th.dataset.sort = c[4];
    th.appendChild(button);
    headers[c[4]] = th;
    head.appendChild(th);
  });
  var thead = el("thead"); thead.appendChild(head);
  table.appendChild(colgroup); table.appendChild(thead); table.appendChild(body);
  root.appendChild(filterBar); root.appendChild(pager); root.appendChild(table);

  function verdictCell(v, r, withP) {
    var td = el("td");
    if (!v) { td.appendChild(el("span", "v-unscored", "not in this run")); return td; }
    if (v.u) { td.appendChild(el("span", "v-unscored", "unscored")); td.title = v.r || ""; return td; }
    var text = fmtLabel(v.l);
    if (v.st) text += " (" + v.st.filter(function (s) { return s[1]; }).length + "/" + v.st.length + ")";
    if (withP && v.p !== undefined) text += " \u00b7 " + v.p.toFixed(2);
    td.appendChild(el("span", "v-" + v.o, text));
    if (v.o === "fp" || v.o === "fn") td.appendChild(el("span", "badge " + v.o, v.o.toUpperCase()));
    if (v.fb) { var b = el("span", "badge", "fallback"); b.title = v.fr || "answered by the fallback judge"; td.appendChild(b); }
    return td;
  }
  function detail(r, colspan) {
    var tr = el("tr", "detail"), td = el("td"), dl = el("dl");
    td.colSpan = colspan;
    function add(name, value) { if (value === null || value === undefined || value === "" || (Array.isArray(value) && !value.length)) return; dl.appendChild(el("dt", "", name)); dl.appendChild(el("dd", "", Array.isArray(value) ? value.map(function (t, i) { return (value.length > 1 ? "[" + (i + 1) + "] " : "") + t; }).join("\n\n") : value)); }
    add("id", r.id); add("system", r.sys); add("question", r.q); add("answer", r.a);
    add("references", r.ref); add("contexts", r.ctx); add(score ? "people" : "gold", fmtLabel(r.gold));
    td.appendChild(dl);
    r.v.forEach(function (v, i) {
      if (!v) return;
      td.appendChild(el("h4", "", (two ? short[i] + ": " + runs[i] + " \u2014 " : "") + "verdict " + (v.u ? "unscored" : fmtLabel(v.l))));
      var d = el("dl");
      function put(name, value) { if (value === null || value === undefined || value === "") return; d.appendChild(el("dt", "", name)); d.appendChild(el("dd", "", value)); }
      put("answer", v.a);
      put(v.u ? "unscored because" : "reason", v.r);
      if (v.p !== undefined) put("P(yes)", v.p.toFixed(4));
      if (v.sc !== undefined) put("statement score", v.sc.toFixed(3));
      if (v.dims) put("dimensions", Object.keys(v.dims).map(function (k) { return k + " " + Number(v.dims[k]).toFixed(2); }).join(", "));
      put("judge", [v.j, v.m ? "model " + v.m : "no model", v.pv ? "prompt " + v.pv : null, v.me ? "read by " + v.me : null].filter(Boolean).join(" \u00b7 "));
      (v.x || []).forEach(function (pair) { put(pair[0].replace(/_/g, " "), pair[1]); });
      if (v.fb) put("fallback", "answered by the fallback judge" + (v.fr ? ", because: " + v.fr : ""));
      put("tokens", (v.t[2] ? v.t[0] + " in + " + v.t[1] + " out, " + v.t[2] + " request(s)" : "none (no model call)") + (v.lat !== undefined ? ", " + v.lat.toFixed(3) + " s" : ""));
      td.appendChild(d);
      if (v.st) {
        var st = el("table", "statements"), h = el("tr");
        ["statement", "supported", "reason"].forEach(function (t, k) { var th = el("th", "", t); h.appendChild(th); });
        st.appendChild(h);
        v.st.forEach(function (s) {
          var row = el("tr");
          row.appendChild(el("td", "", s[0]));
          row.appendChild(el("td", s[1] ? "st-yes" : "st-no", s[1] ? "yes" : "no"));
          row.appendChild(el("td", "", s[2]));
          st.appendChild(row);
        });
        td.appendChild(st);
      }
    });
    tr.appendChild(td);
    return tr;
  }
  function row(i) {
    var r = rows[i], tr = el("tr", "item");
    tr.dataset.id = r.id;
    tr.dataset.outcome = r.v.map(function (v) { return v ? v.o : "absent"; }).join(" ");
    var toggle = el("button", "toggle", "\u25b8");
    toggle.type = "button";
    toggle.setAttribute("aria-label", "show the whole item");
    var cell = el("td"); cell.appendChild(toggle); tr.appendChild(cell);
    columns.forEach(function (c) {  // a narrow column holds short words: wrap between them only
      var td = c[3](r); if (c[1] <= 11 && c[4] !== "id") td.classList.add("short"); tr.appendChild(td);
    });
    var open = null;
    function flip() {
      if (open) { open.remove(); open = null; toggle.textContent = "\u25b8"; tr.classList.remove("open"); return; }
      open = detail(r, columns.length + 1); tr.after(open); toggle.textContent = "\u25be"; tr.classList.add("open");
    }
    tr.addEventListener("click", function (event) { if (!window.getSelection || String(window.getSelection()) === "") flip(); });
    if (state.open && state.open === r.id) setTimeout(flip, 0);
    return tr;
  }
  var keys = {}, current = [];
  function sortRows(indexes) {
    var column = columns.filter(function (c) { return c[4] === state.sort; })[0];
    if (!column) { state.sort = ""; return; }
    if (!keys[state.sort]) keys[state.sort] = rows.map(column[5]);  // once per column, then cached
    var key = keys[state.sort], sign = state.dir === "desc" ? -1 : 1;
    indexes.sort(function (i, j) {
      var a = key[i], b = key[j];
      if (a === null || a === undefined) return b === null || b === undefined ? i - j : 1;
      if (b === null || b === undefined) return -1;
      if (a < b) return -sign;
      if (a > b) return sign;
      return i - j;
    });
  }
  function csvCell(value) {
    if (value === null || value === undefined) return "";
    var text = Array.isArray(value) ? value.join(" | ") : String(value);
    if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = "'" + text;  // no formulas in a spreadsheet
    return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }
  // The items shown (filter, search and sort applied, every page) as CSV: one line per item,
  // the verdict fields once per run.
  function csv() {
    var head = ["id", "system", "question", "answer", "references", "contexts", score ? "people" : "gold"];
    var fields = (perRun ? ["answer"] : []).concat(["verdict", "outcome", "P(yes)", "unscored", "reason", "judge", "model", "prompt_version", "fallback",
      "input_tokens", "output_tokens", "requests", "latency_s"]);
    runs.forEach(function (name, i) { fields.forEach(function (f) { head.push(two ? short[i] + " " + f : f); }); });
    var lines = [head.map(csvCell).join(",")];
    current.forEach(function (index) {
      var r = rows[index], cells = [r.id, r.sys, r.q, r.a, r.ref, r.ctx, r.gold];
      r.v.forEach(function (v) {
        if (!v) { fields.forEach(function () { cells.push(null); }); return; }
        if (perRun) cells.push(v.a);
        cells.push(v.u ? null : v.l, v.o, v.p, v.u, v.r, v.j, v.m, v.pv, v.fb, v.t[0], v.t[1], v.t[2], v.lat);
      });
      lines.push(cells.map(csvCell).join(","));
    });
    return lines.join("\r\n") + "\r\n";
  }
  window.ragjuryItemsCsv = csv;
  var download = el("a", "csv", "download CSV");
  download.id = "items-csv";
  download.href = "#";
  download.download = "ragjury-items.csv";
  download.title = "the items shown (filter, search and sort applied), all pages, as CSV";
  download.addEventListener("click", function () {
    var blob = new Blob(["\ufeff" + csv()], { type: "text/csv;charset=utf-8" });
    if (download.href.indexOf("blob:") === 0) URL.revokeObjectURL(download.href);
    download.href = URL.createObjectURL(blob);
  });
  pager.appendChild(download);
  function render() {
    var keep = filters.filter(function (f) { return f[0] === state.filter; })[0][2];
    var q = state.q.trim().toLowerCase(), matched = [];
    for (var i = 0; i < rows.length; i += 1) if (keep(rows[i]) && (!q || haystack(i).indexOf(q) >= 0)) matched.push(i);
    sortRows(matched);
    current = matched;
    var pages = Math.max(1, Math.ceil(matched.length / state.size));
    state.page = Math.min(Math.max(1, state.page), pages);
    var start = (state.page - 1) * state.size, shown = matched.slice(start, start + state.size);
    body.textContent = "";
    shown.forEach(function (i) { body.appendChild(row(i)); });
    Object.keys(buttons).forEach(function (k) { buttons[k].classList.toggle("on", k === state.filter); buttons[k].setAttribute("aria-pressed", String(k === state.filter)); });
    if (search.value !== state.q) search.value = state.q;
    if (!sizeSelect.querySelector("option[value='" + state.size + "']")) {
      var extra = el("option", "", state.size + " per page"); extra.value = String(state.size); sizeSelect.appendChild(extra);
    }
    sizeSelect.value = String(state.size);
    info.textContent = matched.length ? "items " + (start + 1).toLocaleString("en-US") + "\u2013" + (start + shown.length).toLocaleString("en-US") + " of " + matched.length.toLocaleString("en-US") + (matched.length !== rows.length ? " (of " + rows.length.toLocaleString("en-US") + ")" : "") : "no item matches";
    prev.disabled = state.page <= 1; next.disabled = state.page >= pages;
    Object.keys(headers).forEach(function (k) {
      var on = k === state.sort, mark = headers[k].querySelector(".sort-mark");
      headers[k].setAttribute("aria-sort", on ? (state.dir === "desc" ? "descending" : "ascending") : "none");
      mark.textContent = on ? (state.dir === "desc" ? " \u25bc" : " \u25b2") : "";
    });
    root.dataset.sort = state.sort ? state.sort + " " + state.dir : "";
    root.dataset.filter = state.filter; root.dataset.matched = String(matched.length); root.dataset.shown = String(shown.length);
    writeState();
  }
  readState();
  render();
  window.addEventListener("hashchange", function () { readState(); render(); });
})();
"""


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
