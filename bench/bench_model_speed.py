"""Prefill speed of the reference model on this machine: weight repacking on/off, and threads under load.

Why: the test server passed ``--no-repack`` everywhere (AMX kernels crashed on some machines),
which also turns off the AVX2 repacking of Q4_K weights; and ggml's spinning threads on two
shared cores are a suspected cause of the 4-15x slowdown beside other work. Each configuration
starts its own llama-server (Qwen2.5-Coder-1.5B, ``tests/llama_server.py``) and sends one-token
judgments: first with a fresh prompt each time (the whole prompt is prefilled), then with a
shared instruction prefix (what the judges send). Figures are the server's own timings
(``timings.prompt_per_second``, ``prompt_n``: tokens it had to process, the rest came from its
cache). "busy": one other process spins on a core while the requests run.

Run:  .venv/bin/python bench/bench_model_speed.py [--requests 6]   (a quiet machine: say how quiet)
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import llama_server  # noqa: E402

INSTRUCTION = ("You judge whether a passage is relevant to a search query. Relevant means the passage "
               "answers the query or a clear part of it. Read the query and the passage, then answer "
               "with one character: 1 if relevant, 0 if not. ") * 3


def _spin(stop_at: float) -> None:
    while time.time() < stop_at:
        pass


def one(url: str, text: str) -> dict:
    body = {"model": "x", "max_tokens": 1, "temperature": 0.0, "cache_prompt": True,
            "messages": [{"role": "system", "content": INSTRUCTION}, {"role": "user", "content": text}]}
    request = urllib.request.Request(f"{url}/v1/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as response:
        data = json.loads(response.read())
    timings = data.get("timings", {})
    return {"s": time.perf_counter() - started, "prompt_n": timings.get("prompt_n"),
            "prefill_tps": timings.get("prompt_per_second"), "prompt_tokens": data["usage"]["prompt_tokens"]}


def measure(flags: list[str], requests: int, busy: bool) -> dict:
    import subprocess

    binary = llama_server.ensure_server_binary()
    model = llama_server.model_path("qwen1.5b")
    port = llama_server.free_port()
    process = subprocess.Popen([str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port),
                                "-np", "1", "-c", "4096", *flags],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    spinner = None
    try:
        llama_server._wait_healthy(f"http://127.0.0.1:{port}", process, timeout_s=180)
        url = f"http://127.0.0.1:{port}"
        one(url, "warm up")
        if busy:
            spinner = multiprocessing.Process(target=_spin, args=(time.time() + 600,))
            spinner.start()
        fresh = [one(url, f"[{i}] " + f"Query: q{i}. Passage: words and more words {i}. " * 25)
                 for i in range(requests)]
        # Fresh prompts each time above; now the shared-prefix case (the instruction is cached).
        cached = [one(url, f"Query: what is item {i}? Passage: item {i} is a small thing used in tests.")
                  for i in range(requests)]
    finally:
        if spinner is not None:
            spinner.terminate()
        process.terminate()
        process.wait(timeout=30)
    return {
        "prefill_tps": statistics.median(r["prefill_tps"] for r in fresh),
        "fresh_prompt_tokens": statistics.median(r["prompt_n"] for r in fresh),
        "judgments_per_s": requests / sum(r["s"] for r in cached),
        "cached_new_tokens": statistics.median(r["prompt_n"] for r in cached),
        "cached_prompt_tokens": statistics.median(r["prompt_tokens"] for r in cached),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=2, help="rounds of repack off / on")
    args = parser.parse_args()
    print(f"cpu AMX: {llama_server.cpu_has_amx()}; cores {os.cpu_count()}; load before {os.getloadavg()[0]:.2f}")
    print("| flags | other load | prefill tok/s (fresh prompt) | tokens prefilled | judgments/s (cached prefix) "
          "| tokens prefilled / in prompt |")
    print("|---|---|---|---|---|---|")
    # repack on and off twice, alternating, so that the order (the first server reads the model
    # file from disk) is not mistaken for the flag
    configs = [(["--no-repack"], False), ([], False)] * args.repeat + [(["-t", "2"], True), (["-t", "1"], True)]
    for flags, busy in configs:
        r = measure(flags, args.requests, busy)
        print(f"| {' '.join(flags) or '(default: repack on, -t 2)'} | {'1 spinning process' if busy else 'none'} | "
              f"{r['prefill_tps']:.0f} | {r['fresh_prompt_tokens']:.0f} | {r['judgments_per_s']:.2f} | "
              f"{r['cached_new_tokens']:.0f} / {r['cached_prompt_tokens']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
