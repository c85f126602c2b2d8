"""Record a real model server's answers, and replay them, so a test runs the real prompt path offline.

Why: the injection tests must fail when a prompt change reopens the hole, without a model in CI.
``recording(upstream)`` is a proxy in front of a real llama-server that keeps every chat
exchange; ``replaying(exchanges)`` answers each chat request with the recorded answer to the same
messages, and any other request (a changed prompt) with HTTP 500 saying so — the judgment is then
unscored, and the test fails. Starlette on uvicorn, in a thread, on a free loopback port.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

CHANGED = ("no recorded exchange for these messages: the judge's prompt changed since the injection pass was "
           "recorded; re-make it (bench/passes/injection_pass.py) and re-record (bench/injection/record_exchanges.py)")


def request_key(body: dict[str, Any]) -> str:
    """What identifies a chat request: its messages and whether it asks for logprobs or a schema."""
    return json.dumps({"messages": body.get("messages"), "logprobs": bool(body.get("logprobs")),
                       "schema": bool(body.get("response_format"))}, sort_keys=True, ensure_ascii=False)


@contextmanager
def _serve(app: Starlette) -> Iterator[str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@contextmanager
def replaying(exchanges: list[dict[str, Any]], models: tuple[str, ...] = ("qwen2.5-coder:1.5b",)) -> Iterator[str]:
    """A server that answers recorded requests with their recorded answers; yields its base URL."""
    answers = {exchange["key"]: exchange["response"] for exchange in exchanges}

    async def chat(request: Request) -> Response:
        body = await request.json()
        answer = answers.get(request_key(body))
        if answer is None:
            return JSONResponse({"error": {"message": CHANGED}}, status_code=500)
        return JSONResponse(answer)

    async def listing(request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": m, "object": "model"} for m in models]})

    app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]), Route("/v1/models", listing)])
    with _serve(app) as url:
        yield url


@contextmanager
def recording(upstream: str, into: list[dict[str, Any]]) -> Iterator[str]:
    """A proxy to ``upstream`` (a base URL ending in /v1) that appends each chat exchange to ``into``."""
    client = httpx.AsyncClient(base_url=upstream.rstrip("/"), timeout=300)

    async def chat(request: Request) -> Response:
        body = await request.json()
        answer = await client.post("/chat/completions", json=body)
        if answer.status_code == 200:
            into.append({"key": request_key(body), "response": answer.json()})
        return Response(answer.content, status_code=answer.status_code, media_type="application/json")

    async def listing(request: Request) -> Response:
        answer = await client.get("/models")
        return Response(answer.content, status_code=answer.status_code, media_type="application/json")

    app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]), Route("/v1/models", listing)])
    with _serve(app) as url:
        yield url


__all__ = ["CHANGED", "recording", "replaying", "request_key"]
