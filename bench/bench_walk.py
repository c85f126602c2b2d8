"""The walk of a command through the evals floor: which modules it enters, in order, and how often
it climbs back up a layer (``docs/layout.md`` shows the result).

From the command's own function on, the first call of each distinct function in a
``ragjury.commands`` or ``ragjury.evals`` module is recorded, in order (sys.setprofile): a walk of
the calls made, each once, as a reader following the code would meet them. Consecutive functions of
one module are one *stay*; a *climb* is a stay in a higher layer than the one before it (commands >
evals.pipelines > evals.report > evals.results > evals.runs > evals.stats > evals.io), i.e. the walk
going back up.
Model-free judge, so nothing waits on a server.

Run:  .venv/bin/python bench/bench_walk.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORDER = ("ragjury.evals.io", "ragjury.evals.stats", "ragjury.evals.runs", "ragjury.evals.results",
         "ragjury.evals.report", "ragjury.evals.pipelines", "ragjury.commands")


def rank(module: str) -> int:
    return next((k for k, prefix in enumerate(ORDER) if module.startswith(prefix)), -1)


def walk(argv: list[str]) -> list[str]:
    from ragjury.cli import app

    stays: list[str] = []
    seen: set[object] = set()
    started = False
    command = argv[0]

    def profile(frame, event, _arg):  # type: ignore[no-untyped-def]
        nonlocal started
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not started:
            started = module == f"ragjury.commands.{command}" and frame.f_code.co_name == command
            if not started:
                return
        if (rank(module) < 0 or module.endswith("_common") or module.endswith("_options") or frame.f_code in seen
                or frame.f_code.co_name == "<module>"):  # an import's module code is no step of the walk
            return
        seen.add(frame.f_code)
        if not stays or stays[-1] != module:
            stays.append(module)

    sys.setprofile(profile)
    try:
        app(argv, standalone_mode=False)
    except SystemExit:
        pass
    finally:
        sys.setprofile(None)
    return stays


def show(title: str, stays: list[str]) -> None:
    climbs = sum(rank(b) > rank(a) for a, b in zip(stays, stays[1:]))
    short = [s.removeprefix("ragjury.") for s in stays]
    print(f"{title}: {len(stays)} stays in {len(set(stays))} modules, {climbs} climbs back up a layer")
    print("  " + " > ".join(short))


def main() -> None:
    import contextlib
    import io

    with tempfile.TemporaryDirectory() as folder:
        a, b = Path(folder) / "a.jsonl", Path(folder) / "b.jsonl"
        runs = {}
        for out, config in ((a, "config_a"), (b, "config_b")):
            argv = ["evaluate", "--task", "correctness", "--judge", "contains", "--data",
                    str(ROOT / "examples" / "data" / f"{config}.jsonl"), "--out", str(out), "--no-cache", "--no-progress",
                    "--json"]
            with contextlib.redirect_stdout(io.StringIO()):
                runs[config] = walk(argv)
        show("evaluate --task correctness --out --json", runs["config_a"])
        with contextlib.redirect_stdout(io.StringIO()):
            stays = walk(["report", str(a), str(b), "--html", str(Path(folder) / "r.html"), "--json"])
        show("report A B --html --json", stays)


if __name__ == "__main__":
    main()
