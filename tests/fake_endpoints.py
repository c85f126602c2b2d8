"""Fake OpenAI-compatible model servers with a set latency and a concurrency cap, for tests and
``bench/bench_scale.py``: several of them stand for a fleet of llama-servers.

Each answers ``GET /models`` (its ``models``) and every chat request with ``content`` after
``latency_s``, at most ``slots`` at a time (the others queue, as on a real server's slots). With
``die_after=N`` it dies after its N-th chat request: it stops accepting connections and drops
the requests it holds without an answer, as a crashed server does. With ``refuse_after=N`` it
answers HTTP 401 to every chat request after its N-th (a key revoked mid-run); with ``hang=True``
it lists its models but holds every chat request without an answer until it stops (a hung
server). Standard library only.

Run as a script (``python tests/fake_endpoints.py --latency 0.2 --slots 4 --count 8``) it
serves ``--count`` endpoints in their own process and prints their base URLs, one per line.
"""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ragjury.rag_agent.judges.llm.correctness import SHORT_ANSWER


@dataclass
class FakeEndpoint:
    latency_s: float = 0.0
    slots: int = 4
    content: str = '{"reason": "It names the reference answer.", "verdict": "1"}'
    models: tuple[str, ...] = ("phi3:mini",)
    die_after: int | None = None
    refuse_after: int | None = None
    fail_every: int | None = None
    """Answer HTTP 500 to every ``fail_every``-th chat request (an item failure, not a dead server)."""
    hang: bool = False
    garbage: str | None = None
    """Answer every chat request HTTP 200 with this body instead of a completion (``"html"``: an HTML
    page, as a proxy's error page; ``"json"``: JSON that is no chat completion)."""
    logprobs: bool = False
    """Answer a chat request that asks for ``logprobs`` (a one-token verdict) with the first token's
    ``top_logprobs``: "1" at P = 0.8, "0" at 0.2, as llama-server gives them."""
    port: int = 0
    received: int = 0
    """Chat requests received."""
    answered: int = 0
    """Chat requests answered (HTTP 200)."""
    holding: int = 0
    peak: int = 0
    """Most chat requests held at once (queued for a slot or being answered)."""
    dead: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _slots: threading.Semaphore | None = None
    _httpd: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def die(self) -> None:
        """Stop accepting connections; requests held now are dropped without an answer."""
        if self.dead.is_set():
            return
        self.dead.set()
        if self._httpd is not None:
            httpd = self._httpd
            threading.Thread(target=lambda: (httpd.shutdown(), httpd.server_close()), daemon=True).start()


def _handler(server: FakeEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True
        """The headers and the body go out in two writes: with Nagle's algorithm the body waited for
        the client's delayed ACK (~40 ms), so a kept-alive connection answered ~25 requests/s and 16
        of them capped every client at ~350/s whatever its speed (``bench_scale.py --raw-floor``)."""

        def log_message(self, *args: object) -> None:
            pass

        def _send(self, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _drop(self) -> None:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            if server.dead.is_set():
                return self._drop()
            self._send({"object": "list", "data": [{"id": name, "object": "model"} for name in server.models]})

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            if server.dead.is_set():
                return self._drop()
            with server._lock:
                server.received += 1
                refused = server.refuse_after is not None and server.received > server.refuse_after
                dies = server.die_after is not None and server.received >= server.die_after
                server.holding += 1
                server.peak = max(server.peak, server.holding)
            try:
                if refused:
                    return self._refuse()
                if server.fail_every and server.received % server.fail_every == 0:
                    return self._refuse(500)
                if server.hang:
                    server.dead.wait(60)
                    return self._drop()
                if server.garbage is not None:
                    return self._garbage(server.garbage)
                self._answer(body, dies)
            finally:
                with server._lock:
                    server.holding -= 1

        def _garbage(self, kind: str) -> None:
            html = kind == "html"
            data = (b"<html><body><h1>502 Bad Gateway</h1></body></html>" if html
                    else json.dumps({"status": "ok", "result": None}).encode())
            self.send_response(200)
            self.send_header("Content-Type", "text/html" if html else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _refuse(self, status: int = 401) -> None:
            message = "Incorrect API key provided" if status == 401 else "boom"
            data = json.dumps({"error": {"message": message, "type": "invalid_request_error"}})
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data.encode())

        def _answer(self, body: dict[str, Any], dies: bool) -> None:
            if dies:
                server.die()
                return self._drop()
            assert server._slots is not None
            with server._slots:
                if server.latency_s:
                    time.sleep(server.latency_s)
            if server.dead.is_set():
                return self._drop()
            with server._lock:
                server.answered += 1
            if server.logprobs and body.get("logprobs"):
                return self._send(one_token_answer(body))
            self._send(
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "created": 1,
                    "model": body.get("model", "m"),
                    "choices": [
                        {"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reduction_answer(body) or server.content}}
                    ],
                    "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
                }
            )

    return Handler


def one_token_answer(body: dict[str, Any]) -> dict[str, Any]:
    """A one-token completion with its logprobs: "1" at P = 0.8, "0" at 0.2."""
    top = [{"token": "1", "logprob": -0.2231435513142097}, {"token": "0", "logprob": -1.6094379124341003}]
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": body.get("model", "m"),
        "choices": [{"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": "1"},
                     "logprobs": {"content": [{"token": "1", "logprob": top[0]["logprob"], "top_logprobs": top}]}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
    }


def reduction_answer(body: dict[str, Any]) -> str | None:
    """The answer a fake gives a judge's reduction call (``short_answer_extraction``: its instructions, a plain
    line asked for): the evaluated answer's text, copied, on one line. None for any other request."""
    system = " ".join(str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "system")
    if not system.startswith(SHORT_ANSWER.text[:60]):
        return None
    text = " ".join(str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user")
    start, end = text.find("<evaluated_answer>"), text.find("</evaluated_answer>")
    answer = text[start + len("<evaluated_answer>"):end].strip() if 0 <= start < end else "the answer"
    return " ".join(answer.split())[:100] or "no answer"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


@contextmanager
def fake_endpoint(**options: Any) -> Iterator[FakeEndpoint]:
    """One running fake endpoint on a free loopback port, stopped on exit."""
    state = FakeEndpoint(**options)
    state._slots = threading.Semaphore(state.slots)
    httpd = _Server(("127.0.0.1", 0), _handler(state))
    state._httpd = httpd
    state.port = httpd.server_address[1]
    # a 20 ms poll: serve_forever checks for shutdown every poll_interval (0.5 s by default), which every
    # test that stops a server waited out
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        if not state.dead.is_set():
            state.dead.set()
            httpd.shutdown()
            httpd.server_close()
        thread.join(timeout=5)


@contextmanager
def fake_endpoints(count: int, **options: Any) -> Iterator[list[FakeEndpoint]]:
    with ExitStack() as stack:
        yield [stack.enter_context(fake_endpoint(**options)) for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--logprobs", action="store_true", help="answer one-token requests with their logprobs")
    args = parser.parse_args()
    with fake_endpoints(args.count, latency_s=args.latency, slots=args.slots, logprobs=args.logprobs) as servers:
        for server in servers:
            print(server.base_url, flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
