"""Cold start of the CLI: `ragjury --help`, `ragjury evaluate --help` and a 40-row `--judge contains`
run against a bare two-command typer app's `hello --help`, interleaved in one run.

Why a benchmark and not a timed unit test: wall times on shared machines are noisy, so a test
would either flake or assert nothing. Why interleaved: the machine's load drifts, so each round
runs every command once, in a rotating order, and the ratios are of medians over the same rounds.
It prints the load average before and after. The targets (issue #55): both `--help`s within 1.5x
the bare app, the 40-row `contains` run within 2x `ragjury --help`.

Bytecode: the children run with ``PYTHONPYCACHEPREFIX`` set to a folder of this run (after one
warm-up round that writes it), so a machine with ``PYTHONDONTWRITEBYTECODE=1`` times what an
installed ragjury costs, not a compile of every module on each start; ``--no-bytecode`` times it
as the environment is.

    python bench/bench_cold_start.py                  # 15 rounds
    python bench/bench_cold_start.py --imports 7      # what the contains run imports that --help does not
    python bench/bench_cold_start.py --runs 31 --all-commands --json cold-start.json
    git archive REV | tar -x -C /tmp/before/ragjury; python bench/bench_cold_start.py --before /tmp/before
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
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROWS_40 = REPO / "examples" / "data" / "correctness.jsonl"

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

BARE = "bare typer app: hello --help"
HELP = "ragjury --help"
EVALUATE_HELP = "ragjury evaluate --help"
CONTAINS = "ragjury evaluate --judge contains (40 rows)"
TARGETS = {HELP: (BARE, 1.5), EVALUATE_HELP: (BARE, 1.5), CONTAINS: (HELP, 2.0)}
"""Each measured ratio: (the command it is divided by, the target)."""


def ragjury_command() -> list[str]:
    """The installed entry point beside this interpreter, else ``python cli.py`` from the clone."""
    script = Path(sys.executable).parent / "ragjury"
    if script.exists():
        return [str(script)]
    found = shutil.which("ragjury")
    return [found] if found else [sys.executable, str(REPO / "cli.py")]


def command_names(base: list[str], env: dict[str, str]) -> list[str]:
    """Sub-command names as ``ragjury --help`` lists them (typer's rich panel rows start with │)."""
    done = subprocess.run([*base, "--help"], capture_output=True, text=True, env={**env, "COLUMNS": "200"})
    names = []
    for line in done.stdout.splitlines():
        cells = line.strip("│ ").split()
        if line.startswith("│") and cells and cells[0].replace("-", "").isalpha() and not cells[0].startswith("-"):
            names.append(cells[0])
    return names


def import_times(argv: list[str], env: dict[str, str], work: Path, runs: int) -> dict[str, int]:
    """Each module's own import time in microseconds (``-X importtime``'s self column), the least of
    ``runs`` fresh starts: the least is the one least disturbed by the machine's other work."""
    least: dict[str, int] = {}
    for run in range(runs):
        cwd = work / f"imports-{len(list(work.iterdir()))}-{run}"
        cwd.mkdir()
        done = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], capture_output=True, text=True, env=env, cwd=cwd)
        for line in done.stderr.splitlines():
            if line.startswith("import time:") and "self [us]" not in line:
                own, _, name = line.split("|")
                least[name.strip()] = min(least.get(name.strip(), 10**9), int(own.split(":")[1]))
    return least


def print_imports(help_argv: list[str], run_argv: list[str], env: dict[str, str], work: Path, runs: int) -> None:
    """What the ``contains`` run imports that ``--help`` does not, by package (ragjury's by sub-package),
    own import times summed: the import side of the run's cost over ``--help``."""
    help_ = import_times(help_argv, env, work, runs)
    run = import_times(run_argv, env, work, runs)
    extra = {name: us for name, us in run.items() if name not in help_}
    groups: dict[str, int] = {}
    for name, us in extra.items():
        parts = name.split(".")
        key = ".".join(parts[:3]) if parts[0] == "ragjury" else parts[0]
        groups[key] = groups.get(key, 0) + us
    print(f"imports of the contains run that --help does not make (least of {runs} starts, own times): "
          f"{len(extra)} modules, {sum(extra.values()) / 1000:.1f} ms; --help's own: {sum(help_.values()) / 1000:.1f} ms")
    for key, us in sorted(groups.items(), key=lambda kv: -kv[1]):
        if us >= 500:
            print(f"  {us / 1000:6.1f} ms  {key}")


