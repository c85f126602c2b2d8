"""Wall time of the user's path: ``ragjury evaluate --task correctness --judge contains`` on
EVOUNA-NQ (15,094 answers judged by people), run as a user runs it, through the installed CLI in
a fresh process, so that start-up, imports, dataset loading, judging, the cache, agreement figures
and the predictions file all count.

Two runs per round: the first on a fresh ``--cache`` (every row judged and committed), then the
same command again (every row a cache hit). Targets (issue 11, item 7): under 3 s wall for the
first run, under 1.5 s for the cached re-run.

Wall time on a shared machine says as much about the neighbours as about ragjury, so every run
also prints the CPU seconds the child process used (user + system, from ``getrusage``) and the
load average before and after it; compare wall times only between runs made at a similar load.

The command runs with ``--json`` (the summary on stdout is read back to check that the first run
judged every row and the second took every row from the cache) and ``--out`` (the predictions
file is written, as a real run would).

Run: ``.venv/bin/python bench/bench_evaluate_speed.py [--data FILE] [--rounds 3] [-- EXTRA ARGS]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = Path(os.environ.get("RAGJURY_BENCHMARKS", ROOT.parent / "shared" / "benchmarks"))
DEFAULT_DATA = BENCHMARKS / "evouna-nq" / "correctness.jsonl"
TARGETS = {"fresh": 3.0, "cached": 1.5}
"""Wall-time targets in seconds for the 15k-row file."""


@dataclass
class Timing:
    """One CLI run: wall and CPU seconds, the load average around it, and its summary."""

    wall_s: float
    cpu_s: float
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    summary: dict[str, object]


def ragjury_command() -> list[str]:
    """The installed console script beside this interpreter, else ``python -m ragjury.cli``."""
    script = Path(sys.executable).with_name("ragjury")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ragjury.cli"]


def run_once(command: list[str]) -> Timing:
    """Run ``command`` to its end; fail loudly (with its stderr) when it exits non-zero."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = os.getloadavg()
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    load_after = os.getloadavg()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"ragjury evaluate exited {done.returncode}:\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(wall, cpu, load_before, load_after, json.loads(done.stdout))


def check_cache_use(label: str, summary: dict[str, object]) -> None:
    """The fresh run must have taken nothing from the cache, the re-run everything."""
    cached, judged = summary.get("cached"), summary.get("judged")
    if label == "fresh" and cached != 0:
        sys.exit(f"the fresh run found {cached} rows in the cache: it was not fresh")
    if label == "cached" and judged != 0:
        sys.exit(f"the cached re-run judged {judged} rows: the cache was not used")


def load_text(load: tuple[float, float, float]) -> str:
    return " ".join(f"{x:.2f}" for x in load)


def report(label: str, timing: Timing) -> None:
    rows = int(timing.summary["n"])  # type: ignore[call-overload]
    target = TARGETS[label]
    verdict = "ok" if timing.wall_s < target else "over"
    print(
        f"  {label:<7} wall {timing.wall_s:6.2f} s ({verdict}: target < {target:g} s)  "
        f"{rows / timing.wall_s:9,.0f} rows/s   CPU {timing.cpu_s:5.2f} s   "
        f"load {load_text(timing.load_before)} -> {load_text(timing.load_after)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="correctness JSONL (default: EVOUNA-NQ)")
    parser.add_argument("--rounds", type=int, default=3, help="fresh + cached pairs to run (best wall kept)")
    parser.add_argument(
        "--ragjury",
        help="the command that runs ragjury, e.g. 'python -m ragjury.cli' with PYTHONPATH set to compare an"
        " older checkout (default: the console script beside this interpreter)",
    )
    parser.add_argument("extra", nargs="*", help="more `ragjury evaluate` options (after --)")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data}: not found (set RAGJURY_BENCHMARKS or pass --data)")
    rows = sum(1 for line in args.data.open(encoding="utf-8") if line.strip())
    print(f"data: {args.data} ({rows:,} rows); cpus: {os.cpu_count()}; load average {load_text(os.getloadavg())}")
    best: dict[str, Timing] = {}
    work = Path(tempfile.mkdtemp(prefix="ragjury-bench-"))
    try:
        for round_number in range(1, args.rounds + 1):
            cache = work / f"cache-{round_number}.sqlite"
            command = [
                *(shlex.split(args.ragjury) if args.ragjury else ragjury_command()),
                "evaluate",
                "--task",
                "correctness",
                "--judge",
                "contains",
                "--data",
                str(args.data),
                "--cache",
                str(cache),
                "--out",
                str(work / "predictions.jsonl"),
                "--json",
                *args.extra,
            ]
            if round_number == 1:
                print("command: " + " ".join(command))
            print(f"round {round_number}")
            for label in ("fresh", "cached"):
                timing = run_once(command)
                check_cache_use(label, timing.summary)
                report(label, timing)
                if label not in best or timing.wall_s < best[label].wall_s:
                    best[label] = timing
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"best of {args.rounds}:")
    for label, timing in best.items():
        report(label, timing)


if __name__ == "__main__":
    main()
