"""The labelling page: a Starlette app on 127.0.0.1 that shows one item per screen and takes keys.

Why these rules:
- **A secret per session**: the address printed in the terminal carries ``?token=``; opening it
  sets an HttpOnly, SameSite=Strict cookie (the page then drops the token from the address bar),
  and every other request needs that cookie (or the token). The browser is opened on a 0600 local
  file that redirects, never with the token on its command line (``ps`` shows that to every user).
- **Only this origin**: every request must name ``127.0.0.1:PORT`` or ``localhost:PORT`` as its
  Host (DNS rebinding), and a write must be JSON from this origin (a cross-origin ``text/plain``
  POST is refused).
- **Blind**: responses carry an item's text only; the judge's verdict and P(yes) leave the server
  only in the answer to that item's own label, and only with ``reveal``; any later act on a
  revealed item is recorded as given with the judge shown.
- **Acts name the item** (id, system) and the item's version the tab saw: an item another
  annotator took, or one another tab changed, is refused with the fresh screen (HTTP 409).
- **Item text is data**: the page puts it in the DOM as text (``textContent``), never as HTML, and
  the content security policy allows nothing but this origin's own script and style: no inline
  script, no outside request. A field is cut at ``FIELD_CHARS`` characters, saying so.
- **Nothing lost**: an act is answered only after ``LabelSession.act`` synced it to the file; a
  write that fails is answered with the error, never a 200.
- **Bad requests** get a 400 with one line, never a 500.
"""

from __future__ import annotations

import hmac
import json
import math
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ragjury.evals.labelling.items import LabelItem
from ragjury.evals.labelling.session import LIST_FILTERS, ItemGone, LabelSession, Screen, StaleAct

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
FIELD_CHARS = 100_000
"""The most characters of one field a screen carries (a 5 MB token would never draw)."""
MAX_BODY = 64 * 1024
POSITION = re.compile(r"-?[0-9]{1,9}")
NO_TOKEN = (
    "<!doctype html><meta charset=utf-8><title>ragjury label</title><p>This address needs the session's "
    "secret. Open the address <code>ragjury label</code> printed in its terminal (the line "
    "'labelling N items as NAME ... at http://127.0.0.1:PORT/?token=...'); if that session has ended, "
    "run the command again and open the new address."
)


class BadRequest(Exception):
    """A request the page never sends: answered 400 with one line."""


@dataclass
class PageState:
    """What the page needs besides the session: the question, the scale, and what to reveal."""

    session: LabelSession
    token: str
    question: str
    graded: bool = False
    reveal: bool = False
    on_quit: Any = None
    on_act: Any = None
    """``label --until``: called after each saved act, returns the live status (an aggregate, never an item's verdict)."""
    guidelines: str | None = None
    """``--guidelines``: the user's text, shown beside every item as text (never HTML)."""
    prefix: str = ""
    """Where this person's page lives (``/p/NAME`` on a team server, ``label --annotators``; "" alone):
    the page's requests are relative to it and its cookie is scoped to it."""
    hosts: frozenset[str] | None = None
    """The Host values answered (``127.0.0.1:PORT``, ``localhost:PORT``); None answers any (tests)."""
    acts: int = 0
    changed_after_reveal: int = 0
    last_label: dict[tuple[str | None, str], Any] = field(default_factory=dict)
    revealed: set[tuple[str | None, str]] = field(default_factory=set)
    """Items whose verdict was shown: every later act on one is recorded with ``shown_judge``."""


def _static(name: str) -> bytes:
    return resources.files("ragjury.evals.labelling").joinpath("static", name).read_bytes()


def _cut(text: str) -> str:
    if len(text) <= FIELD_CHARS:
        return text
    return text[:FIELD_CHARS] + f"\n[… cut here: {len(text) - FIELD_CHARS:,} more characters not shown]"


def screen_payload(state: PageState, screen: Screen) -> dict[str, Any]:
    """One screen as JSON: the item's text and where it is, never the judge's verdict."""
    item: LabelItem | None = screen.item
    mine = screen.state
    return {
        "position": screen.position,
        "done": screen.done,
        "total": screen.total,
        "unsure": screen.unsure,
        "skipped": screen.skipped,
        "finished": screen.finished,
        "recheck": screen.recheck,
        "version": screen.version,
        "acts": screen.acts,
        "elapsed_s": round(state.session.elapsed(), 1),
        "question": state.question,
        "graded": state.graded,
        "reveal": state.reveal,
        "annotator": state.session.annotator,
        "guidelines": state.guidelines,
        "item": None if item is None else {
            "id": item.id,
            "system": item.system,
            "fields": [{"heading": heading, "text": _cut(text)} for heading, text in item.fields],
        },
        "people": None if item is None or not state.session.review else [
            {"annotator": name, "label": label} for name, label in state.session.people_on(item.key)],
        "yours": None if mine is None or not mine.done else {
            "label": mine.label, "unsure": mine.unsure, "skipped": mine.skipped,
        },
    }


