"""Run a command in a pseudo-terminal of a given size and read what a person would see.

Output only a terminal gets (rich's live progress, line wrapping at the terminal's width) cannot
be tested through pipes: ``run_in_terminal`` gives the command a real pty (Python's ``pty``),
sized with ``TIOCSWINSZ``, and returns its exit code and the text, ANSI codes removed.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time
from collections.abc import Sequence

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]|\x1b[=>]")
QUIET = ("COLUMNS", "LINES", "CI", "FORCE_COLOR", "NO_COLOR", "TERM", "PYTEST_CURRENT_TEST")


def terminal_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a person at an xterm: the width comes from the terminal, not $COLUMNS."""
    env = {key: value for key, value in os.environ.items() if key not in QUIET}
    return env | {"TERM": "xterm"} | (extra or {})


def run_in_terminal(
    argv: Sequence[str], *, columns: int = 80, rows: int = 40, env: dict[str, str] | None = None,
    timeout_s: float = 120.0,
) -> tuple[int, str]:
    """``argv`` with stdin, stdout and stderr on one pty of ``columns`` x ``rows``."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    process = subprocess.Popen(list(argv), stdin=slave, stdout=slave, stderr=slave, env=env or terminal_env(),
                               close_fds=True, start_new_session=True)
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the command closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        code = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    return code, b"".join(chunks).decode("utf-8", errors="replace")


def screen_lines(text: str) -> list[str]:
    """The lines as drawn: ANSI codes removed, each carriage-return overwrite kept as its own line."""
    plain = ANSI.sub("", text)
    return [part for line in plain.split("\n") for part in line.split("\r") if part.strip()]


__all__ = ["run_in_terminal", "screen_lines", "terminal_env"]
