// ragjury label: one item per screen, keys only. Item text goes into the page as text (textContent),
// never as HTML; the judge's verdict arrives only in the answer to this item's own label (--reveal).
"use strict";
(function () {
  const token = new URLSearchParams(location.search).get("token") || "";
  const q = (path) => path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token);
  const $ = (id) => document.getElementById(id);
  let screen = null, shownAt = performance.now(), started = performance.now(), busy = false;
  let pendingComment = null, revealed = null, quitting = false;
  // milliseconds from a label's key press to the next item drawn (saved on the server in between),
  // read by bench/bench_label.py
  const timings = [];
  window.ragjuryTimings = timings;

  function render(s) {
    screen = s;
    $("question").textContent = s.question;
    $("progress").textContent = s.done + "/" + s.total;
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
    document.body.dataset.position = String(s.position);
    document.body.dataset.itemId = s.item ? s.item.id : "";
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

  async function call(method, path, body) {
    const res = await fetch(q(path), { method, headers: { "Content-Type": "application/json" },
      body: body ? JSON.stringify(body) : undefined, cache: "no-store" });
    if (!res.ok) throw new Error(await res.text());
    return res.json();
  }

  async function load(position) {
    const s = await call("GET", "/api/screen" + (position === undefined ? "" : "?position=" + position));
    render(s);
  }

  async function act(kind, label, extra) {
    if (busy || !screen) return;
    if (!screen.item && kind !== "undo") return;
    busy = true;
    const pressed = performance.now();
    const body = Object.assign({ act: kind, position: screen.position,
      seconds: (performance.now() - shownAt) / 1000 }, extra || {});
    if (label !== undefined) body.label = label;
    if (pendingComment) { body.comment = pendingComment; pendingComment = null; }
    try {
      const s = await call("POST", "/api/act", body);
      showReveal(s.revealed || null);
      render(s);
      requestAnimationFrame(() => timings.push(performance.now() - pressed));
      document.body.dataset.saved = String(Number(document.body.dataset.saved || 0) + 1);
    } catch (e) {
      $("item").classList.add("saved-error");
      $("item").textContent = "Not saved: " + e.message + ". Press the key again.";
    } finally { busy = false; }
  }

  async function changeRevealed(label) {
    if (!revealed || busy) return;
    busy = true;
    try {
      const s = await call("POST", "/api/act", { act: "label", position: revealed.position, label,
        shown_judge: true, seconds: 0 });
      revealed.your_label = label;
      showReveal(revealed);
      render(s);
    } finally { busy = false; }
  }

  async function quit() {
    if (quitting) return;
    quitting = true;
    await call("POST", "/api/quit");
    $("item").replaceChildren();
    $("done").hidden = false;
    $("done").firstElementChild.textContent = "Saved. You can close this tab.";
    document.body.dataset.quit = "1";
  }

  function commentBox(open) {
    $("comment-box").hidden = !open;
    if (open) { $("comment").value = pendingComment || ""; $("comment").focus(); }
  }

  const handlers = {
    yes: () => act("label", true), no: () => act("label", false),
    g0: () => act("label", 0), g1: () => act("label", 1), g2: () => act("label", 2), g3: () => act("label", 3),
    unsure: () => act("unsure"), skip: () => act("skip"), undo: () => act("undo"),
    prev: () => screen && load(Math.max(0, screen.position - 1)),
    next: () => screen && load(screen.position + 1),
    comment: () => commentBox(true), help: () => { $("help").hidden = !$("help").hidden; }, quit,
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
      case "?": name = "help"; break;
      case "q": name = "quit"; break;
      case "Escape": $("help").hidden = true; break;
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
  load().catch((e) => { $("item").textContent = "Cannot load: " + e.message; });
})();
