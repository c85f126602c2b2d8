"""The fake endpoints answer a kept-alive connection at once, so a bench against them measures the
client, not the fake (#55 item 4): with Nagle's algorithm on, each answer's body waited for the
client's delayed ACK of its headers (~40 ms), capping 16 connections at ~350 requests/s."""

from __future__ import annotations

import http.client
import json
import time

from fake_endpoints import fake_endpoint


def test_a_kept_alive_connection_is_answered_without_a_delayed_ack_wait() -> None:
    with fake_endpoint() as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        body = json.dumps({"model": "phi3:mini", "messages": [{"role": "user", "content": "q"}]})
        started = time.perf_counter()
        for _ in range(40):
            connection.request("POST", "/v1/chat/completions", body=body,
                               headers={"Content-Type": "application/json"})
            answer = connection.getresponse()
            assert answer.status == 200
            answer.read()
        elapsed = time.perf_counter() - started
        connection.close()
    assert server.answered == 40
    assert elapsed < 0.8, f"40 requests on one connection took {elapsed:.2f}s (~40 ms each: a delayed-ACK wait)"
