"""The page of a sweep (``report RUN1 ... RUNn --html``): a dot-and-interval chart of every config's
rate, sorted, the baseline marked, and per config the questions where it differs from the best.

Why no script: the page is opened from mail, CI artefacts and old folders, so it declares a strict
Content-Security-Policy (no script at all, nothing fetched) and does its one interaction with CSS:
each config in the chart and the table links to ``#cfg-N``, and ``:target`` shows that config's
questions. Every piece of run text is escaped; long texts are cut to ``TEXT_CHARS`` and each
config lists at most ``MAX_ROWS`` questions, so 20 runs x 2,000 questions stay a few MB.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from ragjury.evals.report.page import _CSS
from ragjury.rag_agent.core.input_files import InputError

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
MAX_ROWS = 200
"""Questions listed per config where it differs from the best (the count says how many in all)."""
TEXT_CHARS = 240
"""Characters of a question or an answer shown in the per-config lists."""

_SWEEP_CSS = """
.chart a{cursor:pointer}.chart a:hover rect.hit,.chart a:focus rect.hit{fill:#e6f0ff}
.chart text{font:12px system-ui,sans-serif;fill:#1f2933}.chart .axis{fill:#52606d;font-size:11px}
.config{display:none;border:1px solid #d9e2ec;border-radius:6px;padding:.2rem 1rem .6rem;margin:1rem 0}
.config:target{display:block}.config td{text-align:left;vertical-align:top;overflow-wrap:anywhere}
.config table{width:100%;table-layout:fixed}.config col.id{width:7rem}.config col.v{width:5.5rem}
.sweep td.name a{color:#1849a9}.sweep td.name{overflow-wrap:anywhere;min-width:6rem}.sweep td{white-space:nowrap}
.sweep td.verdict{white-space:normal;text-align:left;min-width:8rem}
.v-best{color:#027a48;font-weight:600}.v-worse{color:#52606d}.v-close{color:#1849a9}.v-gate{color:#b42318;font-weight:600}
.hint{color:#52606d}
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _cut(text: str | None) -> str:
    if not text:
        return "-"
    text = " ".join(text.split())
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"


def _verdict_class(verdict: str) -> str:
    if verdict == "best":
        return "v-best"
    if verdict.startswith("worse than the baseline"):
        return "v-gate"
    if verdict == "worse than the best":
        return "v-worse"
    return "v-close"


def _scale(sweep: Any) -> tuple[float, float]:
    """The chart's x range: every interval, rounded out to the axis step."""
    lows = [r.interval[0] if r.interval else r.rate for r in sweep.rows]
    highs = [r.interval[1] if r.interval else r.rate for r in sweep.rows]
    step = 0.1 if sweep.binary else max((max(highs) - min(lows)) / 5, 1e-6)
    low = max(0.0, (min(lows) // step) * step) if sweep.binary else min(lows)
    high = min(1.0, -((-max(highs)) // step) * step) if sweep.binary else max(highs)
    if high - low < 1e-9:
        low, high = low - step, high + step
    return low, high


def chart_svg(sweep: Any) -> str:
    """One row per config, highest rate first: its name (links to its questions), a dot at its
    rate and a bar over its simultaneous interval; the baseline is a hollow square, the best green."""
    width, left, right, row_h, top = 760, 190, 20, 28, 28
    low, high = _scale(sweep)
    plot = width - left - right

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * plot

    height = top + row_h * len(sweep.rows) + 10
    out = [f"<svg class='chart' viewBox='0 0 {width} {height}' width='{width}' height='{height}' role='img' "
           f"aria-label='rate of each config with its simultaneous interval'>"]
    if sweep.binary:  # a line every 10 points (20 over a wide range), on round values
        step = 0.1 if high - low <= 0.6 + 1e-9 else 0.2
        values = [round(low + step * t, 6) for t in range(int(round((high - low) / step)) + 1)]
    else:
        values = [low + (high - low) * t / 5 for t in range(6)]
    for value in values:
        out.append(f"<line x1='{x(value):.1f}' x2='{x(value):.1f}' y1='{top - 6}' y2='{height - 8}' stroke='#e4e7eb'/>")
        label = f"{value * 100:.0f} %" if sweep.binary else f"{value:.2f}"
        out.append(f"<text class='axis' x='{x(value):.1f}' y='{top - 10}' text-anchor='middle'>{label}</text>")
    base = sweep.rows[[r.index for r in sweep.rows].index(sweep.baseline)].rate
    out.append(f"<line x1='{x(base):.1f}' x2='{x(base):.1f}' y1='{top - 6}' y2='{height - 8}' stroke='#9aa5b1' "
               "stroke-dasharray='4 3'><title>the baseline's rate</title></line>")
    for position, row in enumerate(sweep.rows):
        y = top + row_h * position + row_h / 2
        colour = "#027a48" if row.verdict == "best" else ("#b42318" if row.verdict.startswith("worse than the baseline")
                                                          else "#1849a9")
        name = row.name if len(row.name) <= 24 else row.name[:23] + "…"
        suffix = " (baseline)" if row.is_baseline else ""
        interval = row.interval or (row.rate, row.rate)
        tip = (f"{row.name}{suffix}: {sweep.amount(row.rate)} [{sweep.amount(interval[0])}, "
               f"{sweep.amount(interval[1])}]; {row.verdict}")
        out.append(f"<a href='#cfg-{row.index}'><title>{_e(tip)}</title>")
        out.append(f"<rect class='hit' x='0' y='{y - row_h / 2:.1f}' width='{width}' height='{row_h}' fill='transparent'/>")
        weight = " font-weight='600'" if row.verdict == "best" or row.is_baseline else ""
        out.append(f"<text x='{left - 10}' y='{y + 4:.1f}' text-anchor='end'{weight}>{_e(name)}</text>")
        out.append(f"<line x1='{x(interval[0]):.1f}' x2='{x(interval[1]):.1f}' y1='{y:.1f}' y2='{y:.1f}' "
                   f"stroke='{colour}' stroke-width='3' stroke-linecap='round'/>")
        if row.is_baseline:
            out.append(f"<rect x='{x(row.rate) - 6:.1f}' y='{y - 6:.1f}' width='12' height='12' fill='#fff' "
                       f"stroke='{colour}' stroke-width='2.5'/>")
        else:
            out.append(f"<circle cx='{x(row.rate):.1f}' cy='{y:.1f}' r='6' fill='{colour}'/>")
        out.append("</a>")
    out.append("</svg>")
    return "".join(out)


def _interval(sweep: Any, value: float, interval: tuple[float, float] | None, signed: bool) -> str:
    text = sweep.shift if signed else sweep.amount
    shown = text(value)
    if interval is None:
        return _e(shown)
    low, high = (text(end).replace(" %", "") for end in interval)
    return f"{_e(shown)}<br><span class='ci'>[{_e(low)}, {_e(high)}]</span>"


def table_html(sweep: Any) -> str:
    """Every config, highest rate first: rate, difference to the baseline and to the best, verdict."""
    unit = " (points)" if sweep.binary else ""
    head = (f"<tr><th class='name'>config</th><th>rate</th><th>- baseline{unit}</th><th>- best{unit}</th>"
            "<th class='name'>verdict</th></tr>")
    rows = []
    for row in sweep.rows:
        base = "<b>baseline</b>" if row.is_baseline else _interval(sweep, row.to_baseline, row.to_baseline_interval, True)
        best = "<b>best</b>" if row.index == sweep.best else _interval(sweep, row.to_best, row.to_best_interval, True)
        rows.append(f"<tr><td class='name'><a href='#cfg-{row.index}'>{_e(row.name)}</a></td>"
                    f"<td>{_interval(sweep, row.rate, row.interval, False)}</td><td>{base}</td><td>{best}</td>"
                    f"<td class='verdict {_verdict_class(row.verdict)}'>{_e(row.verdict)}</td></tr>")
    return f"<div class='scroll'><table class='sweep'>{head}{''.join(rows)}</table></div>"


def _verdict_word(sweep: Any, value: float | bool | None) -> str:
    if value is None:
        return "-"
    if sweep.binary:
        return "yes" if float(value) >= 0.5 else "no"
    return f"{float(value):.3f}"


def config_sections(sweep: Any) -> str:
    """Per config, hidden until its link is followed: the questions where it differs from the best."""
    best_name = sweep.names[sweep.best]
    best_records = sweep.runs[sweep.best].by_id()
    out = []
    for row in sweep.rows:
        records = sweep.runs[row.index].by_id()
        heading = f"<h2>{_e(row.name)}{' (baseline)' if row.is_baseline else ''}: {_e(row.verdict)}</h2>"
        if row.index == sweep.best:
            body = (f"<p>{_e(row.name)} is the best config here ({_e(sweep.amount(row.rate))}); pick another config "
                    "to see the questions where it differs from it.</p>")
        elif not row.differs_from_best:
            body = f"<p>{_e(row.name)} gives the same verdict as {_e(best_name)} on every question.</p>"
        else:
            shown = row.differs_from_best[:MAX_ROWS]
            more = (f" (the first {len(shown):,} shown)" if len(row.differs_from_best) > len(shown) else "")
            lines = []
            for ident in shown:
                mine, theirs = records[ident], best_records[ident]
                lines.append(
                    f"<tr><td>{_e(ident)}</td><td>{_e(_cut(mine.question))}</td>"
                    f"<td>{_e(_verdict_word(sweep, mine.label))}</td><td>{_e(_cut(mine.answer))}</td>"
                    f"<td>{_e(_verdict_word(sweep, theirs.label))}</td><td>{_e(_cut(theirs.answer))}</td></tr>")
            body = (f"<p>{len(row.differs_from_best):,} questions where {_e(row.name)}'s verdict differs from "
                    f"{_e(best_name)}'s{more}.</p><div class='scroll'><table><colgroup><col class='id'><col>"
                    "<col class='v'><col><col class='v'><col></colgroup>"
                    f"<tr><th class='name'>id</th><th class='name'>question</th><th class='name'>{_e(row.name)}</th>"
                    f"<th class='name'>its answer</th><th class='name'>{_e(best_name)}</th><th class='name'>its answer"
                    f"</th></tr>{''.join(lines)}</table></div>")
        out.append(f"<section class='config' id='cfg-{row.index}'>{heading}{body}</section>")
    return "".join(out)


def render_sweep(sweep: Any, gate: Any = None, *, title: str | None = None) -> str:
    """The whole page, one HTML document with inline CSS and SVG and no script."""
    title = title or f"ragjury: {len(sweep.runs)} configs compared"
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
           f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">",
           "<meta name='viewport' content='width=device-width, initial-scale=1'>",
           f"<title>{_e(title)}</title><style>{_CSS}{_SWEEP_CSS}</style></head><body>",
           f"<h1>{_e(title)}</h1>"]
    if sweep.people is not None:  # the answer first: as people would judge it
        labels = ", ".join(f"{name} {n:,}" for name, n in zip(sweep.names, sweep.labelled, strict=True))
        out += [f"<section class='lead'><h2>As people would judge it: {_e(sweep.people.headline())}</h2>",
                "<p class='note'>Prediction-powered: the judge's verdicts corrected by people's labels, each weighted "
                f"by 1 / its inclusion probability; labelled answers: {_e(labels)}. Intervals are simultaneous, as "
                "below.</p>", chart_svg(sweep.people), table_html(sweep.people), "</section>",
                "<h2>The judge's verdicts</h2>"]
    out += [f"<section class='lead'><h2>{_e(sweep.headline())}</h2>",
           f"<p class='note'>{_e(sweep.method_line()[:1].upper() + sweep.method_line()[1:])}. Each bar is a config's "
           "rate with its interval; the hollow square is the baseline. Click a config to see its questions where "
           "it differs from the best.</p>", chart_svg(sweep), "</section>"]
    if gate is not None:
        cls = "fail" if gate.failed else "ok"
        out.append(f"<p class='{cls}'>Regression gate (--fail-if-worse {gate.margin:g}): "
                   f"{'FAILED' if gate.failed else 'passed'}: {_e(gate.reason)}</p>")
        out.extend(f"<p class='fail'>{_e(c.name)}: {_e(c.reason)}</p>" for c in gate.configs if c.failed)
    out.append("<h2>Configs, highest rate first</h2>")
    out.append(table_html(sweep))
    meta = [("baseline", sweep.names[sweep.baseline]), ("questions every run scored", f"{sweep.stats.n:,}"),
            ("task", sweep.task or ("verdicts" if sweep.binary else "scores"))]
    meta += [(f"run {i + 1}", f"{run.name}: {run.path}") for i, run in enumerate(sweep.runs)]
    out.append("<table class='meta'>" + "".join(f"<tr><th class='name'>{_e(k)}</th><td>{_e(v)}</td></tr>"
                                                for k, v in meta) + "</table>")
    out.extend(f"<p class='warn'>{_e(line[:1].upper() + line[1:])}.</p>" for line in sweep.left_out.lines())
    out.append("<p class='hint' id='pick'>Pick a config (in the chart or the table) to list its questions where it "
               "differs from the best.</p>")
    out.append(config_sections(sweep))
    out.append("<p class='note'>Generated by ragjury.</p></body></html>")
    return "".join(out)


def write_sweep_html(path: str | Path, sweep: Any, gate: Any = None, *, title: str | None = None) -> Path:
    """Write the page atomically; a path that cannot be written is an ``InputError`` (exit 2)."""
    from ragjury.evals.io.atomic_io import write_text_atomic

    target = Path(path)
    try:
        write_text_atomic(target, render_sweep(sweep, gate, title=title))
    except OSError as error:
        raise InputError(path, error.strerror or str(error)) from None
    return target


__all__ = ["CSP", "MAX_ROWS", "chart_svg", "config_sections", "render_sweep", "table_html", "write_sweep_html"]
