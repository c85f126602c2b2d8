"""``--executor ray``: the items not in the cache judged as a Ray Data pipeline on a local Ray,
with the same counts, cache and resume as in one process. One local Ray for the module."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from child_process import sigint_at_default  # noqa: E402
from fake_endpoints import fake_endpoint, fake_endpoints  # noqa: E402

from ragjury.config.settings import RagjurySettings  # noqa: E402
from ragjury.evals.runs.cache import JudgmentCache  # noqa: E402
from ragjury.evals.runs.ray_executor import RayJudge, ray_judge  # noqa: E402
from ragjury.evals.runs.runner import run_judgments  # noqa: E402
from ragjury.rag_agent.core.items import CorrectnessItem  # noqa: E402
from ragjury.rag_agent.judges.catalogue import build_judge  # noqa: E402


FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"


@pytest.fixture(scope="module")
def crash_marker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("crash") / "crashed"


@pytest.fixture(scope="module", autouse=True)
def local_ray(crash_marker: Path) -> Iterator[None]:
    path = os.pathsep.join(filter(None, [str(FIXTURES), os.environ.get("PYTHONPATH")]))
    ray.init(
        num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=80 * 1024 * 1024,
        runtime_env={"env_vars": {"PYTHONPATH": path, "RAGJURY_CRASH_MARKER": str(crash_marker)}},
    )
    yield
    ray.shutdown()


def _items(count: int) -> list[CorrectnessItem]:
    return [CorrectnessItem(question=f"q{i}", answer=f"a{i}", references=[f"a{i}" if i % 2 else "x"]) for i in range(count)]


def _on_ray(task: str, name: str, settings: RagjurySettings) -> RayJudge:
    return ray_judge(build_judge(task, name, settings), factory=partial(build_judge, task, name), settings=settings)


async def test_three_servers_one_dying_every_item_judged_once(tmp_path: Path) -> None:
    with fake_endpoints(2, latency_s=0.02, slots=2) as live, fake_endpoint(latency_s=0.02, slots=2, die_after=2) as dying:
        servers = [*live, dying]
        settings = RagjurySettings(
            _env_file=None, base_url=",".join(s.base_url for s in servers), judge_model="phi3:mini",
            http_retries=0, timeout_s=10, breaker_failures=2, concurrency=2,
        )
        judge = _on_ray("correctness", "llm", settings)
        judge.block_items = 1  # many small tasks: every worker (and so every server) gets some
        cache = JudgmentCache(tmp_path / "cache.sqlite")
        items = [*_items(30), *_items(5)]  # five duplicates: judged once each
        judgments, stats = await run_judgments(judge, items, cache=cache, progress=False)

        assert len(judgments) == 35 and not any(j.unscored for j in judgments), [j.unscored_reason for j in judgments]
        assert stats.judged == 30 and stats.duplicates == 5 and stats.cached == 0 and stats.unscored == 0
        assert stats.cached + stats.judged + stats.duplicates == stats.total
        assert stats.executor == "ray" and stats.as_dict()["executor"] == "ray"
        assert cache.count() == 30
        assert dying.answered <= 1
        by_url = {entry["url"]: entry for entry in stats.endpoints}
        assert set(by_url) == {s.base_url for s in servers}
        # The workers' counts are snapshots sent back with each batch, so a request answered after an
        # actor's last batch (or in a batch Ray re-ran) reaches the servers' count only: the workers
        # never claim more than the servers served, and the servers served every judged item.
        served = sum(s.answered for s in servers)
        assert stats.judged <= served and sum(entry["answered"] for entry in by_url.values()) <= served
        if dying.dead.is_set():  # Ray decides which worker gets which batch: it was sent work and died
            assert by_url[dying.base_url]["failures"] >= 1

        again, second = await run_judgments(judge, items, cache=cache, progress=False)  # resume: all cached
        assert second.cached == 35 and second.judged == 0
        assert [j.value for j in again] == [j.value for j in judgments]
        cache.close()


async def test_a_model_free_judge_gives_the_judgments_of_one_process(tmp_path: Path) -> None:
    settings = RagjurySettings(_env_file=None)
    items = _items(40)
    here, _ = await run_judgments(build_judge("correctness", "contains", settings), items, progress=False)
    cache = JudgmentCache(tmp_path / "cache.sqlite")
    there, stats = await run_judgments(_on_ray("correctness", "contains", settings), items, cache=cache, progress=False)
    assert [j.value for j in there] == [j.value for j in here]
    assert stats.judged == 40 and stats.endpoints == [] and cache.count() == 40
    cache.close()


async def test_a_worker_that_dies_loses_nothing(tmp_path: Path, crash_marker: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(FIXTURES))
    monkeypatch.setenv("RAGJURY_CRASH_MARKER", str(crash_marker))
    items = [*_items(20), CorrectnessItem(question="crash", answer="a", references=["a"])]
    cache = JudgmentCache(tmp_path / "cache.sqlite")
    judge = _on_ray("correctness", "python:crashing_judge:CrashOnceJudge", RagjurySettings(_env_file=None))
    judgments, stats = await run_judgments(judge, items, cache=cache, progress=False)
    assert crash_marker.exists()  # a worker died mid-batch
    assert stats.judged == 21 and stats.unscored == 0 and cache.count() == 21
    assert [j.value for j in judgments] == [item.references[0] in item.answer for item in items]
    cache.close()


def test_neither_the_package_nor_the_help_imports_ray() -> None:
    probe = (
        "import sys, ragjury, ragjury.cli\n"
        "from typer.testing import CliRunner\n"
        "result = CliRunner().invoke(ragjury.cli.app, ['--help'])\n"
        "assert result.exit_code == 0, result.output\n"
        "result = CliRunner().invoke(ragjury.cli.app, ['evaluate', '--help'])\n"
        "assert result.exit_code == 0, result.output\n"
        "print('ray' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_evaluate_on_ray_from_the_command_line(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from ragjury.cli import app

    data = Path(__file__).resolve().parents[4] / "examples" / "data" / "correctness.jsonl"
    command = ["evaluate", "--task", "correctness", "--judge", "contains", "--data", str(data), "--json",
               "--no-progress", "--cache", str(tmp_path / "cache.sqlite"), "--executor", "ray"]
    first = CliRunner().invoke(app, command)
    assert first.exit_code == 0, first.output
    payload = json.loads(first.stdout)
    assert payload["executor"] == "ray" and payload["judged"] == payload["n"] == 40
    second = json.loads(CliRunner().invoke(app, command).stdout)  # resumed: everything from the cache
    assert second["cached"] == 40 and second["judged"] == 0


def test_without_ray_the_executor_is_one_line_and_exit_2() -> None:
    data = Path(__file__).resolve().parents[4] / "examples" / "data" / "correctness.jsonl"
    probe = (
        "import sys\n"
        "sys.modules['ray'] = None  # as if the 'ray' extra were not installed\n"
        "from ragjury.cli import main\n"
        f"sys.argv = ['ragjury', 'evaluate', '--task', 'correctness', '--judge', 'contains', '--data', {str(data)!r},"
        " '--no-cache', '--executor', 'ray']\n"
        "main()\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2
    assert result.stderr.strip() == "error: --executor ray needs Ray (no module ray): install it: pip install 'ragjury[ray]'"


def _pool_on_ray(urls: list[str], **extra: object) -> RayJudge:
    options: dict[str, object] = {"http_retries": 0, "timeout_s": 1, "breaker_failures": 2, "concurrency": 2, **extra}
    settings = RagjurySettings(_env_file=None, base_url=",".join(urls), judge_model="phi3:mini", **options)
    judge = _on_ray("correctness", "llm", settings)
    judge.block_items = 2  # several batches, so both workers (and both servers) get some
    return judge


async def test_a_pool_with_a_hung_server_finishes_on_ray() -> None:
    import time

    with fake_endpoint(latency_s=0.01) as healthy, fake_endpoint(hang=True) as hung:
        judge = _pool_on_ray([healthy.base_url, hung.base_url])
        started = time.perf_counter()
        judgments, stats = await run_judgments(judge, _items(20), progress=False)
        elapsed = time.perf_counter() - started
        sent_to_hung = hung.received
    assert stats.judged == 20 and stats.unscored == 0, [j.unscored_reason for j in judgments if j.unscored]
    assert sent_to_hung <= 2 * (2 + 4), sent_to_hung  # per worker: the breaker's two timeouts and what was in flight
    # a bound, not a timing: starting the actors on two busy cores takes most of it; one deadline
    # (1 s) per item sent to the hung server, in turn, would be 20 s more
    assert elapsed < 90, f"{elapsed:.1f}s for 20 items on Ray with one hung server of two"


async def test_a_hung_server_costs_seconds_not_its_deadline_on_ray() -> None:
    """The worker bound to a hung server got no answers of its own (Ray gives the next batch to a
    less busy worker), so its requests there were never hedged and waited the whole deadline (60 s
    here: the run took over a minute). Workers now share their latencies and trips: those requests
    are hedged after seconds, and no worker sends the hung server more than its slots."""
    import time

    with fake_endpoints(2, latency_s=0.01) as healthy, fake_endpoint(hang=True) as hung:
        judge = _pool_on_ray([*(server.base_url for server in healthy), hung.base_url], timeout_s=60)
        judge.block_items = 1
        started = time.perf_counter()
        judgments, stats = await run_judgments(judge, _items(60), progress=False)
        elapsed = time.perf_counter() - started
        sent_to_hung = hung.received
    assert stats.judged == 60 and stats.unscored == 0, [j.unscored_reason for j in judgments if j.unscored]
    assert sent_to_hung <= 3 * 2, sent_to_hung  # three workers, two slots each, at most, before the trip is shared
    assert elapsed < 60, f"{elapsed:.1f}s: an item waited its whole deadline (60 s) on the hung server"


async def test_a_key_refused_mid_run_on_ray() -> None:
    from ragjury.rag_agent.model.config_errors import ModelServerConfigError

    with fake_endpoint(latency_s=0.01) as healthy, fake_endpoint(refuse_after=2) as refusing:
        judgments, stats = await run_judgments(_pool_on_ray([healthy.base_url, refusing.base_url]), _items(20),
                                               progress=False)
    assert stats.judged == 20 and stats.unscored == 0, [j.unscored_reason for j in judgments if j.unscored]
    with fake_endpoint(refuse_after=3) as alone:
        with pytest.raises(ModelServerConfigError, match=f"HTTP 401 from {alone.base_url}"):
            await run_judgments(_pool_on_ray([alone.base_url]), _items(20), progress=False)


def _evaluate_on_ray(base_url: str, cache: Path) -> subprocess.Popen[str]:
    """``ragjury evaluate --executor ray`` in a session of its own (a terminal's Ctrl-C reaches the
    whole process group: the driver and the Ray processes it started)."""
    data = Path(__file__).resolve().parents[4] / "examples" / "data" / "correctness.jsonl"
    command = [str(Path(sys.executable).with_name("ragjury")), "evaluate", "--task", "correctness", "--judge", "llm",
               "--data", str(data), "--base-url", base_url, "--model", "phi3:mini", "--cache", str(cache), "--json",
               "--no-progress", "--executor", "ray", "--concurrency", "2"]
    env = {**os.environ, "RAGJURY_HTTP_RETRIES": "0", "RAGJURY_TIMEOUT_S": "5"}
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True, preexec_fn=sigint_at_default)  # noqa: PLW1509


def _ray_daemons() -> set[int]:
    """The pids of the Ray daemons running on this machine (GCS and raylet)."""
    import psutil

    names = {"gcs_server", "raylet"}
    return {process.pid for process in psutil.process_iter(["name"]) if process.info["name"] in names}


def _wait_for(predicate: Callable[[], bool], timeout_s: float) -> None:
    import time

    ends = time.monotonic() + timeout_s
    while not predicate() and time.monotonic() < ends:
        time.sleep(0.1)
    assert predicate(), f"not within {timeout_s}s"


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_ctrl_c_or_a_killed_driver_stops_a_ray_run(sig: str, tmp_path: Path) -> None:
    import json
    import signal
    import time

    before = _ray_daemons()
    with fake_endpoint(latency_s=0.3, slots=2) as server:
        run = _evaluate_on_ray(server.base_url, tmp_path / "cache.sqlite")
        try:
            _wait_for(lambda: server.answered >= 8, 120)
            os.killpg(run.pid, getattr(signal, sig))  # the whole group, as a terminal or `timeout` does
            out, err = run.communicate(timeout=30)  # it stops: no run to the end
        finally:
            if run.poll() is None:
                os.killpg(run.pid, signal.SIGKILL)
        received = server.received
        time.sleep(3)
        orphans = server.received - received
    # No worker outlives its driver to send requests nobody reads: at most the requests already past
    # the driver check when it died (one per slot) arrive late on a busy machine (seen: 1 of 2).
    assert orphans <= 2
    # nor any daemon the run started (they run in a session of their own: the driver stops them,
    # and the kernel does if the driver was killed)
    _wait_for(lambda: not (_ray_daemons() - before), 30)
    assert server.received < 42  # it did not run to the end (a whole run sends 42)
    cache = JudgmentCache(tmp_path / "cache.sqlite")
    saved = cache.count()
    cache.close()
    if sig in ("SIGINT", "SIGTERM"):  # SIGTERM ends like Ctrl-C (not in Ray's abort, rc -6), exit 143
        # exit 1 and no output, 1 run in 8 on a loaded machine, while the group's signal also killed
        # the raylet: Ray's core ended the driver before it could save and print
        assert run.returncode == (130 if sig == "SIGINT" else 143), (out[:300], err[-2000:])
        assert json.loads(out)["interrupted"] is True and "Traceback" not in err
        assert saved >= server.answered - 2 * 2  # what was answered is saved, but for requests in flight
    else:
        assert run.returncode == -9 and saved <= server.answered


def test_a_ray_run_prints_no_line_of_ray_s_own(tmp_path: Path) -> None:
    """Ray's C++ core announced its log level on stderr ("[... I ...] logging.cc:303: Set ray log
    level ...") on every run: a user's stderr holds only ragjury's lines."""
    import sys

    data = Path(__file__).resolve().parents[4] / "tests" / "fixtures" / "pipeline_correctness.jsonl"
    command = [str(Path(sys.executable).with_name("ragjury")), "evaluate", "--task", "correctness", "--judge",
               "contains", "--data", str(data), "--no-progress", "--no-cache", "--executor", "ray", "--json"]
    env = {key: value for key, value in os.environ.items() if not key.startswith("RAY_")}
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    assert json.loads(done.stdout)["scored"] == 20


def test_sigterm_while_ray_starts_prints_a_line_and_exits_143(monkeypatch, capsys) -> None:
    """#54 item 36: Ray's own SIGTERM handler ends the process with exit 15 and nothing printed when
    the signal lands during ``ray.init``; it is now one line and the SIGTERM exit code."""
    import pytest

    from ragjury.evals.runs import ray_executor

    def init(**_: object) -> None:
        raise SystemExit(15)  # what Ray's handler raises for SIGTERM

    monkeypatch.setattr(ray_executor.ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray_executor.ray, "init", init)
    with pytest.raises(SystemExit) as ended:
        ray_executor.start_ray()
    assert ended.value.code == 143
    assert "SIGTERM while Ray was starting" in capsys.readouterr().err
