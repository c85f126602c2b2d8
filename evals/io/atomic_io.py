"""Writing outputs so that they never destroy an input and never leave half a file.

Every command writes through here, so ``--out data.jsonl`` cannot replace the dataset just read
(outputs are checked against inputs, links included, before any work) and a kill cannot leave a
torn file (a temporary beside the target is ``os.replace``-d over it: old file or new, never a mix).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from ragjury.rag_agent.core.input_files import InputError

PathArg = str | os.PathLike[str]
NamedPaths = Iterable[tuple[str, PathArg | None]]
"""(option name, path) pairs, e.g. ``[("--out", out), ("--html", html)]``; ``None`` paths are skipped."""

TEMP_SUFFIX = ".tmp"

SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")
"""Files SQLite keeps beside a database (``X.sqlite-wal``...): part of the ``--cache`` input, and
deleted by SQLite when the cache closes, so an output there would vanish after the run."""


def _companions(option: str, path: Path) -> list[tuple[str, Path]]:
    """SQLite's companion files of the cache (beside the path given and the file it links to)."""
    if option != "--cache":
        return []
    bases = dict.fromkeys([path, Path(os.path.realpath(path))])
    return [(option, base.with_name(base.name + suffix)) for base in bases for suffix in SQLITE_COMPANIONS]


def same_file(first: PathArg, second: PathArg) -> bool:
    """Whether two paths name one file: the same inode when both exist (symlinks and hard links
    included), else the same resolved path (an output that does not exist yet)."""
    try:
        return os.path.samefile(first, second)
    except OSError:
        return Path(first).resolve() == Path(second).resolve()


def one_existing_file(first: PathArg, second: PathArg) -> bool:
    """Whether two paths are one file that exists (``report A A``); False where either is absent or
    is no file at all (an in-memory run's ``<correctness result>``), unlike ``same_file``."""
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


def _present(paths: NamedPaths) -> list[tuple[str, Path]]:
    """The given paths, standard input (``-``) and absent options left out."""
    return [(option, Path(path)) for option, path in paths if path is not None and str(path) != "-"]


def check_output_target(option: str, path: PathArg) -> None:
    """An output must be a file path in an existing, writable folder: checked before any
    judging, so a typo costs nothing rather than a whole batch."""
    target = Path(path)
    if target.is_dir():
        raise InputError(option, f"{target} is a folder; give a file path to write")
    if target.exists() and not target.is_file():
        raise InputError(
            option,
            f"{target} is not a regular file (a device, FIFO or socket): outputs are written to regular "
            "files only (use --json for standard output)",
        )
    folder = target.parent
    if not folder.is_dir():
        raise InputError(option, f"{target}: folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(option, f"{target}: folder {folder} is not writable")


def check_output_paths(outputs: NamedPaths, inputs: NamedPaths) -> None:
    """Refuse, before any work, outputs that would destroy an input or each other.

    Raises ``InputError`` naming the output option and path and the input it collides with.
    """
    written = _present(outputs)
    read = _present(inputs)
    for option, path in written:
        check_output_target(option, path)
        for input_option, input_path in read:
            if same_file(path, input_path):
                raise InputError(
                    option,
                    f"{path} is the input {input_option} {input_path}: ragjury never overwrites "
                    "an input; write the output elsewhere",
                )
            for _, companion in _companions(input_option, input_path):
                if same_file(path, companion):
                    raise InputError(
                        option,
                        f"{path} is a file SQLite keeps beside the input {input_option} {input_path} "
                        "(it is deleted when the cache closes); write the output elsewhere",
                    )
    for index, (option, path) in enumerate(written):
        for other_option, other in written[index + 1 :]:
            if same_file(path, other):
                raise InputError(
                    other_option, f"{other} is also the output {option} {path}: give each output its own file"
                )


def _temporary_beside(target: Path) -> tuple[int, Path]:
    """A new, uniquely named file in the target's folder (so the final rename stays on one file
    system), created with the permissions a plain ``open`` would give it (umask applied)."""
    while True:
        temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temporary
        except FileExistsError:
            continue


@contextlib.contextmanager
def open_atomic(path: PathArg) -> Iterator[IO[str]]:
    """A text handle whose content replaces ``path`` only when the ``with`` block succeeds.

    On any error (including Ctrl-C) the temporary file is removed and ``path`` is untouched.
    Lines are written with ``\\n`` endings on every platform.
    """
    target = Path(os.path.realpath(path))  # through a symlink: the file it names is replaced, the link stays
    if target.exists() and not (target.is_file() or target.is_dir()):  # a folder fails below, as OSError
        raise InputError(str(path), "not a regular file: outputs are written to regular files only")
    try:
        descriptor, temporary = _temporary_beside(target)
    except FileNotFoundError as error:  # the folder vanished since the paths were checked: name it, not a temp file
        raise OSError(error.errno, f"its folder {target.parent} no longer exists", str(path)) from None
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="\n") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            os.chmod(temporary, target.stat().st_mode & 0o7777)  # keep the mode the user gave it
        os.replace(temporary, target)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if error.filename is None or str(error.filename) == str(temporary):  # name the user's file, not ours
            raise OSError(error.errno, error.strerror, str(path)) from None
        raise
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_text_atomic(path: PathArg, text: str) -> Path:
    """Replace ``path`` with ``text`` (UTF-8) atomically; see ``open_atomic``."""
    with open_atomic(path) as handle:
        handle.write(text)
    return Path(path)


__all__ = [
    "NamedPaths",
    "PathArg",
    "TEMP_SUFFIX",
    "check_output_paths",
    "check_output_target",
    "open_atomic",
    "one_existing_file",
    "same_file",
    "write_text_atomic",
]
