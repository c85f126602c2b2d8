"""The test server's flags: the AMX check reads /proc/cpuinfo's flags, and --no-repack stays on
(measured faster prefill here; required where AMX kernels crash)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from llama_server import cpu_has_amx, repack_flags  # noqa: E402


def test_amx_is_read_from_the_flags_line() -> None:
    assert cpu_has_amx("processor : 0\nflags : fpu sse avx2 amx_tile amx_int8\n")
    assert not cpu_has_amx("processor : 0\nflags : fpu sse avx2 avx512f\n")
    assert not cpu_has_amx("model name : amx-like name\nflags : fpu\n")


def test_no_repack_on_every_cpu() -> None:
    assert repack_flags() == ["--no-repack"]
