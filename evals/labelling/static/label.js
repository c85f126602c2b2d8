// ragjury label: one item per screen, keys only. Item text goes into the page as text (textContent),
// never as HTML; the judge's verdict arrives only in the answer to this item's own label (--reveal).
"use strict";
(function () {
  // the session's secret is now an HttpOnly cookie: drop it from the address bar and the history
  if (location.search) history.replaceState(null, "", location.pathname);
  const $ = (id) => document.getElementById(id);
  let screen = null, shownAt = performance.now(), started = performance.now(), busy = false;
  let pendingComment = null, revealed = null, quitting = false, ended = false;
  const ENDED = "This labelling session has ended (its server is not answering, or it was started again). " +
    "Every label you were answered for is saved. If you started ragjury label again, open the new address " +
    "it printed in its terminal.";
  // milliseconds from a label's key press to the next item drawn (saved on the server in between),
  // read by bench/bench_label.py
  const timings = [];
  window.ragjuryTimings = timings;

  function render(s) {
    screen = s;
    $("question").textContent = s.question;
    let progress = s.done + "/" + s.total + " labelled";
    if (s.unsure) progress += " · " + s.unsure + " unsure";
    if (s.skipped) progress += " · " + s.skipped + " skipped";
    $("progress").textContent = progress;
    $("who").textContent = s.annotator;
    $("binary-buttons").hidden = s.graded;
    $("graded-buttons").hidden = !s.graded;
    const main = $("item");
    main.replaceChildren();
    $("done").hidden = !s.finished;
    if (s.item) {
      if (s.yours) {
        const y = document.createElement("div");
        y.className = "yours";
        y.textContent = "You gave this item: " + (s.yours.unsure ? "unsure" : s.yours.skipped ? "skipped" :
          (s.graded ? "grade " + s.yours.label : (s.yours.label ? "yes" : "no"))) + " (a new key replaces it)";
        main.appendChild(y);
      }
      if (s.people) {  // label --review: what each person said (people's labels, never the judge's)
        const p = document.createElement("div");
        p.className = "people";
        p.id = "people";
        p.textContent = "Review: people said " + s.people.map((x) => x.annotator + " " +
          (s.graded ? x.label : (x.label ? "yes" : "no"))).join(" · ") + ". Your key settles this item.";
        main.appendChild(p);
      }
      for (const f of s.item.fields) {
        const sec = document.createElement("section");
        sec.className = "field";
        const h = document.createElement("h3");
        h.textContent = f.heading;
        const t = document.createElement("div");
        t.className = "text";
        t.textContent = f.text;
        sec.append(h, t);
        main.appendChild(sec);
      }
    }
    if (s.guidelines && !$("guidelines-text").textContent) {  // the user's file, as text (never HTML)
      $("guidelines-text").textContent = s.guidelines;
      $("guidelines").hidden = false;
    }
    document.body.dataset.position = String(s.position);
    document.body.dataset.itemId = s.item ? s.item.id : "";
    document.body.dataset.system = s.item && s.item.system !== null ? s.item.system : "";
    document.body.dataset.done = String(s.done);
    shownAt = performance.now();
    window.scrollTo(0, 0);
  }

  function showReveal(r) {
    revealed = r;
    const box = $("reveal");
    if (!r) { box.hidden = true; return; }
    const word = (v) => v === null || v === undefined ? "no verdict" : (typeof v === "boolean" ? (v ? "yes" : "no") : String(v));
    let text = "Previous item: you said " + word(r.your_label) + "; the judge said " + word(r.judge_label);
    if (typeof r.judge_probability === "number") text += " (P(yes) " + r.judge_probability.toFixed(2) + ")";
    text += ". Shift+y / Shift+n changes your label of that item (recorded as given with the judge shown).";
    box.textContent = text;
    box.hidden = false;
  }

  function notice(text) {
    const box = $("notice");
    box.textContent = text || "";
    box.hidden = !text;
  }

  function sessionEnded() {
    ended = true;
    $("item").replaceChildren();
    $("done").hidden = true;
    notice(ENDED);
    document.body.dataset.ended = "1";
  }

  // fetch, and say plainly what went wrong: a refused act (409) carries the fresh screen
  async function call(method, path, body) {
    let res;
    try {
      res = await fetch(path, { method, headers: { "Content-Type": "application/json" },
        body: body ? JSON.stringify(body) : undefined, cache: "no-store", credentials: "same-origin" });
    } catch (e) {
      sessionEnded();
      throw new Error("ended");
    }
    const data = await res.json().catch(() => ({ error: "HTTP " + res.status }));
    if (res.status === 403 && data.session === "ended") { sessionEnded(); throw new Error("ended"); }
    if (res.status === 409 && data.screen) { const e = new Error(data.error); e.screen = data.screen; throw e; }
    if (!res.ok) throw new Error(data.error || ("HTTP " + res.status));
    return data;
  }

  function target(body) {
    return Object.assign(body, { id: screen.item.id, system: screen.item.system, recheck: screen.recheck,
      seen: screen.version });
  }

  // label --until: the live answer, an aggregate over the labels so far (never an item's verdict)
  function showStatus(st) {
    if (!st) return;
    let el = $("live-status");
    if (!el) {
      el = document.createElement("div");
      el.id = "live-status";
      el.className = "status";
      $("progress").parentNode.after(el);
    }
    el.textContent = st.words;
    document.body.dataset.liveState = st.state;
  }

  async function load(position) {
    const s = await call("GET", "api/screen" + (position === undefined ? "" : "?position=" + position));
    render(s);
  }

  async function act(kind, label, extra) {
    if (busy || !screen) return;
    if (!screen.item && kind !== "undo") return;
    busy = true;
    const pressed = performance.now();
    const body = Object.assign({ act: kind, seconds: (performance.now() - shownAt) / 1000 }, extra || {});
    if (kind === "undo") body.seen = screen.acts; else target(body);
    if (label !== undefined) body.label = label;
    if (pendingComment) { body.comment = pendingComment; pendingComment = null; }
    try {
      const s = await call("POST", "api/act", body);
      notice(null);
      showReveal(s.revealed || null);
      showStatus(s.status);
      render(s);
      requestAnimationFrame(() => timings.push(performance.now() - pressed));
      document.body.dataset.saved = String(Number(document.body.dataset.saved || 0) + 1);
    } catch (e) {
      if (ended) return;
      if (e.screen) {  // taken by another annotator, or changed in another tab: say so, show the fresh state
        notice(e.message);
        render(e.screen);
        document.body.dataset.refused = String(Number(document.body.dataset.refused || 0) + 1);
      } else {
        notice("Not saved: " + e.message + ". Press the key again.");
      }
    } finally { busy = false; }
  }

  async function changeRevealed(label) {
    if (!revealed || busy) return;
    busy = true;
    try {
      const s = await call("POST", "api/act", { act: "label", id: revealed.id, system: revealed.system, label,
        shown_judge: true, seconds: 0 });
      revealed.your_label = label;
      showReveal(revealed);
      render(s);
    } catch (e) {
      if (!ended) notice(e.message);
      if (e.screen) render(e.screen);
    } finally { busy = false; }
  }

  async function quit() {
    if (quitting) return;
    quitting = true;
    await call("POST", "api/quit");
    $("item").replaceChildren();
    $("done").hidden = false;
    $("done").firstElementChild.textContent = "Saved. You can close this tab.";
    document.body.dataset.quit = "1";
  }

  function commentBox(open) {
    $("comment-box").hidden = !open;
    if (open) { $("comment").value = pendingComment || ""; $("comment").focus(); }
  }

  // the jump list: items by position and short text with your own state, never a verdict
  async function showList(filter) {
    const data = await call("GET", "api/list?filter=" + encodeURIComponent(filter));
    const list = $("jump-list");
    list.replaceChildren();
    for (const it of data.items) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.className = "jump-item";
      b.dataset.position = String(it.position);
      b.dataset.itemId = it.id;
      b.textContent = "#" + (it.position + 1) + " · " + it.state + " · " + it.text;
      b.addEventListener("click", () => { $("jump").hidden = true; load(it.position).catch(() => {}); });
      li.appendChild(b);
      list.appendChild(li);
    }
    document.body.dataset.listFilter = filter;
    document.body.dataset.listCount = String(data.items.length);
  }
  function toggleList() {
    const box = $("jump");
    box.hidden = !box.hidden;
    if (!box.hidden) showList("all").catch((e) => notice("Cannot list: " + e.message));
  }
  for (const b of document.querySelectorAll("button[data-filter]")) {
    b.addEventListener("click", () => showList(b.dataset.filter).catch((e) => notice("Cannot list: " + e.message)));
  }

  const handlers = {
    yes: () => act("label", true), no: () => act("label", false),
    g0: () => act("label", 0), g1: () => act("label", 1), g2: () => act("label", 2), g3: () => act("label", 3),
    unsure: () => act("unsure"), skip: () => act("skip"), undo: () => act("undo"),
    prev: () => screen && !ended && load(Math.max(0, screen.position - 1)).catch(() => {}),
    next: () => screen && !ended && load(screen.position + 1).catch(() => {}),
    comment: () => commentBox(true), list: toggleList, help: () => { $("help").hidden = !$("help").hidden; }, quit,
  };

  document.addEventListener("keydown", (e) => {
    if (e.target === $("comment")) {
      if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); pendingComment = $("comment").value.trim() || null; commentBox(false); }
      else if (e.key === "Escape") { commentBox(false); }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (screen && screen.reveal && e.shiftKey && (e.key === "Y" || e.key === "N")) { e.preventDefault(); changeRevealed(e.key === "Y"); return; }
    let name = null;
    const graded = screen && screen.graded;
    switch (e.key) {
      case "y": if (!graded) name = "yes"; break;
      case "n": if (!graded) name = "no"; break;
      case "1": name = graded ? "g1" : "yes"; break;
      case "0": name = graded ? "g0" : "no"; break;
      case "2": if (graded) name = "g2"; break;
      case "3": if (graded) name = "g3"; break;
      case "u": name = "unsure"; break;
      case "s": name = "skip"; break;
      case "z": name = "undo"; break;
      case "ArrowLeft": name = "prev"; break;
      case "ArrowRight": name = "next"; break;
      case "c": name = "comment"; break;
      case "l": name = "list"; break;
      case "?": name = "help"; break;
      case "q": name = "quit"; break;
      case "Escape": $("help").hidden = true; $("jump").hidden = true; break;
    }
    if (name) { e.preventDefault(); handlers[name](); }
  });
  for (const b of document.querySelectorAll("button[data-act]")) {
    b.addEventListener("click", () => handlers[b.dataset.act]());
  }
  setInterval(() => {
    const s = Math.floor((performance.now() - started) / 1000);
    $("clock").textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }, 1000);
  load().catch((e) => { if (!ended) notice("Cannot load: " + e.message); });
})();
