
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
    // an id in one run only is no pair, so no change (the card counts pairs: "verdicts changed N of P")
    filters.push(["changed", "verdict changed", function (r) { return r.v[0] && r.v[1] && !same(r.v[0], r.v[1]); }]);
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
      put("short answer judged", v.ja);
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
