"""Cold start of the CLI: how long `ragjury --help` and each `ragjury COMMAND --help` take, against
the import time of typer + rich alone (the floor any typer CLI pays).

Why a benchmark and not a timed unit test: wall times on shared machines are noisy, so a test
would either flake or assert nothing. This prints medians of repeated runs, the ratio to the floor,
and the load average, so a reader can judge how quiet the machine was.

    python bench/bench_cold_start.py                 # 7 runs of each
    python bench/bench_cold_start.py --runs 15 --json cold-start.json
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

FLOOR = [sys.executable, "-c", "import typer, rich.console, rich.table"]

TINY_TYPER_APP = """
from typing import Annotated
import typer
app = typer.Typer()
@app.command()
def hello(name: Annotated[str, typer.Option(help="who")] = "x") -> None:
    \"\"\"Say hello.\"\"\"
@app.command()
def bye() -> None:
    \"\"\"Say bye.\"\"\"
app()
"""
"""A two-command typer app: its ``hello --help`` is what typer itself pays to render one command's
help (it loads its rich help formatter and its pydantic adapter), before any code of ragjury's."""


def ragjury_command() -> list[str]:
    """The installed entry point beside this interpreter, else ``python cli.py`` from the clone."""
    script = Path(sys.executable).parent / "ragjury"
    if script.exists():
        return [str(script)]
    found = shutil.which("ragjury")
    return [found] if found else [sys.executable, str(Path(__file__).resolve().parents[1] / "cli.py")]


def commands(base: list[str]) -> list[str]:
    """Sub-command names as ``ragjury --help`` lists them (typer's rich panel rows start with │)."""
    done = subprocess.run([*base, "--help"], capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})
    names = []
    for line in done.stdout.splitlines():
        cells = line.strip("│ ").split()
        if line.startswith("│") and cells and cells[0].replace("-", "").isalpha() and not cells[0].startswith("-"):
            names.append(cells[0])
    return names


def median_wall(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--ragjury",
        help="the command that runs ragjury, e.g. 'python -m ragjury.cli' with PYTHONPATH set to compare an"
        " older checkout (default: the console script beside this interpreter)",
    )
    args = parser.parse_args()
    base = shlex.split(args.ragjury) if args.ragjury else ragjury_command()
    floor = median_wall(FLOOR, args.runs)
    tiny = median_wall([sys.executable, "-c", TINY_TYPER_APP, "hello", "--help"], args.runs)
    rows = [("ragjury --help", median_wall([*base, "--help"], args.runs))]
    rows += [(f"ragjury {name} --help", median_wall([*base, name, "--help"], args.runs)) for name in commands(base)]
    load = os.getloadavg()[0]
    print(f"floor (python -c 'import typer, rich'): {floor * 1000:.0f} ms; median of {args.runs}; "
          f"load average {load:.2f} on {os.cpu_count()} cores")
    print(f"{'command':<36} {'ms':>7} {'x floor':>8}")
    print(f"{'(a two-command typer app: hello --help)':<36} {tiny * 1000:7.0f} {tiny / floor:8.2f}")
    for label, seconds in rows:
        print(f"{label:<36} {seconds * 1000:7.0f} {seconds / floor:8.2f}")
    worst = max(seconds for _, seconds in rows) / floor
    print(f"worst ratio {worst:.2f} (target <= 3)")
    if args.json:
        args.json.write_text(json.dumps({"floor_s": floor, "tiny_typer_app_s": tiny, "load": load, "runs": args.runs,
                                         "rows": {label: seconds for label, seconds in rows}}, indent=2))


if __name__ == "__main__":
    main()
