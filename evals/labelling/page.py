"""The labelling page: a Starlette app on 127.0.0.1 that shows one item per screen and takes keys.

Why these rules:
- **A token on every request** (``?token=``, random per session): another local user or a page in
  another tab cannot read the items or write labels.
- **Blind**: responses carry an item's text only; the judge's verdict and P(yes) leave the server
  only in the answer to that item's own label, and only with ``reveal``.
- **Item text is data**: the page puts it in the DOM as text (``textContent``), never as HTML, and
  the content security policy allows nothing but this origin's own script and style: no inline
  script, no outside request.
- **Nothing lost**: an act is answered only after ``LabelSession.act`` synced it to the file.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ragjury.evals.labelling.items import LabelItem
from ragjury.evals.labelling.session import LabelSession, Screen

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
STATIC = {"label.js": "text/javascript", "label.css": "text/css"}
ACTS = ("label", "unsure", "skip", "undo")


@dataclass
class PageState:
    """What the page needs besides the session: the question, the scale, and what to reveal."""

    session: LabelSession
    token: str
    question: str
    graded: bool = False
    reveal: bool = False
    on_quit: Any = None
    acts: int = 0
    changed_after_reveal: int = 0
    last_label: dict[tuple[str | None, str], Any] = field(default_factory=dict)


def _static(name: str) -> bytes:
    return resources.files("ragjury.evals.labelling").joinpath("static", name).read_bytes()


def screen_payload(state: PageState, screen: Screen) -> dict[str, Any]:
    """One screen as JSON: the item's text and where it is, never the judge's verdict."""
    item: LabelItem | None = screen.item
    mine = screen.state
    return {
        "position": screen.position,
        "done": screen.done,
        "total": screen.total,
        "finished": screen.finished,
        "elapsed_s": round(state.session.elapsed(), 1),
        "question": state.question,
        "graded": state.graded,
        "reveal": state.reveal,
        "annotator": state.session.annotator,
        "item": None if item is None else {
            "id": item.id,
            "system": item.system,
            "fields": [{"heading": heading, "text": text} for heading, text in item.fields],
        },
        "yours": None if mine is None or not mine.done else {
            "label": mine.label, "unsure": mine.unsure, "skipped": mine.skipped,
        },
    }


def _forbidden() -> Response:
    return Response("a valid session token is required", status_code=403, headers=HEADERS)


def build_app(state: PageState) -> Starlette:
    """The page's app: ``/`` (HTML), ``/static/*``, ``/api/screen``, ``/api/act``, ``/api/quit``."""

    def allowed(request: Request) -> bool:
        given = request.query_params.get("token", "")
        return hmac.compare_digest(given.encode(), state.token.encode())

    async def page(request: Request) -> Response:
        if not allowed(request):
            return _forbidden()
        html = _static("label.html").replace(b"__TOKEN__", state.token.encode())
        return Response(html, media_type="text/html; charset=utf-8", headers=HEADERS)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if not allowed(request):
            return _forbidden()
        if name not in STATIC:
            return Response("not found", status_code=404, headers=HEADERS)
        return Response(_static(name), media_type=STATIC[name], headers=HEADERS)

    async def screen(request: Request) -> Response:
        if not allowed(request):
            return _forbidden()
        raw = request.query_params.get("position")
        position = int(raw) if raw is not None and raw.lstrip("-").isdigit() else None
        return JSONResponse(screen_payload(state, state.session.screen(position)), headers=HEADERS)

    async def act(request: Request) -> Response:
        if not allowed(request):
            return _forbidden()
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "expected a JSON body"}, status_code=400, headers=HEADERS)
        if not isinstance(body, dict) or body.get("act") not in ACTS or not isinstance(body.get("position"), int):
            return JSONResponse({"error": "expected {act, position}"}, status_code=400, headers=HEADERS)
        label = body.get("label")
        if body["act"] == "label":
            allowed_labels = (0, 1, 2, 3) if state.graded else (True, False)
            if isinstance(label, bool) != (not state.graded) or label not in allowed_labels:
                return JSONResponse({"error": f"label must be one of {allowed_labels}"}, status_code=400, headers=HEADERS)
        seconds = body.get("seconds")
        seconds = float(seconds) if isinstance(seconds, int | float) and not isinstance(seconds, bool) else None
        comment = body.get("comment") if isinstance(body.get("comment"), str) else None
        shown = bool(body.get("shown_judge")) and state.reveal
        before = state.session.screen(body["position"])
        labelled = before.item
        nxt = state.session.act(body["position"], body["act"], label=label, seconds=seconds,
                                comment=(comment or "")[:2000] or None, shown_judge=shown)
        state.acts += 1
        payload = screen_payload(state, nxt)
        if state.reveal and body["act"] == "label" and labelled is not None and not before.recheck:
            if shown and state.last_label.get(labelled.key) not in (None, label):
                state.changed_after_reveal += 1
            state.last_label[labelled.key] = label
            judge = labelled.judge
            payload["revealed"] = {
                "id": labelled.id, "position": before.position, "your_label": label,
                "judge_label": None if judge is None else judge.label,
                "judge_probability": None if judge is None else judge.probability,
            }
        return JSONResponse(payload, headers=HEADERS)

    async def quit_(request: Request) -> Response:
        if not allowed(request):
            return _forbidden()
        if state.on_quit is not None:
            state.on_quit()
        return JSONResponse({"saved": str(state.session.out), "acts": state.acts}, headers=HEADERS)

    return Starlette(routes=[
        Route("/", page),
        Route("/static/{name}", static),
        Route("/api/screen", screen),
        Route("/api/act", act, methods=["POST"]),
        Route("/api/quit", quit_, methods=["POST"]),
    ])


__all__ = ["CSP", "PageState", "build_app", "screen_payload"]