def _json(payload: dict[str, Any], status: int = 200, extra: dict[str, str] | None = None) -> Response:
    return JSONResponse(payload, status_code=status, headers={**HEADERS, **(extra or {})})


def _error(message: str, status: int = 400, **more: Any) -> Response:
    return _json({"error": message, **more}, status)


def _forbidden() -> Response:
    return _error("session ended or not this session's page: open the address ragjury label printed in its terminal",
                  403, session="ended")


def _number(raw: Any, name: str) -> float | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw) or raw < 0:
        raise BadRequest(f"{name} must be a finite number of seconds, 0 or more")
    return float(raw)


def _parse_act(state: PageState, raw: bytes) -> dict[str, Any]:
    """The act a body asks for, checked; ``BadRequest`` with one line otherwise."""
    if len(raw) > MAX_BODY:
        raise BadRequest(f"the body is over {MAX_BODY:,} bytes")
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        raise BadRequest("expected a JSON body") from None
    if not isinstance(body, dict) or body.get("act") not in ACTS:
        raise BadRequest(f"expected {{act, id, system}} with act one of {', '.join(ACTS)}")
    if "position" in body and (isinstance(body["position"], bool) or not isinstance(body["position"], int)):
        raise BadRequest("position must be a whole number")
    ident, system = body.get("id"), body.get("system")
    if body["act"] != "undo" and (not isinstance(ident, str) or not (system is None or isinstance(system, str))):
        raise BadRequest("an act names its item: id (a string) and system (a string or null)")
    for name in ("seen", "recheck"):
        value = body.get(name)
        if value is not None and not (isinstance(value, bool) if name == "recheck" else
                                      isinstance(value, int) and not isinstance(value, bool)):
            raise BadRequest(f"{name} must be {'true or false' if name == 'recheck' else 'a whole number'}")
    label = body.get("label")
    if body["act"] == "label":
        allowed_labels = (0, 1, 2, 3) if state.graded else (True, False)
        if isinstance(label, bool) != (not state.graded) or label not in allowed_labels:
            raise BadRequest(f"label must be one of {', '.join(json.dumps(v) for v in allowed_labels)}")
    comment = body.get("comment")
    if comment is not None and not isinstance(comment, str):
        raise BadRequest("comment must be a string")
    return {"act": body["act"], "key": (system, ident), "label": label, "seen": body.get("seen"),
            "recheck": bool(body.get("recheck")), "seconds": _number(body.get("seconds"), "seconds"),
            "comment": (comment or "")[:2000] or None, "shown_judge": bool(body.get("shown_judge"))}


