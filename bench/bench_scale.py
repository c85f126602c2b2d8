"""Judging at scale: judgments/s over 1, 2, 4 and 8 model servers, in one process and on Ray, and
the client's own ceiling against a server that answers at once.

Servers: fake OpenAI-compatible endpoints (``tests/fake_endpoints.py``) in a process of their own,
each answering after a fixed latency with a concurrency cap (default 200 ms, 4 slots: at most 20
judgments/s per server), so the ideal rate is ``20 * servers``. Scaling efficiency is the rate per
server over the rate with one server (target >= 0.9 from 1 to 8 servers in one process; Ray within
20 % of in-process on one machine).

Client ceiling: one server with no latency and many slots; judgments/s of one process and its CPU
milliseconds per judgment (``time.process_time``), then a cProfile summary of where that CPU goes
(target >= 1,000 judgments/s per process). The judge is ``correctness llm`` through the runner with
a SQLite cache, as ``ragjury evaluate`` runs it, on each verdict path (``--ceiling-paths``): the
one-token verdict sent straight (``rag_agent.model.direct``) and through the OpenAI SDK, and the
structured verdict. ``--raw-floor``: the same request by each candidate HTTP library alone, and the
fake server's own ceiling (one and two client processes at once).

The load average is printed before and after: on a shared machine compare only runs made at a
similar load.

Run: ``.venv/bin/python bench/bench_scale.py [--latency 0.2] [--slots 4] [--per-server 100] [--no-ray]``
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from ragjury.config.settings import RagjurySettings  # noqa: E402
from ragjury.evals.runs.cache import JudgmentCache  # noqa: E402
from ragjury.evals.runs.runner import run_judgments  # noqa: E402
from ragjury.rag_agent.core.items import CorrectnessItem  # noqa: E402
from ragjury.rag_agent.judges.catalogue import build_judge  # noqa: E402

COUNTS = (1, 2, 4, 8)


def start_servers(
    count: int, latency: float, slots: int, *, logprobs: bool = False
) -> tuple[subprocess.Popen[str], list[str]]:
    """Fake endpoints in their own process (their threads must not share the client's GIL);
    ``logprobs``: they answer one-token requests with their logprobs, as llama-server does."""
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "fake_endpoints.py"), "--count", str(count),
         "--latency", str(latency), "--slots", str(slots), *(["--logprobs"] if logprobs else [])],
        stdout=subprocess.PIPE, text=True,
    )
    assert process.stdout is not None
    urls = [process.stdout.readline().strip() for _ in range(count)]
    return process, urls


def items(count: int, tag: str) -> list[CorrectnessItem]:
    return [CorrectnessItem(question=f"{tag} q{i}", answer=f"a{i}", references=[f"r{i}"]) for i in range(count)]


def settings_for(urls: list[str], concurrency: int) -> RagjurySettings:
    return RagjurySettings(
        _env_file=None, base_url=",".join(urls), judge_model="phi3:mini", concurrency=concurrency,
        http_retries=0, timeout_s=30,
    )


FIRST: list[float] = []
"""When the current run's first judgment arrived (``timed_run`` resets it)."""


def noting_the_first(judge: object) -> object:
    """The judge, its ``ajudge_batch`` noting when the first judgment arrives: start-up (a Ray
    pipeline's actors start, import ragjury and build their judge) is then told apart from the
    steady rate."""
    batch_method = judge.ajudge_batch  # type: ignore[attr-defined]

    async def ajudge_batch(items: list[object], on_result: object = None) -> object:
        def noted(index: int, judgment: object) -> None:
            if not FIRST:
                FIRST.append(time.perf_counter())
            if on_result is not None:
                on_result(index, judgment)  # type: ignore[operator]

        return await batch_method(items, on_result=noted)

    judge.ajudge_batch = ajudge_batch  # type: ignore[attr-defined]
    return judge


async def timed_run(judge: object, batch: list[CorrectnessItem], cache_path: Path) -> tuple[float, float, int]:
    """Wall seconds, client CPU seconds and unscored count of one run on a fresh cache."""
    cache = JudgmentCache(cache_path)
    FIRST.clear()
    cpu, wall = time.process_time(), time.perf_counter()
    judgments, stats = await run_judgments(judge, batch, cache=cache, progress=False)  # type: ignore[arg-type]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    cache.close()
    assert stats.judged == len(batch), stats
    USAGE[:] = [sum(getattr(j.usage, field) for j in judgments) / len(batch)
                for field in ("requests", "input_tokens", "output_tokens")]
    return wall, cpu, stats.unscored


USAGE: list[float] = []
"""Requests, input and output tokens per judgment of the last ``timed_run``."""


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def scaling(
    urls: list[str], args: argparse.Namespace, workdir: Path, *, ray: bool
) -> tuple[dict[int, float], dict[int, float]]:
    """Judgments/s over 1..8 servers: whole runs, and after the first judgment (steady)."""
    rates: dict[int, float] = {}
    steady: dict[int, float] = {}
    label = "ray" if ray else "in-process"
    for count in COUNTS:
        settings = settings_for(urls[:count], args.slots)
        judge = build_judge("correctness", "llm", settings)
        if ray:
            from ragjury.evals.runs.ray_executor import ray_judge

            from functools import partial

            judge = ray_judge(judge, factory=partial(build_judge, "correctness", "llm"), settings=settings)
        batch = items(args.per_server * count, f"{label}-{count}")
        began = time.perf_counter()
        wall, _, unscored = asyncio.run(timed_run(noting_the_first(judge), batch, workdir / f"{label}-{count}.sqlite"))
        first = FIRST[0] - began if FIRST else 0.0
        rates[count] = len(batch) / wall
        steady[count] = (len(batch) - 1) / max(1e-9, wall - first)
        ideal = count * args.slots / args.latency
        efficiency = rates[count] / count / rates[COUNTS[0]]
        print(f"  {label:10} {count} server(s): {len(batch):5d} judgments in {wall:6.2f}s = {rates[count]:7.1f}/s "
              f"(ideal {ideal:5.0f}/s), scaling efficiency {efficiency:.2f}; first judgment after {first:5.2f}s, "
              f"then {steady[count]:7.1f}/s; unscored {unscored}", flush=True)
    return rates, steady


CEILING_PATHS = ("one-token", "one-token-sdk", "structured")
"""The verdict paths of ``correctness llm``: P("1") read from one token's logprobs (a server that
gives them: llama-server, Ollama, OpenAI), sent straight over aiohttp (``rag_agent.model.direct``)
or, as before #55 item 4, through pydantic-ai and the OpenAI SDK (``-sdk``); and the JSON verdict
(a server that gives none), through pydantic-ai."""


def client_ceiling(args: argparse.Namespace, workdir: Path) -> None:
    """Judgments/s of one process and its CPU per judgment against a server that answers at once,
    for each verdict path, then where that CPU goes (cProfile)."""
    for path in args.ceiling_paths.split(","):
        process, urls = start_servers(1, args.ceiling_latency, args.ceiling_slots, logprobs=path.startswith("one-token"))
        try:
            ceiling_of(path, urls, args, workdir)
        finally:
            process.terminate()
            process.wait(timeout=10)


def ceiling_of(path: str, urls: list[str], args: argparse.Namespace, workdir: Path) -> None:
    settings = settings_for(urls, args.ceiling_slots)
    judge = build_judge("correctness", "llm", settings)
    if path == "one-token-sdk":
        judge.logprob_caller.direct = None  # type: ignore[attr-defined]
    elif path == "one-token":
        assert judge.logprob_caller.direct is not None  # type: ignore[attr-defined]
    warm_up = items(min(200, max(20, args.ceiling_items // 10)), f"{path} warm-up")
    asyncio.run(timed_run(judge, warm_up, workdir / f"{path}-warm.sqlite"))
    batch = items(args.ceiling_items, f"{path} ceiling")
    wall, cpu, unscored = asyncio.run(timed_run(judge, batch, workdir / f"{path}-ceiling.sqlite"))
    assert unscored == 0, unscored
    print(f"  client ceiling, {path} verdict: {len(batch)} judgments in {wall:.2f}s = {len(batch) / wall:.0f}/s "
          f"per process, client CPU {cpu / len(batch) * 1000:.2f} ms per judgment ({args.ceiling_slots} in flight; "
          f"per judgment {USAGE[0]:.2f} requests, {USAGE[1]:.1f} + {USAGE[2]:.1f} tokens)", flush=True)
    if args.no_profile:
        return
    profiler = cProfile.Profile(time.process_time)  # CPU time: a busy machine does not inflate it
    profiled = items(args.ceiling_items // 2, f"{path} profiled")
    profiler.enable()
    asyncio.run(timed_run(judge, profiled, workdir / f"{path}-profiled.sqlite"))
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(18)
    print(f"  where the client CPU goes, {path} verdict, by library (cProfile own time):")
    for share, name in by_library(stats):
        print(f"    {share * 100:5.1f} %  {name}")
    print(f"  where the client CPU goes, {path} verdict (cProfile, top functions by own time):")
    for line in out.getvalue().splitlines():
        if line.strip() and not line.startswith(("   Ordered", "   List reduced")):
            print("   ", line[:150])


RAW_BODY = {"model": "phi3:mini", "temperature": 0, "max_tokens": 64, "messages": [
    {"role": "system", "content": "Judge whether the answer is correct. Reply in JSON."},
    {"role": "user", "content": "Question: q\nReference: r\nAnswer: a"}]}
"""The chat request every raw client sends (with ``user`` set per request, so no two are alike)."""


def _raw_request(i: int) -> bytes:
    import json

    return json.dumps({**RAW_BODY, "user": str(i)}).encode()


def _raw_read(content: bytes) -> None:
    """What a judge does with the answer at the least: parse it and the JSON in its content."""
    import json

    json.loads(json.loads(content)["choices"][0]["message"]["content"])


async def _gated(count: int, slots: int, one: object) -> None:
    gate = asyncio.Semaphore(slots)

    async def gated(i: int) -> None:
        async with gate:
            await one(i)  # type: ignore[operator]

    await asyncio.gather(*(gated(i) for i in range(count)))


async def _raw_httpx(module_name: str, url: str, count: int, slots: int) -> None:
    """httpx (or httpx2, the fork the OpenAI SDK runs on here): HTTP/1.1, a pool of ``slots``
    kept-alive connections, one client. (``TCP_NODELAY`` on its sockets changed nothing: measured
    2026-11-29, 391 vs 434/s for httpx, 540 vs 1,012/s for httpx2, at load 4-5.)"""
    import importlib

    module = importlib.import_module(module_name)
    limits = module.Limits(max_connections=slots, max_keepalive_connections=slots)
    transport = module.AsyncHTTPTransport(limits=limits)
    headers = {"content-type": "application/json"}
    async with module.AsyncClient(base_url=url, transport=transport, timeout=30) as client:
        async def one(i: int) -> None:
            answer = await client.post("/chat/completions", content=_raw_request(i), headers=headers)
            _raw_read(answer.content)

        await _gated(count, slots, one)


async def _raw_aiohttp(url: str, count: int, slots: int) -> None:
    """aiohttp's client (C-accelerated HTTP parser): one session, ``slots`` connections."""
    import aiohttp

    connector = aiohttp.TCPConnector(limit=slots)
    headers = {"content-type": "application/json"}
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=30)) as session:
        async def one(i: int) -> None:
            async with session.post(url + "/chat/completions", data=_raw_request(i), headers=headers) as answer:
                _raw_read(await answer.read())

        await _gated(count, slots, one)


async def _raw_streams(url: str, count: int, slots: int) -> None:
    """HTTP/1.1 written by hand over asyncio streams (no library: not a product candidate, the
    floor of the event loop itself): ``slots`` kept-alive connections."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    host, port, path = parts.hostname or "127.0.0.1", parts.port or 80, parts.path + "/chat/completions"
    pool: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()
    for _ in range(slots):
        pool.put_nowait(await asyncio.open_connection(host, port))

    async def one(i: int) -> None:
        reader, writer = await pool.get()
        body = _raw_request(i)
        writer.write(f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        _raw_read(await reader.readexactly(length))
        pool.put_nowait((reader, writer))

    await _gated(count, slots, one)
    while not pool.empty():
        pool.get_nowait()[1].close()


RAW_CLIENTS = {
    "httpx": lambda url, count, slots: _raw_httpx("httpx", url, count, slots),
    "httpx2": lambda url, count, slots: _raw_httpx("httpx2", url, count, slots),
    "aiohttp": _raw_aiohttp,
    "asyncio-streams": _raw_streams,
}


def _available(kind: str) -> bool:
    import importlib.util

    module = {"httpx": "httpx", "httpx2": "httpx2", "aiohttp": "aiohttp"}.get(kind.split(" ")[0])
    return module is None or importlib.util.find_spec(module) is not None


def _new_loop(uvloop: bool) -> asyncio.AbstractEventLoop:
    if uvloop:
        import uvloop as fast  # noqa: PLC0415 - measured only where installed (--uvloop-path)

        return fast.new_event_loop()
    return asyncio.new_event_loop()


def raw_rate(kind: str, url: str, count: int, slots: int, *, uvloop: bool = False) -> tuple[float, float]:
    """Requests/s and client CPU ms per request of ``count`` requests by ``kind``, ``slots`` in
    flight, after 200 requests of warm-up (each run on a fresh loop and client)."""
    for n in (200, count):
        loop = _new_loop(uvloop)
        try:
            cpu, wall = time.process_time(), time.perf_counter()
            loop.run_until_complete(RAW_CLIENTS[kind](url, n, slots))
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        finally:
            loop.close()
    return count / wall, cpu / count * 1000


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def raw_floor(args: argparse.Namespace) -> None:
    """The same chat request sent by each candidate transport alone (one client, the same requests in
    flight, JSON in and out, no pydantic-ai, no OpenAI SDK, no ragjury): requests/s and CPU per
    request when only HTTP is paid, i.e. how far a direct request path could take the client; the
    fake server's own CPU per request beside it; then the server alone as the bottleneck: one and
    two client processes of the fastest library at once (if two do not add up, the server is the
    ceiling, not the client)."""
    process, urls = start_servers(1, 0.0, args.ceiling_slots)
    url, slots, count = urls[0], args.ceiling_slots, args.ceiling_items
    try:
        kinds = [kind for kind in RAW_CLIENTS if _available(kind)]
        runs = [(kind, False) for kind in kinds]
        if args.uvloop_path:
            sys.path.insert(0, args.uvloop_path)
            runs += [(kind, True) for kind in kinds if kind in ("aiohttp", "asyncio-streams")]
        rates: dict[str, float] = {}
        for kind, fast in runs:
            server = process_cpu_s(process.pid)
            rate, cpu = raw_rate(kind, url, count, slots, uvloop=fast)
            server_ms = (process_cpu_s(process.pid) - server) / (count + 200) * 1000
            name = kind + (" + uvloop" if fast else "")
            rates[name] = rate
            print(f"  raw {name:26} {rate:6.0f} requests/s, client CPU {cpu:.2f} ms per request "
                  f"(server CPU {server_ms:.2f} ms per request; {count} requests, {slots} in flight)", flush=True)
        fastest = max((kind for kind in kinds if kind != "asyncio-streams"), key=lambda kind: rates[kind])
        for processes in (1, 2):
            server = process_cpu_s(process.pid)
            children = [subprocess.Popen(
                [sys.executable, __file__, "--raw-client", fastest, "--url", url,
                 "--ceiling-items", str(count), "--ceiling-slots", str(slots)],
                stdout=subprocess.PIPE, text=True) for _ in range(processes)]
            outs = [child.communicate(timeout=300)[0].split() for child in children]
            total = sum(float(out[0]) for out in outs)
            server_ms = (process_cpu_s(process.pid) - server) / ((count + 200) * processes) * 1000
            print(f"  the fake server, {processes} {fastest} client process(es) at once: {total:6.0f} requests/s in all "
                  f"({', '.join(f'{float(out[0]):.0f}' for out in outs)}), server CPU {server_ms:.2f} ms per request",
                  flush=True)
    finally:
        process.terminate()
        process.wait(timeout=10)


def by_library(stats: pstats.Stats, top: int = 12) -> list[tuple[float, str]]:
    """Shares of the profiled own time per installed package (``pydantic_ai``, ``openai``, ...),
    ragjury's folders, stdlib modules and built-ins: whose code a judgment's CPU is spent in."""
    shares: dict[str, float] = {}
    total = 0.0
    for (file, _, _), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        total += own
        if "site-packages/" in file:
            name = file.split("site-packages/", 1)[1].split("/", 1)[0].removesuffix(".py")
        elif file.startswith(str(ROOT) + "/"):
            name = "ragjury " + file[len(str(ROOT)) + 1:].split("/", 1)[0]
        elif file.startswith(("~", "<")):
            name = "built-ins and frozen importlib"
        else:
            name = "stdlib " + Path(file).stem
        shares[name] = shares.get(name, 0.0) + own
    return sorted(((own / total, name) for name, own in shares.items()), reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--per-server", type=int, default=100, help="judgments per server in each run")
    parser.add_argument("--ceiling-items", type=int, default=3000)
    parser.add_argument("--ceiling-slots", type=int, default=16)
    parser.add_argument("--ceiling-latency", type=float, default=0.0,
                        help="the server's latency in the ceiling runs (0.2 with --ceiling-slots 4: a local model)")
    parser.add_argument("--no-profile", action="store_true", help="no cProfile run after each ceiling")
    parser.add_argument("--ceiling-paths", default=",".join(CEILING_PATHS),
                        help=f"the verdict paths measured against the instant server ({', '.join(CEILING_PATHS)})")
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument("--only-ceiling", action="store_true")
    parser.add_argument("--raw-floor", action="store_true",
                        help="also the same requests through each candidate transport alone (httpx, httpx2, aiohttp, "
                             "asyncio streams), and the fake server's own ceiling")
    parser.add_argument("--only-raw", action="store_true", help="only the raw transports (--raw-floor), no judge")
    parser.add_argument("--uvloop-path", default=None,
                        help="a folder uvloop is installed in (pip install --target DIR uvloop): also measure it")
    parser.add_argument("--raw-client", default=None, help=argparse.SUPPRESS)  # one raw client process (--raw-floor)
    parser.add_argument("--url", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.raw_client:
        rate, cpu = raw_rate(args.raw_client, args.url, args.ceiling_items, args.ceiling_slots)
        print(rate, cpu)
        return
    print(f"load average before: {load()} ({os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        if not args.only_ceiling and not args.only_raw:
            process, urls = start_servers(max(COUNTS), args.latency, args.slots)
            try:
                print(f"servers: {args.latency * 1000:.0f} ms latency, {args.slots} slots each")
                here, here_steady = scaling(urls, args, workdir, ray=False)
                if not args.no_ray:
                    from ragjury.evals.runs.ray_executor import start_ray, stop_ray

                    started = start_ray()
                    try:
                        there, there_steady = scaling(urls, args, workdir, ray=True)
                    finally:
                        stop_ray(started)
                    for count in COUNTS:
                        print(f"  ray / in-process at {count} server(s): {there[count] / here[count]:.2f} whole run, "
                              f"{there_steady[count] / here_steady[count]:.2f} after the first judgment")
            finally:
                process.terminate()
                process.wait(timeout=10)
        if not args.only_raw:
            client_ceiling(args, workdir)
        if args.raw_floor or args.only_raw:
            raw_floor(args)
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
