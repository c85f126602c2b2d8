"""A tiny real HTTP server that speaks just enough of the OpenAI chat API to test what ragjury
sends and how it reports what goes wrong. Standard library only; one thread per request.

Modes: ``ok`` answers every chat request with ``content`` (a JSON text), ``500`` answers HTTP
500, ``close`` starts a response and closes the connection mid-body. Every request is recorded
(method, path, JSON body, ``Authorization`` header).

Configuration errors: ``401`` and ``403`` answer every request so (``GET /models`` too, as hosted
APIs do); ``401-chat`` lists its models but refuses chat requests; ``404-model`` lists
``phi3:mini`` and ``llama3.2:3b`` and answers 404 "model not found" to a chat request for any
other model (Ollama's wording); ``404`` answers every request 404 (no API at that path); ``html``
answers every request 200 with an HTML page (a web app at that URL, not an API); ``redirect``
answers every request 301 to a login page. ``logprobs`` answers a one-token request (``logprobs``
asked) with a distribution over "1"/"0" drawn from the prompt's hash (the same prompt, the same P),
every other request as ``ok``.
"""

from __future__ import annotations

import hashlib
import json
import math
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fake_endpoints import reduction_answer


@dataclass
class Recorded:
    method: str
    path: str
    body: dict[str, Any] | None
    authorization: str | None = None


@dataclass
class RecordingServer:
    mode: str = "ok"
    content: str = '{"label": true}'
    requests: list[Recorded] = field(default_factory=list)
    port: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    stopped: threading.Event = field(default_factory=threading.Event)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def chat_requests(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.method == "POST"]

    def record(self, entry: Recorded) -> None:
        with self._lock:
            self.requests.append(entry)


def _handler(server: RecordingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # quiet
            pass

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _refused(self) -> bool:
            """Answer a configuration error when the mode says so (True when it did)."""
            if server.mode == "redirect":  # a web site at that URL: every path moves to its login page
                self.send_response(301)
                self.send_header("Location", "https://example.org/login")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return True
            if server.mode == "html":
                page = b"<!doctype html><html><head><title>Welcome</title></head><body>Hello</body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)
                return True
            status = {"401": 401, "403": 403, "404": 404}.get(server.mode)
            if status is None:
                return False
            messages = {401: "Incorrect API key provided", 403: "not allowed", 404: "404 page not found"}
            self._send(status, {"error": {"message": messages[status], "type": "invalid_request_error"}})
            return True

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            server.record(Recorded("GET", self.path, None, self.headers.get("Authorization")))
            if server.mode == "hang":
                server.stopped.wait(30)
                return
            if self._refused():
                return
            models = ["phi3:mini", "llama3.2:3b"] if server.mode == "404-model" else ["phi3:mini"]
            self._send(200, {"object": "list", "data": [{"id": name, "object": "model"} for name in models]})

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            server.record(Recorded("POST", self.path, body, self.headers.get("Authorization")))
            if self._refused():
                return
            if server.mode == "401-chat":
                self._send(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})
                return
            if server.mode == "404-model" and body.get("model") not in ("phi3:mini", "llama3.2:3b"):
                message = f'model "{body.get("model")}" not found, try pulling it first'
                self._send(404, {"error": {"message": message, "type": "api_error"}})
                return
            if server.mode in ("hang", "hang-chat"):
                server.stopped.wait(30)  # accepts, never answers (until the server stops)
                return
            if server.mode == "500":
                self._send(500, {"error": {"message": "boom", "type": "server_error"}})
                return
            if server.mode == "close":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "1000")
                self.end_headers()
                self.wfile.write(b'{"id": "x", ')
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if server.mode == "empty-choices":
                self._send(200, {"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [],
                                 "usage": {"prompt_tokens": 5, "completion_tokens": 0, "total_tokens": 5}})
                return
            if server.mode == "logprobs" and body.get("logprobs"):  # a one-token call: P("1") from the prompt
                text = json.dumps(body.get("messages", []), sort_keys=True)
                p_one = 0.05 + 0.9 * (int(hashlib.sha256(text.encode()).hexdigest(), 16) % 1000) / 1000
                top = [{"token": "1", "logprob": math.log(p_one)}, {"token": "0", "logprob": math.log(1 - p_one)}]
                self._send(200, {
                    "id": "x", "object": "chat.completion", "created": 1, "model": body.get("model", "m"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": "1" if p_one >= 0.5 else "0"},
                                 "logprobs": {"content": [{"token": top[0 if p_one >= 0.5 else 1]["token"],
                                                           "logprob": max(t["logprob"] for t in top),
                                                           "top_logprobs": top}]}}],
                    "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
                })
                return
            if server.mode in ("positive-logprobs", "nan-logprobs"):
                first = 5.0 if server.mode == "positive-logprobs" else float("nan")
                top = [{"token": "1", "logprob": first}, {"token": "0", "logprob": 4.0}]
                self._send(200, {
                    "id": "x", "object": "chat.completion", "created": 1, "model": "m",
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "1"},
                                 "logprobs": {"content": [{"token": "1", "logprob": first, "top_logprobs": top}]}}],
                    "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
                })
                return
            self._send(
                200,
                {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "created": 1,
                    "model": body.get("model", "m"),
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": reduction_answer(body) or server.content},
                        }
                    ],
                    "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
                },
            )

    return Handler


@contextmanager
def recording_server(mode: str = "ok", content: str = '{"label": true}') -> Iterator[RecordingServer]:
    """A running server on a free loopback port, stopped on exit."""
    state = RecordingServer(mode=mode, content=content)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]
    # a 20 ms poll: serve_forever checks for shutdown every poll_interval (0.5 s by default), which every
    # test that stops a server waited out
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stopped.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
