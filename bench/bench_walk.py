"""The walk of a command through the evals floor: which modules it enters, in order, and how often
it climbs back up a layer (``docs/layout.md`` shows the result).

From the command's own function on, the first call of each distinct function in a
``ragjury.commands`` or ``ragjury.evals`` module is recorded, in order (sys.setprofile): a walk of
the calls made, each once, as a reader following the code would meet them. Consecutive functions of
one module are one *stay*; a *climb* is a stay in a higher layer than the one before it (commands >
evals.pipelines > evals.report > evals.results > evals.runs > evals.stats > evals.io), i.e. the walk
going back up. What an import runs is no step of the walk: a module's own code, and what that code
runs (class bodies, the methods ``@dataclass`` makes), whichever call first imports the module.

The walks: ``evaluate --out --json`` and ``--out --json --html`` (model-free judge), ``report A B
--html --json`` of their two predictions files, with and without ``--fail-if-worse``, and
``evaluate --judge rubric:FILE`` against the fake model server of ``tests/fake_endpoints.py`` (in
this process, on a free loopback port), so nothing waits on a real server; and, with people's labels
(a ``label-plan A B --budget 60`` filled from the judge's verdicts, every fifth one turned, so that
people and judge disagree somewhere), ``estimate A B --labels`` and ``report A B --labels --json``.

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
    started = None
    command = argv[0]

    def profile(frame, event, _arg):  # type: ignore[no-untyped-def]
        nonlocal started
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if started is None:
            if module != f"ragjury.commands.{command}" or frame.f_code.co_name != command:
                return
            started = frame
        if (rank(module) < 0 or module.endswith("_common") or module.endswith("_options") or frame.f_code in seen
                or frame.f_code.co_name == "<module>" or importing(frame, started)):
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


def importing(frame, command) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``frame`` runs inside an import (a module's code between it and the command's frame):
    a class body, a method ``@dataclass`` makes, a constant computed at import."""
    outer = frame.f_back
    while outer is not None and outer is not command:
        if outer.f_code.co_name == "<module>":
            return True
        outer = outer.f_back
    return False


def show(title: str, stays: list[str]) -> None:
    climbs = sum(rank(b) > rank(a) for a, b in zip(stays, stays[1:]))
    short = [s.removeprefix("ragjury.") for s in stays]
    print(f"{title}: {len(stays)} stays in {len(set(stays))} modules, {climbs} climbs back up a layer")
    print("  " + " > ".join(short))


def quiet(argv: list[str]) -> list[str]:
    """The walk of ``argv``, its output dropped."""
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return walk(argv)


def filled_plan(a: Path, b: Path, out: Path) -> Path:
    """A ``label-plan A B`` of 60 items (not walked), each labelled with the judge's verdict and
    every fifth turned: the labels file of the two ``--labels`` walks."""
    import json

    from typer.testing import CliRunner

    from ragjury.cli import app

    result = CliRunner().invoke(app, ["label-plan", str(a), str(b), "--budget", "60", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    for k, row in enumerate(rows):
        row["label"] = bool(row["judge_label"]) != (k % 5 == 0)
    out.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return out


def main() -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from fake_endpoints import fake_endpoint

    data = ROOT / "examples" / "data"
    rubric = ROOT / "examples" / "rubrics"
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        a, b = folder / "a.jsonl", folder / "b.jsonl"
        walks: dict[str, list[str]] = {}
        for out, config in ((a, "config_a"), (b, "config_b")):
            evaluate = ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data / f"{config}.jsonl"),
                        "--out", str(out), "--no-cache", "--no-progress", "--json"]
            stays = quiet(evaluate)  # both configs judged (report compares them); config_a's walk shown
            walks.setdefault("evaluate --task correctness --out --json", stays)
        walks["evaluate --task correctness --out --json --html"] = quiet([*evaluate, "--html", str(folder / "e.html")])
        report = ["report", str(a), str(b), "--html", str(folder / "r.html"), "--json"]
        walks["report A B --html --json"] = quiet(report)
        walks["report A B --html --json --fail-if-worse 0.02"] = quiet([*report, "--fail-if-worse", "0.02"])
        plan = filled_plan(a, b, folder / "plan.jsonl")
        walks["estimate A B --labels"] = quiet(["estimate", str(a), str(b), "--labels", str(plan)])
        walks["report A B --labels --json"] = quiet(["report", str(a), str(b), "--labels", str(plan), "--json"])
        with fake_endpoint() as server:
            walks["evaluate --task faithfulness --judge rubric:FILE --out"] = quiet([
                "evaluate", "--task", "faithfulness", "--judge", f"rubric:{rubric / 'cites-source.yaml'}", "--data",
                str(rubric / "data" / "cites-source.jsonl"), "--base-url", server.base_url, "--out",
                str(folder / "rubric.jsonl"), "--no-cache", "--no-progress"])
    for title, stays in walks.items():
        show(title, stays)


if __name__ == "__main__":
    main()