def build_app(state: PageState) -> Starlette:
    """The page's app: ``/`` (HTML), ``/static/*``, ``/api/screen``, ``/api/list``, ``/api/act``, ``/api/quit``."""

    def cookie_name(request: Request) -> str:
        port = request.url.port
        return f"ragjury_label_{port}" if port else "ragjury_label"

    def same(given: str) -> bool:
        return bool(given) and hmac.compare_digest(given.encode(), state.token.encode())

    def refused(request: Request, *, write: bool = False) -> Response | None:
        """Why this request is not answered (None: it is): Host, then the secret, then a write's origin."""
        host = request.headers.get("host", "")
        if state.hosts is not None and host not in state.hosts:
            return Response(f"this page answers only {' or '.join(sorted(state.hosts))}", status_code=421,
                            headers=HEADERS)
        if not (same(request.query_params.get("token", "")) or same(request.cookies.get(cookie_name(request), ""))):
            return _forbidden()
        if write:
            origin = request.headers.get("origin")
            ours = {f"{scheme}://{h}" for h in state.hosts for scheme in ("http", "https")} if state.hosts is not None else {
                f"{request.url.scheme}://{request.url.netloc}"}
            if origin is not None and origin not in ours:
                return _error(f"a write from another origin ({origin[:100]}) is refused", 403)
            if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
                return _error("a write must be application/json", 415)
        return None

    async def page(request: Request) -> Response:
        host = request.headers.get("host", "")
        if state.hosts is not None and host not in state.hosts:
            return Response("wrong host", status_code=421, headers=HEADERS)
        given = request.query_params.get("token", "")
        if not (same(given) or same(request.cookies.get(cookie_name(request), ""))):
            return Response(NO_TOKEN, status_code=403, media_type="text/html; charset=utf-8", headers=HEADERS)
        response = Response(_static("label.html"), media_type="text/html; charset=utf-8", headers=HEADERS)
        response.set_cookie(cookie_name(request), state.token, httponly=True, samesite="strict",
                            path=f"{state.prefix}/")
        return response

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if (no := refused(request)) is not None:
            return no
        if name not in STATIC:
            return Response("not found", status_code=404, headers=HEADERS)
        return Response(_static(name), media_type=STATIC[name], headers=HEADERS)

    async def screen(request: Request) -> Response:
        if (no := refused(request)) is not None:
            return no
        raw = request.query_params.get("position")
        if raw is not None and not POSITION.fullmatch(raw):
            return _error("position must be a whole number")
        position = None if raw is None else int(raw)
        return _json(screen_payload(state, state.session.screen(position)))

    async def listing(request: Request) -> Response:
        """The jump list: this person's items by position and short text, filtered; never a verdict."""
        if (no := refused(request)) is not None:
            return no
        which = request.query_params.get("filter", "all")
        if which not in LIST_FILTERS:
            return _error(f"filter must be one of {', '.join(LIST_FILTERS)}")
        return _json({"filter": which, "items": state.session.listing(which)})

    async def act(request: Request) -> Response:
        if (no := refused(request, write=True)) is not None:
            return no
        try:
            asked = _parse_act(state, await request.body())
        except BadRequest as error:
            return _error(str(error))
        key = asked["key"]
        shown = state.reveal and (asked["shown_judge"] or key in state.revealed)
        session = state.session
        position = {k: i for i, k in enumerate(session.queue())}.get(key)
        try:
            nxt = session.act(None if asked["act"] == "undo" else key, asked["act"], recheck=asked["recheck"],
                              seen=asked["seen"], label=asked["label"], seconds=asked["seconds"],
                              comment=asked["comment"], shown_judge=shown)
        except ItemGone as error:
            return _error(str(error), 409, conflict="taken", screen=screen_payload(state, session.screen()))
        except StaleAct as error:
            fresh = session.screen(position) if position is not None and asked["act"] != "undo" else session.screen()
            return _error(f"not saved: {error}; here is the item as it is now", 409, conflict="stale",
                          screen=screen_payload(state, fresh))
        except OSError as error:
            return _error(f"not saved: cannot write {session.out}: {error.strerror or error}", 507)
        state.acts += 1
        payload = screen_payload(state, nxt)
        if state.reveal and asked["act"] == "label" and not asked["recheck"]:
            labelled = session.by_key[key]
            if shown and state.last_label.get(key) not in (None, asked["label"]):
                state.changed_after_reveal += 1
            state.last_label[key] = asked["label"]
            state.revealed.add(key)
            judge = labelled.judge
            payload["revealed"] = {
                "id": labelled.id, "system": labelled.system, "your_label": asked["label"],
                "judge_label": None if judge is None else judge.label,
                "judge_probability": None if judge is None else judge.probability,
            }
        if state.on_act is not None:
            payload["status"] = state.on_act()
        return _json(payload)

    async def quit_(request: Request) -> Response:
        if (no := refused(request, write=True)) is not None:
            return no
        if state.on_quit is not None:
            state.on_quit()
        return _json({"saved": str(state.session.out), "acts": state.acts})

    return Starlette(routes=[
        Route("/", page),
        Route("/static/{name}", static),
        Route("/api/screen", screen),
        Route("/api/list", listing),
        Route("/api/act", act, methods=["POST"]),
        Route("/api/quit", quit_, methods=["POST"]),
    ])


def build_team_app(states: dict[str, PageState]) -> Starlette:
    """One server for a team (``label --annotators``): each person's page under ``/p/NAME/`` with
    its own secret and cookie (scoped to that path), so the annotator comes from the link."""
    from starlette.routing import Mount

    hosts = next(iter(states.values())).hosts if states else None

    async def root(request: Request) -> Response:
        if hosts is not None and request.headers.get("host", "") not in hosts:
            return Response("wrong host", status_code=421, headers=HEADERS)
        return Response(NO_TOKEN, status_code=403, media_type="text/html; charset=utf-8", headers=HEADERS)

    routes: list[Any] = [Route("/", root)]
    for name, person in states.items():
        person.prefix = f"/p/{name}"
        routes.append(Mount(person.prefix, app=build_app(person)))
    return Starlette(routes=routes)


__all__ = ["CSP", "FIELD_CHARS", "PageState", "build_app", "build_team_app", "screen_payload"]
