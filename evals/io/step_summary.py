"""Append to GitHub Actions' step summary ($GITHUB_STEP_SUMMARY) without ever harming the run.

Why its own module: the path comes from the environment, so it may point anywhere — at an input
of the run (or a symlink to one), a directory, ``/dev/full``, a missing folder, a FIFO nobody reads,
the run's ``--cache`` database (which no command passes as an input). The summary is a courtesy: it
is never written to an input, nor into a file that is not a summary (a SQLite database, anything with
a NUL byte, a JSON or JSONL file such as a labels or calibration file no command passed as an input:
Markdown appended there would corrupt it), never blocks (a FIFO or other special file is
refused before it is opened), and a failure to write it is one warning line that changes neither
the exit code nor the verdict printed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ragjury.evals.io.atomic_io import same_file


def append_step_summary(text: str, inputs: Iterable[str | Path] = ()) -> str | None:
    """Append ``text`` to $GITHUB_STEP_SUMMARY where it is set; returns a warning line when it could
    not be (None when written or not asked for)."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    where = f"$GITHUB_STEP_SUMMARY ({target})"
    try:
        resolved = Path(target).resolve()
        for path in inputs:
            if path is not None and Path(path).exists() and same_file(resolved, path):
                return f"warning: {where} is an input of this run ({path}): step summary not written"
        if resolved.exists():
            mode = os.stat(resolved).st_mode
            if not stat.S_ISREG(mode):
                kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
                return f"warning: {where} is {kind}: step summary not written"
            kind = _not_text(resolved)
            if kind is not None:
                return f"warning: {where} is {kind}, not a step summary: step summary not written"
        fd = os.open(resolved, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o644)
        try:
            os.write(fd, text.encode("utf-8"))
        finally:
            os.close(fd)
    except OSError as error:
        return f"warning: {where}: step summary not written ({error.strerror or error})"
    return None


SNIFF = 4096
"""Bytes read from the start of an existing summary file to tell text from a database or binary."""


def _not_text(path: Path) -> str | None:
    """What an existing file is when it cannot be a step summary (a SQLite database such as a
    judgment cache, binary data, JSON or JSONL data: a summary is Markdown), else None."""
    with open(path, "rb") as handle:
        head = handle.read(SNIFF)
    if head.startswith(b"SQLite format 3\x00"):
        return "a SQLite database (a --cache file?)"
    if b"\x00" in head:
        return "a binary file"
    if head.lstrip()[:1] in (b"{", b"["):
        return "a JSON file (an input of a run?)"
    return None


__all__ = ["append_step_summary"]