def wall(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=True, env=env, cwd=cwd)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15, help="rounds; each runs every command once")
    parser.add_argument("--all-commands", action="store_true", help="also every COMMAND --help")
    parser.add_argument("--no-bytecode", action="store_true", help="leave PYTHONDONTWRITEBYTECODE as it is")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--imports", type=int, metavar="N", default=0,
                        help="instead of timing: the modules the contains run imports that --help does not "
                             "(-X importtime, least of N starts each), by package")
    parser.add_argument(
        "--ragjury",
        help="the command that runs ragjury, e.g. 'python -m ragjury.cli' with PYTHONPATH set to compare an"
        " older checkout (default: the console script beside this interpreter)",
    )
    parser.add_argument(
        "--before",
        type=Path,
        help="a folder holding an older checkout as ragjury/ (git archive REV | tar -x -C DIR/ragjury): its three "
        "commands run in the same rounds through 'python -m ragjury.cli' with PYTHONPATH=DIR",
    )
    args = parser.parse_args()
    base = shlex.split(args.ragjury) if args.ragjury else ragjury_command()
    if args.before and not args.ragjury:  # both checkouts started the same way
        base = [sys.executable, "-m", "ragjury.cli"]
    work = Path(tempfile.mkdtemp(prefix="ragjury-cold-start-"))
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    if not args.no_bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    cases: dict[str, list[str]] = {
        BARE: [sys.executable, "-c", TINY_TYPER_APP, "hello", "--help"],
        HELP: [*base, "--help"],
        EVALUATE_HELP: [*base, "evaluate", "--help"],
        CONTAINS: [*base, "evaluate", "--task", "correctness", "--judge", "contains", "--data", str(ROWS_40),
                   "--no-progress"],
    }
    envs: dict[str, dict[str, str]] = {}
    if args.before:
        old = [sys.executable, "-m", "ragjury.cli"]
        for name in (HELP, EVALUATE_HELP, CONTAINS):
            cases[f"before: {name}"] = [*old, *cases[name][len(base):]]
            envs[f"before: {name}"] = {**env, "PYTHONPATH": str(args.before.resolve())}
    if args.all_commands:
        for name in command_names(base, env):
            cases.setdefault(f"ragjury {name} --help", [*base, name, "--help"])
    if args.imports:
        if base[0] != sys.executable:  # the console script: run its module under this interpreter
            base = [sys.executable, "-m", "ragjury.cli"]
        print_imports([*base, "--help"], [*base, *cases[CONTAINS][len(cases[HELP]) - 1:]], env, work, args.imports)
        shutil.rmtree(work, ignore_errors=True)
        return
    names = list(cases)
    load_before = os.getloadavg()
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(args.runs + 1):  # round 0 warms the bytecode and the page cache, not counted
        order = names[round_ % len(names):] + names[: round_ % len(names)]
        for name in order:
            cwd = work / f"run-{round_}-{names.index(name)}"  # a fresh folder: no judgment cache carried over
            cwd.mkdir()
            seconds = wall(cases[name], envs.get(name, env), cwd)
            if round_:
                times[name].append(seconds)
    load_after = os.getloadavg()
    shutil.rmtree(work, ignore_errors=True)
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.runs} interleaved rounds, medians; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after "
          f"(1 min), {os.cpu_count()} cores; bytecode {'as the environment has it' if args.no_bytecode else 'cached'}")
    print(f"{'command':<48} {'ms':>7} {'x bare':>7}")
    for name in names:
        print(f"{name:<48} {median[name] * 1000:7.0f} {median[name] / median[BARE]:7.2f}")
    ratios = {}
    for name, (over, target) in TARGETS.items():
        ratios[name] = median[name] / median[over]
        verdict = "ok" if ratios[name] <= target else "MISSED"
        print(f"ratio {name} / {over}: {ratios[name]:.2f} (target <= {target:g}: {verdict})")
        if args.before:
            earlier = median[f"before: {name}"] / median[f"before: {over}" if over != BARE else BARE]
            print(f"   before: {earlier:.2f}")
    if args.json:
        args.json.write_text(json.dumps({"runs": args.runs, "load_before": load_before, "load_after": load_after,
                                         "median_s": median, "ratios": ratios, "times_s": times}, indent=2))


if __name__ == "__main__":
    main()
