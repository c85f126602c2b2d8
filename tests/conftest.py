"""Shared fixtures: a real llama-server for integration tests, and paths to benchmark data.

The server is built into a cache outside the clone on first use (see ``tests/llama_server.py``),
started once per test session on a free loopback port, and stopped by its own pid.
Set ``RAGJURY_SKIP_INTEGRATION=1`` to skip integration tests in a quick local loop; CI never sets it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from llama_server import RunningServer, running_server  # noqa: E402

from ragjury.config.settings import RagjurySettings  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip = os.environ.get("RAGJURY_SKIP_INTEGRATION") == "1"
    for item in items:
        if "tests/integration" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.integration)
            if skip:
                item.add_marker(pytest.mark.skip(reason="RAGJURY_SKIP_INTEGRATION=1"))


@pytest.fixture(scope="session")
def llm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A real llama-server (SmolLM2-135M, aliased ``phi3:mini``) for the whole session."""
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with running_server(log_path=log) as server:
        yield server


@pytest.fixture
def server_settings(llm_server: RunningServer) -> RagjurySettings:
    """Settings that point every judge at the test server, with room for the JSON output.

    Temperature 0: the tiny model tests the plumbing, and sampling made it now and then ramble past
    the token cap (an unscored judgment, correctly reported, failing a test about something else).
    Greedy decoding gives the same output on every run.
    """
    return RagjurySettings(
        base_url=llm_server.base_url, max_tokens=384, timeout_s=300, retries=2, concurrency=1, temperature=0.0
    )


@pytest.fixture(scope="session")
def benchmarks_dir() -> Path:
    """``../shared/benchmarks`` beside the clone (or ``$RAGJURY_BENCHMARKS``)."""
    configured = os.environ.get("RAGJURY_BENCHMARKS")
    path = Path(configured) if configured else REPO_ROOT.parent / "shared" / "benchmarks"
    if not path.exists():
        pytest.skip(f"benchmark data not found at {path}")
    return path


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def tiny_cross_encoder_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny BERT cross-encoder (``tests/tiny_cross_encoder.py``) built once per session and only
    read: a test that breaks or swaps its files copies it first. Skipped without torch,
    transformers and onnxruntime."""
    for module in ("torch", "transformers", "onnxruntime"):
        pytest.importorskip(module)
    import tiny_cross_encoder

    return tiny_cross_encoder.build(tmp_path_factory.mktemp("cross-encoder") / "model")


@pytest.fixture
def offline_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A CLI test's world: no model server (a closed port, no HTTP retries), no .env or
    RAGJURY_BASE_URL from the machine, a judgment cache and the working folder inside the test's
    own folder, and fresh settings before and after. Yields that folder."""
    from ragjury.config.settings import get_settings

    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    monkeypatch.setenv("RAGJURY_HTTP_RETRIES", "0")
    monkeypatch.setenv("RAGJURY_CACHE_PATH", str(tmp_path / "cache.sqlite"))
    monkeypatch.delenv("RAGJURY_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()
